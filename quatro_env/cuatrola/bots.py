"""Baseline policies that read only the observation: ``RandomBot`` and the rule-based ``GreedyBot``.

Both are callables ``policy(observation, agent) -> action`` built with a seed, so that
tournaments are reproducible. ``BOTS`` maps their names to the classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from quatro_env.cuatrola.actions import DECLARE_BASE, PASS, SING_BASE
from quatro_env.cuatrola.cards import CARD_POINTS, CARD_RANK, CARD_STRENGTH, CARD_SUIT, NUM_CARDS, NUM_RANKS
from quatro_env.cuatrola.observation import SLICES
from quatro_env.cuatrola.scoring import Contract
from quatro_env.cuatrola.state import Phase
from quatro_env.cuatrola.tricks import trick_winner


class RandomBot:
    """Uniformly random legal action."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def __call__(self, observation: Mapping[str, Any], agent: str) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self._rng.integers(len(legal))])


# Expected tricks from a side card by rank (As .. Sota): side aces win unless trumped.
_SIDE_TRICKS = (0.8, 0.35, 0.1, 0.05, 0.0)
_GUARDED_TRES = 0.7  # a side 3 held with its As
# Estimated tricks needed before declaring a solo, a cuatrola, a quintola.
_THRESHOLDS = {Contract.SOLO: 3.0, Contract.CUATROLA: 3.9, Contract.QUINTOLA: 4.9}


def estimate_tricks(hand: Sequence[int], trump: int) -> float:
    """A rough count of the tricks a hand takes when it plays alone.

    A trump with every stronger trump in the same hand is a sure trick; each stronger trump held
    elsewhere costs it a third of a trick.
    """
    total = 0.0
    trumps = sorted(CARD_RANK[c] for c in hand if CARD_SUIT[c] == trump)
    for i, rank in enumerate(trumps):
        total += max(0.3, 1.0 - (rank - i) / 3)
    for c in hand:
        suit, rank = CARD_SUIT[c], CARD_RANK[c]
        if suit == trump:
            continue
        total += _GUARDED_TRES if rank == 1 and (c - 1) in hand else _SIDE_TRICKS[rank]
    return total


class GreedyBot:
    """Declares from hand strength, wins tricks as cheaply as it can, feeds points to a winning
    partner, throws its cheapest card otherwise, and always sings (trumps first)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)  # breaks ties between equally good cards

    def __call__(self, observation: Mapping[str, Any], agent: str) -> int:
        obs = observation["observation"]
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        phase = int(np.argmax(obs[SLICES["phase"]]))
        trump = int(np.argmax(obs[SLICES["trump_suit"]]))
        if phase == Phase.CANTE:
            sings = [a for a in legal if a >= SING_BASE]
            if not sings:
                return PASS
            return max(sings, key=lambda a: (a - SING_BASE == trump, -a))
        hand = np.flatnonzero(obs[SLICES["hand"]]).tolist()
        if phase == Phase.DECLARE:
            return self._declare(legal, hand, trump)
        return self._play(obs, legal, hand, trump)

    @staticmethod
    def _declare(legal: list[int], hand: list[int], trump: int) -> int:
        tricks = estimate_tricks(hand, trump)
        for contract in (Contract.QUINTOLA, Contract.CUATROLA, Contract.SOLO):
            if DECLARE_BASE + contract in legal and tricks >= _THRESHOLDS[contract]:
                return DECLARE_BASE + contract
        return PASS

    def _play(self, obs: np.ndarray, legal: list[int], hand: list[int], trump: int) -> int:
        current = obs[SLICES["current_trick"]].reshape(4, NUM_CARDS)
        leader = int(np.argmax(obs[SLICES["trick_leader"]]))
        trick: list[int] = []
        seats: list[int] = []
        for k in range(4):
            rel = (leader + k) & 3
            cards = np.flatnonzero(current[rel])
            if len(cards):
                trick.append(int(cards[0]))
                seats.append(rel)
        if not trick:
            return self._lead(obs, legal, hand, trump)
        players = 3 if obs[SLICES["sitting_out"]].any() else 4
        last_to_play = len(trick) + 1 == players
        best_rel = seats[trick_winner(trick, trump)]
        winning = [c for c in legal if trick_winner([*trick, c], trump) == len(trick)]

        def cost(c: int) -> tuple[int, int, int]:  # cheap = not a trump, few points, weak
            return (CARD_SUIT[c] == trump, CARD_POINTS[c], CARD_STRENGTH[c])

        if best_rel == 2:  # partner is winning: load points if safe, else keep cheap
            if last_to_play:
                return self._pick(legal, key=lambda c: (CARD_SUIT[c] != trump, CARD_POINTS[c]))
            return self._pick(legal, key=lambda c: tuple(-x for x in cost(c)))
        if winning:
            if last_to_play:
                return self._pick(winning, key=lambda c: tuple(-x for x in cost(c)))
            # Not last: a strong winner is less likely to be overtaken.
            return self._pick(
                winning, key=lambda c: (CARD_SUIT[c] != trump, CARD_STRENGTH[c], -CARD_POINTS[c])
            )
        return self._pick(legal, key=lambda c: tuple(-x for x in cost(c)))

    def _lead(self, obs: np.ndarray, legal: list[int], hand: list[int], trump: int) -> int:
        gone = obs[SLICES["earlier_tricks"]].reshape(4, NUM_CARDS).any(axis=0)
        gone[hand] = True

        def master(c: int) -> bool:  # no unseen card of its suit is stronger
            first = CARD_SUIT[c] * NUM_RANKS
            return all(gone[first + r] for r in range(CARD_RANK[c]))

        masters = [c for c in legal if master(c)]
        side_masters = [c for c in masters if CARD_SUIT[c] != trump]
        if side_masters:
            return self._pick(side_masters, key=lambda c: CARD_POINTS[c])
        if masters:
            return self._pick(masters, key=lambda c: CARD_POINTS[c])
        return self._pick(legal, key=lambda c: (CARD_SUIT[c] != trump, -CARD_POINTS[c], -CARD_STRENGTH[c]))

    def _pick(self, cards: list[int], key: Any) -> int:
        """The card with the largest ``key``; ties broken at random (seeded)."""
        best = max(key(c) for c in cards)
        ties = [c for c in cards if key(c) == best]
        return ties[0] if len(ties) == 1 else int(ties[self._rng.integers(len(ties))])


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}
