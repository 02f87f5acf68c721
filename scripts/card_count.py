"""Two readers with no fitted weight beside the fitted Eve, on the frontier's matches (issues 18, 19).

For each policy, its ``--matches`` matches against ``counter`` (the frontier's config, seed and split:
``secrecy_frontier.match_runner``) are played again, and the time-matched AUC of two fixed readers of the
opponent's own observation rows is computed on the yardstick's held-out matches (with the bootstrap
interval of ``secrecy.measure``) and on every match:

* the count alone (``readers.collection_count``): the most copies of one value the member kept in public;
* the card counter (``readers.card_count``): the same, counting only values of which the opponent sees
  no other copy (center, own hand, another seat's public collection).

The fitted Eve of ``docs/results/secrecy/secrecy.json`` (same matches, seed and split) is copied beside
them. Results: ``docs/results/secrecy/card_count.json`` and ``card_count.md`` (``--out DIR``: in DIR); a
row keeps the matches, seed and command it was measured with, so a run with other settings never
relabels the rows it did not measure.

    OMP_NUM_THREADS=1 python scripts/card_count.py --matches 200 [POLICY ...]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from secrecy_frontier import (  # scripts/ is on the path
    BOTS,
    FIRST,
    OUT,
    checkpoints,
    file_command,
    players_of,
    policy_arg,
    row_command,
    shown,
)

from baselines.exploit import EVAL_CONFIG, EVAL_MAX_ROUNDS
from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem
from quatro_env.eval import readers as R
from quatro_env.eval import secrecy as S
from quatro_env.eval.policies import as_policy
from quatro_env.eval.runner import MatchRunner
from quatro_env.quatro import QuatroConfig


def readers(policy: str, matches: int, seed: int) -> dict:
    """The two fixed readers' time-matched AUCs of ``policy``, held out (with CI) and on every match."""
    n = players_of(policy)
    lineup = [as_policy(policy)] + [as_policy("counter")] * (n // 2 - 1)
    runner = MatchRunner(QuatroConfig(num_players=n, **EVAL_CONFIG), lineup, max_rounds=EVAL_MAX_ROUNDS)
    t0 = time.perf_counter()
    data = S.decoder_data([runner.play(m, seed, record_views=True) for m in range(matches)], 0, n)
    scores = {
        "count_alone": [R.collection_count(g) for g in data.ledger],
        "card_counter": [R.card_count(e, n) for e in data.eve],
    }
    test = np.isin(data.match, S.held_out_matches(np.unique(data.match), seed, 0.3))
    row: dict = {"policy": policy, "players": n, "matches": matches}
    for part, keep in (("held_out", test), ("all", np.ones_like(test))):
        idx = np.flatnonzero(keep)
        y = np.concatenate([data.y[i] for i in idx]).astype(bool)
        tick = np.concatenate([data.tick[i] for i in idx])
        group = np.concatenate([np.full(len(data.y[i]), data.match[i]) for i in idx])
        row[f"{part}_rows"], row[f"{part}_quartet_rows"] = int(y.size), int(y.sum())
        if not y.any() or y.all():
            continue
        weights = np.ones((1, y.size)) if part == "all" else S.bootstrap_weights(group, S.BOOTSTRAP, seed + 1)
        for name, per_sequence in scores.items():
            s = np.concatenate([per_sequence[i] for i in idx])
            row[f"{part}_{name}"] = round(
                float(S.weighted_time_matched_auc(y, s, tick, np.ones((1, y.size)))[0]), 3
            )
            if part == "held_out":
                aucs = S.weighted_time_matched_auc(y, s, tick, weights)
                row[f"{part}_{name}_ci95"] = S.percentile_ci95(aucs, 3)
    row["wall_seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _cell(row: dict, key: str) -> str:
    if key not in row:
        return "—"
    return f"{row[key]} {row[key + '_ci95']}" if key + "_ci95" in row else str(row[key])


def table(rows: list[dict], fitted: dict) -> str:
    """``card_count.md``: one row per policy; ``fitted`` maps (policy, matches, seed) to a frontier row's
    secrecy. A policy cell names its matches where the rows were measured on different counts."""
    mixed = len({r["matches"] for r in rows}) > 1
    lines = [
        "| policy | quartet rows, held out (all) | fitted Eve (frontier) [CI] | count alone, held out [CI] "
        "| card counter, held out [CI] | card counter, all matches |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        f = fitted.get((r["policy"], r["matches"], r.get("seed", 0)), {})
        eve = (
            f"{f['eve_tm_auc']:.2f} {[round(x, 2) for x in f['eve_tm_ci95']]}" if f.get("eve_tm_auc") else "—"
        )
        policy = f"{r['policy']} ({r['matches']} matches)" if mixed else r["policy"]
        lines.append(
            f"| {policy} | {r['held_out_quartet_rows']} ({r['all_quartet_rows']}) | {eve} "
            f"| {_cell(r, 'held_out_count_alone')} | **{_cell(r, 'held_out_card_counter')}** "
            f"| {_cell(r, 'all_card_counter')} |"
        )
    return "\n".join(lines)


def fitted_eve(frontier: Path = OUT / "secrecy.json") -> dict[tuple[str, int, int], dict]:
    """The frontier's fitted Eve by (policy, matches, seed): read from the committed frontier (an
    input, wherever ``--out`` writes), none where that file is missing."""
    if not frontier.is_file():
        print(f"card_count.py: {shown(frontier)} is missing: no fitted Eve column", file=sys.stderr)
        return {}
    rows = json.loads(frontier.read_text())["rows"]
    return {(r["policy"], r["matches"], r.get("seed", 0)): r["secrecy"] for r in rows}


def build_parser() -> OneLineParser:
    """The command line: bad input is one line naming the argument, exit code 2, before any match."""
    p = OneLineParser(prog="card_count.py", description=__doc__.splitlines()[0])
    p.add_argument(
        "policies",
        nargs="*",
        type=policy_arg(),
        help="default: the frontier's references, bots and checkpoints",
    )
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument(
        "--out", type=Path, default=OUT, metavar="DIR", help=f"results folder (default {shown(OUT)})"
    )
    return p


def main(argv: list[str] | None = None) -> None:
    p = build_parser()
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out, ("card_count.json", "card_count.md"))
    if problem:
        p.error(f"--out: {problem}")
    fitted = fitted_eve()
    path = args.out / "card_count.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    rows = {r["policy"]: r for r in done["rows"]}
    for policy in args.policies or list(dict.fromkeys([*FIRST, *BOTS, *checkpoints()])):
        rows[policy] = readers(policy, args.matches, args.seed)
        r = rows[policy]
        r["seed"] = args.seed
        r["command"] = row_command("card_count.py", args.matches, args.seed, args.out, policy)
        eve = fitted.get((policy, args.matches, args.seed), {}).get("eve_tm_auc")
        alone, counter = _cell(r, "held_out_count_alone"), _cell(r, "held_out_card_counter")
        print(
            f"{policy}: count alone {alone}, card counter {counter}, fitted Eve {eve} ({r['wall_seconds']} s)"
        )
        command = file_command("card_count.py", rows.values(), args.out)
        done = {"command": command, "rows": list(rows.values())}
        path.write_text(json.dumps(done, indent=1) + "\n")
    (args.out / "card_count.md").write_text(table(list(rows.values()), fitted) + "\n")
    print(table(list(rows.values()), fitted))


if __name__ == "__main__":
    main()
