"""Measure every ladder bot and shipped checkpoint with the Eve/Bob decoders (issue 18).

Each policy plays ``--matches`` matches against ``counter`` (6 players: against two counter teams) on
the PPO evaluation config (round 60 s, 3 points, at most 10 rounds); the same matches give its win
rate against counter and its secrecy (Eve/Bob time-matched AUCs, gap with a match bootstrap CI; the
count-matched ones beside them).
Results accumulate in ``docs/results/secrecy/secrecy.json`` (``--out DIR``: ``DIR/secrecy.json``; a
policy already there is skipped, so the job can be stopped and resumed; ``--redo`` measures it again and
replaces its row; each row keeps the matches, seed and command it was measured with); then the table
``secrecy.md`` and the frontier plot ``frontier.png`` are written beside it (with best-response win
rates from the ``exploit_*.json`` there, where measured), and, for the default folder only, the table's
copy in ``docs/evaluation.md`` (between its ``secrecy:begin``/``end`` markers).

    OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py --matches 200
    OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py --matches 20 --only honest --out /tmp/frontier
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from baselines.exploit import EVAL_CONFIG as CONFIG
from baselines.exploit import EVAL_MAX_ROUNDS as MAX_ROUNDS
from quatro_env.common.cli import OneLineParser, int_in, one_line_error, output_dir_problem
from quatro_env.eval.harness import evaluate
from quatro_env.eval.policies import as_policy
from quatro_env.eval.runner import MAX_WORKERS, MatchRunner
from quatro_env.quatro import QuatroConfig

ROOT = Path(__file__).resolve().parents[1]
#: the committed results folder: every script's default, so the recorded commands write where they did
OUT = ROOT / "docs" / "results" / "secrecy"
#: the order is the order of measurement: the references of the scale and ppo_4p first
FIRST = ("honest", "cover", "shout", "ppo_4p", "counter", "ppo_4p_secrecy_cost", "decoy", "eavesdropper")
BOTS = (
    *("honest", "cover", "cover:beat=false", "cover:split=true", "shout"),
    *("counter", "decoy", "eavesdropper", "collector"),
)
#: the ladder's other rungs, measured last: they seldom or never hold a quartet (no decoder row then)
LADDER_REST = ("random", "random_caller", "listener")
CALLS_INTRO = (
    "How each best response wins: both sides' calls on its final matches (`calls` of `quatro-exploit`; "
    "rows whose run recorded them), and at 4 players the share of the response's points from its right "
    "«Quatro» calls (pace), its right «Contra» calls (reading the code) and the policy's wrong calls."
)


def match_runner(policy: str, opponent: str = "counter") -> MatchRunner:
    """POLICY against OPPONENT at 4 players on this config, for the scripts that read the matches
    themselves (the ablation, the data-size study, the code behaviour)."""
    cfg = QuatroConfig(num_players=4, **CONFIG)
    return MatchRunner(cfg, [as_policy(policy), as_policy(opponent)], max_rounds=MAX_ROUNDS)


def checkpoints() -> list[str]:
    from baselines.policy import shipped_checkpoints

    return sorted(shipped_checkpoints())


def players_of(policy: str) -> int:
    """A shipped checkpoint's table size (``ppo_6p``, ``ppo_6p_league``: 6); a bot's is 4."""
    from baselines.policy import load_policy_file, shipped_checkpoints

    return int(load_policy_file(policy)["num_players"]) if policy in shipped_checkpoints() else 4


def policy_problem(policy: str, players: int | None = None) -> str | None:
    """Why ``policy`` cannot sit at a ``players`` table (default: its own size, :func:`players_of`), or
    None: checked before the first match, so a typo or a missing file costs no run and no traceback."""
    try:
        as_policy(policy).build(players_of(policy) if players is None else players, 0)
    except (ValueError, OSError) as exc:  # unknown name, bad parameter, missing file, wrong table size
        return one_line_error(exc)
    return None


def policy_arg(players: int | None = None) -> Callable[[str], str]:
    """An argparse type: a policy that :func:`policy_problem` accepts (at ``players`` seats)."""

    def parse(text: str) -> str:
        problem = policy_problem(text, players)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text

    parse.__name__ = "policy"
    return parse


def shown(path: Path) -> str:
    """``path`` as a command run from the repository's root names it."""
    full = path.resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else str(full)


def out_option(out: Path, default: Path = OUT) -> str:
    """`` --out DIR`` for a command that wrote outside ``default``, else nothing."""
    return "" if out.resolve() == default.resolve() else f" --out {shlex.quote(shown(out))}"


def row_command(script: str, matches: int, seed: int, out: Path, *words: str) -> str:
    """The command that measures one row again (its matches, seed, output folder and policy)."""
    command = f"OMP_NUM_THREADS=1 python scripts/{script} --matches {matches}"
    command += f" --seed {seed}" if seed else ""
    return command + out_option(out) + "".join(f" {shlex.quote(w)}" for w in words)


def file_command(script: str, rows: Iterable[dict], out: Path) -> str:
    """A results file's own ``command``: the one every row was measured with where they all agree (as
    the recorded files have it), else a template pointing at each row's ``command`` (a rerun with other
    settings never relabels the rows it did not measure)."""
    rows = list(rows)
    matches = {r.get("matches") for r in rows}
    seeds = {r.get("seed", 0) for r in rows}  # rows written before rows kept their seed: seed 0
    command = f"OMP_NUM_THREADS=1 python scripts/{script}"
    if len(matches) == 1 and seeds == {0}:
        return f"{command} --matches {matches.pop()}{out_option(out)}"
    return f"{command} --matches N [--seed S]{out_option(out)} (rows differ: each row's command measured it)"


