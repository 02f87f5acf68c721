"""Contracts, hand points and hand results (rules C8, C9, C10 values, C11 limits).

Pure functions over plain numbers, so that the state machine only keeps the tallies and the
scoring rules live in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

MATCH_TARGET = 11  # C11: the match points that win a match, exactly (the config's default)
LAST_TRICK_BONUS = 10  # C8
CANTE_POINTS = 20  # C10
TRUMP_CANTE_POINTS = 40  # C10
NUM_TRICKS = 5


class Contract(IntEnum):
    """The standing declaration of a hand (C4); NONE also stands for a pass."""

    NONE = 0
    SOLO = 1
    CUATROLA = 2
    QUINTOLA = 3


CONTRACT_NAMES: tuple[str, ...] = ("none", "solo", "cuatrola", "quintola")
CONTRACT_VALUE: tuple[int, ...] = (1, 2, 4, 5)  # match points of a hand (C9)
TRICKS_NEEDED: dict[Contract, int] = {Contract.CUATROLA: 4, Contract.QUINTOLA: 5}  # C9


def pair_of(seat: int) -> int:
    """Pairs sit face to face (C1): seats 0 and 2 are pair 0, seats 1 and 3 pair 1."""
    return seat & 1


def partner(seat: int) -> int:
    return (seat + 2) & 3


def contract_fits(pair_score: int, contract: Contract, target: int) -> bool:
    """C11: a contract is allowed only if it cannot take its own pair past the target."""
    return pair_score + CONTRACT_VALUE[contract] <= target


def cante_value(suit: int, trump: int) -> int:
    return TRUMP_CANTE_POINTS if suit == trump else CANTE_POINTS


def cantes_count(contract: Contract) -> bool:
    """C10: no cantes in a cuatrola or a quintola, where only tricks matter."""
    return contract <= Contract.SOLO


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: who wins how many match points, and why."""

    contract: Contract
    declarer: int  # -1 when nobody declared
    winner_pair: int
    match_points: int
    hand_points: tuple[int, int]  # per pair: card points + last trick + cantes (C8)
    declarer_tricks: int  # tricks won by the declarer (0 without a declaration)

    @property
    def declaration_failed(self) -> bool:
        return self.contract != Contract.NONE and self.winner_pair != pair_of(self.declarer)


def hand_result(
    contract: Contract,
    declarer: int,
    mano: int,
    hand_points: tuple[int, int],
    declarer_tricks: int,
) -> HandResult:
    """Apply C9: trick counts decide a cuatrola/quintola, hand points (tie to mano's pair) the rest."""
    if contract in TRICKS_NEEDED:
        made = declarer_tricks >= TRICKS_NEEDED[contract]
        winner = pair_of(declarer) if made else 1 - pair_of(declarer)
    elif hand_points[0] != hand_points[1]:
        winner = 0 if hand_points[0] > hand_points[1] else 1
    else:
        winner = pair_of(mano)
    return HandResult(contract, declarer, winner, CONTRACT_VALUE[contract], hand_points, declarer_tricks)
