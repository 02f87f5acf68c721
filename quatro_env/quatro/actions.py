"""The public action codec: one ``Discrete`` index per agent per tick.

Layout for n players (T = n/2 teams), in this order::

    0                 noop
    1  .. 16          exchange(hand_slot h, center_slot c) = 1 + 4h + c     (Q12)
    17                take the floor                                       (Q15)
    18                release the floor                                    (Q15)
    19 .. 42          show emoji e (0..23) on your channel                 (Q15)
    43 .. 66          choose sign e (0..23) for your team                  (Q7)
    67                ready                                                (Q8)
    68                «Quatro!»                                            (Q18)
    69 .. 69+T-2      «Contra!» on the team k seats clockwise, k = 1..T-1  (Q19)
    then              propose reshuffle, vote yes, vote no                 (Q20)
    last              start the next round (host only)                     (Q11)

Contra targets are relative (team of the seat k places clockwise, k < T), so one shared
policy can play every seat.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from quatro_env.quatro.cards import EMOJIS, NUM_EMOJIS


class ActionKind(IntEnum):
    NOOP = 0
    EXCHANGE = 1
    TAKE_FLOOR = 2
    RELEASE_FLOOR = 3
    SHOW_EMOJI = 4
    CHOOSE_SIGN = 5
    READY = 6
    QUATRO = 7
    CONTRA = 8
    PROPOSE_RESHUFFLE = 9
    VOTE_YES = 10
    VOTE_NO = 11
    START_ROUND = 12


class Action(NamedTuple):
    """A decoded action: its kind and argument (a (hand, center) pair, an emoji, a relative team or None)."""

    kind: ActionKind
    arg: int | tuple[int, int] | None = None


class ActionCodec:
    """Encode, decode and describe action indices for one player count."""

    def __init__(self, num_players: int) -> None:
        if num_players not in (4, 6, 8):
            raise ValueError(f"num_players must be 4, 6 or 8 (Q1), got {num_players}")
        self.num_players = num_players
        self.num_teams = num_players // 2
        actions: list[Action] = [Action(ActionKind.NOOP)]
        actions += [Action(ActionKind.EXCHANGE, (h, c)) for h in range(4) for c in range(4)]
        actions += [Action(ActionKind.TAKE_FLOOR), Action(ActionKind.RELEASE_FLOOR)]
        actions += [Action(ActionKind.SHOW_EMOJI, e) for e in range(NUM_EMOJIS)]
        actions += [Action(ActionKind.CHOOSE_SIGN, e) for e in range(NUM_EMOJIS)]
        actions += [Action(ActionKind.READY), Action(ActionKind.QUATRO)]
        actions += [Action(ActionKind.CONTRA, k) for k in range(1, self.num_teams)]
        actions += [
            Action(ActionKind.PROPOSE_RESHUFFLE),
            Action(ActionKind.VOTE_YES),
            Action(ActionKind.VOTE_NO),
        ]
        actions += [Action(ActionKind.START_ROUND)]
        self._actions: tuple[Action, ...] = tuple(actions)
        self._index = {a: i for i, a in enumerate(actions)}
        self.num_actions = len(actions)
        #: kind of every index, and the index range of every kind (for masks and samplers)
        self.kinds: tuple[ActionKind, ...] = tuple(a.kind for a in actions)
        self.args: tuple = tuple(a.arg for a in actions)
        self.ranges: dict[ActionKind, range] = {}
        for kind in ActionKind:
            idx = [i for i, a in enumerate(actions) if a.kind == kind]
            self.ranges[kind] = range(idx[0], idx[-1] + 1)

    def decode(self, index: int) -> Action:
        if not 0 <= index < self.num_actions:
            raise ValueError(f"action {index} is outside 0..{self.num_actions - 1}")
        return self._actions[index]

    def encode(self, kind: ActionKind, arg: int | tuple[int, int] | None = None) -> int:
        try:
            return self._index[Action(ActionKind(kind), arg)]
        except KeyError:
            raise ValueError(
                f"no action {ActionKind(kind).name} with argument {arg!r} for {self.num_players} players"
            ) from None

    def describe(self, index: int) -> str:
        kind, arg = self.decode(index)
        if kind == ActionKind.EXCHANGE:
            return f"exchange(hand slot {arg[0]}, center slot {arg[1]})"
        if kind == ActionKind.SHOW_EMOJI:
            return f"show emoji {EMOJIS[arg]}"
        if kind == ActionKind.CHOOSE_SIGN:
            return f"choose sign {EMOJIS[arg]}"
        if kind == ActionKind.CONTRA:
            return f"contra(team {arg} clockwise)"
        return kind.name.lower()
