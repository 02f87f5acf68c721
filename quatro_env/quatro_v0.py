"""Quatro, version 0 (PettingZoo's versioned-module convention).

``parallel_env(**config)`` is the native ParallelEnv; ``raw_env(**config)`` is its AEC version (in
the AEC version an agent's action waits until every agent has acted, but it is judged at once: see
``quatro/aec.py``), and ``env(**config)`` that AEC env inside PettingZoo's ``OrderEnforcingWrapper``,
as PettingZoo's parallel-first environments and the companion games arrange them.
``max_cycles=N`` (PettingZoo's convention) truncates every agent after N ticks, through
:class:`~quatro_env.common.wrappers.MaxCyclesParallel`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from quatro_env.common.wrappers import MaxCyclesParallel
from quatro_env.quatro.aec import QuatroAECEnv
from quatro_env.quatro.env import QuatroParallelEnv

__all__ = ["QuatroParallelEnv", "env", "parallel_env", "raw_env"]


def parallel_env(
    render_mode: str | None = None, max_cycles: int | None = None, **config: Any
) -> QuatroParallelEnv | MaxCyclesParallel:
    table = QuatroParallelEnv(render_mode=render_mode, **config)
    return table if max_cycles is None else MaxCyclesParallel(table, max_cycles)


def raw_env(render_mode: str | None = None, max_cycles: int | None = None, **config: Any) -> QuatroAECEnv:
    """The AEC env without wrappers (it checks its own actions: an illegal one raises by name)."""
    return QuatroAECEnv(parallel_env(render_mode=render_mode, max_cycles=max_cycles, **config))


def env(render_mode: str | None = None, max_cycles: int | None = None, **config: Any) -> AECEnv:
    return OrderEnforcingWrapper(raw_env(render_mode=render_mode, max_cycles=max_cycles, **config))
