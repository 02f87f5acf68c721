"""The batched engine's integer constants, derived from the reference modules, never restated.

Numba compiles module-level ints as constants, so both code paths (the torch methods and the
numba kernel) read the reference's enums through these names: a renumbered ``Phase`` or
``ActionKind`` changes them here and nowhere else. The draw purposes are the batched engine's own
(Q30: each purpose is drawn at most once per table and tick; Q5 retries get their own ids).
"""

from __future__ import annotations

from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS
from quatro_env.quatro.encoding import CALL_KINDS, CLIP
from quatro_env.quatro.phases import HOST_SEAT, Phase

SIGN, PLAY, PAUSE, OVER = int(Phase.SIGN), int(Phase.PLAY), int(Phase.PAUSE), int(Phase.OVER)
#: ``call_kind``: the round's ending call (-1 none), as the encoder's ``last_call`` numbers it
NONE_CALL = -1
QUATRO_CALL, CONTRA_CALL, BLANK_CALL = CALL_KINDS["quatro"], CALL_KINDS["contra"], CALL_KINDS["blank"]

K_NOOP, K_EXCHANGE, K_TAKE, K_RELEASE = (
    int(k) for k in (ActionKind.NOOP, ActionKind.EXCHANGE, ActionKind.TAKE_FLOOR, ActionKind.RELEASE_FLOOR)
)
K_EMOJI, K_SIGN, K_READY = int(ActionKind.SHOW_EMOJI), int(ActionKind.CHOOSE_SIGN), int(ActionKind.READY)
K_QUATRO, K_CONTRA = int(ActionKind.QUATRO), int(ActionKind.CONTRA)
K_PROPOSE, K_YES, K_NO = int(ActionKind.PROPOSE_RESHUFFLE), int(ActionKind.VOTE_YES), int(ActionKind.VOTE_NO)
K_START = int(ActionKind.START_ROUND)
NUM_KINDS = len(ActionKind)

#: draw purposes
P_ORDER, P_SIGN, P_DEAL, P_CONNECT, P_Q5 = 1, 2, 3, 4, 64
M32 = 0xFFFFFFFF  # draws are 32-bit
#: the longest phase or cooldown the int32 clocks hold, with room for arithmetic
MAX_TICKS = 2**30

__all__ = [
    "BLANK_CALL",
    "CLIP",
    "CONTRA_CALL",
    "HOST_SEAT",
    "K_CONTRA",
    "K_EMOJI",
    "K_EXCHANGE",
    "K_NO",
    "K_NOOP",
    "K_PROPOSE",
    "K_QUATRO",
    "K_READY",
    "K_RELEASE",
    "K_SIGN",
    "K_START",
    "K_TAKE",
    "K_YES",
    "M32",
    "MAX_TICKS",
    "NONE_CALL",
    "NUM_EMOJIS",
    "NUM_KINDS",
    "OVER",
    "P_CONNECT",
    "P_DEAL",
    "P_ORDER",
    "P_Q5",
    "P_SIGN",
    "PAUSE",
    "PLAY",
    "QUATRO_CALL",
    "SIGN",
]
