"""Agent-steps/s of ``QuatroVectorEnv`` with scripted bot seats (issue 17, item 3).

Two agent seats and two bot seats a table (4 players, bots at seats 1 and 3); the agents sample their
masks uniformly. Reports agent-steps (every seat-tick, bots' too) per CPU second, per policy:

    OMP_NUM_THREADS=1 python scripts/bench_vector_bots.py --tables 256 --policies counter honest random
"""

from __future__ import annotations

import time

import torch

from quatro_env.batched import QuatroVectorEnv
from quatro_env.common.cli import OneLineParser, int_in, one_line_error, positive_float


def vector_env(policy: str, tables: int) -> QuatroVectorEnv:
    """``tables`` tables of 4, agents at seats 0 and 2, ``policy`` at the bot seats."""
    return QuatroVectorEnv(num_tables=tables, num_players=4, bot_seats=(1, 3), bot_policy=policy, seed=0)


def rate(policy: str, tables: int, seconds: float) -> float:
    env = vector_env(policy, tables)
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


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="bench_vector_bots.py", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int_in(1), default=256)
    parser.add_argument("--seconds", type=positive_float, default=5.0, help="CPU seconds per policy")
    parser.add_argument("--policies", nargs="+", default=["counter", "honest", "random"])
    args = parser.parse_args(argv)
    for policy in args.policies:  # each refused by name before any is timed
        try:
            vector_env(policy, 1)
        except ValueError as exc:
            parser.error(f"argument --policies: {one_line_error(exc)}")
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, {args.tables} tables of 4")
    for policy in args.policies:
        print(f"{policy:>12}: {rate(policy, args.tables, args.seconds):,.0f} agent-steps per CPU second")


if __name__ == "__main__":
    main()
