"""The action codec: one ``Discrete(28)`` index per decision a player can take.

==========  ==========================================================================
index       meaning
==========  ==========================================================================
0 .. 19     play card ``index`` (card id = suit * 5 + rank, see ``cards``)
20          pass: no contract in the declaration round, or no cante in a cante window
21, 22, 23  declare solo, cuatrola, quintola (``20 + Contract``)
24 .. 27    sing (cantar) Caballo + Rey of suit ``index - 24`` (oros, copas, espadas, bastos)
==========  ==========================================================================

``decode`` returns shared, immutable ``Action`` tuples, so decoding allocates nothing.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

import numpy as np

from quatro_env.cuatrola.cards import CARD_CODES, CARD_NAMES, NUM_CARDS, NUM_SUITS, SUITS, parse_card
from quatro_env.cuatrola.scoring import CONTRACT_NAMES, Contract

PLAY_BASE = 0
PASS = 20
DECLARE_BASE = PASS  # DECLARE_BASE + Contract.NONE is the pass
SING_BASE = 24
NUM_ACTIONS = SING_BASE + NUM_SUITS  # 28


class ActionKind(Enum):
    PLAY = "play"
    PASS = "pass"
    DECLARE = "declare"
    SING = "sing"


class Action(NamedTuple):
    """A decoded action; ``arg`` is the card id, the ``Contract`` or the suit (0 for a pass)."""

    kind: ActionKind
    arg: int = 0


def _decode(index: int) -> Action:
    if index < PASS:
        return Action(ActionKind.PLAY, index)
    if index == PASS:
        return Action(ActionKind.PASS)
    if index < SING_BASE:
        return Action(ActionKind.DECLARE, index - DECLARE_BASE)
    return Action(ActionKind.SING, index - SING_BASE)


_DECODED: tuple[Action, ...] = tuple(_decode(i) for i in range(NUM_ACTIONS))


def _describe(action: Action) -> str:
    if action.kind is ActionKind.PLAY:
        return f"play {CARD_NAMES[action.arg]} [{CARD_CODES[action.arg]}]"
    if action.kind is ActionKind.PASS:
        return "pass"
    if action.kind is ActionKind.DECLARE:
        return f"declare {CONTRACT_NAMES[action.arg]}"
    return f"sing {SUITS[action.arg]} (Caballo + Rey)"


_DESCRIPTIONS: tuple[str, ...] = tuple(_describe(a) for a in _DECODED)


def as_index(action: object) -> int:
    """Coerce a step argument (int or NumPy integer) to an action index; ``ValueError`` if not one."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an integer in [0, {NUM_ACTIONS}), got {action!r}")
    index = int(action)
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"an action must be an integer in [0, {NUM_ACTIONS}), got {index}")
    return index


def decode(index: int) -> Action:
    return _DECODED[as_index(index)]


def encode(action: Action) -> int:
    """Inverse of ``decode``."""
    if action.kind is ActionKind.PLAY:
        if not 0 <= action.arg < NUM_CARDS:
            raise ValueError(f"card id must lie in [0, {NUM_CARDS}), got {action.arg}")
        return PLAY_BASE + action.arg
    if action.kind is ActionKind.PASS:
        return PASS
    if action.kind is ActionKind.DECLARE:
        if not Contract.SOLO <= action.arg <= Contract.QUINTOLA:
            raise ValueError(f"a declaration is solo (1), cuatrola (2) or quintola (3), got {action.arg}")
        return DECLARE_BASE + action.arg
    if not 0 <= action.arg < NUM_SUITS:
        raise ValueError(f"suit must lie in [0, {NUM_SUITS}), got {action.arg}")
    return SING_BASE + action.arg


def describe(index: int) -> str:
    """Human-readable text of an action index, e.g. ``"play Caballo de oros [Co]"``."""
    return _DESCRIPTIONS[as_index(index)]


def play(card: int | str) -> int:
    """Index of playing ``card`` (an id or a code such as ``"Co"``)."""
    return PLAY_BASE + parse_card(card)


def declare(contract: Contract | str) -> int:
    """Index of declaring ``contract`` (a ``Contract`` or its name); ``"none"`` is the pass."""
    if isinstance(contract, str):
        if contract not in CONTRACT_NAMES:
            raise ValueError(f"unknown contract {contract!r}; expected one of {CONTRACT_NAMES}")
        contract = Contract(CONTRACT_NAMES.index(contract))
    return DECLARE_BASE + int(contract)


def sing(suit: int | str) -> int:
    """Index of singing in ``suit`` (an index or a suit name such as ``"oros"``)."""
    if isinstance(suit, str):
        if suit not in SUITS:
            raise ValueError(f"unknown suit {suit!r}; expected one of {SUITS}")
        suit = SUITS.index(suit)
    return encode(Action(ActionKind.SING, suit))
