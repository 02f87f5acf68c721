"""Events: what happened in a tick, and who saw it (Q9, Q26–Q28, Q31)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: every kind of event the engine emits, about in the order a round meets them: a replay's event of another
#: kind is refused (``replay.records.EventRecord``); a test holds this list to the kinds ``engine.py`` writes
EVENT_KINDS = (
    "sign_phase_started", "emoji_chosen", "sign_fixed", "ready", "sign_drawn", "round_started", "exchange",
    "exchange_rejected", "floor_taken", "floor_released", "pulse", "quatro_held_back", "vote_proposed",
    "vote_answer", "vote_failed", "vote_cancelled", "reshuffle", "hands_replaced", "call", "blank_round",
    "reveal", "match_over", "start_requested", "disconnected", "reconnected",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.

    ``seat`` is the absolute seat that caused it (None for table events); ``visible_to`` is the
    set of absolute seats that saw it, or None when the whole table saw it (a public event).
    """

    kind: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: frozenset[int] | None = None

    @property
    def public(self) -> bool:
        return self.visible_to is None

    def seen_by(self, seat: int) -> bool:
        return self.visible_to is None or seat in self.visible_to
