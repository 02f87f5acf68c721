"""The rules as a state machine: a match of hands, each a declaration round then five tricks.

``CuatrolaGame`` knows nothing about agents, spaces or rewards; the AEC environment wraps it.
Seats are ``0..3``; play passes from seat ``i`` to seat ``i + 1`` (C1). The legal actions are
computed once per decision and cached, because the mask and the step both need them.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from quatro_env.cuatrola.actions import DECLARE_BASE, PASS, SING_BASE, decode
from quatro_env.cuatrola.actions import ActionKind as Kind
from quatro_env.cuatrola.cards import (
    CABALLO,
    CARD_CODES,
    CARD_POINTS,
    CARD_SUIT,
    NUM_SUITS,
    REY,
    SUITS,
    deal,
    format_cards,
    make_card,
)
from quatro_env.cuatrola.scoring import (
    CONTRACT_NAMES,
    CONTRACT_VALUE,
    LAST_TRICK_BONUS,
    MATCH_TARGET,
    NUM_TRICKS,
    Contract,
    HandResult,
    cante_value,
    cantes_count,
    contract_fits,
    hand_result,
    pair_of,
    partner,
)
from quatro_env.cuatrola.tricks import legal_plays, trick_winner


class Phase(IntEnum):
    DECLARE = 0  # C4 declaration round
    PLAY = 1  # C5-C7 trick play
    CANTE = 2  # C10 window right after a trick won, whether or not the pair can sing (D2)
    OVER = 3  # the match has ended


_CONTRACTS = (Contract.SOLO, Contract.CUATROLA, Contract.QUINTOLA)


class CuatrolaGame:
    """Mutable state of one match. Public attributes are read by the observation and the renderer."""

    def __init__(self, target_score: int = MATCH_TARGET, cantes: bool = True) -> None:
        self.target = target_score
        self.cantes_enabled = cantes
        self.scores = [0, 0]
        self.winner = -1  # winning pair once the match is over
        self.hand_number = 0
        self.last_result: HandResult | None = None
        self._rng: np.random.Generator | None = None
        self._start_hand(0, [[], [], [], []], 0)

    # ------------------------------------------------------------------ setup
    def start_match(
        self,
        rng: np.random.Generator,
        *,
        dealer: int | None = None,
        scores: Sequence[int] = (0, 0),
        hands: Sequence[Sequence[int]] | None = None,
        shown_card: int | None = None,
        contract: Contract | None = None,
        declarer: int = -1,
    ) -> None:
        """Start a match; the optional arguments script its first hand (already validated).

        ``contract`` set skips the declaration round and starts trick play with that contract.
        """
        self._rng = rng
        self.scores = [int(scores[0]), int(scores[1])]
        self.winner = -1
        self.hand_number = 0
        self.last_result = None
        if dealer is None:
            dealer = int(rng.integers(4))
        if hands is None:
            hand_lists, shown = deal(rng, dealer)
        else:
            assert shown_card is not None
            hand_lists, shown = [list(h) for h in hands], shown_card
        self._start_hand(dealer, hand_lists, shown)
        if contract is not None:  # D10: the plainest round that ends in it, the others' passes
            self.declarations = [Contract.NONE] * 4
            if contract != Contract.NONE:
                self.declarations[declarer] = Contract(contract)
            self._begin_play(contract, declarer)

    def _start_hand(self, dealer: int, hands: list[list[int]], shown: int) -> None:
        self.hand_number += 1
        self.dealer = dealer
        self.mano = (dealer + 1) & 3
        self.hands = hands
        self.shown_card = shown
        self.trump = CARD_SUIT[shown]  # C3: the suit of the last card dealt
        self.phase = Phase.DECLARE
        self.to_act = self.mano
        self.declarations = [-1, -1, -1, -1]  # -1 not yet spoken, else a Contract (NONE = pass)
        self.contract = Contract.NONE
        self.declarer = -1
        self.out_seat = -1  # the declarer's partner, who sits out (C4)
        self.leader = -1
        self.trick: list[int] = []  # cards of the current trick, in play order
        self.trick_seats: list[int] = []
        self.tricks_done = 0
        self.played: list[list[int]] = [[], [], [], []]  # per seat, cards of finished tricks
        self.won_cards: list[list[int]] = [[], []]  # per pair
        self.tricks_won = [0, 0, 0, 0]  # per seat
        self.card_points = [0, 0]  # per pair, card points (C2) plus the last-trick bonus (C8)
        self.cante_points = [0, 0]  # per pair (C10)
        self.sung = [-1] * NUM_SUITS  # seat that sang each suit, or -1
        self.cante_queue: list[int] = []  # seats still to choose in the open cante window
        self._legal: list[int] | None = None

    def _begin_play(self, contract: Contract, declarer: int) -> None:
        self.contract = Contract(contract)
        self.declarer = declarer if contract != Contract.NONE else -1
        self.out_seat = partner(declarer) if contract != Contract.NONE else -1
        # C5: mano leads, or the next playing seat when mano sits out.
        self.leader = self.mano if self.mano != self.out_seat else (self.mano + 1) & 3
        self.phase = Phase.PLAY
        self.to_act = self.leader

    # ---------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def players_in_hand(self) -> int:
        return 3 if self.out_seat >= 0 else 4

    def hand_points(self, pair: int) -> int:
        """C8: card points, the last-trick bonus and cantes won so far by ``pair``."""
        return self.card_points[pair] + self.cante_points[pair]

    def highest_declaration(self) -> tuple[Contract, int]:
        best, seat = Contract.NONE, -1
        for s, d in enumerate(self.declarations):
            if d > best:
                best, seat = Contract(d), s
        return best, seat

    def singable_suits(self, seat: int) -> list[int]:
        """Suits in which ``seat`` holds Caballo and Rey and nobody has sung yet (C10)."""
        hand = self.hands[seat]
        return [
            s
            for s in range(NUM_SUITS)
            if self.sung[s] < 0 and make_card(s, CABALLO) in hand and make_card(s, REY) in hand
        ]

    def cante_still_possible(self) -> bool:
        """D2: whether any suit could still be sung this hand, from public facts only.

        A suit is out once it was sung or its Caballo or Rey was played to a trick; when every
        suit is out the cante window is skipped. Hands are never read, so the skip tells nothing.
        """
        gone = {c for cards in self.played for c in cards}
        return any(
            self.sung[s] < 0 and make_card(s, CABALLO) not in gone and make_card(s, REY) not in gone
            for s in range(NUM_SUITS)
        )

    def legal_actions(self) -> list[int]:
        """The legal action indices of ``to_act``, in increasing order (cached per decision)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        if self.phase == Phase.DECLARE:
            best, _ = self.highest_declaration()
            score = self.scores[pair_of(self.to_act)]
            return [PASS] + [
                DECLARE_BASE + c for c in _CONTRACTS if c > best and contract_fits(score, c, self.target)
            ]
        if self.phase == Phase.PLAY:
            cards, _ = legal_plays(self.hands[self.to_act], self.trick, self.trump)
            return sorted(cards)
        if self.phase == Phase.CANTE:
            return [PASS] + [SING_BASE + s for s in self.singable_suits(self.to_act)]
        return []

    def illegal_reason(self, action: int) -> str | None:
        """Why ``action`` (a valid index) is illegal for ``to_act`` now, or ``None`` if it is legal."""
        kind, arg = decode(action)
        seat = self.to_act
        if self.phase == Phase.OVER:
            return "the match is over"
        if self.phase == Phase.DECLARE:
            if kind is Kind.PASS:
                return None
            if kind is not Kind.DECLARE:
                return "it is the declaration round (C4): pass or declare solo, cuatrola or quintola"
            best, best_seat = self.highest_declaration()
            if arg <= best:
                return (
                    f"C4: a contract must be higher than the standing {CONTRACT_NAMES[best]} "
                    f"of seat {best_seat} (solo < cuatrola < quintola)"
                )
            score = self.scores[pair_of(seat)]
            if not contract_fits(score, Contract(arg), self.target):
                return (
                    f"C11: the pair's {score} match points + {CONTRACT_VALUE[arg]} for a "
                    f"{CONTRACT_NAMES[arg]} would pass {self.target}"
                )
            return None
        if self.phase == Phase.CANTE:
            if kind is Kind.PASS:
                return None
            if kind is not Kind.SING:
                return "a cante window is open (C10): sing or pass before the next card"
            if self.sung[arg] >= 0:
                return f"C10: {SUITS[arg]} was already sung by seat {self.sung[arg]} this hand"
            if arg not in self.singable_suits(seat):
                return f"C10: does not hold both the Caballo and the Rey of {SUITS[arg]}"
            return None
        # Phase.PLAY
        if kind is Kind.SING:
            return "C10: a cante is sung only right after the singer's pair wins a trick"
        if kind is not Kind.PLAY:
            return "trick play (C6): play a card; the declaration round is over"
        hand = self.hands[seat]
        if arg not in hand:
            return f"{CARD_CODES[arg]} is not in the hand ({format_cards(hand)})"
        cards, obligation = legal_plays(hand, self.trick, self.trump)
        if arg not in cards:
            return f"C6: {obligation.value}; legal: {format_cards(sorted(cards))}"
        return None

    # ---------------------------------------------------------------- updates
    def apply(self, action: int) -> HandResult | None:
        """Apply a *legal* action of ``to_act``; returns the result when it ends a hand."""
        self._legal = None
        kind, arg = decode(action)
        if self.phase == Phase.DECLARE:
            self.declarations[self.to_act] = arg if kind is Kind.DECLARE else Contract.NONE
            if self.to_act == self.dealer:  # C4: one round, mano to dealer
                best, seat = self.highest_declaration()
                self._begin_play(best, seat)
            else:
                self.to_act = (self.to_act + 1) & 3
            return None
        if self.phase == Phase.CANTE:
            if kind is Kind.SING:
                self.sung[arg] = self.to_act
                self.cante_points[pair_of(self.to_act)] += cante_value(arg, self.trump)
                self.cante_queue.clear()
            else:
                self.cante_queue.pop(0)
            if self.cante_queue:
                self.to_act = self.cante_queue[0]
            else:
                self.phase = Phase.PLAY
                self.to_act = self.leader
            return None
        seat = self.to_act
        self.hands[seat].remove(arg)
        self.trick.append(arg)
        self.trick_seats.append(seat)
        if len(self.trick) < self.players_in_hand:
            nxt = (seat + 1) & 3
            self.to_act = nxt if nxt != self.out_seat else (nxt + 1) & 3
            return None
        return self._finish_trick()

    def _finish_trick(self) -> HandResult | None:
        winner = self.trick_seats[trick_winner(self.trick, self.trump)]  # C7
        pair = pair_of(winner)
        for seat, card in zip(self.trick_seats, self.trick, strict=True):
            self.played[seat].append(card)
            self.card_points[pair] += CARD_POINTS[card]
        self.won_cards[pair].extend(self.trick)
        self.tricks_won[winner] += 1
        self.tricks_done += 1
        self.trick = []
        self.trick_seats = []
        self.leader = winner  # C5
        if self.tricks_done == NUM_TRICKS:
            self.card_points[pair] += LAST_TRICK_BONUS  # C8
            return self._finish_hand()
        self.to_act = winner
        # D2: the window opens for the winner, then the partner, whether or not they hold a pair:
        # who is asked must depend only on public facts, never on a hand (C3). Pass is always
        # legal there; the mask (``singable_suits``) is private to the seat asked.
        if self.cantes_enabled and cantes_count(self.contract) and self.cante_still_possible():
            self.cante_queue = [s for s in (winner, partner(winner)) if s != self.out_seat]
            self.phase = Phase.CANTE
            self.to_act = self.cante_queue[0]
        return None

    def _finish_hand(self) -> HandResult:
        points = (self.hand_points(0), self.hand_points(1))
        tricks = self.tricks_won[self.declarer] if self.declarer >= 0 else 0
        result = hand_result(self.contract, self.declarer, self.mano, points, tricks)  # C9
        self.last_result = result
        self.scores[result.winner_pair] += result.match_points
        if self.scores[result.winner_pair] >= self.target:  # C11
            self.winner = result.winner_pair
            self.phase = Phase.OVER
            self.to_act = -1
        else:
            assert self._rng is not None, "start_match() first"
            dealer = self.mano  # C3: the deal passes to the previous mano
            hands, shown = deal(self._rng, dealer)
            self._start_hand(dealer, hands, shown)
        return result
