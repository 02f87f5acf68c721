"""The batched engine's memory, declared once: every per-table field with its dtype, shape, fill and meaning.

Each :class:`Field` is one tensor ``[num_envs, *shape]``. The declaration generates what used to be
written out by hand in three places: the engine's tensors (:func:`allocate`), the numba kernel's
arguments (the namedtuples :data:`State`, :data:`Events`, ...: the kernel reads
``S.hands[b, s, j]`` by name, never by a positional index), the bytes of game state per table
(:func:`bytes_per_table`) and the checkpoint's names (:data:`STATE_FIELDS`).

Groups:

* ``STATE``: the game (Q1–Q30); with the last observations and masks it is what a checkpoint holds.
* ``EVENTS``: what happened this tick (the observation shows it for one tick).
* ``RESULTS``: this tick's outcome per table (the kernel's output besides observations and masks).
* ``DRAWS``: this tick's random draws, kept with ``record_draws`` (the differential test feeds them to
  the reference engine); each ``*_flag`` says the table drew that this tick.
* ``SCRATCH``: the work space the caller hands in (device code cannot allocate): one row per table
  played at once (one on the CPU, every table on a GPU).

Shapes name the dimensions of :class:`Dims` (``"n"`` seats, ``"T"`` teams, ...). ``bounds`` gives the
values a state field may hold where the programs index with it (a card id, a sign, a phase):
:func:`out_of_bounds` checks a loaded state against them, because the compiled programs check no
index, and a value past its block would write past it.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import torch

from quatro_env.batched.constants import MAX_TICKS, NUM_CALLS, NUM_EMOJIS, NUM_KINDS, NUM_PHASES, OVER, SIGN


@dataclass(frozen=True)
class Field:
    name: str
    dtype: torch.dtype
    shape: tuple[str | int, ...]  # after the leading table dimension
    fill: int | float | bool  # the value at allocation (a reset sets every field that matters)
    meaning: str
    bounds: tuple[int, int | str] | None = None  # lo <= value < hi (hi may name a Dims size)


@dataclass(frozen=True)
class Dims:
    """The sizes a shape may name."""

    n: int  # seats
    T: int  # teams
    deck: int = 0  # cards
    width: int = 0  # the encoder's scratch row (``layout.encode_width``)
    q5_cap: int = 16  # Q5 re-splits one table may record in one tick (more is an error)
    kinds: int = NUM_KINDS  # action kinds
    emojis: int = NUM_EMOJIS  # signs and channel emojis (Q7)
    phases: int = NUM_PHASES
    calls: int = NUM_CALLS  # a round's ending call: quatro, contra, blank
    score_max: int = 128  # team points are int8 and shown as one byte

    def resolve(self, shape: tuple[str | int, ...]) -> tuple[int, ...]:
        return tuple(getattr(self, s) if isinstance(s, str) else s for s in shape)


i8, i16, i32, i64 = torch.int8, torch.int16, torch.int32, torch.int64
b8, u8, f32, f64 = torch.bool, torch.uint8, torch.float32, torch.float64

STATE = (
    Field("seeds", i64, (), 0, "the table's seed (Q30: every draw hashes it)"),
    Field("episode", i64, (), 0, "episodes finished on this table (part of the draw key)"),
    Field("key", i64, (), 0, "hash of seed and episode: the key of this episode's draws"),
    Field("tick", i32, (), 0, "the tick about to be played"),
    Field("phase", i8, (), 0, "Phase: sign, play, pause, over", (0, "phases")),
    Field("phase_end", i32, (), 0, "last tick of the phase (sign, play, pause)"),
    Field("round_index", i16, (), 0, "rounds begun (1 = the first)"),
    Field("rounds_completed", i16, (), 0, "rounds ended (Q10)"),
    Field("scores", i8, ("T",), 0, "team points (Q24)", (0, "score_max")),
    Field("connected", b8, ("n",), False, "seat is connected (Q23)"),
    Field("ready", b8, ("n",), False, "seat confirmed ready in the sign phase (Q8)"),
    Field("hands", i8, ("n", 4), -1, "card ids (value = id >> 2); -1 outside play (Q4, Q8)", (-1, "deck")),
    Field("center", i8, (4,), -1, "the center's card ids (Q4)", (-1, "deck")),
    Field("team_sign", i8, ("T",), -1, "the team's secret sign, -1 until fixed (Q7)", (-1, "emojis")),
    Field("floor", b8, ("n",), False, "seat holds the floor (Q15)"),
    Field("emoji", i8, ("n",), -1, "the floor holder's current emoji, -1 none (Q15)", (-1, "emojis")),
    Field("pulse_anchor", i32, ("n",), -1, "tick the emoji pulse counts from, -1 none (Q15)"),
    Field("pulse_emoji", i8, ("n",), -1, "the last pulsed emoji, -1 none (Q15)", (-1, "emojis")),
    Field("pulse_tick", i32, ("n",), -1, "tick of the last pulse"),
    Field("next_exchange", i32, ("n",), 0, "first tick of the next exchange (Q13)"),
    Field("next_floor", i32, ("n",), 0, "first tick of the next floor gesture (Q17)"),
    Field("rem_open", i32, ("n",), -1, "tick the own-quartet reminder opened, -1 none (Q18)"),
    Field("rem_last", i32, ("n",), -1, "last tick of the reminder window (Q18)"),
    Field("vote_open", b8, (), False, "a reshuffle vote is open (Q20)"),
    Field("vote_proposer", i8, (), 0, "the seat that proposed it", (0, "n")),
    Field("vote_deadline", i32, (), 0, "last tick of the vote (silence is a no)"),
    Field("voters", b8, ("n",), False, "seats that must answer (Q20, Q22)"),
    Field("yes", b8, ("n",), False, "voters who said yes"),
    Field("reshuffled", b8, (), False, "the round's reshuffle is used (Q21)"),
    Field("absent", b8, ("n",), False, "voters who disconnected during the vote: cannot answer (Q20)"),
    Field("next_proposal", i32, (), 0, "first tick of the next proposal (Q21)"),
    Field("start_requested", b8, (), False, "the host asked to start the next round (Q11)"),
    Field(
        "call_kind",
        i8,
        (),
        -1,
        "the round's ending call: -1 none, 0 quatro, 1 contra, 2 blank",
        (-1, "calls"),
    ),
    Field("call_caller", i8, (), -1, "the caller's seat, -1 none", (-1, "n")),
    Field("call_target", i8, (), -1, "the accused team of a contra, -1 none (Q19)", (-1, "T")),
    Field("call_scoring", b8, ("T",), False, "teams that scored at the round's end (Q25)"),
)

EVENTS = (
    Field("ev_act", b8, ("n",), False, "the seat's action produced an ordered event"),
    Field("ev_pos", i8, ("n",), 0, "1-based resolution position of each seat this tick (Q9)"),
    Field("ev_slot", i8, ("n",), -1, "exchange center slot, -1 none"),
    Field("ev_taken", i8, ("n",), -1, "value taken by the exchange, -1 none"),
    Field("ev_placed", i8, ("n",), -1, "value placed by the exchange, -1 none"),
    Field("ev_rejected", i8, ("n",), -1, "rejected exchange slot, -1 none (Q14, private)"),
    Field("ev_took", b8, ("n",), False, "took the floor"),
    Field("ev_released", b8, ("n",), False, "released the floor (any reason)"),
    Field("ev_vote", i8, ("n",), 0, "0 none, 1 yes, 2 no"),
    Field("ev_proposed", b8, ("n",), False, "proposed a reshuffle"),
    Field("ev_replaced", b8, ("n",), False, "the hand was re-split (Q5)"),
    Field("ev_vote_failed", b8, (), False, "the vote failed this tick"),
    Field("ev_reshuffled", b8, (), False, "the hands were reshuffled this tick (Q20)"),
)

RESULTS = (
    Field("rewards", f32, ("n",), 0.0, "this tick's reward per seat"),
    Field("points", i8, ("T",), 0, "points each team scored this tick"),
    Field("round_ended", b8, (), False, "a round ended this tick"),
    Field("match_ended", b8, (), False, "the match ended this tick"),
    Field("terminated", b8, (), False, "the episode terminated this tick"),
    Field("truncated", b8, (), False, "the episode was truncated (max_rounds)"),
    Field("done", b8, (), False, "terminated or truncated: the table is reset in the same step"),
    Field("final_scores", i8, ("T",), 0, "scores at the end of this tick, before any reset"),
    Field("final_rounds", i16, (), 0, "rounds completed at the end of this tick"),
)

DRAWS = (
    Field("order", i64, ("n",), 0, "the seat at each resolution position (Q9)"),
    Field("sign", i64, ("T",), 0, "signs drawn for teams without one, -1 for the others (Q8)"),
    Field("sign_flag", b8, (), False, "signs were drawn this tick"),
    Field("deal", i64, ("deck",), 0, "the deal's permutation (Q4)"),
    Field("deal_flag", b8, (), False, "a deal was drawn this tick"),
    Field("q5", i64, ("q5_cap", 8), 0, "each Q5 re-split's permutation of hand and center, in order"),
    Field("q5_count", i64, (), 0, "Q5 re-splits this tick"),
    Field("random", f64, ("n",), 0.0, "the random (dis)connection draws (Q23)"),
    Field("random_flag", b8, (), False, "(dis)connections were drawn this tick"),
)

SCRATCH = (
    Field("u", i64, (8,), 0, "this tick's draws (order, signs, connections)"),
    Field("order", i64, ("n",), 0, "the seat at each resolution position (Q9)"),
    Field("changed", b8, (4,), False, "center slots changed this tick (Q14)"),
    Field("scoring", b8, ("T",), False, "teams scoring at the round's end"),
    Field("connected0", b8, ("n",), False, "connections before this tick's random changes"),
    Field("per_seat", f32, ("n",), 0.0, "each seat's team points"),
    Field("deal_draws", i64, ("deck",), 0, "the deal's draws ..."),
    Field("deal_perm", i64, ("deck",), 0, "... and permutation (Q4)"),
    Field("q5_draws", i64, (8,), 0, "a Q5 re-split's draws ..."),
    Field("q5_perm", i64, (8,), 0, "... its permutation ..."),
    Field("q5_pool", i64, (8,), 0, "... and the 8 cards it permutes"),
    Field("encode", u8, ("width",), 0, "a table's absolute features (view.features_table)"),
    Field("cum", f32, ("kinds",), 0.0, "cumulative kind weights (sample_table)"),
)

#: the kernel's arguments: one array per field, by name
State = namedtuple("State", [f.name for f in STATE])
Events = namedtuple("Events", [f.name for f in EVENTS])
Results = namedtuple("Results", [f.name for f in RESULTS])
Draws = namedtuple("Draws", [f.name for f in DRAWS])
Scratch = namedtuple("Scratch", [f.name for f in SCRATCH])
#: the tables' game state (``state_bytes_per_table`` counts these)
TABLE_STATE = tuple(f.name for f in STATE)
#: what a checkpoint holds (``state_dict``): the game state and the last outputs
STATE_FIELDS = (*TABLE_STATE, "observations", "masks")
#: and the config that played it, as JSON (a state loads only into an engine of the same config)
CONFIG_KEY = "config"


def allocate(
    fields: tuple[Field, ...], num_envs: int, dims: Dims, device: torch.device
) -> dict[str, torch.Tensor]:
    """One contiguous tensor per field, filled with the field's fill value."""
    return {
        f.name: torch.full((num_envs, *dims.resolve(f.shape)), f.fill, dtype=f.dtype, device=device)
        for f in fields
    }


