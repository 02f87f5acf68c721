"""Egocentric observation vectors (Q26, Q27; nothing of Q28).

The encoder writes one *absolute* feature buffer per tick (private blocks per seat, a global
block, a block per team, a block per seat) and then builds every seat's egocentric view with a
single gather through a precomputed index map: observer ``i`` sees its own private block, the
global block, team blocks starting with its own team, and seat blocks starting with itself and
going clockwise. Hidden information (other hands before the reveal, other teams' signs, other
seats' current emoji) lives only in private blocks, which the map never routes to anyone else.

All features are uint8: one-hots, flags, small counts; durations are in ticks clipped to 255
(``pulse_age`` 255 means "no pulse yet").
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import getitem

import numpy as np

from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.engine import Phase, QuatroEngine
from quatro_env.quatro.events import Event

CLIP = 255
#: ``pulse_age`` of a seat that has not pulsed this round: the clip value (a pulse 255 or more ticks
#: ago reads the same, which no default pulse period reaches)
NO_PULSE_AGE = CLIP


class Block:
    """A named run of uint8 features; ``offset(name)`` gives a field's start within the block."""

    def __init__(self, fields: Sequence[tuple[str, int]]) -> None:
        self.fields = tuple(fields)
        self._offsets: dict[str, int] = {}
        pos = 0
        for name, size in fields:
            self._offsets[name] = pos
            pos += size
        self.size = pos

    def offset(self, name: str) -> int:
        return self._offsets[name]


def make_blocks(num_players: int) -> tuple[Block, Block, Block, Block]:
    v, e = num_values(num_players), NUM_EMOJIS
    private = Block(
        [
            ("hand", 4 * v),
            ("sign", e),
            ("emoji", e),
            ("reminder", 1),
            ("reminder_left", 1),
            ("rejected_slot", 4),
        ]
    )
    table = Block(
        [
            ("phase", 4),
            ("phase_left", 1),
            ("round", 1),
            ("center", 4 * v),
            ("vote_open", 1),
            ("vote_left", 1),
            ("reshuffle_used", 1),
            ("proposal_wait", 1),
            ("vote_failed", 1),
            ("reshuffled", 1),
            ("last_call", 3),
        ]
    )
    team = Block([("score", 1), ("accused", 1), ("scored", 1), ("revealed_sign", e)])
    seat = Block(
        [
            ("connected", 1),
            ("ready", 1),
            ("floor", 1),
            ("exchange_wait", 1),
            ("floor_wait", 1),
            ("pulse_emoji", e),
            ("pulse_age", 1),
            ("exchanged", 1),
            ("exchange_slot", 4),
            ("taken", v),
            ("placed", v),
            ("order", 1),
            ("took_floor", 1),
            ("released_floor", 1),
            ("voted_yes", 1),
            ("voted_no", 1),
            ("proposed", 1),
            ("voter", 1),
            ("said_yes", 1),
            ("hand_replaced", 1),
            ("proposer", 1),
            ("caller", 1),
            ("revealed_hand", 4 * v),
        ]
    )
    return private, table, team, seat


#: events caused by a seat's own action this tick (their resolution position is public afterwards)
_ACTION_EVENTS = frozenset(
    {"exchange", "floor_taken", "vote_answer", "vote_proposed", "ready", "start_requested", "call"}
)
#: the ``last_call`` one-hot of the table block: the ending call of the round, by kind
CALL_KINDS = {"quatro": 0, "contra": 1, "blank": 2}


