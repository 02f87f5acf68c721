"""Events: what happened in a tick, and who saw it (Q9, Q26–Q28, Q31)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
