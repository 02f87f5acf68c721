"""Kwartet (Dutch "quartets") as a PettingZoo AEC environment: ``env(**config)``.

There is no ``parallel_env``: Kwartet is strictly turn-based (one player acts per step, and a hit
keeps the turn), so PettingZoo's ``aec_to_parallel`` does not apply (``is_parallelizable=False``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from quatro_env.kwartet.env import raw_env

__all__ = ["env", "raw_env"]


def env(**config: Any) -> wrappers.OrderEnforcingWrapper:
    """The wrapped environment. ``AssertOutOfBoundsWrapper`` is deliberately left out: ``raw_env``
    already rejects out-of-range and illegal actions with a ``ValueError`` that names the agent,
    the action and the reason, while the wrapper would raise a bare ``AssertionError`` first (and
    nothing under ``python -O``). ``TerminateIllegalWrapper`` is left out because illegal actions
    must raise, not end the game."""
    return wrappers.OrderEnforcingWrapper(raw_env(**config))
