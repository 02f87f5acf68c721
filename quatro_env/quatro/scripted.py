"""Scripted positions for ``reset(options=...)`` (Q31): tests, puzzles and tutorials start here.

``options`` may hold ``position`` (a dict, below), ``deal`` and ``order``. Other top-level keys
are ignored with a warning ([decision]: PettingZoo's own API test passes foreign options, and
wrappers may add theirs); inside ``position`` an unknown key is an error.

``position`` keys (all optional):

``phase``      "sign" (default), "play" or "pause"
``hands``      one list of 4 cards per seat, as value labels ("A", "10") or value indices
``center``     the 4 center cards, same format
``signs``      one sign per team: an emoji, an emoji index 0..23, or None
``scores``     one score per team
``ready``      one flag per seat;   ``connected``: one flag per seat
``ticks_left`` ticks left in the phase (defaults to the full phase)

Top-level:

``deal``       card ids (a permutation of the deck) for the next deal, before the Q5 check
``order``      the resolution order (a permutation of the seats) of the first tick
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from quatro_env.quatro.cards import EMOJIS, assign_suits, parse_cards
from quatro_env.quatro.engine import Phase, QuatroEngine

OPTION_KEYS = frozenset({"position", "deal", "order"})
POSITION_KEYS = frozenset({"phase", "hands", "center", "signs", "scores", "ready", "connected", "ticks_left"})
_PHASES = {"sign": Phase.SIGN, "play": Phase.PLAY, "pause": Phase.PAUSE}


def _sign_index(sign: Any) -> int | None:
    if sign is None or (isinstance(sign, int) and not isinstance(sign, bool)):
        return sign
    if isinstance(sign, str) and sign in EMOJIS:
        return EMOJIS.index(sign)
    raise ValueError(f"signs: {sign!r} is neither an emoji of the list, an index 0..23, nor None")


def apply_options(engine: QuatroEngine, options: Mapping[str, Any]) -> None:
    """Validate ``options`` and put ``engine`` (freshly reset) in that position."""
    foreign = set(options) - OPTION_KEYS
    if foreign:
        warnings.warn(
            f"reset options: ignoring key(s) {sorted(foreign)}; Quatro reads {sorted(OPTION_KEYS)}",
            stacklevel=3,
        )
    if "position" in options:
        position = options["position"]
        if not isinstance(position, Mapping):
            raise ValueError(f"position: must be a dict of {sorted(POSITION_KEYS)}, got {position!r}")
        unknown = set(position) - POSITION_KEYS
        if unknown:
            raise ValueError(f"position: unknown key(s) {sorted(unknown)}; known: {sorted(POSITION_KEYS)}")
        _apply_position(engine, position)
    if "deal" in options:
        engine.force_next_deal(options["deal"])
    if "order" in options:
        engine.force_next_order(options["order"])


def _apply_position(engine: QuatroEngine, options: Mapping[str, Any]) -> None:
    n = engine.n
    phase_name = options.get("phase", "sign")
    if phase_name not in _PHASES:
        raise ValueError(f"phase: must be one of {sorted(_PHASES)}, got {phase_name!r}")
    hands = center = None
    if "hands" in options or "center" in options:
        raw_hands, raw_center = options.get("hands"), options.get("center")
        if raw_hands is None or raw_center is None or len(raw_hands) != n:
            raise ValueError(f"hands: need {n} hands and a center together")
        groups = [parse_cards(h, n, f"hands[{s}]") for s, h in enumerate(raw_hands)]
        groups.append(parse_cards(raw_center, n, "center"))
        if any(len(gr) != 4 for gr in groups):
            raise ValueError("hands: every hand and the center hold exactly 4 cards (Q4)")
        *hands, center = assign_suits(groups, n)
    signs = options.get("signs")
    engine.set_position(
        phase=_PHASES[phase_name],
        hands=hands,
        center=center,
        signs=None if signs is None else [_sign_index(s) for s in signs],
        scores=options.get("scores"),
        ready=options.get("ready"),
        connected=options.get("connected"),
        ticks_left=options.get("ticks_left"),
    )
