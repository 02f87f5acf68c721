"""Quatro configs drawn at random over every option the engines read, for the tests that must hold on
any config, not only on the source's defaults: the batched engine against the reference
(``tests/batched/differential.py``; its CUDA kernels in ``cuda_sim_check.py``), the reference engine's
invariants and its hidden-information test (``tests/test_quatro_properties.py``), and the batched bots
against the numpy bots (``tests/baselines/bots_differential.py``).
"""

from __future__ import annotations

import numpy as np


def random_config(seed: int) -> tuple[int, dict]:
    """A player count and a config drawn from ``seed`` over every option of ``QuatroConfig`` the engine
    reads: each duration 1–``hi`` ticks (on the tick or between two: Q6's rounding up), several tick
    lengths, every switch, 1–3 points, 1–5 rounds, any set of bot seats (Q22), random and scheduled
    (dis)connections (Q23). The differential's fixed configs hold the source's values; these reach the corners
    (a one-tick sign phase, pulse or vote window; a match of one point)."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([4, 6, 8]))
    dt = float(rng.choice([0.25, 0.3, 0.5, 1.0]))

    def seconds(hi: int) -> float:
        ticks = int(rng.integers(1, hi + 1))
        return round(ticks * dt if rng.random() < 0.7 else (ticks - rng.uniform(0.05, 0.95)) * dt, 4)

    cfg: dict = dict(
        tick_seconds=dt,
        sign_phase_seconds=seconds(8),
        round_seconds=seconds(60),
        pause_seconds=seconds(8),
        exchange_cooldown_seconds=seconds(6),
        floor_cooldown_seconds=seconds(6),
        pulse_seconds=seconds(6),
        reminder_window_seconds=seconds(5),
        vote_window_seconds=seconds(8),
        vote_interval_seconds=seconds(10),
        points_to_win=int(rng.integers(1, 4)),
        max_rounds=int(rng.integers(1, 6)),
        own_quartet_guard=str(rng.choice(["confirm", "off"])),
        reveal_signs=bool(rng.random() < 0.5),
        episode=str(rng.choice(["match", "round"])),
        reward_mode=str(rng.choice(["zero_sum", "team_points"])),
        bot_seats=tuple(sorted(int(s) for s in rng.choice(n, size=int(rng.integers(0, n)), replace=False))),
    )
    if rng.random() < 0.6:
        cfg.update(
            disconnect_prob=float(rng.choice([0.0, 0.01, 0.05, 0.3])),
            reconnect_prob=float(rng.choice([0.0, 0.1, 0.5, 1.0])),
        )
    if rng.random() < 0.5:
        cfg["disconnect_schedule"] = tuple(
            (int(rng.integers(0, 60)), int(rng.integers(0, n)), bool(rng.random() < 0.5))
            for _ in range(int(rng.integers(1, 6)))
        )
    return n, cfg
