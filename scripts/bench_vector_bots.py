"""Agent-steps/s of ``QuatroVectorEnv`` with scripted bot seats (issue 17, item 3).

Two agent seats and two bot seats a table (4 players, bots at seats 1 and 3); the agents sample their
masks uniformly. Reports agent-steps (every seat-tick, bots' too) per CPU second, per policy:

    OMP_NUM_THREADS=1 python scripts/bench_vector_bots.py --tables 256 --policies counter honest random
"""

from __future__ import annotations

import argparse
import time

import torch

from quatro_env.batched import QuatroVectorEnv


def rate(policy: str, tables: int, seconds: float) -> float:
    env = QuatroVectorEnv(num_tables=tables, num_players=4, bot_seats=(1, 3), bot_policy=policy, seed=0)
    _, info = env.reset(seed=0)
    generator = torch.Generator().manual_seed(0)

    def step() -> None:
        nonlocal info
        actions = torch.multinomial(info["action_mask"].float(), 1, generator=generator).squeeze(1)
        info = env.step(actions)[4]

    for _ in range(5):  # compiles the batched bots on first use
        step()
    start, steps = time.process_time(), 0
    while time.process_time() - start < seconds:
        step()
        steps += 1
    return steps * tables * 4 / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per policy")
    parser.add_argument("--policies", nargs="+", default=["counter", "honest", "random"])
    args = parser.parse_args()
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, {args.tables} tables of 4")
    for policy in args.policies:
        print(f"{policy:>12}: {rate(policy, args.tables, args.seconds):,.0f} agent-steps per CPU second")


if __name__ == "__main__":
    main()
