"""Every field of the Cuatrola observation, decoded and checked against what the rules let the observer see.

The layout (``observation.LAYOUT``, docs/cuatrola.md "Observation") is egocentric: relative seat
``(seat - observer) % 4`` in play order (C1, D12), relative pair ``pair ^ (observer & 1)``. Public
information is the shown card (C3), the declarations (C4), the cards played (C5-C7), the tricks and
the cards each pair won (C7, C8), the cantes (C10, "optional, public") and the match score (C11);
the other players' hands, the dead hand of the seat sitting out included (C4, D6), are hidden.

``test_C1_C11_every_field_of_a_scripted_hand`` checks each field on scripted positions against
literal values; ``test_every_public_field_matches_a_replay_of_random_play`` rebuilds each field for
each observer from a replay of the public actions (its own reading of C3-C11, not ``CuatrolaGame``)
and checks that shuffling the hidden cards never changes an observation.
"""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import PASS, declare, sing
from quatro_env.cuatrola.cards import parse_card
from quatro_env.cuatrola.observation import LAYOUT, OBS_SIZE, SLICES, encode_observation

from .helpers import hands, legal, play_cards, scripted, seat_to_act

# Written from the rules, not imported, so that the checks do not share the code they check.
OROS, COPAS, ESPADAS, BASTOS = range(4)
NOT_SPOKEN, PASSED, SOLO, CUATROLA, QUINTOLA = range(5)  # declarations one-hot (pass = no contract)
DECLARE_PHASE, PLAY_PHASE, CANTE_PHASE, OVER_PHASE = range(4)
RANK_POINTS = (11, 10, 4, 3, 2)  # C2: As, 3, Rey, Caballo, Sota (card id = suit * 5 + rank)
MAX_HAND_POINTS = 230  # 120 card points + 10 last trick + 40 + 3 * 20 cantes (the layout's scale)
AGENTS = [f"player_{i}" for i in range(4)]


def rel(seat: int, observer: int) -> int:
    """Relative seat in play order (D12): 0 self, 1 next, 2 partner, 3 previous."""
    return (seat - observer) % 4


def rel_pair(pair: int, observer: int) -> int:
    """Relative pair: 0 the observer's own (seats i and i + 2, C1), 1 the opponents."""
    return pair ^ (observer % 2)


def one_hot(size: int, *indices: int) -> np.ndarray:
    vec = np.zeros(size, dtype=np.float32)
    vec[list(indices)] = 1.0
    return vec


def fields(vec: np.ndarray) -> dict[str, np.ndarray]:
    """The observation cut into its named fields (``LAYOUT`` order)."""
    return {name: vec[SLICES[name]] for name, _, _ in LAYOUT}


def card_points(cards) -> int:
    return sum(RANK_POINTS[c % 5] for c in cards)


def expected_view(observer: int, t: dict) -> dict[str, np.ndarray]:
    """The fields ``observer`` must see of the table ``t``, given in absolute seats and pairs.

    ``t`` keys: hand (the observer's cards), trump, shown, dealer, phase, to_act (-1 none),
    declarations (per seat, NOT_SPOKEN .. QUINTOLA), contract (0 none .. 3), declarer, out (-1 none),
    trick_number, leader (-1 none), current (seat -> card), earlier (seat -> cards), won (pair ->
    cards), tricks (per pair), points (per pair), sung (suit -> seat), scores, target.
    """
    out = {name: np.zeros(size, dtype=np.float32) for name, size, _ in LAYOUT}
    out["hand"][list(t["hand"])] = 1.0
    out["trump_suit"] = one_hot(4, t["trump"])
    out["shown_card"] = one_hot(20, t["shown"])
    out["dealer"] = one_hot(4, rel(t["dealer"], observer))
    out["phase"] = one_hot(4, t["phase"])
    if t["to_act"] >= 0:
        out["to_act"] = one_hot(4, rel(t["to_act"], observer))
    decl = np.zeros((4, 5), dtype=np.float32)
    for seat, d in enumerate(t["declarations"]):
        decl[rel(seat, observer), d] = 1.0
    out["declarations"] = decl.ravel()
    out["contract"] = one_hot(4, t["contract"])
    if t["declarer"] >= 0:
        out["declarer"] = one_hot(4, rel(t["declarer"], observer))
    if t["out"] >= 0:
        out["sitting_out"] = one_hot(4, rel(t["out"], observer))
    out["trick_number"] = one_hot(5, t["trick_number"])
    if t["leader"] >= 0:
        out["trick_leader"] = one_hot(4, rel(t["leader"], observer))
    current = np.zeros((4, 20), dtype=np.float32)
    for seat, card in t["current"].items():
        current[rel(seat, observer), card] = 1.0
    out["current_trick"] = current.ravel()
    earlier = np.zeros((4, 20), dtype=np.float32)
    for seat, cards in t["earlier"].items():
        earlier[rel(seat, observer), list(cards)] = 1.0
    out["earlier_tricks"] = earlier.ravel()
    won = np.zeros((2, 20), dtype=np.float32)
    for pair, cards in t["won"].items():
        won[rel_pair(pair, observer), list(cards)] = 1.0
    out["won_cards"] = won.ravel()
    for pair in (0, 1):
        r = rel_pair(pair, observer)
        out["tricks_won"][r] = t["tricks"][pair] / 5
        out["hand_points"][r] = t["points"][pair] / MAX_HAND_POINTS
        out["match_score"][r] = t["scores"][pair] / (t["target"] + 4)
    for suit, singer in t["sung"].items():
        out["cantes"][2 * suit + rel_pair(singer % 2, observer)] = 1.0
    return out


