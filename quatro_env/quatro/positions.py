"""Scripted positions of the reference engine (Q31): a forced order or deal, a set-up table.

A mixin of :class:`~quatro_env.quatro.engine.QuatroEngine`: each ``check_*`` validates reading
nothing but the configuration (a refused position leaves the table as it was); ``force_next_*``
and ``put_position`` change the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quatro_env.common.strict import as_flag, as_int, as_list
from quatro_env.quatro.cards import NUM_EMOJIS, deck_size
from quatro_env.quatro.phases import Phase


@dataclass(frozen=True)
class Position:
    """A scripted position validated by :meth:`QuatroEngine.check_position` (card ids, Q31)."""

    phase: Phase
    hands: tuple[tuple[int, ...], ...] | None
    center: tuple[int, ...] | None
    signs: tuple[int | None, ...] | None
    scores: tuple[int, ...] | None
    ready: tuple[bool, ...] | None
    connected: tuple[bool, ...] | None
    ticks_left: int | None


class ScriptedPositions:
    """Q31 for the engine (it provides ``n``, ``num_teams``, ``config``, ``durations``, ``rng``,
    ``tick`` and ``_begin_sign_phase``)."""

    def check_order(self, order: Sequence[int]) -> tuple[int, ...]:
        """``order`` validated as a permutation of the seats; reads nothing but the table size."""
        seats = tuple(as_int(s, "order") for s in as_list(order, "order"))
        if sorted(seats) != list(range(self.n)):
            raise ValueError(f"order must be a permutation of the {self.n} seats, got {seats}")
        return seats

    def force_next_order(self, order: Sequence[int]) -> None:
        """Fix the resolution order of the next tick (Q31)."""
        self._forced_order = self.check_order(order)

    def check_deal(self, cards: Sequence[int]) -> list[int]:
        """``cards`` validated as a permutation of the deck's card ids."""
        ids = [as_int(c, "deal") for c in as_list(cards, "deal")]
        if sorted(ids) != list(range(deck_size(self.n))):
            raise ValueError(f"deal must be a permutation of the {deck_size(self.n)} card ids")
        return ids

    def force_next_deal(self, cards: Sequence[int]) -> None:
        """Fix the card order of the next deal, before the Q5 check (Q31).

        Seat s gets ``cards[4s:4s+4]``, the center gets the last four.
        """
        self._forced_deal = self.check_deal(cards)

    def check_position(
        self,
        *,
        phase: Phase,
        hands: Sequence[Sequence[int]] | None = None,
        center: Sequence[int] | None = None,
        signs: Sequence[int | None] | None = None,
        scores: Sequence[int] | None = None,
        ready: Sequence[bool] | None = None,
        connected: Sequence[bool] | None = None,
        ticks_left: int | None = None,
    ) -> Position:
        """Validate a scripted position without touching the table (Q31).

        Only the configuration is read, so a caller can check a position before it resets
        anything: a refused position leaves the table exactly as it was.
        """
        n, nt = self.n, self.num_teams
        if not isinstance(phase, Phase) or phase == Phase.OVER:
            raise ValueError(
                f"phase: a scripted position starts in the sign, play or pause phase, got {phase!r}"
            )
        if scores is not None:
            scores = tuple(
                as_int(s, "scores", low=0) for s in as_list(scores, f"scores (one per team, {nt})", nt)
            )
            if max(scores) >= self.config.points_to_win:
                raise ValueError(f"scores: a team already has {self.config.points_to_win} points (Q24)")
        if connected is not None:
            connected = tuple(
                as_flag(c, "connected") for c in as_list(connected, "connected (one flag per seat)", n)
            )
        if signs is not None:
            signs = tuple(
                None if s is None else as_int(s, "signs (an emoji index or None)", 0, NUM_EMOJIS - 1)
                for s in as_list(signs, f"signs (one per team, {nt})", nt)
            )
        if ready is not None:
            ready = tuple(as_flag(r, "ready") for r in as_list(ready, "ready (one flag per seat)", n))
        if phase == Phase.SIGN:
            if hands is not None or center is not None:
                raise ValueError("hands: hands are dealt when the round starts; none in the sign phase (Q8)")
            length = self.durations.sign_phase
        else:
            if hands is None or center is None:
                raise ValueError(f"hands: a {phase.name.lower()} position needs hands and center")
            hands = tuple(
                tuple(as_int(c, "hands") for c in as_list(h, "hands")) for h in as_list(hands, "hands")
            )
            center = tuple(as_int(c, "center") for c in as_list(center, "center"))
            if len(hands) != n or any(len(h) != 4 for h in hands) or len(center) != 4:
                raise ValueError(f"hands: need {n} hands of 4 cards and a center of 4")
            if sorted([c for h in hands for c in h] + list(center)) != list(range(deck_size(n))):
                raise ValueError("hands: hands + center must hold every card exactly once (Q3)")
            length = self.durations.round if phase == Phase.PLAY else self.durations.pause
        if ticks_left is not None:
            ticks_left = as_int(
                ticks_left, f"ticks_left (the {phase.name.lower()} phase lasts {length})", 1, length
            )
        return Position(phase, hands, center, signs, scores, ready, connected, ticks_left)

    def set_position(self, **position) -> None:
        """Put the table in a scripted position (Q31); see :meth:`check_position` for the fields.

        Cards are card ids; ``scripted.py`` turns value labels into ids.
        """
        self.put_position(self.check_position(**position))

    def put_position(self, position: Position) -> None:
        """Put the table in a position already validated by :meth:`check_position`."""
        if position.scores is not None:
            self.scores = list(position.scores)
        if position.connected is not None:
            self.connected = list(position.connected)
        self._begin_sign_phase(start=self.tick)
        self.round_index -= 1  # a scripted position replaces the current round, it does not add one
        if position.signs is not None:
            self.team_sign = list(position.signs)
        if position.ready is not None:
            self.ready = list(position.ready)
        phase, ticks_left = position.phase, position.ticks_left
        if phase == Phase.SIGN:
            if ticks_left is not None:
                self.phase_end = self.tick + ticks_left - 1
            return
        self.hands = [list(h) for h in position.hands]
        self.center = list(position.center)
        for team in range(self.num_teams):
            if self.team_sign[team] is None:
                self.team_sign[team] = int(self.rng.integers(NUM_EMOJIS))
        self.phase = phase
        length = self.durations.round if phase == Phase.PLAY else self.durations.pause
        self.revealed = phase == Phase.PAUSE
        self.phase_start = self.tick
        self.phase_end = self.tick + (length if ticks_left is None else ticks_left) - 1
