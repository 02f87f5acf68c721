"""Quatro: the real-time team card game with secret emoji signs (rules Q1–Q31)."""

from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.engine import GameOverError, IllegalActionError, Phase, QuatroEngine, TickResult
from quatro_env.quatro.events import Event

__all__ = [
    "ActionCodec",
    "ActionKind",
    "Event",
    "GameOverError",
    "IllegalActionError",
    "Phase",
    "QuatroConfig",
    "QuatroEngine",
    "TickResult",
]
