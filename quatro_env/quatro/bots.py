"""Built-in bot policies for bot seats (Q22) and the evaluation harness.

A bot sees exactly what an agent in its seat would see (its egocentric observation and mask)
and returns one action index. Bots never vote: the engine never makes them voters. The policies
live in :mod:`quatro_env.bots`; their rules are documented there and in ``docs/evaluation.md``.

``BOT_POLICIES[name](num_players, seed)`` builds one seat's policy. The ladder, bottom up:
``idle``, ``random``, ``random_caller``, ``collector``, ``honest``, ``decoy``, ``eavesdropper``,
``counter``; and ``listener``, a training partner that only calls «Quatro» on its partner's sign;
``cover`` and ``shout``, the reference codes of the secrecy scale (a secret code and a readable one).

A bot with options is named ``NAME:key=value,...`` (``"cover:split=true"``, ``"counter:threshold=0.6"``):
:func:`parse_bot_policy` reads it, one parser for bot seats (``QuatroConfig.bot_policy``) and the
evaluation harness's line-ups alike.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

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
from quatro_env.common.overrides import scalar

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


def parse_bot_policy(text: str) -> tuple[str, dict[str, Any]]:
    """``"cover:split=true,partner_delay=4"`` -> ``("cover", {"split": True, "partner_delay": 4})``.

    Values read as bool, int or float when they look so, else as text; each must be of the type the
    bot's constructor declares (no silent coercion). An unknown bot, a parameter it does not take or a
    value of the wrong type is refused by name (ValueError)."""
    name, _, params = text.partition(":")
    if name not in BOT_POLICIES:
        raise ValueError(f"policy {text!r}: unknown bot {name!r}; known: {sorted(BOT_POLICIES)}")
    options: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"policy {text!r}: parameter {item!r} is not key=value")
        if key.strip() in options:
            raise ValueError(f"policy {text!r}: parameter {key.strip()!r} is given twice")
        options[key.strip()] = _checked_parameter(text, name, key.strip(), scalar(value))
    return name, options


def build_bot(text: str, num_players: int, seed: int | None = None) -> BotPolicy:
    """One seat's bot from its name with options (:func:`parse_bot_policy`); a bad option value that
    only the bot can judge (``partner_delay=-1``) is refused by name too."""
    name, options = parse_bot_policy(text)
    try:
        return BOT_POLICIES[name](num_players, seed, **options)
    except (TypeError, ValueError) as err:
        raise ValueError(f"policy {text!r}: {err}") from None


def batched_kind(text: str) -> str:
    """The compiled row that plays bot ``text`` (a name of ``quatro_env.bots.batched.KINDS``) however
    its options are spelled: ``cover:split=True`` and ``cover:beat=true,split=true`` are
    ``cover:split=true``, an option at its default is no option. A bad name or option, or options
    without a row, are refused by name (ValueError)."""
    from quatro_env.bots.batched import KINDS, VARIANTS

    name, options = parse_bot_policy(text)
    explicit = {k: v for k, v in options.items() if v != _default(BOT_POLICIES[name], k)}
    found = [kind for kind, row in VARIANTS.items() if row == (name, explicit)] if explicit else [name]
    if not found or found[0] not in KINDS:
        raise ValueError(
            f"no batched version of {name} with {explicit}; the options with a row: {list(VARIANTS)}"
        )
    return found[0]


def _default(bot: Callable[..., BotPolicy], key: str) -> Any:
    """A bot option's default: the constructor's, or where that is None (the bots' "not given") the
    class attribute of that name the option overrides."""
    default = inspect.signature(bot).parameters[key].default
    return getattr(bot, key, None) if default is None else default


def _checked_parameter(text: str, bot: str, key: str, value: Any) -> Any:
    """A bot parameter of the constructor's declared type (no silent coercion of ``abc`` to a float)."""
    hints = typing.get_type_hints(BOT_POLICIES[bot].__init__)
    allowed = sorted(k for k in hints if k not in ("num_players", "seed", "return"))
    if key not in allowed:
        raise ValueError(
            f"policy {text!r}: {bot} has no parameter {key!r}; its parameters: {allowed or 'none'}"
        )
    types = [t for t in typing.get_args(hints[key]) or (hints[key],) if t is not type(None)]
    ok = any(
        (t is float and isinstance(value, (int, float)) and not isinstance(value, bool))
        or (t is int and isinstance(value, int) and not isinstance(value, bool))
        or (t is bool and isinstance(value, bool))
        or (t is str and isinstance(value, str))
        for t in types
    )
    if not ok:
        expected = " or ".join(t.__name__ for t in types)
        raise ValueError(f"policy {text!r}: {key} must be {expected}, got {value!r}")
    return value


__all__ = [
    "BOT_POLICIES",
    "build_bot",
    "parse_bot_policy",
    "BotPolicy",
    "ScriptedBot",
    *sorted({cls.__name__ for cls in BOT_POLICIES.values()}),
]
