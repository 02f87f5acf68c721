"""Gymnasium ids of the package, registered by ``import quatro_env``.

The entry points are strings, so registering imports nothing: ``gym.make`` loads the env's module
only when it is asked for. ``gym.make("quatro_env:quatro_env/QuatroSingleAgent-v0")`` (Gymnasium's
``module:id`` form) works even before ``quatro_env`` is imported.
"""

from __future__ import annotations

import gymnasium as gym

SINGLE_AGENT_ID = "quatro_env/QuatroSingleAgent-v0"

_ENTRY_POINTS = {SINGLE_AGENT_ID: "quatro_env.integrations.gym_single:QuatroSingleAgentEnv"}


def register_envs() -> list[str]:
    """Register every Gymnasium id of the package (idempotent); returns the ids."""
    for env_id, entry_point in _ENTRY_POINTS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=entry_point, disable_env_checker=False)
    return list(_ENTRY_POINTS)
