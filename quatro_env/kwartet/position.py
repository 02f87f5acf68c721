"""Scripted start positions for ``reset(options={"position": ...})``: validated, then set up.

A position lists every seat's hand, the families already exposed (and by whom, which sets the
scores) and, in the stock variant, the stock in drawing order. Cards may be given by id or name
(``"Q♥"``, ``"QH"``), families by index or rank (``"Q"``), seats by index or agent name
(``"player_2"``). Every card of the deck must appear exactly once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from quatro_env.kwartet.cards import Deck
from quatro_env.kwartet.config import KwartetConfig

SeatSpec = StrictInt | StrictStr
"""A seat: its index or its agent name; ``True`` or ``1.0`` are not seat 1."""
StrictCard = StrictInt | StrictStr
"""A card id or name (see ``CardSpec``), never a bool or a float."""


class ScriptedPosition(BaseModel):
    """A start position; validate it with :func:`load_position`, which knows the game's config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hands: tuple[tuple[StrictCard, ...], ...]
    to_move: SeatSpec = 0
    exposed: dict[StrictInt | StrictStr, SeatSpec] = {}
    stock: tuple[StrictCard, ...] = ()

    @field_validator("hands", "stock", mode="after")
    @classmethod
    def _resolve_cards(cls, value: tuple, info: ValidationInfo) -> tuple:
        deck = Deck(_config(info).num_families)
        if info.field_name == "stock":
            return tuple(deck.card(spec) for spec in value)
        return tuple(tuple(deck.card(spec) for spec in hand) for hand in value)

    @field_validator("to_move", mode="after")
    @classmethod
    def _resolve_mover(cls, value: SeatSpec, info: ValidationInfo) -> int:
        return _seat(value, _config(info).num_players)

    @field_validator("exposed", mode="after")
    @classmethod
    def _resolve_exposed(cls, value: dict, info: ValidationInfo) -> dict[int, int]:
        config = _config(info)
        deck = Deck(config.num_families)
        return {deck.family(family): _seat(seat, config.num_players) for family, seat in value.items()}

    @model_validator(mode="after")
    def _check_deck(self, info: ValidationInfo) -> ScriptedPosition:
        config = _config(info)
        if len(self.hands) != config.num_players:
            raise ValueError(
                f"hands: expected {config.num_players} hands (one per seat), got {len(self.hands)}"
            )
        if self.stock and not config.stock:
            raise ValueError("stock: a stock is only allowed with the stock variant (stock=True)")
        deck = Deck(config.num_families)
        placed = [card for hand in self.hands for card in hand] + list(self.stock)
        placed += [card for family in self.exposed for card in deck.family_cards(family)]
        duplicates = sorted({deck.name(c) for c in placed if placed.count(c) > 1})
        if duplicates:
            raise ValueError(f"hands/stock/exposed: cards placed more than once: {', '.join(duplicates)}")
        missing = sorted(set(range(deck.num_cards)) - set(placed))
        if missing:
            raise ValueError(
                f"hands/stock/exposed: every card must be placed once; missing: "
                f"{', '.join(deck.name(c) for c in missing)}"
            )
        return self


def load_position(data: Mapping[str, Any] | ScriptedPosition, config: KwartetConfig) -> ScriptedPosition:
    """Validate ``data`` against ``config``; raise a ``ValueError`` naming the offending field."""
    if isinstance(data, ScriptedPosition):
        data = data.model_dump()
    if not isinstance(data, Mapping):
        raise ValueError(
            f"options['position'] must be a mapping or ScriptedPosition, got {type(data).__name__}"
        )
    return ScriptedPosition.model_validate(data, context={"config": config})


def _config(info: ValidationInfo) -> KwartetConfig:
    config = (info.context or {}).get("config")
    return config if isinstance(config, KwartetConfig) else KwartetConfig()


def _seat(value: SeatSpec, num_players: int) -> int:
    if isinstance(value, str) and value.startswith("player_") and value[7:].isdigit():
        value = int(value[7:])
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < num_players:
        return value
    raise ValueError(f"unknown seat {value!r}: expected 0..{num_players - 1} or 'player_0'..")
