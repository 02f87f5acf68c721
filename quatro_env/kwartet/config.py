"""The one validated configuration object of a Kwartet environment (K1, K8, K9, K9b, K10)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from quatro_env.kwartet.cards import MEMBERS

STOCK_HAND_SIZE = 7
"""Cards dealt to each player in the stock variant (K9 decision); the rest form the stock."""


class KwartetConfig(BaseModel):
    """Everything that is fixed for a whole game; bad values raise a ``ValueError`` naming the field.

    Types are strict: ``num_players="4"`` or ``4.0`` and ``stock="yes"`` or ``1`` are refused.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    num_players: int = Field(4, ge=2, le=6, description="K1: 3-6 players; 2 only with the stock variant")
    num_families: int = Field(8, ge=2, le=13, description="K1: number of quartets (deck size / 4)")
    turn_after_miss: Literal["asked", "clockwise"] = Field(
        "asked", description="K5/K9: who moves after a miss: the asked player or the asker's left neighbour"
    )
    stock: bool = Field(False, description="K9: stock variant (7 cards each, the asker draws after a miss)")
    reward_mode: Literal["per_family", "win_loss"] = Field(
        "per_family", description="K9b: +1 per family exposed in play, or zero-sum win/loss at the end"
    )
    raw_history: bool = Field(False, description="K10: add the raw public event list to the observation")
    history_length: int = Field(128, ge=1, le=4096, description="rows of raw history kept (most recent)")
    max_requests: int = Field(2000, ge=1, description="K8: requests after which the game is truncated")
    render_mode: Literal["ansi", "human", "rgb_array"] | None = None

    @field_validator("reward_mode", mode="before")
    @classmethod
    def _accept_rules_name(cls, value: object) -> object:
        # The rules file (K9b) calls the default mode "families"; accept it as a synonym.
        return "per_family" if value == "families" else value

    @model_validator(mode="after")
    def _check_players_against_deck(self) -> KwartetConfig:
        if self.num_players < 3 and not self.stock:
            raise ValueError(
                f"num_players={self.num_players}: Kwartet needs 3-6 players; "
                "2 players are only allowed with the stock variant (stock=True)"
            )
        num_cards = MEMBERS * self.num_families
        if self.stock and STOCK_HAND_SIZE * self.num_players > num_cards:
            raise ValueError(
                f"stock=True deals {STOCK_HAND_SIZE} cards to each of num_players={self.num_players}, "
                f"but num_families={self.num_families} gives only {num_cards} cards"
            )
        return self

    @property
    def num_cards(self) -> int:
        return MEMBERS * self.num_families
