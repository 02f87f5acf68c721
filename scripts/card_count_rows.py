"""How often each card count shows on a policy's holding and non-holding rows (issue 18).

The card counter (``readers.card_count``) reads a member as a holder when it keeps public copies of a value
the opponent cannot rule out. This prints the share of each count among the rows where the member holds a
quartet and among the others, on ``--matches`` matches against ``counter`` (the frontier's config): what
a code would have to change for the counter to stop reading it (docs/evaluation.md, "Where `cover`
stands against the card counter").

    OMP_NUM_THREADS=1 python scripts/card_count_rows.py cover --matches 30
"""

from __future__ import annotations

import numpy as np
from secrecy_frontier import policy_arg  # scripts/ is on the path when this file runs as a script

from baselines.exploit import EVAL_CONFIG, EVAL_MAX_ROUNDS
from quatro_env.common.cli import OneLineParser, int_in
from quatro_env.eval import readers as R
from quatro_env.eval import secrecy as S
from quatro_env.eval.policies import as_policy
from quatro_env.eval.runner import MatchRunner
from quatro_env.quatro import QuatroConfig


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="card_count_rows.py", description=__doc__.splitlines()[0])
    p.add_argument("policy", type=policy_arg(4), help="a policy of a 4-player table")
    p.add_argument("--matches", type=int_in(1), default=30)
    p.add_argument("--seed", type=int_in(0), default=0)
    args = p.parse_args(argv)
    n = 4
    lineup = [as_policy(args.policy), as_policy("counter")]
    runner = MatchRunner(QuatroConfig(num_players=n, **EVAL_CONFIG), lineup, max_rounds=EVAL_MAX_ROUNDS)
    records = [runner.play(m, args.seed, record_views=True) for m in range(args.matches)]
    data = S.decoder_data(records, 0, n)
    holds = np.concatenate(data.y).astype(bool)
    counts = np.concatenate([R.card_count(e, n) for e in data.eve])
    print(f"{args.policy}: {holds.size} rows, {int(holds.sum())} holding a quartet")
    for name, rows in (("holding", holds), ("not holding", ~holds)):
        share = np.bincount(counts[rows], minlength=R.LEDGER_CLIP + 1) / max(int(rows.sum()), 1)
        print(f"  card count among {name} rows: " + ", ".join(f"{c}: {x:.3f}" for c, x in enumerate(share)))
    lengths = [len(t) for t in data.tick]
    held_at = np.concatenate(data.tick)[holds]
    median_length, median_held = np.median(lengths), np.median(held_at)
    print(f"  round length median {median_length:.0f} ticks; quartets held at tick {median_held:.0f}")


if __name__ == "__main__":
    main()
