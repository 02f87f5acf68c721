"""The public record of a game (K3, K10): every event all players witness, in order.

Each event is one row ``(kind, actor, target, value)`` in absolute seats:

========  ========  ==========  =========================================
kind      actor     target      value
========  ========  ==========  =========================================
HIT       asker     asked       the card, which moved asked -> asker (K4)
MISS      asker     asked       the card, which the asked player lacks (K5)
EXPOSE    exposer   exposer     the family, whose four cards left play (K6)
DRAW      drawer    drawer      0: the drawn card is private (K9 stock)
========  ========  ==========  =========================================
"""

from __future__ import annotations

import numpy as np

HIT, MISS, EXPOSE, DRAW = 1, 2, 3, 4
KIND_NAMES = {HIT: "hit", MISS: "miss", EXPOSE: "expose", DRAW: "draw"}
EVENT_WIDTH = 4


class EventLog:
    """An append-only table of events stored in one growing numpy array (no per-event objects)."""

    def __init__(self, capacity: int = 64) -> None:
        self._rows = np.zeros((capacity, EVENT_WIDTH), dtype=np.int16)
        self._count = 0

    def append(self, kind: int, actor: int, target: int, value: int) -> None:
        if self._count == len(self._rows):
            self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
        self._rows[self._count] = (kind, actor, target, value)
        self._count += 1

    def __len__(self) -> int:
        return self._count

    @property
    def rows(self) -> np.ndarray:
        """A read-only view of the events so far, oldest first."""
        view = self._rows[: self._count]
        view.flags.writeable = False
        return view
