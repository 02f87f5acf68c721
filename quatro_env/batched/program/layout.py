"""The table programs' shared layout: ``prm`` indices, observation field offsets and the work space.

Sizes and durations reach the programs in ``prm`` (int64, indices ``I_*``), and the observation
field offsets in ``offs`` (int64, indices ``O_*``: the encoder's field names, offsets filled from
``make_blocks``). ``Scratch`` is the work space that the caller hands in, because device code cannot
allocate. No function here is compiled.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from quatro_env.batched.constants import (
    NUM_KINDS,
)
from quatro_env.quatro.encoding import make_blocks

# ---- prm: integer parameters
(
    I_N,
    I_T,
    I_V,
    I_DECK,
    I_A,
    I_D,
    I_P,
    I_G,
    I_TB,
    I_SB,
    I_T0,
    I_S0,
    I_SIGN_PHASE,
    I_ROUND,
    I_PAUSE,
    I_XCD,
    I_FCD,
    I_PULSE,
    I_REMINDER,
    I_VOTE_WINDOW,
    I_VOTE_INTERVAL,
    I_POINTS_TO_WIN,
    I_MAX_ROUNDS,
    I_GUARD,
    I_REVEAL_SIGNS,
    I_EPISODE_ROUND,
    I_ZERO_SUM,
    I_RECORD,
    I_NUM_PRM,
) = range(29)

# ---- offs: observation field offsets inside their block, in the encoder's order (make_blocks); the
# names are the encoder's (the same at every player count), the offsets are filled per engine
OBS_FIELDS = tuple(name for block in make_blocks(4) for name, _ in block.fields)
NUM_OFFS = len(OBS_FIELDS)
_at = OBS_FIELDS.index
O_HAND, O_SIGN, O_EMOJI = _at("hand"), _at("sign"), _at("emoji")
O_REMINDER, O_REMINDER_LEFT, O_REJECTED = _at("reminder"), _at("reminder_left"), _at("rejected_slot")
O_PHASE, O_PHASE_LEFT, O_ROUND, O_CENTER = _at("phase"), _at("phase_left"), _at("round"), _at("center")
O_VOTE_OPEN, O_VOTE_LEFT, O_RESHUFFLE_USED = _at("vote_open"), _at("vote_left"), _at("reshuffle_used")
O_PROPOSAL_WAIT, O_VOTE_FAILED = _at("proposal_wait"), _at("vote_failed")
O_RESHUFFLED, O_LAST_CALL = _at("reshuffled"), _at("last_call")
O_SCORE, O_ACCUSED, O_SCORED, O_REVEALED_SIGN = (
    _at("score"),
    _at("accused"),
    _at("scored"),
    _at("revealed_sign"),
)
O_CONNECTED, O_READY, O_FLOOR = _at("connected"), _at("ready"), _at("floor")
O_EXCHANGE_WAIT, O_FLOOR_WAIT = _at("exchange_wait"), _at("floor_wait")
O_PULSE_EMOJI, O_PULSE_AGE, O_EXCHANGED = _at("pulse_emoji"), _at("pulse_age"), _at("exchanged")
O_EXCHANGE_SLOT, O_TAKEN, O_PLACED, O_ORDER = _at("exchange_slot"), _at("taken"), _at("placed"), _at("order")
O_TOOK, O_RELEASED = _at("took_floor"), _at("released_floor")
O_VOTED_YES, O_VOTED_NO, O_PROPOSED = _at("voted_yes"), _at("voted_no"), _at("proposed")
O_VOTER, O_SAID_YES, O_HAND_REPLACED = _at("voter"), _at("said_yes"), _at("hand_replaced")
O_PROPOSER, O_CALLER, O_REVEALED_HAND = _at("proposer"), _at("caller"), _at("revealed_hand")


#: one table's work space, a row per table played at once (device code cannot allocate)
Scratch = namedtuple(
    "Scratch",
    [
        "u",  # [rows, 8] int64: this tick's draws (order, signs, connections)
        "order",  # [rows, n] int64: the seat at each resolution position (Q9)
        "changed",  # [rows, 4] bool: center slots changed this tick (Q14)
        "scoring",  # [rows, T] bool: teams scoring at the round's end
        "connected0",  # [rows, n] bool: connections before this tick's random changes
        "per_seat",  # [rows, n] float32: each seat's team points
        "deal_draws",  # [rows, deck] int64: the deal's draws ...
        "deal_perm",  # ... and permutation (Q4)
        "q5_draws",  # [rows, 8] int64: a Q5 re-split's draws, permutation and 8 cards
        "q5_perm",
        "q5_pool",
        "encode",  # [rows, width] uint8: a table's absolute features (encode_table)
        "cum",  # [rows, NUM_KINDS] float32: cumulative kind weights (sample_table)
    ],
)


def make_scratch(rows: int, n: int, T: int, deck: int, width: int) -> Scratch:
    """A work space for ``rows`` tables at once (numpy; ``cuda.py`` copies it to the device)."""
    i64, b8 = np.int64, np.bool_
    return Scratch(
        np.zeros((rows, 8), i64),
        np.zeros((rows, n), i64),
        np.zeros((rows, 4), b8),
        np.zeros((rows, T), b8),
        np.zeros((rows, n), b8),
        np.zeros((rows, n), np.float32),
        np.zeros((rows, deck), i64),
        np.zeros((rows, deck), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, width), np.uint8),
        np.zeros((rows, NUM_KINDS), np.float32),
    )


def encode_width(n: int, T: int, P: int, G: int, TB: int, SB: int) -> int:
    """Length of ``encode_table``'s row: private blocks, table, team blocks twice, seat blocks twice."""
    return n * P + G + 2 * T * TB + 2 * n * SB


def make_offsets(blocks) -> np.ndarray:
    """``offs`` from the encoder's blocks (private, table, team, seat), indexed by the ``O_*`` names."""
    return np.asarray([block.offset(name) for block in blocks for name, _ in block.fields], dtype=np.int64)
