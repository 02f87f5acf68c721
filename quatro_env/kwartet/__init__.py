"""Kwartet: ask named players for exact cards to complete families (rules K1-K10).

The environment itself is :mod:`quatro_env.kwartet_v0`; this package holds its parts.
"""

from quatro_env.kwartet.actions import ActionCodec
from quatro_env.kwartet.cards import Deck
from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.game import KwartetGame
from quatro_env.kwartet.observation import ObservationLayout
from quatro_env.kwartet.position import ScriptedPosition

__all__ = ["ActionCodec", "Deck", "KwartetConfig", "KwartetGame", "ObservationLayout", "ScriptedPosition"]
