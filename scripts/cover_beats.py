"""How often a beat-keeping code misses its beat, and why (issue 18).

A code that exchanges on a public beat shows a non-holder whenever a beat passes without its exchange:
the exchange that completes a quartet never misses (a refused one completes nothing). This plays
POLICY against ``counter`` on the secrecy yardstick's config and counts, for the measured team's
members at each of their pulses after the first of a round, whether they exchanged, and who refused
the swaps that were refused (Q14: the partner or an opponent, earlier in the tick).

    OMP_NUM_THREADS=1 python scripts/cover_beats.py cover cover:split=true --matches 200
"""

from __future__ import annotations

import json
from collections import Counter

from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in
from quatro_env.eval.runner import slots_of_match
from quatro_env.quatro.cards import is_quartet
from quatro_env.quatro.engine import Phase


def count_beats(policy: str, matches: int, seed: int) -> dict[str, float | int | str]:
    runner = match_runner(policy)
    engine, step = runner.engine, runner.engine.step
    n, teams = runner.n, runner.num_teams
    team: list[int] = []
    pulses: Counter[int] = Counter()
    c: Counter[str] = Counter()

    def counted_step(actions):
        playing = engine.phase == Phase.PLAY
        result = step(actions)
        if result.round_ended:
            pulses.clear()
        if not playing or engine.phase != Phase.PLAY:
            return result
        kinds: dict[int | None, set[str]] = {}
        taker: dict[int, int] = {}
        for ev in result.events:
            kinds.setdefault(ev.seat, set()).add(ev.kind)
            if ev.kind == "exchange":
                taker.setdefault(ev.data["center_slot"], ev.seat)
            elif ev.kind == "exchange_rejected" and ev.seat in team:
                by = taker.get(ev.data["center_slot"])
                c["refused_by_partner" if by in team else "refused_by_opponent"] += 1
        for s in team:
            mine = kinds.get(s, set())
            c["exchanges"] += "exchange" in mine
            if "pulse" in mine:
                pulses[s] += 1
                if pulses[s] > 1:
                    holder = "holder" if is_quartet(engine.hands[s]) else "non_holder"
                    c[f"{holder}_beats"] += 1
                    c[f"{holder}_beats_exchanged"] += "exchange" in mine
        return result

    engine.step = counted_step
    for m in range(matches):
        slots = slots_of_match(m, teams, teams)
        team[:] = [s for s in range(n) if slots[s % teams] == 0]
        pulses.clear()
        runner.play(m, seed)
    beats = c["non_holder_beats"]
    return {
        "policy": policy,
        "matches": matches,
        "non_holder_beats": beats,
        "non_holder_beats_missed": round(1 - c["non_holder_beats_exchanged"] / beats, 4) if beats else 0.0,
        "holder_beats": c["holder_beats"],
        "exchanges": c["exchanges"],
        "refused_by_partner": c["refused_by_partner"],
        "refused_by_opponent": c["refused_by_opponent"],
    }


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="cover_beats.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(4), help="policies of a 4-player table")
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    args = p.parse_args(argv)
    for policy in args.policies:
        print(json.dumps(count_beats(policy, args.matches, args.seed)), flush=True)


if __name__ == "__main__":
    main()