def assert_view(obs: np.ndarray, want: dict[str, np.ndarray], context: str) -> None:
    """The whole vector equals the expected fields (so nothing else is set); a failure names each
    differing field with the indices set in the observation and in the expectation."""
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
    if np.allclose(obs, np.concatenate([want[n] for n, _, _ in LAYOUT]), rtol=0, atol=1e-6):
        return
    got = fields(obs)
    bad = [
        f"{name}: got {_show(got[name])}, want {_show(want[name])}"
        for name, _, _ in LAYOUT
        if not np.allclose(got[name], want[name], rtol=0, atol=1e-6)
    ]
    raise AssertionError(f"{context}: " + "; ".join(bad))


def _show(vec: np.ndarray) -> dict[int, float]:
    return {int(i): round(float(vec[i]), 4) for i in np.flatnonzero(vec)}


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


# --------------------------------------------------------------------------- scripted hand
# Dealer 3 (mano 0), trumps espadas (the shown 3e, in the dealer's hand, C3), scores 3 - 5.
# Seat 0 passes, seat 1 declares a solo, seats 2 and 3 pass (C4): seat 3 sits out with its dead
# hand (D6). Trick 1: 0 So, 1 Co, 2 Ao: seat 2 wins and passes (it holds no pair; D2 asks it
# anyway), its partner seat 0 sings copas (+20, C10). Trick 2: 2 Se, 0 Ro, 1 Ae: seat 1 wins and
# sings espadas in trumps (+40). Trick 3: 1 3c, 2 Ac, 0 Sc: seat 2 wins again; both pass (bastos
# is still publicly possible, D2). Trick 4: 2 3o, 0 Rc, and seat 1 is to act.
DEAL = hands("So Ro Rc Cc Sc", "Co Ae Re Ce 3c", "Ao Ac Se 3o Ab", "3e 3b Rb Cb Sb")


def _table(**changes) -> dict:
    """The scripted hand's table right after the declaration round, in absolute terms."""
    table = {
        "trump": ESPADAS,
        "shown": parse_card("3e"),
        "dealer": 3,
        "phase": PLAY_PHASE,
        "to_act": 0,
        "declarations": [PASSED, SOLO, PASSED, PASSED],
        "contract": 1,
        "declarer": 1,
        "out": 3,
        "trick_number": 0,
        "leader": 0,
        "current": {},
        "earlier": {},
        "won": {},
        "tricks": [0, 0],
        "points": [0, 0],
        "sung": {},
        "scores": [3, 5],
        "target": 11,
    }
    table.update(changes)
    return table


