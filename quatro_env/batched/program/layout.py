"""What the table programs are handed besides the state: parameters, observation offsets, constant tables.

Three namedtuples, passed by value (numba reads a field by name at compile time, as free as a constant):
``Params`` the sizes, durations and switches of one engine; ``Offsets`` each observation field's offset
in its block, under the encoder's own field names (``make_blocks``); ``Tables`` the constant arrays (per
action index, per seat). No function here is compiled.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from quatro_env.batched.constants import NUM_KINDS
from quatro_env.quatro.encoding import make_blocks

Params = namedtuple(
    "Params",
    # sizes: seats, teams, card values, deck, actions, observation length and its blocks (private,
    # table, team, seat; T0 and S0 where the team and seat blocks start in an observation row)
    ["n", "T", "v", "deck", "A", "D", "P", "G", "TB", "SB", "T0", "S0"]
    # durations in ticks, the names of ``quatro.config.TickDurations``
    + ["sign_phase", "round", "pause", "exchange_cooldown", "floor_cooldown", "pulse"]
    + ["reminder_window", "vote_window", "vote_interval"]
    # the match, the rules' options (0/1), random (dis)connection per tick (Q23), recording the draws
    + ["points_to_win", "max_rounds", "guard", "reveal_signs", "episode_round", "zero_sum"]
    + ["p_disconnect", "p_reconnect", "record"],
)

#: the observation fields, in the encoder's order (the same names at every player count)
Offsets = namedtuple("Offsets", [name for block in make_blocks(4) for name, _ in block.fields])

#: ``kind_of``/``arg_of`` per action index (exchange: 4h + c; emoji and sign: e; contra: k), ``lut`` the
#: mask of every set of legal kinds ``[2**13, A]``, ``size``/``start`` each kind's action range,
#: ``sched`` the (tick, seat, connected) schedule, ``is_bot`` per seat
Tables = namedtuple("Tables", ["kind_of", "arg_of", "lut", "size", "start", "sched", "is_bot"])


def make_params(**values: int | float) -> Params:
    """``Params`` as numpy scalars (int64, float64): what the compiled rules see, and what numba's CUDA
    simulator, which runs them as Python, needs so that ``offset + an int8 field`` does not overflow."""
    return Params(**{k: np.float64(v) if isinstance(v, float) else np.int64(v) for k, v in values.items()})


def make_offsets(blocks) -> Offsets:
    """``Offsets`` from the encoder's blocks (private, table, team, seat), as int64 (``make_params``)."""
    return Offsets(*(np.int64(block.offset(name)) for block in blocks for name, _ in block.fields))


def encode_width(n: int, T: int, P: int, G: int, TB: int, SB: int) -> int:
    """Length of ``view.features_table``'s row: every private block, the table, team and seat blocks."""
    return n * P + G + T * TB + n * SB


def mask_lut(kinds: np.ndarray) -> np.ndarray:
    """``[2**NUM_KINDS, A]`` int8: the mask of every set of legal kinds (bit k: kind k is legal)."""
    codes = np.arange(2**NUM_KINDS)
    return ((codes[:, None] >> kinds[None, :]) & 1).astype(np.int8)
