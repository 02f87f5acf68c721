"""The phases of a Quatro round (Q8, Q10, Q11), the action kinds each allows, and the host seat."""

from __future__ import annotations

from enum import IntEnum

from quatro_env.quatro.actions import ActionKind

HOST_SEAT = 0  # Q11 [decision]


class Phase(IntEnum):
    SIGN = 0
    PLAY = 1
    PAUSE = 2
    OVER = 3


_KINDS_BY_PHASE = {
    Phase.SIGN: (ActionKind.CHOOSE_SIGN, ActionKind.READY),
    Phase.PLAY: (
        ActionKind.EXCHANGE,
        ActionKind.TAKE_FLOOR,
        ActionKind.RELEASE_FLOOR,
        ActionKind.SHOW_EMOJI,
        ActionKind.QUATRO,
        ActionKind.CONTRA,
        ActionKind.PROPOSE_RESHUFFLE,
        ActionKind.VOTE_YES,
        ActionKind.VOTE_NO,
    ),
    Phase.PAUSE: (ActionKind.START_ROUND,),
    Phase.OVER: (),
}

__all__ = ["HOST_SEAT", "Phase", "_KINDS_BY_PHASE"]
