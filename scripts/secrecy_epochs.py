"""Is Eve trained long enough? (issue 18) Her time-matched AUC after every epoch, per input view:
the cross-validated mean the yardstick chooses by, and the held-out score of a decoder fitted on
all the training matches (never used for a choice; read here only to see the curve).

One policy plays ``--matches`` matches against ``counter`` (the frontier's config, seed 0) and is
split as :func:`quatro_env.eval.secrecy.measure` splits it (fit seed 0). Results go to ``--out``.

    OMP_NUM_THREADS=1 python scripts/secrecy_epochs.py cover:split=true --matches 600 --epochs 48 \\
        --views "no channel" all --out docs/results/secrecy/epochs_split_600.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem, positive_float
from quatro_env.eval import secrecy as S


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="secrecy_epochs.py", description=__doc__.splitlines()[0])
    p.add_argument("policy", type=policy_arg(4), help="a policy of a 4-player table")
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--epochs", type=int_in(1), default=48)
    p.add_argument("--lr", type=positive_float, default=S.FitConfig.lr)
    p.add_argument("--views", nargs="+", default=["no channel", "all"], choices=list(S.VIEWS))
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out.parent, (args.out.name,))
    if problem:
        p.error(f"--out: {problem}")
    runner = match_runner(args.policy)
    data = S.decoder_data([runner.play(m, 0, record_views=True) for m in range(args.matches)], 0, 4)
    test_groups = S.held_out_matches(np.unique(data.match), 0)
    test = np.flatnonzero(np.isin(data.match, test_groups))
    train = np.flatnonzero(~np.isin(data.match, test_groups))
    strata = S.task_strata(data, "time")
    fit = S.FitConfig(max_epochs=args.epochs, lr=args.lr)
    rows = []
    for view in args.views:
        t0 = time.perf_counter()
        seen = S.in_view(data, view)
        eve = [seen.eve_input(k) for k in range(len(data.y))]
        cv = S.cv_curves({view: eve}, data, train, 0, fit)[view]
        held_out = S.fold_aucs(eve, data.y, train, test, strata, 0, fit)  # for this study only
        rows.append(
            {
                "view": view,
                "cv_mean": [round(float(a), 4) for a in cv],
                "held_out": [round(float(a), 4) for a in held_out],
                "wall_seconds": round(time.perf_counter() - t0, 1),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    command = f"OMP_NUM_THREADS=1 python scripts/secrecy_epochs.py {args.policy} --matches {args.matches}"
    command += f" --epochs {args.epochs} --lr {args.lr} --views " + " ".join(f'"{v}"' for v in args.views)
    args.out.write_text(
        json.dumps({"command": command, "policy": args.policy, "matches": args.matches, "rows": rows}) + "\n"
    )


if __name__ == "__main__":
    main()
