"""Two readers with no fitted weight beside the fitted Eve, on the frontier's matches (issues 18, 19).

For each policy, its ``--matches`` matches against ``counter`` (the frontier's config, seed and split:
``secrecy_frontier.match_runner``) are played again, and the time-matched AUC of two fixed readers of the
opponent's own observation rows is computed on the yardstick's held-out matches (with the bootstrap
interval of ``secrecy.measure``) and on every match:

* the count alone (``readers.collection_count``): the most copies of one value the member kept in public;
* the card counter (``readers.card_count``): the same, counting only values of which the opponent sees
  no other copy (center, own hand, another seat's public collection).

The fitted Eve of ``docs/results/secrecy/secrecy.json`` (same matches and split) is copied beside them.
Results: ``docs/results/secrecy/card_count.json`` and ``card_count.md``.

    OMP_NUM_THREADS=1 python scripts/card_count.py --matches 200 [POLICY ...]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from secrecy_frontier import BOTS, FIRST, OUT, checkpoints, players_of  # scripts/ is on the path

from baselines.exploit import EVAL_CONFIG, EVAL_MAX_ROUNDS
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
    lines = [
        "| policy | quartet rows, held out (all) | fitted Eve (frontier) [CI] | count alone, held out [CI] "
        "| card counter, held out [CI] | card counter, all matches |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        f = fitted.get(r["policy"], {})
        eve = (
            f"{f['eve_tm_auc']:.2f} {[round(x, 2) for x in f['eve_tm_ci95']]}" if f.get("eve_tm_auc") else "—"
        )
        lines.append(
            f"| {r['policy']} | {r['held_out_quartet_rows']} ({r['all_quartet_rows']}) | {eve} "
            f"| {_cell(r, 'held_out_count_alone')} | **{_cell(r, 'held_out_card_counter')}** "
            f"| {_cell(r, 'all_card_counter')} |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="*", help="default: the frontier's references, bots and checkpoints")
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    frontier = json.loads((OUT / "secrecy.json").read_text())["rows"]
    fitted = {r["policy"]: r["secrecy"] for r in frontier if r["matches"] == args.matches}
    path = OUT / "card_count.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    rows = {r["policy"]: r for r in done["rows"]}
    for policy in args.policies or list(dict.fromkeys([*FIRST, *BOTS, *checkpoints()])):
        rows[policy] = readers(policy, args.matches, args.seed)
        r = rows[policy]
        eve = fitted.get(policy, {}).get("eve_tm_auc")
        alone, counter = _cell(r, "held_out_count_alone"), _cell(r, "held_out_card_counter")
        print(
            f"{policy}: count alone {alone}, card counter {counter}, fitted Eve {eve} ({r['wall_seconds']} s)"
        )
        done = {"command": f"OMP_NUM_THREADS=1 python scripts/card_count.py --matches {args.matches}",
                "rows": list(rows.values())}  # fmt: skip
        path.write_text(json.dumps(done, indent=1) + "\n")
    (OUT / "card_count.md").write_text(table(list(rows.values()), fitted) + "\n")
    print(table(list(rows.values()), fitted))


if __name__ == "__main__":
    main()
