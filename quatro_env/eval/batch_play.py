"""The scripted ladder at batch scale: every match of a line-up at once, outcomes only (issue 17, item 3).

The harness (:mod:`quatro_env.eval.runner`) plays one match at a time with the numpy bots and records
every tick for its metrics. This plays all the matches of a line-up at once, one table each on
:class:`~quatro_env.batched.BatchedQuatroEngine`, every seat a row of
:class:`~quatro_env.bots.batched.BatchedBots` (the numpy bots' rules and decisions,
``tests/baselines/test_fast_bots.py``), and keeps only each match's outcome. So ten times the matches
(intervals a third as wide) cost about what the harness's table costs (``docs/evaluation.md``, "The
ladder at batch scale").

The matches are the harness's: team ``t`` of match ``m`` is played by slot ``(t + m) mod teams``
(:func:`~quatro_env.eval.runner.slots_of_match`); a match ends when a team reaches ``points_to_win``
(Q24; several teams at the best score win together, Q25) and is a draw once ``max_rounds`` rounds
are played without a winner. Table ``m`` is seeded ``seed + m`` and the bots' draws come from
``numpy.random.default_rng([seed, DRAW_STREAM])`` (Q30): the same seed gives the same table. Only bots
with a batched version play (:data:`~quatro_env.bots.batched.KINDS`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import KINDS, BatchedBots
from quatro_env.common.stats import wilson_interval
from quatro_env.eval.harness import make_config
from quatro_env.eval.runner import slots_of_match
from quatro_env.quatro.config import QuatroConfig

DRAW_STREAM = 0xBA7C


def play_lineup(
    policies: Sequence[str],
    *,
    matches: int,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
) -> dict[str, Any]:
    """Play ``matches`` matches of one line-up (``policies[k]``: the bot of slot ``k``, one per team).

    Returns ``wins`` (per slot, matches it won, shared wins included), ``draws``, ``matches``,
    ``ticks`` (the longest match) and ``agent_steps`` (seat-ticks played, finished tables included).
    """
    won, ticks = _play(policies, matches, make_config(config, episode="match", max_rounds=max_rounds), seed)
    n = len(policies) * 2
    return {
        "policies": list(policies),
        "matches": matches,
        "wins": [int(w) for w in won.sum(0)],
        "draws": int((~won.any(1)).sum()),
        "ticks": ticks,
        "agent_steps": ticks * matches * n,
    }


def _play(policies: Sequence[str], matches: int, cfg: QuatroConfig, seed: int) -> tuple[np.ndarray, int]:
    """``[matches, slots]`` bool: slot k won match m; and the ticks played."""
    unknown = sorted(set(policies) - set(KINDS))
    if unknown:
        raise ValueError(f"policies: no batched version of {unknown}; batched bots: {list(KINDS)}")
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
        raise ValueError(f"matches: a whole number >= 1, got {matches!r}")
    n, teams = cfg.num_players, cfg.num_players // 2
    slot_of = np.array([slots_of_match(m, teams, len(policies)) for m in range(matches)])  # [M, teams]
    kinds = BatchedBots.kind_ids(list(policies))[slot_of[:, np.arange(n) % teams]].reshape(-1)  # per seat
    bots = BatchedBots(n, matches * n)
    bots.reset_rows(np.arange(matches * n), kinds)
    engine = BatchedQuatroEngine(matches, config=cfg, seed=seed)
    rng = np.random.default_rng([seed, DRAW_STREAM])
    result = engine.reset(seed)
    won = np.zeros((matches, teams), bool)
    over = np.zeros(matches, bool)
    ticks = 0
    while not over.all():
        obs = result.observations.reshape(matches * n, -1).numpy()
        masks = result.masks.reshape(matches * n, -1).numpy()
        actions = bots.act(obs, masks, rng.random((matches * n, bots.num_draws)))
        result = engine.step(torch.from_numpy(actions).view(matches, n))
        ticks += 1
        done = result.info["done"].numpy()
        if done.any():  # a finished table starts another match at once: only its first one counts
            first = done & ~over
            scores = result.info["final_scores"].numpy()[first]
            ended = result.terminations.numpy()[first]  # a truncation (max_rounds) has no winner
            won[first] = (scores == scores.max(1, keepdims=True)) & ended[:, None]
            over |= done
            rows = (np.flatnonzero(done)[:, None] * n + np.arange(n)).reshape(-1)
            bots.reset_rows(rows, kinds[rows])
    by_slot = np.zeros((matches, len(policies)), bool)
    for t in range(teams):
        by_slot[np.arange(matches), slot_of[:, t]] |= won[:, t]
    return by_slot, ticks


def batch_cross_play(
    policies: Sequence[str],
    *,
    matches: int,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
) -> dict[str, Any]:
    """Every pair of ``policies`` plays ``matches`` matches (as :func:`~quatro_env.eval.cross_play`
    pairs them: A on the even teams, B on the odd ones, seats rotated). Returns the cross-play
    matrices under the harness's keys (``win_rate``, ``win_ci95``, ``draw_rate``; row against column,
    None on the diagonal), the config, ``wall_seconds`` and ``agent_steps``."""
    if len(set(policies)) != len(policies) or len(policies) < 2:
        raise ValueError(f"policies: at least two distinct bots, got {list(policies)}")
    cfg = make_config(config, episode="match", max_rounds=max_rounds)
    teams = cfg.num_players // 2
    k = len(policies)
    win: list[list[float | None]] = [[None] * k for _ in range(k)]
    ci: list[list[list[float] | None]] = [[None] * k for _ in range(k)]
    draw: list[list[float | None]] = [[None] * k for _ in range(k)]
    start, steps = time.perf_counter(), 0
    for i in range(k):
        for j in range(i + 1, k):
            lineup = [policies[i] if t % 2 == 0 else policies[j] for t in range(teams)]
            won, ticks = _play(lineup, matches, cfg, seed)
            steps += ticks * matches * cfg.num_players
            for side, other in ((i, j), (j, i)):
                slots = [s for s, name in enumerate(lineup) if name == policies[side]]
                wins = int(won[:, slots].any(1).sum())  # several teams: any of the policy's teams won
                win[side][other] = wins / matches
                ci[side][other] = list(wilson_interval(wins, matches))
                draw[side][other] = float((~won.any(1)).mean())
    return {
        "kind": "batch_cross_play",
        "policies": list(policies),
        "matches": matches,
        "seed": seed,
        "max_rounds": max_rounds,
        "config": cfg.model_dump(mode="json"),
        "cross_play": {"win_rate": win, "win_ci95": ci, "draw_rate": draw},
        "wall_seconds": time.perf_counter() - start,
        "agent_steps": steps,
    }
