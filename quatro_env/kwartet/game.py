"""Kwartet game state and rules (K2-K9), independent of PettingZoo.

Seats are numbered clockwise (seat + 1 sits on the left). All state lives in small numpy arrays
that are updated in place; every public event goes through :meth:`KwartetGame._emit`, which logs
it and feeds the public-knowledge summary, so the two can never disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from quatro_env.kwartet.cards import MEMBERS, Deck
from quatro_env.kwartet.config import STOCK_HAND_SIZE, KwartetConfig
from quatro_env.kwartet.events import DRAW, EXPOSE, HIT, MISS, EventLog
from quatro_env.kwartet.knowledge import PublicKnowledge
from quatro_env.kwartet.position import ScriptedPosition


class KwartetGame:
    """One game: call :meth:`deal` or :meth:`setup`, then :meth:`request` until :attr:`over`."""

    def __init__(self, config: KwartetConfig) -> None:
        self.config = config
        self.deck = Deck(config.num_families)
        n, cards, families = config.num_players, config.num_cards, config.num_families
        self.num_players = n
        self.hands = np.zeros((n, cards), dtype=bool)
        self.family_counts = np.zeros((n, families), dtype=np.int8)
        self.hand_sizes = np.zeros(n, dtype=np.int16)
        self.exposed_by = np.full(families, -1, dtype=np.int8)
        self.scores = np.zeros(n, dtype=np.int16)
        self.exposed_count = 0
        self.stock: list[int] = []
        self.dealer: int | None = None
        self.to_move = 0
        self.requests = 0
        self.truncated = False
        self.events = EventLog()
        self.knowledge: PublicKnowledge
        self.public_start: dict[str, Any] = {}
        self._mask_cache: np.ndarray | None = None

    # ----------------------------------------------------------------------------------- set-up
    def deal(self, rng: np.random.Generator) -> None:
        """K2: shuffle, draw a dealer, deal one at a time clockwise from the dealer's left."""
        n = self.num_players
        order = rng.permutation(self.config.num_cards)
        self.dealer = int(rng.integers(n))
        dealt = STOCK_HAND_SIZE * n if self.config.stock else len(order)
        for i, card in enumerate(order[:dealt]):
            self._give((self.dealer + 1 + i) % n, int(card))
        self.stock = [int(card) for card in order[dealt:]]
        self._start((self.dealer + 1) % n)

    def setup(self, position: ScriptedPosition) -> None:
        """Start from a validated scripted position (see :mod:`quatro_env.kwartet.position`)."""
        for seat, hand in enumerate(position.hands):
            for card in hand:
                self._give(seat, card)
        for family, seat in position.exposed.items():
            self.exposed_by[family] = seat
            self.scores[seat] += 1
            self.exposed_count += 1
        self.stock = list(position.stock)
        self._start(position.to_move)

    def _start(self, starter: int) -> None:
        # The public facts before any event: enough, with the event log, to rebuild the summary.
        self.public_start = {
            "hand_sizes": self.hand_sizes.copy(),
            "num_families": self.config.num_families,
            "stock_size": len(self.stock),
            "exposed_families": tuple(int(f) for f in np.flatnonzero(self.exposed_by >= 0)),
        }
        self.knowledge = PublicKnowledge(**self.public_start)
        # K2: complete families in a starting hand are exposed at once (they score, no reward).
        for offset in range(self.num_players):
            seat = (starter + offset) % self.num_players
            for family in np.flatnonzero(self.family_counts[seat] == MEMBERS):
                self._expose(seat, int(family))
        for offset in range(self.num_players):
            self._refill((starter + offset) % self.num_players)
        self.to_move = self._first_with_cards(starter)

    # ------------------------------------------------------------------------------------ rules
    @property
    def over(self) -> bool:
        """K8: the game ends when every family is exposed (then all hands are empty)."""
        return self.exposed_count == self.config.num_families

    def legal_mask(self) -> np.ndarray:
        """K3: bool array (num_players - 1, num_cards): [offset - 1, card] may be requested now."""
        if self._mask_cache is None:
            n, seat = self.num_players, self.to_move
            held_families = np.repeat(self.family_counts[seat] > 0, MEMBERS)
            wanted = held_families & ~self.hands[seat]
            opponents = self.hand_sizes[(seat + np.arange(1, n)) % n] > 0
            if self.over or self.truncated:
                opponents[:] = False
            self._mask_cache = opponents[:, None] & wanted[None, :]
        return self._mask_cache

    def illegal_reason(self, offset: int, card: int) -> str | None:
        """Why requesting ``card`` from the seat ``offset`` places clockwise is illegal, or None (K3)."""
        n, seat = self.num_players, self.to_move
        if self.over or self.truncated:
            return "the game is over"
        if not 1 <= offset < n:
            return f"target offset {offset} is not in 1..{n - 1}"
        if not 0 <= card < self.config.num_cards:
            return f"card id {card} is not in 0..{self.config.num_cards - 1}"
        family = card // MEMBERS
        if self.hand_sizes[(seat + offset) % n] == 0:
            return "the target has no cards (K3/K7)"
        if self.exposed_by[family] >= 0:
            return "its family is already exposed (K3/K6)"
        if self.hands[seat, card]:
            return "you hold that card yourself (K3)"
        if self.family_counts[seat, family] == 0:
            return "you hold no card of its family (K3)"
        return None

    def request(self, offset: int, card: int) -> list[int]:
        """Play one legal request for the player to move; return the seats that exposed a family.

        K4: a hit moves exactly that card and the asker keeps the turn. K5/K9: a miss moves nothing
        (in the stock variant the asker draws) and the turn goes to the asked player, or clockwise.
        K6: completed families are exposed at once, before the turn is decided. K7: the turn skips
        players without cards. Raises ``ValueError`` for an illegal request.
        """
        reason = self.illegal_reason(offset, card)
        if reason is not None:
            raise ValueError(reason)
        n, asker = self.num_players, self.to_move
        target = (asker + offset) % n
        exposers: list[int] = []
        self.requests += 1
        self._mask_cache = None
        if self.hands[target, card]:
            self._take(target, card)
            self._give(asker, card)
            self._emit(HIT, asker, target, card)
            if self.family_counts[asker, card // MEMBERS] == MEMBERS:
                exposers.append(self._expose(asker, card // MEMBERS))
            self._refill(target)
            self._refill(asker)
            next_player = asker
        else:
            self._emit(MISS, asker, target, card)
            if self.config.stock and self.stock:
                exposers += self._draw(asker)
            next_player = target if self.config.turn_after_miss == "asked" else (asker + 1) % n
        self.to_move = self._first_with_cards(next_player)
        if not self.over and self.requests >= self.config.max_requests:
            self.truncated = True
        return exposers

    def winners(self) -> list[int]:
        """K8: the seats with the most families (tied leaders share the win)."""
        return [int(s) for s in np.flatnonzero(self.scores == self.scores.max())]

    # --------------------------------------------------------------------------------- mechanics
    def _give(self, seat: int, card: int) -> None:
        self.hands[seat, card] = True
        self.family_counts[seat, card // MEMBERS] += 1
        self.hand_sizes[seat] += 1

    def _take(self, seat: int, card: int) -> None:
        self.hands[seat, card] = False
        self.family_counts[seat, card // MEMBERS] -= 1
        self.hand_sizes[seat] -= 1

    def _expose(self, seat: int, family: int) -> int:
        for card in self.deck.family_cards(family):
            self._take(seat, card)
        self.exposed_by[family] = seat
        self.scores[seat] += 1
        self.exposed_count += 1
        self._emit(EXPOSE, seat, seat, family)
        return seat

    def _draw(self, seat: int) -> list[int]:
        card = self.stock.pop(0)
        self._give(seat, card)
        self._emit(DRAW, seat, seat, 0)
        if self.family_counts[seat, card // MEMBERS] == MEMBERS:
            exposer = self._expose(seat, card // MEMBERS)
            self._refill(seat)
            return [exposer]
        return []

    def _refill(self, seat: int) -> None:
        """K9 stock variant: a player whose hand is empty draws while the stock lasts."""
        if self.hand_sizes[seat] == 0 and self.stock:
            self._draw(seat)

    def _first_with_cards(self, start: int) -> int:
        for offset in range(self.num_players):
            seat = (start + offset) % self.num_players
            if self.hand_sizes[seat] > 0:
                return seat
        return start  # nobody holds cards: the game is over

    def _emit(self, kind: int, actor: int, target: int, value: int) -> None:
        self.events.append(kind, actor, target, value)
        self.knowledge.apply(kind, actor, target, value)
