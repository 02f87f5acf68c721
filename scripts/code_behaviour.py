"""What a team's code *does*, read from its matches (issue 19's results page): when its members take
the floor, what they pulse, and how soon the sign follows a quartet.

Plays ``--matches`` matches of POLICY against OPPONENT (seats rotated, the secrecy frontier's config)
and reads, for each member of POLICY's team and each round, its own observations after every play tick
(``MatchRunner.play(record_views=True)``: its floor, its pulses and their emoji, its team sign) beside
the true label "holds a quartet". Prints one JSON object per policy (and writes them with ``--json``):

* ``floor_before_quartet``: share of quartets whose holder already held the floor in the tick before
  the quartet formed (the tell ``counter`` reads: a seat that takes the floor early is collecting);
* ``floor_share_not_holding`` / ``floor_share_holding``: share of member-ticks on the floor;
* ``sign_after_quartet``: share of quartets followed by a sign pulse of the holder in its round, and
  the median ticks from the quartet to it;
* ``pulses_per_100_ticks``, ``sign_share_of_pulses_not_holding`` (false signs) and
  ``distinct_emojis_per_round`` (how much cover traffic it sends).

    OMP_NUM_THREADS=1 python scripts/code_behaviour.py ppo_4p ppo_4p_league --opponent counter --matches 200
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from secrecy_frontier import match_runner, policy_arg  # scripts/ is on the path when run as a script

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem
from quatro_env.quatro.cards import NUM_EMOJIS
from quatro_env.quatro.encoding import ObservationEncoder


def behaviour(policy: str, opponent: str, matches: int, seed: int) -> dict:
    enc = ObservationEncoder(4)
    at = enc.offsets
    floor, age = at["seat[0].floor"], at["seat[0].pulse_age"]
    emoji, sign = at["seat[0].pulse_emoji"], at["self.sign"]
    runner = match_runner(policy, opponent)
    quartets = early = signed = 0
    to_sign: list[int] = []
    ticks = {False: 0, True: 0}
    on_floor = {False: 0, True: 0}
    pulses = false_signs = pulses_free = 0
    distinct: list[int] = []
    for m in range(matches):
        record = runner.play(m, seed, record_views=True)
        v = record["views"]
        if v is None:
            continue
        team = record["team_slot"].index(0)
        for seat in (team, team + 2):
            obs, holds = v["obs"][:, seat], v["holds"][:, seat]
            for rnd in np.unique(v["round"]):
                o, h = obs[v["round"] == rnd], holds[v["round"] == rnd]
                fl = o[:, floor] > 0
                pulse = (o[:, age] == 0) & fl
                shown = o[:, emoji : emoji + NUM_EMOJIS].argmax(axis=1)
                key = o[:, sign : sign + NUM_EMOJIS].argmax(axis=1)
                is_sign = pulse & (shown == key)
                for flag in (False, True):
                    ticks[flag] += int((h == flag).sum())
                    on_floor[flag] += int((fl & (h == flag)).sum())
                pulses += int(pulse.sum())
                pulses_free += int((pulse & ~h).sum())
                false_signs += int((is_sign & ~h).sum())
                distinct.append(len(set(shown[pulse].tolist())))
                starts = np.flatnonzero(h & ~np.concatenate([[False], h[:-1]]))
                for q in starts:
                    quartets += 1
                    early += bool(q > 0 and fl[q - 1])
                    later = np.flatnonzero(is_sign[q:] & h[q:])
                    if later.size:
                        signed += 1
                        to_sign.append(int(later[0]))
    total = ticks[False] + ticks[True]
    return {
        "policy": policy,
        "opponent": opponent,
        "matches": matches,
        "quartets": quartets,
        "floor_before_quartet": round(early / max(quartets, 1), 3),
        "floor_share_not_holding": round(on_floor[False] / max(ticks[False], 1), 3),
        "floor_share_holding": round(on_floor[True] / max(ticks[True], 1), 3),
        "sign_after_quartet": round(signed / max(quartets, 1), 3),
        "median_ticks_quartet_to_sign": float(np.median(to_sign)) if to_sign else None,
        "pulses_per_100_ticks": round(100 * pulses / max(total, 1), 2),
        "sign_share_of_pulses_not_holding": round(false_signs / max(pulses_free, 1), 3),
        "distinct_emojis_per_round": round(float(np.mean(distinct)), 2) if distinct else None,
    }


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="code_behaviour.py", description=__doc__.splitlines()[0])
    p.add_argument("policies", nargs="+", type=policy_arg(4), help="policies of a 4-player table")
    p.add_argument("--opponent", type=policy_arg(4), default="counter")
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    if args.json is not None:
        problem = output_dir_problem(args.json.parent, (args.json.name,))
        if problem:
            p.error(f"--json: {problem}")
    rows = []
    for policy in args.policies:
        rows.append(behaviour(policy, args.opponent, args.matches, args.seed))
        print(json.dumps(rows[-1]), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
