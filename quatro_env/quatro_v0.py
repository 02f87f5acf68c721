"""Quatro, version 0 (PettingZoo's versioned-module convention).

``parallel_env(**config)`` is the native ParallelEnv; ``env(**config)`` is its AEC version through
PettingZoo's conversion (in the AEC version an agent's action waits until every agent has acted,
but it is judged at once: see ``quatro/aec.py``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from quatro_env.quatro.aec import QuatroAECEnv
from quatro_env.quatro.env import QuatroParallelEnv

__all__ = ["QuatroParallelEnv", "env", "parallel_env", "raw_env"]


def parallel_env(render_mode: str | None = None, **config: Any) -> QuatroParallelEnv:
    return QuatroParallelEnv(render_mode=render_mode, **config)


def env(render_mode: str | None = None, **config: Any) -> AECEnv:
    return OrderEnforcingWrapper(QuatroAECEnv(parallel_env(render_mode=render_mode, **config)))


raw_env = parallel_env
