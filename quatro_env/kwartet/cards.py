"""The Kwartet deck (K1): ``num_families`` families of four members, cards numbered densely.

Card id ``c`` belongs to family ``c // 4`` and is member ``c % 4``. With the common substitute
deck the families are ranks and the members suits, so card names read like ``"Q♥"``; a deck of
k families uses the k highest ranks (the default 8 families are 7 8 9 10 J Q K A).
"""

from __future__ import annotations

from functools import cached_property

MEMBERS = 4
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("♠", "♥", "♦", "♣")
_SUIT_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, **{s: i for i, s in enumerate(SUITS)}}

CardSpec = int | str
"""A card given by a user: its id, or its name (``"Q♥"``, ``"QH"``, ``"10s"``)."""


class Deck:
    """Names, ids and parsing for one deck size; pure helpers, no game state."""

    def __init__(self, num_families: int) -> None:
        if not 1 <= num_families <= len(RANKS):
            raise ValueError(f"num_families must lie in [1, {len(RANKS)}], got {num_families}")
        self.num_families = num_families
        self.num_cards = MEMBERS * num_families
        self.family_names: tuple[str, ...] = RANKS[len(RANKS) - num_families :]

    @cached_property
    def card_names(self) -> tuple[str, ...]:
        return tuple(f"{rank}{suit}" for rank in self.family_names for suit in SUITS)

    def name(self, card: int) -> str:
        return self.card_names[card]

    def family_cards(self, family: int) -> range:
        return range(MEMBERS * family, MEMBERS * family + MEMBERS)

    def card(self, spec: CardSpec) -> int:
        """Resolve a card id or name to its id; raise ``ValueError`` naming the bad spec."""
        if isinstance(spec, bool):
            raise ValueError(f"card {spec!r} is a bool, expected an id or a name like 'Q♥'")
        if isinstance(spec, int):
            if not 0 <= spec < self.num_cards:
                raise ValueError(f"card id {spec} is out of range [0, {self.num_cards})")
            return spec
        if isinstance(spec, str) and len(spec) >= 2:
            rank, suit = spec[:-1].upper(), _SUIT_ALIASES.get(spec[-1].upper())
            if suit is not None and rank in self.family_names:
                return MEMBERS * self.family_names.index(rank) + suit
        raise ValueError(
            f"unknown card {spec!r}: expected an id in [0, {self.num_cards}) or a rank in "
            f"{'/'.join(self.family_names)} followed by a suit in ♠♥♦♣ or SHDC (e.g. 'Q♥' or 'QH')"
        )

    def family(self, spec: int | str) -> int:
        """Resolve a family index or rank name (``"Q"``) to its index."""
        if isinstance(spec, int) and not isinstance(spec, bool) and 0 <= spec < self.num_families:
            return spec
        if isinstance(spec, str) and spec.upper() in self.family_names:
            return self.family_names.index(spec.upper())
        raise ValueError(
            f"unknown family {spec!r}: expected an index in [0, {self.num_families}) "
            f"or a rank in {'/'.join(self.family_names)}"
        )
