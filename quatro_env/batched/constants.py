"""The batched engine's integer constants, derived from the reference modules, never restated.

Numba compiles module-level ints as constants, so the table programs read the reference's enums
through these names (``C.PLAY``, ``C.K_EXCHANGE``): a renumbered ``Phase`` or ``ActionKind`` changes
them here and nowhere else. The draw purposes are the batched engine's own (Q30: each purpose is
drawn at most once per table and tick; Q5 retries get their own ids).
"""

from __future__ import annotations

from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS as NUM_EMOJIS
from quatro_env.quatro.encoding import CALL_KINDS
from quatro_env.quatro.encoding import CLIP as CLIP
from quatro_env.quatro.encoding import NO_PULSE_AGE as NO_PULSE_AGE
from quatro_env.quatro.phases import HOST_SEAT as HOST_SEAT
from quatro_env.quatro.phases import Phase

SIGN, PLAY, PAUSE, OVER = int(Phase.SIGN), int(Phase.PLAY), int(Phase.PAUSE), int(Phase.OVER)
NUM_PHASES = len(Phase)
#: ``call_kind``: the round's ending call (-1 none), as the encoder's ``last_call`` numbers it
NONE_CALL = -1
QUATRO_CALL, CONTRA_CALL, BLANK_CALL = CALL_KINDS["quatro"], CALL_KINDS["contra"], CALL_KINDS["blank"]
NUM_CALLS = len(CALL_KINDS)

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
#: the most points a team may reach (int8 scores) and rounds a match may last (int16 counters, with
#: the round after the last one begun)
MAX_POINTS, MAX_ROUNDS = 2**7 - 1, 2**15 - 2
