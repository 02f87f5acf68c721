"""Does a team keep its sign from round to round within a match? Eve reads one round at a time (issue 18).

Eve's decoder (``quatro_env/eval/secrecy.py``) is one GRU sequence per round, so a code that kept its
sign through a match (a fresh sign per match, the same every round) would be read less than an opponent
remembering earlier rounds could. This plays POLICY against ``counter`` on the frontier's config and
compares how often a team's sign equals its sign of the previous round of the same match with what
independent draws from the policy's own sign frequencies give (the sum of p² over the signs), which Eve,
fitted over many matches, does learn. A repeat rate at that level means no memory within a match.

    OMP_NUM_THREADS=1 python scripts/sign_reuse.py ppo_4p ppo_4p_league ppo_4p_league_secret --matches 100
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in
from quatro_env.quatro.encoding import make_blocks


def sign_reuse(policy: str, matches: int, seed: int) -> dict[str, float | int | str]:
    """Rounds, repeats of the previous round's sign, and the repeat rate independent draws would give."""
    runner = match_runner(policy)
    private = make_blocks(runner.n)[0]
    at, size = private.offset("sign"), dict(private.fields)["sign"]
    repeats = pairs = 0
    signs: Counter[int] = Counter()
    for match in range(matches):
        record = runner.play(match, seed, record_views=True)
        views, seat = record["views"], record["team_slot"].index(0)  # a member of the measured team
        chosen = []
        for rnd in np.unique(views["round"]):
            shown = views["obs"][views["round"] == rnd, seat, at : at + size]  # its own sign field
            if shown.any():
                chosen.append(int(shown[-1].argmax()))
        signs.update(chosen)
        repeats += sum(a == b for a, b in zip(chosen[:-1], chosen[1:], strict=True))
        pairs += max(len(chosen) - 1, 0)
    share = np.array(list(signs.values()), float) / max(sum(signs.values()), 1)
    return {
        "policy": policy,
        "rounds": int(sum(signs.values())),
        "repeat_rate": repeats / max(pairs, 1),
        "independent_rate": float((share**2).sum()),
        "top_share": float(share.max(initial=0.0)),
    }


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="sign_reuse.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(4), help="policies of a 4-player table")
    p.add_argument("--matches", type=int_in(1), default=100)
    p.add_argument("--seed", type=int_in(0), default=0)
    args = p.parse_args(argv)
    print("| policy | rounds | same sign as the previous round | independent draws (sum p²) | top sign |")
    print("|---|---|---|---|---|")
    for policy in args.policies:
        r = sign_reuse(policy, args.matches, args.seed)
        print(
            f"| {policy} | {r['rounds']} | {r['repeat_rate']:.2f} | {r['independent_rate']:.2f} "
            f"| {r['top_share']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