def bytes_per_table(fields: tuple[Field, ...], dims: Dims) -> int:
    """Bytes one table's row of ``fields`` takes."""
    return sum(
        torch.empty((), dtype=f.dtype).element_size() * math.prod(dims.resolve(f.shape)) for f in fields
    )


def out_of_bounds(state: dict[str, torch.Tensor], dims: Dims) -> list[str]:
    """Each ``STATE`` field of ``state`` holding a value outside its ``bounds``: ``name: lo..hi-1, got v``."""
    bad = []
    for f in STATE:
        if f.bounds is None:
            continue
        lo, hi = f.bounds[0], dims.resolve((f.bounds[1],))[0]
        values = state[f.name].long()  # an int8 field against 128 would wrap
        outside = (values < lo) | (values >= hi)
        if bool(outside.any()):
            bad.append(f"{f.name}: {lo}..{hi - 1}, got {int(values[outside][0])}")
    return bad


def never_reached(state: dict[str, torch.Tensor], dims: Dims, points_to_win: int) -> list[str]:
    """What no play reaches in ``state``, though every value is within its ``bounds``: a card held twice
    or missing, a clock past its int32 headroom, a score the rounds cannot have given, a finished table
    (those are reset in the same step). The programs would play on from there, wrongly and silently."""
    bad = []

    def refuse(name: str, wrong: torch.Tensor, what: str) -> None:
        tables = torch.nonzero(wrong.reshape(wrong.shape[0], -1).any(1)).flatten()
        if tables.numel():
            bad.append(f"{name}: {what} (table {int(tables[0])})")

    tick, phase = state["tick"].long(), state["phase"].long()
    refuse("tick", (tick < 0) | (tick > MAX_TICKS), f"0..{MAX_TICKS}")
    refuse("phase", phase == OVER, "not over (a finished table is reset in the same step)")
    begun, ended = state["round_index"].long(), state["rounds_completed"].long()
    refuse("rounds_completed", (ended < 0) | (ended > begun), "0..round_index")
    scores = state["scores"].long()
    refuse(
        "scores",
        (scores > ended[:, None]) | (scores >= points_to_win),
        f"below points_to_win, {points_to_win}, and at most the rounds completed (Q24)",
    )
    cards = torch.cat([state["hands"].flatten(1), state["center"]], 1).long()
    sign = (phase == SIGN).unsqueeze(1)
    refuse("hands", sign & (cards >= 0), "no card dealt in the sign phase (Q8)")
    deck = torch.arange(dims.deck, device=cards.device)
    refuse(
        "hands",
        ~sign & (cards.sort(1).values != deck),
        f"with the center, each of the {dims.deck} cards once (Q3, Q4)",
    )
    return bad
