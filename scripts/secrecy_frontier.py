"""Measure every ladder bot and shipped checkpoint with the Eve/Bob decoders (issue 18).

Each policy plays ``--matches`` matches against ``counter`` (6 players: against two counter teams) on
the PPO evaluation config (round 60 s, 3 points, at most 10 rounds); the same matches give its win
rate against counter and its secrecy (Eve/Bob time-matched AUCs, gap with a match bootstrap CI; the
count-matched ones beside them).
Results accumulate in ``docs/results/secrecy/secrecy.json`` (a policy already there is skipped,
so the job can be stopped and resumed; ``--redo`` measures it again and replaces its row); then the
table ``secrecy.md`` and the frontier plot ``frontier.png`` are written (with best-response win rates
from ``exploit_*.json`` where measured), and the table's copy in ``docs/evaluation.md`` (between
its ``secrecy:begin``/``end`` markers).

    OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py --matches 200
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from baselines.exploit import EVAL_CONFIG as CONFIG
from baselines.exploit import EVAL_MAX_ROUNDS as MAX_ROUNDS
from quatro_env.eval.harness import evaluate
from quatro_env.eval.policies import as_policy
from quatro_env.eval.runner import MatchRunner
from quatro_env.quatro import QuatroConfig

OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "secrecy"
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


def measure(policy: str, matches: int, seed: int, workers: int = 2) -> dict:
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", nargs="*", default=None, help="measure only these policies")
    p.add_argument("--redo", action="store_true", help="measure again policies already in secrecy.json")
    p.add_argument("--workers", type=int, default=2, help="match-playing processes")
    args = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "secrecy.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    have = {r["policy"] for r in done["rows"]}
    order = list(dict.fromkeys([*FIRST, *BOTS, *checkpoints(), *LADDER_REST]))
    for policy in args.only or order:
        if policy in have and not args.redo:
            continue
        row = measure(policy, args.matches, args.seed, args.workers)
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
        done["command"] = f"OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py --matches {args.matches}"
        path.write_text(json.dumps(done, indent=1) + "\n")
    write_outputs(done)


def write_outputs(done: dict) -> None:
    from exploit_spread import spread_rows

    from quatro_env.eval.plots import secrecy_frontier
    from quatro_env.eval.report import exploit_calls_table, secrecy_table, write_doc_section

    exploit = {}
    for f in sorted(OUT.glob("exploit_*.json")):
        e = json.loads(f.read_text())
        exploit[e["policy"]] = e
    for row in spread_rows():  # the responses trained again with other seeds
        others = [rate for seed, rate in row["seeds"].items() if seed != row["recorded_seed"]]
        if others and row["policy"] in exploit:
            exploit[row["policy"]]["retrained"] = others
    calls = exploit_calls_table([r["policy"] for r in done["rows"]], exploit)
    table = secrecy_table(done["rows"], exploit) + f"\n\n{CALLS_INTRO}\n\n{calls}"
    (OUT / "secrecy.md").write_text(table + "\n")
    secrecy_frontier(done["rows"], exploit, OUT / "frontier.png")
    write_doc_section(OUT.parents[1] / "evaluation.md", "secrecy", table)  # the table's copy there


if __name__ == "__main__":
    main()
