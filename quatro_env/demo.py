"""A short demo: one Quatro table of random players, rendered tick by tick in the terminal.

quatro-demo                      # 4 players, one round, every 20th tick shown
quatro-demo --players 6 --every 1 --rounds 2
"""

from __future__ import annotations

import argparse

import numpy as np

from quatro_env import parallel_env
from quatro_env.quatro import ActionCodec, ActionKind

CALLS = ActionCodec(4).encode(ActionKind.QUATRO)  # the demo's own seat never calls: it only shows the table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Play a short Quatro demo with random bots.")
    parser.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    parser.add_argument("--rounds", type=int, default=1, help="rounds to play")
    parser.add_argument("--every", type=int, default=20, help="render every N-th tick")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = parallel_env(
        num_players=args.players,
        render_mode="ansi",
        max_rounds=args.rounds,
        bot_seats=tuple(range(1, args.players)),
        bot_policy="random",
        round_seconds=30,
    )
    rng = np.random.default_rng(args.seed)
    obs, _ = env.reset(seed=args.seed)
    print(env.render())
    tick, total = 0, 0.0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"][:CALLS]))) for a, o in obs.items()}
        obs, rewards, _, _, infos = env.step(actions)
        total += rewards["player_0"]
        tick += 1
        if tick % args.every == 0 or any(
            ev.kind in ("call", "blank_round") for ev in infos["player_0"]["events"]
        ):
            print(env.render())
            print()
    print(f"episode over after {tick} ticks; scores {env.engine.scores}; player_0 return {total:+.1f}")


if __name__ == "__main__":
    main()
