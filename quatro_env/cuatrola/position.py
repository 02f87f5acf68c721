"""Reset options: start a match from a scripted position, validated with clear errors.

``env.reset(options={...})`` accepts these keys (all optional):

- ``dealer``: seat 0..3 of the first dealer (otherwise drawn from the seed).
- ``scores``: match points ``[pair 0, pair 1]`` before the first hand, each below the target.
- ``hands``: the first deal, four lists of five cards by seat (ids or codes like ``"Ao"``);
  needs ``dealer`` and ``trump_card``.
- ``trump_card``: the shown last card, which fixes trumps; it must be in the dealer's hand (C3).
- ``phase``: ``"declare"`` (default) starts at the declaration round; ``"play"`` skips it and
  starts the first trick with ``contract`` (``"none"`` default, ``"solo"``, ``"cuatrola"``,
  ``"quintola"``) declared by seat ``declarer``, every other seat having passed (D10).

Whose turn it is follows from these (C4, C5), so it is not an option. Later hands are dealt
from the seed as usual. Unknown keys are ignored with a warning (PettingZoo's API test passes
arbitrary options); the keys above are checked strictly.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from quatro_env.cuatrola.cards import HAND_SIZE, NUM_CARDS, card_code, parse_card
from quatro_env.cuatrola.scoring import CONTRACT_NAMES, CONTRACT_VALUE, MATCH_TARGET, Contract, pair_of

Card = Annotated[int, BeforeValidator(parse_card)]
Seat = Annotated[int, Field(ge=0, le=3, strict=True)]


class ResetOptions(BaseModel):
    """A scripted start; see the module docstring. Validate with ``parse_reset_options``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dealer: Seat | None = None
    scores: (
        tuple[Annotated[int, Field(ge=0, strict=True)], Annotated[int, Field(ge=0, strict=True)]] | None
    ) = None
    hands: tuple[list[Card], list[Card], list[Card], list[Card]] | None = None
    trump_card: Card | None = None
    phase: Literal["declare", "play"] = "declare"
    contract: Literal["none", "solo", "cuatrola", "quintola"] = "none"
    declarer: Seat | None = None

    @field_validator("scores")
    @classmethod
    def _scores_below_target(
        cls, scores: tuple[int, int] | None, info: ValidationInfo
    ) -> tuple[int, int] | None:
        target = (info.context or {}).get("target_score", MATCH_TARGET)
        if scores is not None and max(scores) >= target:
            raise ValueError(f"scores must both be below the target {target} (the match would be over)")
        return scores

    @field_validator("hands")
    @classmethod
    def _full_deal(cls, hands: tuple[list[int], ...] | None) -> tuple[list[int], ...] | None:
        if hands is None:
            return None
        for seat, hand in enumerate(hands):
            if len(hand) != HAND_SIZE:
                raise ValueError(f"hands[{seat}] must hold {HAND_SIZE} cards, got {len(hand)}")
        seen = [c for hand in hands for c in hand]
        dupes = sorted({c for c in seen if seen.count(c) > 1})
        if dupes:
            raise ValueError(
                f"hands must deal all {NUM_CARDS} cards once; repeated: {[card_code(c) for c in dupes]}"
            )
        return hands

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> ResetOptions:
        if self.hands is not None:
            if self.dealer is None or self.trump_card is None:
                raise ValueError("hands need dealer and trump_card as well")
            if self.trump_card not in self.hands[self.dealer]:
                raise ValueError(
                    f"trump_card {card_code(self.trump_card)} must be in the dealer's hand "
                    f"(hands[{self.dealer}]): the last card dealt is the dealer's (C3)"
                )
        elif self.trump_card is not None:
            raise ValueError("trump_card needs hands: the shown card is part of a scripted deal")
        if self.phase == "declare":
            if self.contract != "none" or self.declarer is not None:
                raise ValueError("contract and declarer apply only with phase='play'")
        elif self.contract == "none":
            if self.declarer is not None:
                raise ValueError("declarer needs a contract other than 'none'")
        else:
            if self.declarer is None:
                raise ValueError(f"contract={self.contract!r} needs a declarer seat")
            target = (info.context or {}).get("target_score", MATCH_TARGET)
            score = (self.scores or (0, 0))[pair_of(self.declarer)]
            value = CONTRACT_VALUE[CONTRACT_NAMES.index(self.contract)]
            if score + value > target:
                raise ValueError(
                    f"contract: a {self.contract} by seat {self.declarer} would take its pair from "
                    f"{score} past {target} (C11)"
                )
        return self

    @property
    def contract_enum(self) -> Contract | None:
        """The contract to start trick play with, or ``None`` to start at the declaration round."""
        return None if self.phase == "declare" else Contract(CONTRACT_NAMES.index(self.contract))


def parse_reset_options(options: Mapping[str, Any] | None, target_score: int) -> ResetOptions:
    """Validate ``reset``'s options; raises pydantic's ``ValidationError`` (a ``ValueError``)."""
    if options is None:
        return ResetOptions()
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping, got {type(options).__name__}")
    known = {k: v for k, v in options.items() if k in ResetOptions.model_fields}
    unknown = sorted(str(k) for k in options if k not in ResetOptions.model_fields)
    if unknown:
        warnings.warn(
            f"cuatrola reset ignores unknown option(s) {unknown}; known: {sorted(ResetOptions.model_fields)}",
            stacklevel=3,
        )
    return ResetOptions.model_validate(known, context={"target_score": target_score})
