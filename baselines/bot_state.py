"""Scripted bots' state as plain JSON data, so a trainer checkpoint can hold them without pickling.

A bot (``quatro_env.quatro.bots.BOT_POLICIES``) is rebuilt from its registered name and its
player count, then its attributes are set from the saved values: numbers, strings, lists, dicts,
numpy arrays and numpy generators (their bit-generator state). Helpers that the constructor
rebuilds from the player count alone (the observation reader, the action codec) are not saved.
Any other attribute type is an error at save time, so a new kind of bot state can never be
dropped silently (a resume would then not be exact).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from quatro_env.bots.base import ObservationView
from quatro_env.quatro.actions import ActionCodec
from quatro_env.quatro.bots import BOT_POLICIES

REBUILT_BY_CONSTRUCTOR = (ObservationView, ActionCodec)


def _name_of(bot: Any) -> str:
    for name, cls in BOT_POLICIES.items():
        if type(bot) is cls:
            return name
    raise TypeError(f"bot {type(bot).__name__}: not a registered bot (BOT_POLICIES)")


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return {"__numpy_scalar__": value.item(), "dtype": value.dtype.str}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.random.Generator):
        return {"__generator__": value.bit_generator.state}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v, f"{where}.{k}") for k, v in value.items()}}
    raise TypeError(f"bot state {where}: cannot save a {type(value).__name__} as plain data")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        return np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"])).reshape(value["shape"])
    if "__numpy_scalar__" in value:
        return np.dtype(value["dtype"]).type(value["__numpy_scalar__"])
    if "__generator__" in value:
        state = value["__generator__"]
        bit_generator = getattr(np.random, state["bit_generator"])()
        bit_generator.state = state
        return np.random.Generator(bit_generator)
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    return {k: _decode(v) for k, v in value["__dict__"].items()}


def bots_to_json(bots: dict[tuple[int, int], Any]) -> str:
    """``{(table, seat): bot}`` → a JSON text (the checkpoint's ``bots`` entry)."""
    rows = []
    for (table, seat), bot in bots.items():
        fields = {
            key: _encode(value, f"({table}, {seat}).{key}")
            for key, value in vars(bot).items()
            if not isinstance(value, REBUILT_BY_CONSTRUCTOR)
        }
        rows.append({"table": table, "seat": seat, "bot": _name_of(bot), "fields": fields})
    return json.dumps(rows)


def bots_from_json(text: str, num_players: int) -> dict[tuple[int, int], Any]:
    """The inverse of :func:`bots_to_json`: the same bots, in the same state."""
    bots: dict[tuple[int, int], Any] = {}
    for row in json.loads(text):
        if row["bot"] not in BOT_POLICIES:
            raise ValueError(f"checkpoint bots: unknown bot {row['bot']!r}; known: {sorted(BOT_POLICIES)}")
        bot = BOT_POLICIES[row["bot"]](num_players, seed=0)
        for key, value in row["fields"].items():
            setattr(bot, key, _decode(value))
        bots[(int(row["table"]), int(row["seat"]))] = bot
    return bots
