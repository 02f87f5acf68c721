"""The records a replay keeps for every tick, declared once: the omniscient table state and the events.

``views.engine_state`` builds a :class:`TableState` from the engine, and ``loader.read`` checks
every line of a file against the same models. A file the viewer draws therefore has the shape the
engine writes, even when it is read without re-simulation (``quatro-replay --no-verify``): a
tampered or truncated record gets an error naming its field, never a crash in the viewer or a
silently wrong picture (an emoji index of -1 would otherwise show the last emoji).

Ranges that depend on the table size (seats, teams, cards) are checked against the table the record
describes: its number of seats is the length of ``connected``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator

from quatro_env.common.cli import short
from quatro_env.common.strict import is_index
from quatro_env.quatro.cards import NUM_EMOJIS, deck_size
from quatro_env.quatro.config import TABLE_SIZES
from quatro_env.quatro.engine import Phase
from quatro_env.quatro.events import EVENT_KINDS

Index = Annotated[int, Field(strict=True, ge=0)]  # a seat, a team or a card: its bound is the table's
Tick = Annotated[int, Field(strict=True, ge=0)]
Count = Annotated[int, Field(strict=True, ge=0)]
Emoji = Annotated[int, Field(strict=True, ge=0, lt=NUM_EMOJIS)]  # Q7: one of the fixed emojis
PHASE_NAMES = tuple(p.name.lower() for p in Phase)
CALL_KINDS = ("quatro", "contra", "blank")
#: event data that names teams, or seats: a value, None or a list of them (``call``'s ``scoring_teams``,
#: ``vote_proposed``'s ``voters``, the reveal's ``quartets``), within the table (``EventRecord.check_table``)
TEAM_DATA = ("team", "target_team", "scoring_teams", "winners")
SEAT_DATA = ("seats", "voters", "quartets")
#: event data that counts: ``round_started``'s round, ``match_over``'s scores
COUNT_DATA = ("round", "scores")
#: what each of those keys holds, as an error names it
DATA_KINDS = {
    **dict.fromkeys(TEAM_DATA, "a team index"),
    **dict.fromkeys(SEAT_DATA, "a seat index"),
    **dict.fromkeys(COUNT_DATA, "a non-negative integer"),
}


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VoteRecord(_Record):
    """An open reshuffle vote (Q20)."""

    proposer: Index
    voters: list[Index]
    yes: list[Index]
    absent: list[Index]
    deadline: Tick


class CallRecord(_Record):
    """How the last round ended (Q10, Q18, Q19): the call, who made it, whom it named, who scored."""

    kind: Literal[CALL_KINDS]  # type: ignore[valid-type]
    caller: Index | None
    target_team: Index | None
    scoring_teams: list[Index]


class TableState(_Record):
    """The whole table between two ticks, hidden information included (the omniscient view)."""

    tick: Tick
    phase: Literal[PHASE_NAMES]  # type: ignore[valid-type]
    phase_end: Tick
    round: Count
    scores: list[Count]  # per team
    winners: list[Index]  # teams
    hands: list[list[Index]]  # per seat: four card ids, or none before the deal
    center: list[Index]  # four card ids, or none before the deal
    signs: list[Emoji | None]  # per team (Q7)
    connected: list[StrictBool]  # per seat (Q23)
    ready: list[StrictBool]
    floor: list[StrictBool]
    emoji: list[Emoji | None]  # per seat: the emoji it has chosen to show (Q15)
    last_pulse: list[tuple[Emoji, Tick] | None]  # per seat: (emoji, tick) of its last pulse
    next_exchange_tick: list[Tick]
    next_floor_tick: list[Tick]
    reminder: list[tuple[Tick, Tick] | None]  # per seat: the Q18 confirm window (opened, last tick)
    vote: VoteRecord | None
    reshuffled_this_round: StrictBool
    revealed: StrictBool
    last_call: CallRecord | None

    @model_validator(mode="after")
    def _fits_its_table(self) -> TableState:
        n = len(self.connected)
        if n not in TABLE_SIZES:
            raise ValueError(f"'connected' has {n} seats; a table has {' or '.join(map(str, TABLE_SIZES))}")
        teams, deck = n // 2, deck_size(n)
        per_seat = ("hands", "ready", "floor", "emoji", "last_pulse", "next_exchange_tick", "next_floor_tick")
        _lengths(self, (*per_seat, "reminder"), n, "seats")
        _lengths(self, ("scores", "signs"), teams, "teams")
        for seat, hand in enumerate(self.hands):
            if len(hand) not in (0, 4):
                raise ValueError(f"hands[{seat}] holds {len(hand)} cards, not 4 (or none before the deal)")
        if len(self.center) not in (0, 4):
            raise ValueError(f"center holds {len(self.center)} cards, not 4 (or none before the deal)")
        _below([c for hand in self.hands for c in hand] + self.center, deck, "card ids")
        _below(self.winners, teams, "winners (teams)")
        if self.vote is not None:
            v = self.vote
            _below([v.proposer, *v.voters, *v.yes, *v.absent], n, "vote seats")
        if self.last_call is not None:
            call = self.last_call
            _below([] if call.caller is None else [call.caller], n, "last_call.caller (a seat)")
            target = [] if call.target_team is None else [call.target_team]
            _below(target + call.scoring_teams, teams, "last_call teams")
        return self

    def check_table(self, n: int) -> None:
        """The record is of a table of ``n`` players."""
        if len(self.connected) != n:
            raise ValueError(f"a table of {len(self.connected)} seats, the header says {n}")


class EventRecord(_Record):
    """One engine event (``quatro.events.Event``): its kind, its seat, its data and who saw it."""

    kind: StrictStr
    seat: Index | None
    data: dict[str, Any]
    visible_to: list[Index] | None

    @model_validator(mode="after")
    def _kind_and_data(self) -> EventRecord:
        """A kind the engine emits; the data keys the viewer turns into faces: emoji indices and card ids;
        and the teams and seats the data names, integers (their bound is the table's: check_table)."""
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"kind {short(self.kind)} is not one the format defines (events.EVENT_KINDS)")
        for key in ("emoji", "sign"):
            value = self.data.get(key)
            if value is not None and not (is_index(value) and 0 <= value < NUM_EMOJIS):
                raise ValueError(f"data.{key} must be an emoji index 0..{NUM_EMOJIS - 1}, got {value!r}")
        slot = self.data.get("center_slot", 0)  # Q12: one of the four center slots
        if not (is_index(slot) and 0 <= slot < 4):
            raise ValueError(f"data.center_slot must be a center slot 0..3, got {short(slot)}")
        largest_deck = deck_size(max(TABLE_SIZES))  # the table's own deck: check_table
        for key in ("taken", "placed"):
            card = self.data.get(key, 0)
            if not (is_index(card) and 0 <= card < largest_deck):
                raise ValueError(f"data.{key} must be a card id, got {card!r}")
        for key, what in DATA_KINDS.items():
            if not all(is_index(v) and v >= 0 for v in self._listed(key)):
                raise ValueError(f"data.{key} must be {what} or a list of them, got {short(self.data[key])}")
        return self

    def _listed(self, key: str) -> list[Any]:
        """``data[key]`` as a list: none when absent or None, one when a single value."""
        value = self.data.get(key)
        return value if isinstance(value, list) else [] if value is None else [value]

    def check_table(self, n: int) -> None:
        """Seats, teams and cards within a table of ``n`` players."""
        seats = ([] if self.seat is None else [self.seat]) + (self.visible_to or [])
        _below(seats + [s for key in SEAT_DATA for s in self._listed(key)], n, "event seats")
        _below([t for key in TEAM_DATA for t in self._listed(key)], n // 2, "event teams")
        _below([self.data[k] for k in ("taken", "placed") if k in self.data], deck_size(n), "card ids")


def _lengths(state: TableState, names: Iterable[str], length: int, what: str) -> None:
    for name in names:
        if (got := len(getattr(state, name))) != length:
            raise ValueError(f"'{name}' has {got} entries, the table has {length} {what}")


def _below(values: Iterable[int], bound: int, what: str) -> None:
    bad = [v for v in values if v >= bound]
    if bad:
        raise ValueError(f"{what} must be below {bound} at this table, got {short(bad)}")