class ObservationEncoder:
    """Builds every seat's observation for one player count."""

    def __init__(self, num_players: int) -> None:
        n, nt = num_players, num_players // 2
        self.n, self.num_teams, self.v = n, nt, num_values(num_players)
        self.private, self.table, self.team, self.seat = make_blocks(n)
        p, g, tb, sb = self.private.size, self.table.size, self.team.size, self.seat.size
        self._table0 = n * p
        self._team0 = self._table0 + g
        self._seat0 = self._team0 + nt * tb
        self.buffer = np.zeros(self._seat0 + n * sb, np.uint8)
        self.obs_dim = p + g + nt * tb + n * sb
        index = np.empty((n, self.obs_dim), np.intp)
        for i in range(n):
            parts = [np.arange(i * p, (i + 1) * p), np.arange(self._table0, self._table0 + g)]
            for k in range(nt):
                t = (i + k) % nt
                parts.append(np.arange(self._team0 + t * tb, self._team0 + (t + 1) * tb))
            for r in range(n):
                s = (i + r) % n
                parts.append(np.arange(self._seat0 + s * sb, self._seat0 + (s + 1) * sb))
            index[i] = np.concatenate(parts)
        self.index = index  # index[i, j] = buffer position of observer i's feature j
        #: start of each named field in the egocentric vector (for docs, tests, policies)
        self.offsets: dict[str, int] = {}
        for name, _ in self.private.fields:
            self.offsets[f"self.{name}"] = self.private.offset(name)
        for name, _ in self.table.fields:
            self.offsets[f"table.{name}"] = p + self.table.offset(name)
        for k in range(nt):
            for name, _ in self.team.fields:
                self.offsets[f"team[{k}].{name}"] = p + g + k * tb + self.team.offset(name)
        for r in range(n):
            for name, _ in self.seat.fields:
                self.offsets[f"seat[{r}].{name}"] = p + g + nt * tb + r * sb + self.seat.offset(name)

        # absolute buffer positions of every field, looked up by name then seat/team (hot path)
        self._P = {f: [s * p + self.private.offset(f) for s in range(n)] for f, _ in self.private.fields}
        self._G = {f: self._table0 + self.table.offset(f) for f, _ in self.table.fields}
        self._T = {
            f: [self._team0 + t * tb + self.team.offset(f) for t in range(nt)] for f, _ in self.team.fields
        }
        self._S = {
            f: [self._seat0 + s * sb + self.seat.offset(f) for s in range(n)] for f, _ in self.seat.fields
        }
        # a cards field is four slots of ``v`` values each; ``_slot_positions(base)[k][card]`` is where
        # ``card`` (any card id) sits in slot ``k`` of the field at ``base`` (hot path: one lookup a card)
        v = self.v
        cards = range(4 * v)

        def _slot_positions(base: int) -> tuple[tuple[int, ...], ...]:
            return tuple(tuple(base + k * v + card // 4 for card in cards) for k in range(4))

        self._hand_positions = [_slot_positions(base) for base in self._P["hand"]]
        self._revealed_positions = [_slot_positions(base) for base in self._S["revealed_hand"]]
        self._center_positions = _slot_positions(self._G["center"])
        self._team_of_seat = [seat % nt for seat in range(n)]  # Q2

    def encode(
        self, engine: QuatroEngine, events: Sequence[Event], order: Sequence[int], out: np.ndarray
    ) -> np.ndarray:
        """Write every seat's observation (absolute seat order) into ``out`` [n, obs_dim]."""
        now = engine.tick
        ones: list[int] = []
        idx: list[int] = []
        val: list[int] = []
        P, S, T, G = self._P, self._S, self._T, self._G
        hands, team_sign, last_pulse = engine.hands, engine.team_sign, engine.last_pulse

        # --- private (Q26)
        for seat, (hand, team, emoji, window) in enumerate(
            zip(hands, self._team_of_seat, engine.emoji, engine.reminder, strict=True)
        ):
            ones += map(getitem, self._hand_positions[seat], hand)  # no cards before the deal
            if team_sign[team] is not None:
                ones.append(P["sign"][seat] + team_sign[team])
            if emoji is not None:
                ones.append(P["emoji"][seat] + emoji)
            if window is not None and engine.reminder_active(seat):  # Q18
                ones.append(P["reminder"][seat])
                idx.append(P["reminder_left"][seat])
                val.append(window[1] - now + 1)

        # --- table (Q27)
        phase = engine.phase
        ones.append(G["phase"] + int(phase))
        if phase != Phase.OVER:
            idx.append(G["phase_left"])
            val.append(engine.phase_end - now + 1)
        idx.append(G["round"])
        val.append(engine.round_index)
        ones += map(getitem, self._center_positions, engine.center)
        vote = engine.vote
        if vote is not None:
            ones.append(G["vote_open"])
            idx.append(G["vote_left"])
            val.append(vote.deadline - now + 1)
            ones.append(S["proposer"][vote.proposer])
            ones += [S["voter"][x] for x in vote.voters]
            ones += [S["said_yes"][x] for x in vote.yes]
        if engine.reshuffled_this_round:
            ones.append(G["reshuffle_used"])
        if phase == Phase.PLAY and engine.next_proposal_tick > now:
            idx.append(G["proposal_wait"])
            val.append(engine.next_proposal_tick - now)
        call = engine.last_call
        if call is not None:
            ones.append(G["last_call"] + CALL_KINDS[call.kind])
            if call.caller is not None:
                ones.append(S["caller"][call.caller])
            if call.target_team is not None:
                ones.append(T["accused"][call.target_team])
            ones += [T["scored"][x] for x in call.scoring_teams]

        # --- teams
        idx += T["score"]
        val += engine.scores
        revealed = engine.revealed
        if revealed and engine.config.reveal_signs:
            ones += [
                at + sign for at, sign in zip(T["revealed_sign"], team_sign, strict=True) if sign is not None
            ]

        # --- seats
        ones += compress(S["connected"], engine.connected)
        ones += compress(S["ready"], engine.ready)
        playing = phase == Phase.PLAY
        if playing:
            ones += compress(S["floor"], engine.floor)
        next_exchange, next_floor = engine.next_exchange_tick, engine.next_floor_tick
        for seat, pulse in enumerate(last_pulse):
            if playing:
                idx += [S["exchange_wait"][seat], S["floor_wait"][seat]]
                val += [max(0, next_exchange[seat] - now), max(0, next_floor[seat] - now)]
            idx.append(S["pulse_age"][seat])
            if pulse is None:
                val.append(NO_PULSE_AGE)
            else:
                ones.append(S["pulse_emoji"][seat] + pulse[0])
                val.append(now - 1 - pulse[1])
            if revealed:
                ones += map(getitem, self._revealed_positions[seat], hands[seat])

        # --- this tick's events (Q27: the tick's public events, in resolution order)
        position = {seat: k + 1 for k, seat in enumerate(order)}
        for ev in events:
            kind, seat = ev.kind, ev.seat
            if kind in _ACTION_EVENTS:
                idx.append(S["order"][seat])
                val.append(position[seat])
            if kind == "exchange":
                d = ev.data
                ones += [
                    S["exchanged"][seat],
                    S["exchange_slot"][seat] + d["center_slot"],
                    S["taken"][seat] + d["taken"] // 4,
                    S["placed"][seat] + d["placed"] // 4,
                ]
            elif kind == "exchange_rejected":
                ones.append(P["rejected_slot"][seat] + ev.data["center_slot"])
            elif kind == "floor_taken":
                ones.append(S["took_floor"][seat])
            elif kind == "floor_released":
                ones.append(S["released_floor"][seat])
                if ev.data["reason"] == "released":
                    idx.append(S["order"][seat])
                    val.append(position[seat])
            elif kind == "vote_answer":
                ones.append(S["voted_yes" if ev.data["yes"] else "voted_no"][seat])
            elif kind == "vote_proposed":
                ones.append(S["proposed"][seat])
            elif kind == "vote_failed":
                ones.append(G["vote_failed"])
            elif kind == "reshuffle":
                ones.append(G["reshuffled"])
            elif kind == "hands_replaced":
                ones += [S["hand_replaced"][x] for x in ev.data["seats"]]

        buf = self.buffer
        buf.fill(0)
        buf.put(ones, 1)  # ``put`` is ``buf[ones] = 1`` with less indexing overhead
        if idx:
            buf.put(idx, np.minimum(val, CLIP))
        buf.take(self.index, out=out)
        return out
