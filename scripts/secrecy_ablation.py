"""What Eve reads: her time-matched AUC with groups of her inputs removed (issue 18).

Plays ``--matches`` matches of each policy against ``counter`` (the frontier's config) once, then
fits Eve and Bob on the same matches with Eve's columns of each group set zeroed
(:data:`quatro_env.eval.secrecy.INPUT_GROUPS`: the channel, the exchanges, the resolution order).
Bob keeps his extra inputs (the partner's private block and the key) in every variant. Each variant
is fitted with the fixed recipe (``FIXED``: all its inputs, eight epochs, no selection), so a row
says what that one view reads; the yardstick itself chooses among views (``secrecy.measure``). Results go to
``docs/results/secrecy/ablation.json`` (one row per policy and variant; a row already there is kept).

    OMP_NUM_THREADS=1 python scripts/secrecy_ablation.py --matches 200 cover:beat=false cover
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem
from quatro_env.eval import secrecy as S

OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "secrecy" / "ablation.json"
FIXED = S.FitConfig(max_epochs=8, select_folds=0, views=("all",))
VARIANTS = {
    "all inputs": (),
    "channel only (no exchanges, no order)": ("exchanges", "order"),
    "exchanges only (no channel)": ("channel",),
    "no channel, no exchanges": ("channel", "exchanges"),
    "no channel, no exchanges, no order": ("channel", "exchanges", "order"),
}


def _from_root(path: Path) -> str:
    root = OUT.parents[3]
    return str(path.resolve().relative_to(root)) if path.resolve().is_relative_to(root) else str(path)


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="secrecy_ablation.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(4), help="policies of a 4-player table")
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--out", type=Path, default=OUT, help=f"the JSON kept (default {OUT.name})")
    p.add_argument(
        "--task",
        choices=S.FIT_TASKS,
        default="time",
        help="what each variant's Eve and Bob are fitted for (FitConfig.task; default: the headline's)",
    )
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out.parent, (args.out.name,))
    if problem:
        p.error(f"--out: {problem}")
    out, fit = args.out, dataclasses.replace(FIXED, task=args.task)
    done = json.loads(out.read_text()) if out.exists() else {"rows": []}
    have = {(r["policy"], r["variant"], r.get("fit_task", "time")) for r in done["rows"]}
    for policy in args.policies:
        runner = match_runner(policy)
        records = [runner.play(m, args.seed, record_views=True) for m in range(args.matches)]
        data = S.decoder_data(records, 0, 4)
        for variant, groups in VARIANTS.items():
            if (policy, variant, args.task) in have:
                continue
            t0 = time.perf_counter()
            m = S.measure(S.without(data, groups, 4), seed=args.seed, fit=fit, readers_from=data)
            row = {
                "policy": policy,
                "variant": variant,
                "dropped": list(groups),
                "matches": args.matches,
                "fit_task": args.task,
                **{
                    k: m[k]
                    for k in ("eve_tm_auc", "eve_tm_ci95", "bob_tm_auc", "bob_tm_ci95", "gap", "gap_ci95")
                },
                # the count-matched view (same fits): what is read beyond the clock and the card count
                **{k: m.get(k) for k in ("eve_cm_auc", "eve_cm_ci95", "bob_cm_auc", "cm_gap", "cm_gap_ci95")},
                "positive_rate": m["positive_rate"],
                "wall_seconds": round(time.perf_counter() - t0, 1),
            }
            print(
                f"{policy} / {variant}: Eve {row['eve_tm_auc']} {row['eve_tm_ci95']} "
                f"Bob {row['bob_tm_auc']}; count-matched Eve {row['eve_cm_auc']} {row['eve_cm_ci95']} "
                f"Bob {row['bob_cm_auc']}",
                flush=True,
            )
            done["rows"].append(row)
            done["command"] = (
                f"OMP_NUM_THREADS=1 python scripts/secrecy_ablation.py --matches {args.matches} "
                + " ".join(args.policies)
            )
            if args.task != "time":
                done["command"] += f" --task {args.task}"
            if out.resolve() != OUT.resolve():  # named from the repository's root, where it is run
                done["command"] += f" --out {_from_root(out)}"
            out.write_text(json.dumps(done, indent=1) + "\n")


if __name__ == "__main__":
    main()
