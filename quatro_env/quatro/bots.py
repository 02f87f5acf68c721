"""Built-in bot policies for bot seats (Q22) and the evaluation harness.

A bot sees exactly what an agent in its seat would see (its egocentric observation and mask)
and returns one action index. Bots never vote: the engine never makes them voters. The policies
live in :mod:`quatro_env.bots`; their rules are documented there and in ``docs/evaluation.md``.

``BOT_POLICIES[name](num_players, seed)`` builds one seat's policy. The ladder, bottom up:
``idle``, ``random``, ``random_caller``, ``collector``, ``honest``, ``decoy``, ``eavesdropper``,
``counter``; and ``listener``, a training partner that only calls «Quatro» on its partner's sign;
``cover`` and ``shout``, the reference codes of the secrecy scale (a secret code and a readable one).
"""

from __future__ import annotations

from collections.abc import Callable

from quatro_env.bots import (
    BotPolicy,
    CollectorBot,
    CounterBot,
    CoverBot,
    DecoyBot,
    EavesdropperBot,
    HonestBot,
    IdleBot,
    ListenerBot,
    RandomBot,
    RandomCallerBot,
    ScriptedBot,
    ShoutBot,
)

BOT_POLICIES: dict[str, Callable[..., BotPolicy]] = {
    "idle": IdleBot,
    "random": RandomBot,
    "random_caller": RandomCallerBot,
    "collector": CollectorBot,
    "honest": HonestBot,
    "decoy": DecoyBot,
    "eavesdropper": EavesdropperBot,
    "counter": CounterBot,
    "listener": ListenerBot,
    "cover": CoverBot,
    "shout": ShoutBot,
}

__all__ = [
    "BOT_POLICIES",
    "BotPolicy",
    "ScriptedBot",
    *sorted({cls.__name__ for cls in BOT_POLICIES.values()}),
]
