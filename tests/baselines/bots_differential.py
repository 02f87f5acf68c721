"""The batched bot ladder against the numpy bots, tick by tick (issue #17 item 3: a differential test).

Games are played on the batched engine by the numpy bots (the reference, one object per seat, the
rules of ``quatro_env/bots``); at every tick each seat's observation, mask and draws go to both the
numpy bot (its ``rng`` a :class:`SlotRng` over the same draws) and its batched row, and the actions
must agree on every seat and every tick. ``tests/baselines/test_fast_bots.py`` runs fixed line-ups;
the command line fuzzes fresh ones, as ``tests/batched/differential.py`` does for the engine::

    python -m tests.baselines.bots_differential --first-seed 96001 --lineups 600 --ticks 1500
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import KINDS, VARIANTS, BatchedBots, SlotRng, num_draws
from quatro_env.quatro.bots import BOT_POLICIES
from tests.random_configs import random_config


def play_and_compare(num_players: int, lineup: list[str], tables: int, ticks: int, seed: int, **env) -> dict:
    engine = BatchedQuatroEngine(tables, seed=seed, num_players=num_players, **env)
    result = engine.reset(seed)
    n = engine.n
    rows = tables * n
    names = [lineup[(b * n + s) % len(lineup)] for b in range(tables) for s in range(n)]
    rngs = [SlotRng() for _ in range(rows)]
    numpy_bots = []
    for name, rng in zip(names, rngs, strict=True):
        bot = numpy_bot(name, n)
        bot.rng = rng
        numpy_bots.append(bot)
    batched = BatchedBots(n, rows)
    batched.reset_rows(np.arange(rows), BatchedBots.kind_ids(names))
    draws_rng = np.random.default_rng(seed)
    seen: dict[str, set[int]] = {name: set() for name in names}
    for tick in range(ticks):
        obs = result.observations.reshape(rows, -1).numpy()
        masks = result.masks.reshape(rows, -1).numpy()
        # float32 draws, as the trainer's ``torch.rand`` gives them: in [0, 1) (a float64 draw rounded to
        # float32 can reach 1.0, which no draw source gives and ``BatchedBots.act`` refuses)
        draws = draws_rng.random((rows, num_draws(n)), dtype=np.float32).astype(np.float64)
        fast = batched.act(obs, masks, draws)
        slow = []
        for i, bot in enumerate(numpy_bots):
            rngs[i].set(draws[i])
            slow.append(bot.act(obs[i], masks[i]))
        slow = np.array(slow)
        bad = np.flatnonzero(fast != slow)
        assert bad.size == 0, (
            f"tick {tick}: row {bad[0]} ({names[bad[0]]}) batched {fast[bad[0]]} vs numpy {slow[bad[0]]}"
        )
        for name, a in zip(names, slow, strict=True):
            seen[name].add(int(a))
        result = engine.step(torch.from_numpy(slow).view(tables, n))
        done = (result.terminations | result.truncations).numpy()
        for b in np.flatnonzero(done):  # a table that ends restarts its bots, as the envs and harness do:
            for s in range(n):  # reset (not rebuilt), so state a reset forgets to clear shows up
                i = b * n + s
                numpy_bots[i].reset(0)
                numpy_bots[i].rng = rngs[i]
            batched.reset_rows(
                np.arange(b * n, (b + 1) * n), BatchedBots.kind_ids(names[b * n : (b + 1) * n])
            )
    return seen


def numpy_bot(name: str, num_players: int):
    """The reference of a batched row: the numpy bot of that name, in the options its row plays."""
    bot, options = VARIANTS.get(name, (name, {}))
    return BOT_POLICIES[bot](num_players, seed=0, **options)


def random_lineup(seed: int) -> tuple[int, list[str], dict]:
    """A player count and an engine config from ``seed`` (``tests/random_configs.py``: every option, its
    corners included: one-tick pulses and cooldowns, round episodes, Q23 (dis)connections), and a bot
    per seat from the whole batched ladder."""
    n, config = random_config(seed)
    rng = np.random.default_rng([seed, 0xB07])
    lineup = [str(name) for name in rng.choice(sorted(KINDS), size=n)]
    return n, lineup, config


def main() -> None:  # pragma: no cover - command line
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--first-seed", type=int, default=0, help="line-ups first-seed .. + lineups - 1")
    p.add_argument("--lineups", type=int, default=40)
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--ticks", type=int, default=600)
    args = p.parse_args()
    t0, seat_ticks = time.time(), 0
    for seed in range(args.first_seed, args.first_seed + args.lineups):
        n, lineup, config = random_lineup(seed)
        play_and_compare(n, lineup, tables=args.tables, ticks=args.ticks, seed=seed, **config)
        seat_ticks += args.tables * args.ticks * n
        print(f"line-up {seed}: {n} players {lineup} {config}: identical", flush=True)
    print(f"== {args.lineups} line-ups, {seat_ticks} seat-ticks identical ({time.time() - t0:.0f} s)")


if __name__ == "__main__":  # pragma: no cover
    main()
