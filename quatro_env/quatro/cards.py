"""Deck, card faces and the 24 emojis (Q3, Q7).

A card is an int ``c`` in ``0..4(n+1)-1``: its value is ``c // 4`` and its suit ``c % 4``.
Only the value matters to the rules; suits exist so that renders look like cards.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Value labels from the top of the deck down; n players use the first n + 1 (Q3).
VALUE_LABELS: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
SUIT_SYMBOLS: tuple[str, ...] = ("♠", "♥", "♦", "♣")

#: The fixed list of 24 emojis (Q7). Signs and channel emojis both come from this list
#: ([decision] the channel shows the same emojis, so a decoy looks like a sign).
EMOJIS: tuple[str, ...] = (
    "🍍", "🚀", "🐢", "🦊", "🐙", "🌵", "🍄", "🌙", "⭐", "🔥", "💧", "⚡",
    "🎈", "🎲", "🎸", "👑", "🐝", "🦉", "🍉", "🌈", "🐳", "🍒", "🔔", "⚓",
)  # fmt: skip
NUM_EMOJIS = len(EMOJIS)
assert NUM_EMOJIS == 24


def num_values(num_players: int) -> int:
    """n + 1 values, four copies each (Q3)."""
    return num_players + 1


def deck_size(num_players: int) -> int:
    return 4 * num_values(num_players)


def card_value(card: int) -> int:
    return card // 4


def card_label(card: int) -> str:
    return f"{VALUE_LABELS[card // 4]}{SUIT_SYMBOLS[card % 4]}"


def is_quartet(hand: Sequence[int]) -> bool:
    """Four cards of one value (Q18, Q19)."""
    value = hand[0] // 4
    return hand[1] // 4 == value and hand[2] // 4 == value and hand[3] // 4 == value


def has_triple(hand: Sequence[int]) -> bool:
    """Three or four cards of one value: such a dealt hand is replaced (Q5)."""
    values = [c // 4 for c in hand]
    return any(values.count(v) >= 3 for v in values[:2])


def parse_cards(items: Sequence[int | str], num_players: int, what: str) -> list[int]:
    """Turn value labels ("A", "10") or value indices into placeholder values.

    Returns *values* (not card ids); :func:`assign_suits` gives them distinct suits.
    """
    nv = num_values(num_players)
    values = []
    for item in items:
        if isinstance(item, str):
            label = item.strip().upper()
            if label not in VALUE_LABELS[:nv]:
                raise ValueError(
                    f"{what}: unknown card {item!r}; with {num_players} players the values are "
                    f"{', '.join(VALUE_LABELS[:nv])}"
                )
            values.append(VALUE_LABELS.index(label))
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < nv:
            values.append(item)
        else:
            raise ValueError(f"{what}: a card is a value label or a value index in 0..{nv - 1}, got {item!r}")
    return values


def assign_suits(value_groups: Sequence[Sequence[int]], num_players: int) -> list[list[int]]:
    """Give each value occurrence its own suit, in order; every value must occur exactly four times."""
    nv = num_values(num_players)
    used = [0] * nv
    groups = []
    for group in value_groups:
        cards = []
        for v in group:
            if used[v] == 4:
                raise ValueError(f"value {VALUE_LABELS[v]} appears more than four times (Q3)")
            cards.append(4 * v + used[v])
            used[v] += 1
        groups.append(cards)
    missing = [VALUE_LABELS[v] for v in range(nv) if used[v] != 4]
    if missing:
        raise ValueError(
            f"every value must appear exactly four times in hands + center (Q3); short: {', '.join(missing)}"
        )
    return groups
