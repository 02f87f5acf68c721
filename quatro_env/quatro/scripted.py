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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from quatro_env.common.strict import as_list
from quatro_env.quatro.cards import EMOJIS, assign_suits, parse_cards
from quatro_env.quatro.engine import Phase, Position, QuatroEngine

OPTION_KEYS = frozenset({"position", "deal", "order"})
POSITION_KEYS = frozenset({"phase", "hands", "center", "signs", "scores", "ready", "connected", "ticks_left"})
_PHASES = {"sign": Phase.SIGN, "play": Phase.PLAY, "pause": Phase.PAUSE}
#: the scripted position's suits are drawn from ``default_rng([engine seed, SUIT_STREAM])``: seeded (Q30),
#: and apart from the engine's own stream, which plays the same as without a position
SUIT_STREAM = 0x5017


@dataclass(frozen=True)
class ScriptedStart:
    """Validated reset options: applying them to a freshly reset engine cannot fail."""

    position: Position | None = None
    deal: list[int] | None = None
    order: tuple[int, ...] | None = None


def _sign_index(sign: Any) -> Any:
    """An emoji becomes its index; anything else is left for the engine's check."""
    if isinstance(sign, str):
        if sign not in EMOJIS:
            raise ValueError(f"signs: {sign!r} is neither an emoji of the list, an index 0..23, nor None")
        return EMOJIS.index(sign)
    return sign


def parse_options(engine: QuatroEngine, options: Mapping[str, Any] | None) -> ScriptedStart:
    """Validate ``options`` completely, touching nothing; raises ``ValueError`` naming the field."""
    if options is None:
        return ScriptedStart()
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options: must be a dict or None, got {type(options).__name__}")
    foreign = set(options) - OPTION_KEYS
    if foreign:
        warnings.warn(
            f"reset options: ignoring key(s) {sorted(map(str, foreign))}; Quatro reads {sorted(OPTION_KEYS)}",
            stacklevel=3,
        )
    position = None
    if "position" in options:
        raw = options["position"]
        if not isinstance(raw, Mapping):
            raise ValueError(f"position: must be a dict of {sorted(POSITION_KEYS)}, got {raw!r}")
        unknown = set(raw) - POSITION_KEYS
        if unknown:
            raise ValueError(
                f"position: unknown key(s) {sorted(map(str, unknown))}; known: {sorted(POSITION_KEYS)}"
            )
        position = _check_position(engine, raw)
    deal = engine.check_deal(options["deal"]) if options.get("deal") is not None else None
    order = engine.check_order(options["order"]) if options.get("order") is not None else None
    return ScriptedStart(position, deal, order)


def apply_script(
    engine: QuatroEngine, script: ScriptedStart, suits: np.random.Generator | None = None
) -> None:
    """Put a freshly reset ``engine`` in the validated start ``script``. ``suits`` draws which copy of
    each value (its suit, Q3) each card of the position is."""
    if script.position is not None:
        position = script.position
        if suits is not None and position.hands is not None:
            position = shuffled_suits(position, suits)
        engine.put_position(position)
    if script.deal is not None:
        engine.force_next_deal(script.deal)
    if script.order is not None:
        engine.force_next_order(script.order)


def shuffled_suits(position: Position, rng: np.random.Generator) -> Position:
    """``position`` with the four copies of each value permuted at random. ``assign_suits`` numbers a
    value's copies in the order the position lists them, so an opponent's exposed card (its id, in
    ``infos`` events and renders) told how many copies of its value sat in earlier hands; a random
    permutation tells nothing, as in a dealt round."""
    values = (4 * len(position.hands) + len(position.center)) // 4  # every card is in play (Q3)
    suit = rng.permuted(np.tile(np.arange(4), (values, 1)), axis=1)  # per value, its copies' new suits

    def relabel(card: int) -> int:
        return 4 * (card // 4) + int(suit[card // 4, card % 4])

    return replace(
        position,
        hands=tuple(tuple(relabel(c) for c in hand) for hand in position.hands),
        center=tuple(relabel(c) for c in position.center),
    )


def apply_options(engine: QuatroEngine, options: Mapping[str, Any]) -> None:
    """Validate ``options`` and put ``engine`` (freshly reset) in that position."""
    apply_script(engine, parse_options(engine, options))


def _check_position(engine: QuatroEngine, options: Mapping[str, Any]) -> Position:
    n = engine.n
    phase_name = options.get("phase", "sign")
    if not isinstance(phase_name, str) or phase_name not in _PHASES:
        raise ValueError(f"phase: must be one of {sorted(_PHASES)}, got {phase_name!r}")
    hands = center = None
    if "hands" in options or "center" in options:
        raw_hands, raw_center = options.get("hands"), options.get("center")
        if raw_hands is None or raw_center is None:
            raise ValueError(f"hands: need {n} hands and a center together")
        raw_hands = as_list(raw_hands, f"hands (one per seat, {n})", n)
        groups = [parse_cards(as_list(h, f"hands[{s}]"), n, f"hands[{s}]") for s, h in enumerate(raw_hands)]
        groups.append(parse_cards(as_list(raw_center, "center"), n, "center"))
        if any(len(gr) != 4 for gr in groups):
            raise ValueError("hands: every hand and the center hold exactly 4 cards (Q4)")
        *hands, center = assign_suits(groups, n)
    signs = options.get("signs")
    if isinstance(signs, (list, tuple)):
        signs = [_sign_index(s) for s in signs]
    return engine.check_position(
        phase=_PHASES[phase_name],
        hands=hands,
        center=center,
        signs=signs,
        scores=options.get("scores"),
        ready=options.get("ready"),
        connected=options.get("connected"),
        ticks_left=options.get("ticks_left"),
    )