def _check_all_observers(env, table: dict, hands_now: list[list[int]], context: str) -> None:
    for observer in range(4):
        obs = env.observe(AGENTS[observer])["observation"]
        want = expected_view(observer, {**table, "hand": hands_now[observer]})
        assert_view(obs, want, f"{context}, observer seat {observer}")
        # Hidden: no card another seat holds shows in the hand field (C4, D6: the dead hand too).
        others = {c for s in range(4) if s != observer for c in hands_now[s]}
        assert not others & set(np.flatnonzero(fields(obs)["hand"]).tolist())


def test_C1_C11_every_field_of_a_scripted_hand():
    """C3 dealer/trumps/shown card, C4 declarations/contract/sitting out, C5 leader, C6/C7 tricks,
    C8 won cards and points, C10 public cantes, C11 score: every field, for all four observers, in
    the declaration round, in a cante window and with a trick in progress after three tricks."""
    env, game = scripted(DEAL, "3e", dealer=3, scores=[3, 5])

    # C4 mid-round: seat 1's solo stands; nobody sits out while the round goes on; no leader yet.
    env.step(PASS)
    env.step(declare("solo"))
    assert seat_to_act(env) == 2
    declaring = _table(
        phase=DECLARE_PHASE,
        to_act=2,
        declarations=[PASSED, SOLO, NOT_SPOKEN, NOT_SPOKEN],
        out=-1,
        leader=-1,
    )
    dealt = [[parse_card(c) for c in hand] for hand in DEAL]
    _check_all_observers(env, declaring, dealt, "declaration round")
    env.step(PASS)
    env.step(PASS)

    # C5: mano (seat 0) leads the first trick; C4: seat 3 sits out.
    _check_all_observers(env, _table(), dealt, "first trick")

    # C7: seat 2's Ao takes trick 1; C10/D2: the window asks seat 2 (no pair: pass only), then its
    # partner seat 0, who may sing copas; C5: seat 2 leads next. The two turns differ only in to_act.
    play_cards(env, "So", "Co", "Ao")
    window = _table(
        phase=CANTE_PHASE,
        to_act=2,
        trick_number=1,
        leader=2,
        earlier={0: cards("So"), 1: cards("Co"), 2: cards("Ao")},
        won={0: cards("So Co Ao")},
        tricks=[1, 0],
        points=[16, 0],
    )
    hands_now = [cards("Ro Rc Cc Sc"), cards("Ae Re Ce 3c"), cards("Ac Se 3o Ab"), cards("3e 3b Rb Cb Sb")]
    _check_all_observers(env, window, hands_now, "cante window, winner's turn")
    assert legal(env) == [PASS]
    env.step(PASS)
    _check_all_observers(env, {**window, "to_act": 0}, hands_now, "cante window, partner's turn")

    env.step(sing("copas"))
    play_cards(env, "Se", "Ro", "Ae")
    env.step(sing("espadas"))  # in trumps: +40
    play_cards(env, "3c", "Ac", "Sc")
    assert game.phase == CANTE_PHASE and seat_to_act(env) == 2 and legal(env) == [PASS]
    env.step(PASS)
    assert seat_to_act(env) == 0 and legal(env) == [PASS]
    env.step(PASS)
    play_cards(env, "3o", "Rc")
    assert seat_to_act(env) == 1 and game.tricks_done == 3
    in_progress = _table(
        to_act=1,
        trick_number=3,  # the fourth trick
        leader=2,
        current={2: parse_card("3o"), 0: parse_card("Rc")},
        earlier={0: cards("So Ro Sc"), 1: cards("Co Ae 3c"), 2: cards("Ao Se Ac")},
        won={0: cards("So Co Ao 3c Ac Sc"), 1: cards("Se Ro Ae")},
        tricks=[2, 1],  # pair 0's two tricks were both taken by seat 2
        points=[16 + 20 + 23, 17 + 40],
        sung={COPAS: 0, ESPADAS: 1},
    )
    hands_now = [cards("Cc"), cards("Re Ce"), cards("Ab"), cards("3e 3b Rb Cb Sb")]
    _check_all_observers(env, in_progress, hands_now, "fourth trick in progress")
    assert card_points(cards("So Co Ao 3c Ac Sc")) == 16 + 23 and card_points(cards("Se Ro Ae")) == 17


