"""Cuatrola, a four-player trick-taking card game of the tute family, as a PettingZoo AEC env.

``env(**config)`` builds the wrapped environment; keyword options are the fields of
``quatro_env.cuatrola.config.CuatrolaConfig``. See ``docs/cuatrola.md``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from quatro_env.cuatrola.config import CuatrolaConfig
from quatro_env.cuatrola.env import raw_env

__all__ = ["CuatrolaConfig", "env", "raw_env"]


def env(**config: Any) -> OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper.

    The other classic wrappers are left out on purpose: ``AssertOutOfBoundsWrapper`` would turn a
    bad index into a bare ``AssertionError`` and ``TerminateIllegalWrapper`` would end the game,
    whereas this env refuses every illegal action with a ``ValueError`` that says why.
    """
    return OrderEnforcingWrapper(raw_env(**config))
