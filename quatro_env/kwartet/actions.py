"""The action codec (K3): one ``Discrete`` action = (relative target, exact card).

``action = (offset - 1) * num_cards + card`` where ``offset`` in ``1..num_players - 1`` is the
target's seat counted clockwise from the asker (1 = left neighbour), so the same action means the
same thing from every seat (egocentric), and ``card`` is the card id of
:class:`~quatro_env.kwartet.cards.Deck` (family ``card // 4``, member ``card % 4``).
"""

from __future__ import annotations

from quatro_env.kwartet.cards import CardSpec, Deck


class ActionCodec:
    """Encode, decode and describe actions for one (num_players, num_families) table."""

    def __init__(self, num_players: int, num_families: int) -> None:
        self.num_players = num_players
        self.deck = Deck(num_families)
        self.num_actions = (num_players - 1) * self.deck.num_cards

    def encode(self, offset: int, card: CardSpec) -> int:
        """Action asking the player ``offset`` seats clockwise for ``card`` (an id or a name like "Q♥")."""
        if not 1 <= offset < self.num_players:
            raise ValueError(f"target offset {offset} is not in 1..{self.num_players - 1}")
        return (offset - 1) * self.deck.num_cards + self.deck.card(card)

    def decode(self, action: int) -> tuple[int, int]:
        """``(offset, card)`` of an action; raise ``ValueError`` when it is out of range."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is not in 0..{self.num_actions - 1}")
        offset, card = divmod(int(action), self.deck.num_cards)
        return offset + 1, card

    def describe(self, action: int, asker: int | None = None) -> str:
        """Human-readable request; with the asker's seat the target is named as an agent too."""
        offset, card = self.decode(action)
        where = f"{offset} seat{'s' if offset > 1 else ''} clockwise"
        if asker is not None:
            where = f"player_{(asker + offset) % self.num_players}, {where}"
        return f"ask ({where}) for {self.deck.name(card)}"
