"""A short demo: one Quatro table of scripted bots, rendered in the terminal.

Seat 0 is played through the PettingZoo API by an ``honest`` bot; the other seats are the env's
own bot seats (``--opponents``, default ``honest``). Every screen shows the whole table (hands and
signs included) and the tick's events with who saw them.

    quatro-demo                      # 4 players, one round, every 10th tick and every call shown
    quatro-demo --players 6 --every 1 --rounds 2 --opponents counter
"""

from __future__ import annotations

import argparse

from quatro_env import parallel_env
from quatro_env.quatro.bots import BOT_POLICIES


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Play a short Quatro demo with scripted bots.")
    parser.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    parser.add_argument("--rounds", type=int, default=1, help="rounds to play")
    parser.add_argument("--every", type=int, default=10, help="render every N-th tick")
    parser.add_argument(
        "--opponents", default="honest", choices=sorted(BOT_POLICIES), help="bot seats' policy"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = parallel_env(
        num_players=args.players,
        render_mode="ansi",
        max_rounds=args.rounds,
        bot_seats=tuple(range(1, args.players)),
        bot_policy=args.opponents,
    )
    me = BOT_POLICIES["honest"](args.players, args.seed)
    obs, _ = env.reset(seed=args.seed)
    print(env.render())
    tick, total = 0, 0.0
    while env.agents:
        o = obs["player_0"]
        obs, rewards, _, _, infos = env.step({"player_0": me.act(o["observation"], o["action_mask"])})
        total += rewards["player_0"]
        tick += 1
        if tick % args.every == 0 or any(
            ev.kind in ("call", "blank_round") for ev in infos["player_0"]["events"]
        ):
            print(env.render(), end="\n\n")
    print(f"episode over after {tick} ticks; team scores {env.engine.scores}; player_0 return {total:+.1f}")


if __name__ == "__main__":
    main()
