"""The key's own share of the secrecy gap: each policy's frontier measurement again, with Bob also fitted
without the key (``quatro-eval --decoders --key-control``; docs/evaluation.md, "The key's own share").

    OMP_NUM_THREADS=1 python scripts/key_control.py cover cover:split=true ppo_4p ppo_6p

Each policy plays the frontier's matches (``scripts/secrecy_frontier.py``: against ``counter``, the PPO
evaluation config, seed 0, seats rotated), so Eve's and Bob's figures are the frontier table's again (a
check) and the new ones are ``nokey_*``, ``hand_count_*`` (the partner counting cards with his hand, no
fitted weight) and ``key_*`` (the floors: Bob minus the better of the two without the key). Rows go to
``--out``/key_control.json (one per policy, replaced when measured again) and a table to key_control.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from secrecy_frontier import OUT, policy_arg  # scripts/ is on the path when run as a script
from secrecy_frontier import measure as frontier_measure

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem

KEYS = ("eve_tm_auc", "bob_tm_auc", "gap", "gap_ci95", "eve_cm_auc", "bob_cm_auc", "cm_gap", "cm_gap_ci95")
KEYS += ("nokey_tm_auc", "key_gap", "key_gap_ci95", "nokey_cm_auc", "key_cm_gap", "key_cm_gap_ci95")
KEYS += (
    "hand_count_tm_auc",
    "hand_count_cm_auc",
    "key_floor",
    "key_floor_ci95",
    "key_cm_floor",
    "key_cm_floor_ci95",
)
KEYS += ("bob_view", "nokey_view", "train_matches", "test_matches")


def measure(policy: str, matches: int, seed: int, workers: int) -> dict:
    """The frontier's measurement of POLICY with the key control, its decoder figures only."""
    r = frontier_measure(policy, matches, seed, workers, key_control=True)
    row = {"policy": policy, "players": r["players"], "matches": matches, "seed": seed}
    return row | {k: r["secrecy"].get(k) for k in KEYS} | {"wall_seconds": r["wall_seconds"]}


def _gap(x: float | None, ci: list | None) -> str:
    return "—" if x is None or ci is None or ci[0] is None else f"{x:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _three(*aucs: float | None) -> str:
    return " / ".join("—" if a is None else f"{a:.2f}" for a in aucs)


def table(rows: list[dict]) -> str:
    """The rows as markdown: Eve, Bob, the gap, Bob without the key and the key's gap, both views; the
    hand counter and the key's floor (—: a row measured by an earlier version, without them)."""
    lines = [
        "| policy | Eve / Bob / Bob without the key, time-matched | gap | key gap "
        "| Eve / Bob / Bob without the key, count-matched | count-matched gap | key count-matched gap "
        "| hand counter, time / count-matched | key floor, count-matched | Bob's view / without the key |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["eve_tm_auc"] is None:
            lines.append(f"| {r['policy']} | no quartet | | | | | | | | |")
            continue
        tm = _three(r["eve_tm_auc"], r["bob_tm_auc"], r["nokey_tm_auc"])
        cm = _three(r["eve_cm_auc"], r["bob_cm_auc"], r["nokey_cm_auc"])
        keys = ("gap", "key_gap", "cm_gap", "key_cm_gap", "key_cm_floor")
        gaps = [_gap(r.get(k), r.get(f"{k}_ci95")) for k in keys]
        hand = _three(r.get("hand_count_tm_auc"), r.get("hand_count_cm_auc"))
        views = f"{r['bob_view']} / {r.get('nokey_view') or '—'}"
        cells = [r["policy"], tm, gaps[0], gaps[1], cm, gaps[2], gaps[3], hand, gaps[4], views]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="key_control.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(), help="bots or shipped checkpoints")
    p.add_argument("--matches", type=int_in(4), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--workers", type=int_in(1), default=1)
    p.add_argument("--out", type=Path, default=OUT, help="folder of key_control.json and key_control.md")
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out, ("key_control.json", "key_control.md"))
    if problem:
        p.error(f"--out: {problem}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "key_control.json"
    rows = {r["policy"]: r for r in json.loads(path.read_text())} if path.exists() else {}
    for policy in args.policies:
        rows[policy] = row = measure(policy, args.matches, args.seed, args.workers)
        path.write_text(json.dumps(list(rows.values()), indent=1) + "\n")
        (args.out / "key_control.md").write_text(table(list(rows.values())))
        print(f"{policy}: " + table([row]).splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
