"""Cuatrola: the rules engine, spaces, bots and tournament behind ``quatro_env.cuatrola_v0``.

Modules, one job each: ``cards`` (deck, deal), ``tricks`` (C6 obligations, C7 winner),
``scoring`` (contracts, hand results), ``state`` (the rules as a state machine), ``config``,
``position`` (scripted reset options), ``actions`` (codec), ``observation``, ``render``, ``env``
(the AEC env), ``bots`` and ``tournament``. See ``docs/cuatrola.md``.
"""

from quatro_env.cuatrola.config import CuatrolaConfig

__all__ = ["CuatrolaConfig"]
