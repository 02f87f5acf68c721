"""Trick obligations (rule C6) and the trick winner (rule C7).

``legal_plays`` returns the legal cards *and* the obligation that produced them, so that the
action mask and the text of an illegal-action error come from one computation.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from quatro_env.cuatrola.cards import CARD_STRENGTH, CARD_SUIT


class Obligation(Enum):
    """Which branch of C6 decides the legal cards; the value explains it in words."""

    LEAD = "the leader may play any card"
    MONTAR = "must beat the led card with a higher card of the led suit (montar)"
    ASISTIR = "must follow the led suit (asistir)"
    FALLAR = "cannot follow suit, so must trump (fallar)"
    ASISTIR_TRAS_FALLO = "a trump was already played: must follow the led suit, no need to beat the led card"
    MONTAR_FALLO = "cannot follow suit and a trump was already played: must beat the highest trump"
    LIBRE_SIN_PALO = "cannot follow suit and holds no trump: any card"
    LIBRE_NO_MONTA = "cannot follow suit nor beat the earlier trump: any card"


def legal_plays(hand: Sequence[int], trick: Sequence[int], trump: int) -> tuple[list[int], Obligation]:
    """The cards of ``hand`` that C6 allows on ``trick`` (cards in play order), and the reason."""
    if not trick:
        return list(hand), Obligation.LEAD
    led = trick[0]
    led_suit = CARD_SUIT[led]
    follow = [c for c in hand if CARD_SUIT[c] == led_suit]
    if led_suit != trump:
        top_trump = -1  # strength of the highest earlier trump (a "fallo"), if any
        for c in trick:
            if CARD_SUIT[c] == trump and CARD_STRENGTH[c] > top_trump:
                top_trump = CARD_STRENGTH[c]
        if top_trump >= 0:
            if follow:
                return follow, Obligation.ASISTIR_TRAS_FALLO
            over = [c for c in hand if CARD_SUIT[c] == trump and CARD_STRENGTH[c] > top_trump]
            if over:
                return over, Obligation.MONTAR_FALLO
            return list(hand), Obligation.LIBRE_NO_MONTA
    # No earlier trump (or a trump lead, where following trumps are not "fallos").
    led_strength = CARD_STRENGTH[led]
    higher = [c for c in follow if CARD_STRENGTH[c] > led_strength]
    if higher:
        return higher, Obligation.MONTAR
    if follow:
        return follow, Obligation.ASISTIR
    trumps = [c for c in hand if CARD_SUIT[c] == trump]
    if trumps:
        return trumps, Obligation.FALLAR
    return list(hand), Obligation.LIBRE_SIN_PALO


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes the trick from the current best card ``best`` (C7)."""
    if CARD_SUIT[card] == CARD_SUIT[best]:
        return CARD_STRENGTH[card] > CARD_STRENGTH[best]
    return CARD_SUIT[card] == trump


def trick_winner(trick: Sequence[int], trump: int) -> int:
    """Index into ``trick`` of the winning card: highest trump, else highest of the led suit (C7)."""
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], trump):
            best = i
    return best
