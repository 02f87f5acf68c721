"""How much Eve's figure depends on how many matches she is fitted on (issue 18): a code's Eve/Bob on
the yardstick's 200 matches with several fit seeds, and on more matches (time-matched and count-matched).

Each policy plays the largest ``--matches`` count against ``counter`` once (the frontier's config,
seed 0); each smaller count is its first matches. Eve and Bob are fitted with each of ``--fit-seeds``
(the seed also draws the held-out split). Results go to ``docs/results/secrecy/data_size.json``.

    OMP_NUM_THREADS=1 python scripts/secrecy_data_size.py cover cover:beats=1 cover:partner_delay=4 \\
        --matches 200 600 --fit-seeds 0 1 2
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem
from quatro_env.eval import secrecy as S

OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "secrecy" / "data_size.json"


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="secrecy_data_size.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(4), help="policies of a 4-player table")
    p.add_argument("--matches", type=int_in(1), nargs="+", default=[200, 600])
    p.add_argument("--fit-seeds", type=int_in(0), nargs="+", default=[0, 1, 2])
    p.add_argument(
        "--large-seeds", type=int_in(0), nargs="+", default=[0], help="fit seeds above 200 matches"
    )
    p.add_argument("--out", type=Path, default=OUT, help=f"the JSON written (default {OUT.name})")
    p.add_argument(
        "--task",
        choices=S.FIT_TASKS,
        default="time",
        help="what Eve and Bob are fitted and chosen for (FitConfig.task; default: the headline's)",
    )
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out.parent, (args.out.name,))
    if problem:
        p.error(f"--out: {problem}")
    rows = []
    for policy in args.policies:
        runner = match_runner(policy)
        records = [runner.play(m, 0, record_views=True) for m in range(max(args.matches))]
        for matches in sorted(args.matches):
            data = S.decoder_data(records[:matches], 0, 4)
            for seed in args.fit_seeds if matches <= 200 else args.large_seeds:
                t0 = time.perf_counter()
                m = S.measure(data, seed=seed, fit=S.FitConfig(task=args.task))
                rows.append(
                    {
                        "policy": policy,
                        "matches": matches,
                        "fit_seed": seed,
                        "quartet_rows": int(sum(y.sum() for y in data.y)),
                        **{
                            k: m[k]
                            for k in ("eve_tm_auc", "eve_tm_ci95", "bob_tm_auc", "bob_tm_ci95", "gap")
                            + ("eve_cm_auc", "eve_cm_ci95", "bob_cm_auc", "cm_gap", "cm_gap_ci95")
                            + ("cm_matched", "eve_view", "bob_view", "epochs", "selection", "fit_task")
                        },
                        "wall_seconds": round(time.perf_counter() - t0, 1),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    command = "OMP_NUM_THREADS=1 python scripts/secrecy_data_size.py " + " ".join(args.policies)
    command += (
        f" --matches {' '.join(map(str, args.matches))} --fit-seeds {' '.join(map(str, args.fit_seeds))}"
    )
    if args.task != "time":
        command += f" --task {args.task}"
    if args.large_seeds != [0]:
        command += f" --large-seeds {' '.join(map(str, args.large_seeds))}"
    if args.out.resolve() != OUT.resolve():
        root = OUT.parents[3]
        out = args.out.resolve()
        command += f" --out {out.relative_to(root) if out.is_relative_to(root) else out}"
    args.out.write_text(json.dumps({"command": command, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
