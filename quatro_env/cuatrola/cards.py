"""The 20-card Spanish deck of Cuatrola (rule C2) and the deal (C3).

A card is an ``int`` in ``[0, 20)``: ``suit * 5 + rank``, with ranks ordered from the strongest
(As) to the weakest (Sota), so that within a suit a *lower* rank index beats a higher one. Lookup
tables keep the hot paths (legality, trick winner) free of arithmetic and object creation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SUITS: tuple[str, ...] = ("oros", "copas", "espadas", "bastos")
SUIT_CODES = "oceb"
RANKS: tuple[str, ...] = ("As", "3", "Rey", "Caballo", "Sota")  # strongest first (C2)
RANK_CODES = "A3RCS"
RANK_POINTS: tuple[int, ...] = (11, 10, 4, 3, 2)  # C2

AS, TRES, REY, CABALLO, SOTA = range(5)
NUM_SUITS = 4
NUM_RANKS = 5
NUM_CARDS = NUM_SUITS * NUM_RANKS
HAND_SIZE = 5
TOTAL_CARD_POINTS = NUM_SUITS * sum(RANK_POINTS)  # 120

CARD_SUIT: tuple[int, ...] = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
CARD_RANK: tuple[int, ...] = tuple(c % NUM_RANKS for c in range(NUM_CARDS))
CARD_POINTS: tuple[int, ...] = tuple(RANK_POINTS[r] for r in CARD_RANK)
# Higher strength beats lower strength within one suit.
CARD_STRENGTH: tuple[int, ...] = tuple(NUM_RANKS - 1 - r for r in CARD_RANK)
CARD_CODES: tuple[str, ...] = tuple(
    RANK_CODES[CARD_RANK[c]] + SUIT_CODES[CARD_SUIT[c]] for c in range(NUM_CARDS)
)
CARD_NAMES: tuple[str, ...] = tuple(
    f"{RANKS[CARD_RANK[c]]} de {SUITS[CARD_SUIT[c]]}" for c in range(NUM_CARDS)
)
_CODE_TO_CARD = {code.lower(): c for c, code in enumerate(CARD_CODES)}


def make_card(suit: int, rank: int) -> int:
    return suit * NUM_RANKS + rank


def card_code(card: int) -> str:
    """Two-letter code: rank (A 3 R C S) then suit (o c e b), e.g. ``"Co"`` = Caballo de oros."""
    return CARD_CODES[card]


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(value: int | str) -> int:
    """A card from its id or its code (case-insensitive); raises ``ValueError`` otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"a card is an id in [0, {NUM_CARDS}) or a code like 'Ao', got {value!r}")
    if isinstance(value, (int, np.integer)):
        if 0 <= value < NUM_CARDS:
            return int(value)
        raise ValueError(f"card id must lie in [0, {NUM_CARDS}), got {value}")
    if isinstance(value, str) and value.strip().lower() in _CODE_TO_CARD:
        return _CODE_TO_CARD[value.strip().lower()]
    raise ValueError(
        f"unknown card {value!r}: use an id in [0, {NUM_CARDS}) or a code rank+suit "
        f"(rank in {RANK_CODES!r}, suit in {SUIT_CODES!r}), e.g. 'Ao', '3c', 'Rb'"
    )


def format_cards(cards: Sequence[int]) -> str:
    return " ".join(CARD_CODES[c] for c in cards) if cards else "-"


def deal(rng: np.random.Generator, dealer: int) -> tuple[list[list[int]], int]:
    """Deal a uniformly random permutation, five cards each from mano round to the dealer (C3).

    The dealer's block comes last, so the last card dealt (the shown card that fixes trumps) is
    the dealer's. Returns the four hands by seat and the shown card.
    """
    order = rng.permutation(NUM_CARDS).tolist()
    hands: list[list[int]] = [[], [], [], []]
    for i in range(4):
        hands[(dealer + 1 + i) % 4] = order[i * HAND_SIZE : (i + 1) * HAND_SIZE]
    return hands, order[-1]
