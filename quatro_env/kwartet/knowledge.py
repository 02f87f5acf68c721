"""The public-knowledge summary (K10): what the public record alone proves about every hand.

The summary is fed only public facts (starting hand sizes, the stock size, families exposed
before play, then the events of :mod:`quatro_env.kwartet.events`), so it is identical for every
observer and can never leak a private hand. Every fact it states is sound: ``holds[s, c]`` means
seat ``s`` certainly holds card ``c`` now, ``lacks[s, c]`` that it certainly does not, and
``min_count[s, f]`` that it holds at least that many cards of family ``f`` ("A asked for a queen"
proves A holds one). Anything else is unknown.

Internally each seat's facts are Python-int bitsets (bit ``c`` = card ``c``, family ``f`` = the
nibble at bit ``4 f``): the deduction loop then costs a few microseconds instead of dozens of
small numpy calls per event. The numpy views are built on demand and cached until the next event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from quatro_env.kwartet.cards import MEMBERS
from quatro_env.kwartet.events import DRAW, EXPOSE, HIT, MISS

_FAMILY = (1 << MEMBERS) - 1


def _family_bits(family: int) -> int:
    return _FAMILY << (MEMBERS * family)


class PublicKnowledge:
    """Sound deductions from public events, closed under a few propagation rules after each event."""

    def __init__(
        self,
        hand_sizes: np.ndarray,
        num_families: int,
        stock_size: int = 0,
        exposed_families: tuple[int, ...] = (),
    ) -> None:
        self.num_players = len(hand_sizes)
        self.num_families = num_families
        self.num_cards = MEMBERS * num_families
        self.sizes = [int(size) for size in hand_sizes]
        self.stock_size = int(stock_size)
        self._all = (1 << self.num_cards) - 1
        self._out = 0  # cards of exposed families
        for family in exposed_families:
            self._out |= _family_bits(int(family))
        self._holds = [0] * self.num_players
        self._lacks = [self._out] * self.num_players
        # Proven lower bounds per (seat, family) from requests and hits, beyond the located cards.
        self._at_least: list[dict[int, int]] = [{} for _ in range(self.num_players)]
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._propagate()

    @classmethod
    def replay(cls, public_start: Mapping[str, Any], events: np.ndarray) -> PublicKnowledge:
        """Rebuild the summary from the public record alone (what any spectator could do):
        ``public_start`` holds this constructor's arguments, ``events`` the rows of the event log."""
        knowledge = cls(**public_start)
        for kind, actor, target, value in events:
            knowledge.apply(int(kind), int(actor), int(target), int(value))
        return knowledge

    # ------------------------------------------------------------------------------ numpy views
    @property
    def holds(self) -> np.ndarray:
        """(num_players, num_cards) bool: the seat certainly holds the card."""
        return self._views()[0]

    @property
    def lacks(self) -> np.ndarray:
        """(num_players, num_cards) bool: the seat certainly does not hold the card."""
        return self._views()[1]

    @property
    def min_count(self) -> np.ndarray:
        """(num_players, num_families) int8: the seat holds at least this many cards of the family."""
        return self._views()[2]

    def _views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._arrays is None:
            holds, lacks = self._to_array(self._holds), self._to_array(self._lacks)
            min_count = holds.reshape(self.num_players, self.num_families, MEMBERS).sum(axis=2, dtype=np.int8)
            for seat, bounds in enumerate(self._at_least):
                for family, m in bounds.items():
                    min_count[seat, family] = max(min_count[seat, family], m)
            for array in (holds, lacks, min_count):
                array.flags.writeable = False
            self._arrays = holds, lacks, min_count
        return self._arrays

    def _to_array(self, bitsets: list[int]) -> np.ndarray:
        raw = b"".join(bits.to_bytes(8, "little") for bits in bitsets)
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
        return bits.reshape(self.num_players, 64)[:, : self.num_cards].astype(bool)

    # ----------------------------------------------------------------------------------- events
    def apply(self, kind: int, actor: int, target: int, value: int) -> None:
        """Update with one public event (see :mod:`quatro_env.kwartet.events` for the fields)."""
        if kind in (HIT, MISS):
            self._on_request(actor, target, value, hit=kind == HIT)
        elif kind == EXPOSE:
            self._on_expose(actor, value)
        elif kind == DRAW:
            self._on_draw(actor)
        else:
            raise ValueError(f"unknown event kind {kind}")
        self._arrays = None
        self._propagate()

    def _on_request(self, asker: int, asked: int, card: int, hit: bool) -> None:
        family, bit = card // MEMBERS, 1 << card
        # K3: asking proves the asker lacks the card and holds at least one of its family.
        self._lacks[asker] |= bit
        asker_bounds = self._at_least[asker]
        asker_bounds[family] = max(asker_bounds.get(family, 0), 1)
        if not hit:
            self._lacks[asked] |= bit
            return
        # The asked seat held the card and its located family members; it gives one card away.
        asked_bounds = self._at_least[asked]
        held_before = ((self._holds[asked] & _family_bits(family)) | bit).bit_count()
        remaining = max(asked_bounds.get(family, 0), held_before) - 1
        if remaining > 0:
            asked_bounds[family] = remaining
        else:
            asked_bounds.pop(family, None)
        asker_bounds[family] += 1  # the asker's proven members never included the card it lacked
        for seat in range(self.num_players):
            self._holds[seat] &= ~bit
            self._lacks[seat] |= bit
        self._holds[asker] |= bit
        self._lacks[asker] &= ~bit
        self.sizes[asker] += 1
        self.sizes[asked] -= 1

    def _on_expose(self, seat: int, family: int) -> None:
        members = _family_bits(family)
        self._out |= members
        for other in range(self.num_players):
            self._holds[other] &= ~members
            self._lacks[other] |= members
            self._at_least[other].pop(family, None)
        self.sizes[seat] -= MEMBERS

    def _on_draw(self, seat: int) -> None:
        # The drawer may now hold any card that could have been in the stock.
        located = 0
        for bits in self._holds:
            located |= bits
        self._lacks[seat] &= ~(self._all & ~self._out & ~located)
        self.sizes[seat] += 1
        self.stock_size -= 1

    # ------------------------------------------------------------------------------- deduction
    def _propagate(self) -> None:
        """Apply the deduction rules until nothing changes; facts are only ever added here."""
        holds, lacks, sizes = self._holds, self._lacks, self.sizes
        known = sum(h.bit_count() + l.bit_count() for h, l in zip(holds, lacks, strict=True))
        while True:
            located = 0
            for bits in holds:
                located |= bits
            seen_once = seen_twice = 0  # cards with at least one / two candidate holders
            for seat in range(self.num_players):
                # A located card is lacked by everybody else.
                held, lacked = holds[seat], lacks[seat] | (located & ~holds[seat])
                # A hand whose cards are all known holds nothing else (this covers empty hands).
                if held.bit_count() == sizes[seat]:
                    lacked = self._all & ~held
                # A hand with exactly as many candidate cards as cards holds all of them.
                candidates = self._all & ~lacked
                if candidates.bit_count() == sizes[seat]:
                    held |= candidates
                # Same per family: "holds >= m of family f" with exactly m candidates proves all m.
                for family, m in self._at_least[seat].items():
                    family_candidates = candidates & _family_bits(family)
                    if family_candidates.bit_count() == m:
                        held |= family_candidates
                holds[seat], lacks[seat] = held, lacked
                seen_twice |= seen_once & candidates
                seen_once |= candidates
            # Without a stock every card still in play is in exactly one hand.
            if self.stock_size == 0:
                single = seen_once & ~seen_twice & ~self._out
                for seat in range(self.num_players):
                    holds[seat] |= single & ~lacks[seat]
            now = sum(h.bit_count() + l.bit_count() for h, l in zip(holds, lacks, strict=True))
            if now == known:
                return
            known = now