# ------------------------------------------------------------------ replay of random play
def _trick_winner(trick: list[tuple[int, int]], trump: int) -> int:
    """C7 read literally: the highest trump if any, else the highest card of the led suit."""
    led = trick[0][1] // 5
    for suit in (trump, led):
        of_suit = [(card % 5, seat) for seat, card in trick if card // 5 == suit]
        if of_suit:
            return min(of_suit)[1]  # lowest rank index = strongest (C2)
    raise AssertionError("unreachable: the led card is of the led suit")


class PublicReplay:
    """The public table rebuilt from the actions everyone saw (C3-C11), never from ``CuatrolaGame``."""

    def __init__(self, dealer: int, shown: int, scores: list[int], target: int) -> None:
        self.scores = list(scores)
        self.target = target
        self.over = False
        self.new_hand(dealer, shown)

    def new_hand(self, dealer: int, shown: int) -> None:
        self.dealer, self.shown = dealer, shown
        self.declarations = [NOT_SPOKEN] * 4
        self.trick: list[tuple[int, int]] = []  # (seat, card) in play order
        self.finished: list[tuple[list[tuple[int, int]], int]] = []  # (trick, winner seat)
        self.sung: dict[int, int] = {}

    @property
    def trump(self) -> int:
        return self.shown // 5  # C3: the suit of the shown card

    @property
    def declaring(self) -> bool:
        return NOT_SPOKEN in self.declarations

    @property
    def contract(self) -> tuple[int, int]:
        """C4: the highest declaration stands (each strictly outbids the last)."""
        best = max(self.declarations)
        return (0, -1) if best <= PASSED else (best - 1, self.declarations.index(best))

    @property
    def out(self) -> int:
        _, declarer = self.contract
        return -1 if self.declaring or declarer < 0 else (declarer + 2) % 4

    @property
    def leader(self) -> int:
        if self.declaring:
            return -1
        if self.finished:
            return self.finished[-1][1]  # C5: the winner leads the next trick
        mano = (self.dealer + 1) % 4
        return mano if mano != self.out else (mano + 1) % 4  # C5: mano, or the next playing seat

    def points(self, pair: int) -> int:
        """C8: card points won, +10 for the last trick, cantes (+40 in trumps, else +20)."""
        total = sum(card_points(c for _, c in trick) for trick, w in self.finished if w % 2 == pair)
        if len(self.finished) == 5 and self.finished[-1][1] % 2 == pair:
            total += 10
        return total + sum(40 if s == self.trump else 20 for s, who in self.sung.items() if who % 2 == pair)

    def record(self, seat: int, action: int, in_cante_window: bool) -> bool:
        """Apply one action; True when it completed the hand's fifth trick."""
        if self.declaring:
            self.declarations[seat] = PASSED if action == PASS else action - PASS + 1
            return False
        if in_cante_window:
            if action != PASS:
                self.sung[action - 24] = seat
            return False
        assert action < 20
        self.trick.append((seat, action))
        if len(self.trick) < (3 if self.out >= 0 else 4):
            return False
        self.finished.append((self.trick, _trick_winner(self.trick, self.trump)))
        self.trick = []
        return len(self.finished) == 5

    def table(self, phase: int, to_act: int) -> dict:
        contract, declarer = self.contract
        earlier: dict[int, list[int]] = {s: [] for s in range(4)}
        won: dict[int, list[int]] = {0: [], 1: []}
        tricks = [0, 0]
        for trick, winner in self.finished:
            for seat, card in trick:
                earlier[seat].append(card)
                won[winner % 2].append(card)
            tricks[winner % 2] += 1  # a pair's tricks: both partners' (C1)
        return {
            "trump": self.trump,
            "shown": self.shown,
            "dealer": self.dealer,
            "phase": phase,
            "to_act": to_act,
            "declarations": list(self.declarations),
            "contract": contract,
            "declarer": declarer,
            "out": self.out,
            "trick_number": min(len(self.finished), 4),
            "leader": self.leader,
            "current": dict(self.trick),
            "earlier": earlier,
            "won": won,
            "tricks": tricks,
            "points": [self.points(0), self.points(1)],
            "sung": dict(self.sung),
            "scores": self.scores,
            "target": self.target,
        }


def _hidden_cards_do_not_show(game, observer: int, rng: np.random.Generator) -> None:
    """Deal the cards the observer cannot see afresh among the other seats (sizes kept): same view."""
    others = [s for s in range(4) if s != observer]
    pool = [c for s in others for c in game.hands[s]]
    rng.shuffle(pool)
    shuffled = copy.copy(game)
    shuffled.hands = [list(h) for h in game.hands]
    for s in others:
        shuffled.hands[s], pool = pool[: len(game.hands[s])], pool[len(game.hands[s]) :]
    np.testing.assert_array_equal(encode_observation(shuffled, observer), encode_observation(game, observer))


def _random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action, biased towards the plays that make fields non-trivial: passes in the
    declaration round half the time (cantes count only without a cuatrola or quintola, C10) and a
    cante whenever one is legal nine times in ten."""
    legal = np.flatnonzero(mask)
    cantes = legal[legal >= 24]
    if cantes.size and rng.random() < 0.9:
        return int(cantes[rng.integers(cantes.size)])
    if mask[PASS] and mask[PASS + 1 :].any() and rng.random() < 0.5:
        return PASS
    return int(legal[rng.integers(legal.size)])


def _replay_match(seed: int, target: int, scores: list[int]) -> dict[str, bool]:
    """Play one random match, checking every observation of every seat at every step against the
    replay; returns which of the audited situations the match went through."""
    env = cuatrola_v0.env(target_score=target)
    env.reset(seed=seed, options={"scores": scores})
    raw, game = env.unwrapped, env.unwrapped.game
    rng = np.random.default_rng(seed)
    replay = PublicReplay(game.dealer, game.shown_card, scores, target)
    seen = dict.fromkeys(("declared", "sung", "both_partners_won", "fourth_trick", "dealer_moved"), False)

    def check_everyone(phase: int, to_act: int) -> None:
        table = replay.table(phase, to_act)
        for observer in range(4):
            want = expected_view(observer, {**table, "hand": game.hands[observer]})
            assert_view(
                raw.observe(AGENTS[observer])["observation"], want, f"seed {seed}, observer {observer}"
            )
            _hidden_cards_do_not_show(game, observer, rng)

    first_dealer = replay.dealer
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            check_everyone(OVER_PHASE, -1)
            env.step(None)
            continue
        seat, mask = AGENTS.index(agent), obs["action_mask"]
        in_window = not replay.declaring and not mask[:20].any()
        check_everyone(DECLARE_PHASE if replay.declaring else CANTE_PHASE if in_window else PLAY_PHASE, seat)
        seen["declared"] |= replay.contract[0] > 0
        seen["sung"] |= bool(replay.sung)
        seen["fourth_trick"] |= len(replay.finished) == 3
        winners = {w for _, w in replay.finished}
        seen["both_partners_won"] |= {0, 2} <= winners or {1, 3} <= winners
        seen["dealer_moved"] |= replay.dealer != first_dealer
        action = _random_action(mask, rng)
        hand_over = replay.record(seat, action, in_window)
        env.step(action)
        for pair in (0, 1):
            replay.scores[pair] += max(0, int(raw.rewards[AGENTS[pair]]))  # C9: the winning pair scores
        if hand_over and not game.over:  # C3: the deal passes to the previous mano, a new card is shown
            replay.new_hand((replay.dealer + 1) % 4, game.shown_card)
    assert game.over and replay.scores == game.scores
    return seen


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([4, 11]), st.booleans())
def test_every_public_field_matches_a_replay_of_random_play(seed, target, start_scored):
    """C1-C11, D12: at every step of a random match (the final table included, D16), every field of
    every seat's observation equals the public table replayed from the actions, seat- and
    pair-relative, and dealing the hidden cards afresh among the other seats changes nothing."""
    rng = np.random.default_rng(seed)
    scores = [int(rng.integers(target)), int(rng.integers(target))] if start_scored else [0, 0]
    _replay_match(seed, target, scores)


def test_replay_over_fixed_seeds_meets_every_audited_situation():
    """The same check on fixed seeds, which between them declare a contract, sing a cante, have
    both partners of a pair take tricks, reach the fourth trick and pass the deal on (C3)."""
    seen: dict[str, bool] = {}
    for seed in range(6):
        for key, value in _replay_match(seed, 11, [0, 0]).items():
            seen[key] = seen.get(key, False) or value
    assert all(seen.values()), seen