def measure(policy: str, matches: int, seed: int, workers: int = 2, key_control: bool = False) -> dict:
    """POLICY's frontier row (``key_control``: with the partner without the key, ``key_control.py``)."""
    players = players_of(policy)
    lineup = [policy] + ["counter"] * (players // 2 - 1)
    t0 = time.perf_counter()
    report = evaluate(
        lineup,
        matches=matches,
        config={**CONFIG, "num_players": players},
        seed=seed,
        max_rounds=MAX_ROUNDS,
        probe_matches=matches,
        workers=workers,
        progress=False,
        decoders=True,
        key_control=key_control,
    )
    team = report["lineups"][0]["teams"][0]
    sec = dict(team["secrecy"])
    for key in ("baseline", "outsider", "partner"):  # the linear probes: keep the AUCs, drop the ROC points
        if sec.get(key):
            sec[key] = {k: v for k, v in sec[key].items() if k != "roc"}
    return {
        "policy": policy,
        "players": players,
        "opponent": "counter",
        "matches": matches,
        "win_rate_vs_counter": team["win_rate"],
        "win_ci95": team["win_ci95"],
        "secrecy": sec,
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }


def build_parser() -> argparse.ArgumentParser:
    """The command line: bad input is one line naming the argument, exit code 2, before any match."""
    p = OneLineParser(prog="secrecy_frontier.py", description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--only", nargs="+", type=policy_arg(), default=None, help="measure only these policies")
    p.add_argument("--redo", action="store_true", help="measure again policies already in secrecy.json")
    p.add_argument(
        "--workers", type=int_in(1, MAX_WORKERS), default=min(2, MAX_WORKERS), help="match-playing processes"
    )
    p.add_argument(
        "--out", type=Path, default=OUT, metavar="DIR", help=f"results folder (default {shown(OUT)})"
    )
    return p


def main(argv: list[str] | None = None) -> None:
    p = build_parser()
    args = p.parse_args(argv)
    out = args.out
    problem = output_dir_problem(out, ("secrecy.json", "secrecy.md", "frontier.png"))
    if problem:
        p.error(f"--out: {problem}")
    path = out / "secrecy.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    have = {r["policy"] for r in done["rows"]}
    order = list(dict.fromkeys([*FIRST, *BOTS, *checkpoints(), *LADDER_REST]))
    for policy in args.only or order:
        if policy in have and not args.redo:
            continue
        row = measure(policy, args.matches, args.seed, args.workers)
        row["seed"] = args.seed
        row["command"] = row_command("secrecy_frontier.py", args.matches, args.seed, out, "--only", policy)
        s = row["secrecy"]
        print(
            f"{policy}: win vs counter {row['win_rate_vs_counter']}, Eve {s['eve_tm_auc']} Bob "
            f"{s['bob_tm_auc']} gap {s['gap']} {s['gap_ci95']}; count-matched Eve {s.get('eve_cm_auc')} Bob "
            f"{s.get('bob_cm_auc')} gap {s.get('cm_gap')} {s.get('cm_gap_ci95')} ({row['wall_seconds']} s)",
            flush=True,
        )
        if path.exists():  # re-read: another process may have added rows meanwhile (runs can share the file)
            done = json.loads(path.read_text())
        at = [i for i, r in enumerate(done["rows"]) if r["policy"] == policy]
        if at:  # --redo: the row keeps its place in the table
            done["rows"][at[0]] = row
        else:
            done["rows"].append(row)
        done["command"] = file_command("secrecy_frontier.py", done["rows"], out)
        path.write_text(json.dumps(done, indent=1) + "\n")
    write_outputs(done, out)


def write_outputs(done: dict, out: Path = OUT) -> None:
    """``secrecy.md`` and ``frontier.png`` into ``out``; the table's copy in docs/evaluation.md only for
    the committed folder (a run elsewhere leaves the docs as they are)."""
    from exploit_spread import spread_rows

    from quatro_env.eval.plots import secrecy_frontier
    from quatro_env.eval.report import exploit_calls_table, secrecy_table, write_doc_section

    exploit = {}
    for f in sorted(out.glob("exploit_*.json")):
        e = json.loads(f.read_text())
        exploit[e["policy"]] = e
    for row in spread_rows(out):  # the responses trained again with other seeds
        others = [rate for seed, rate in row["seeds"].items() if seed != row["recorded_seed"]]
        if others and row["policy"] in exploit:
            exploit[row["policy"]]["retrained"] = others
    calls = exploit_calls_table([r["policy"] for r in done["rows"]], exploit)
    table = secrecy_table(done["rows"], exploit) + f"\n\n{CALLS_INTRO}\n\n{calls}"
    (out / "secrecy.md").write_text(table + "\n")
    secrecy_frontier(done["rows"], exploit, out / "frontier.png")
    if out.resolve() == OUT.resolve():
        write_doc_section(OUT.parents[1] / "evaluation.md", "secrecy", table)  # the table's copy there


if __name__ == "__main__":
    main()
