"""Property tests over random legal play and random tricks (hypothesis)."""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import NUM_ACTIONS
from quatro_env.cuatrola.cards import CARD_POINTS, CARD_RANK, CARD_SUIT, NUM_CARDS, card_code
from quatro_env.cuatrola.observation import SLICES
from quatro_env.cuatrola.scoring import Contract, pair_of
from quatro_env.cuatrola.tricks import legal_plays, trick_winner

SEEDS = st.integers(0, 2**31 - 1)


def _fingerprint(game) -> tuple:
    return (
        game.phase,
        game.to_act,
        tuple(map(tuple, game.hands)),
        tuple(game.trick),
        tuple(game.declarations),
        tuple(game.scores),
        tuple(game.cante_points),
    )


@settings(max_examples=30, deadline=None)
@given(SEEDS, SEEDS)
def test_random_matches_conserve_cards_points_and_masks_match_legality(env_seed, play_seed):
    """C2/C8: 20 cards conserved, 130 card points + cantes per plain hand; C11: matches end at
    exactly 11 unless an opponent's declaration fails; rewards zero-sum; masks exact."""
    env = cuatrola_v0.env()
    env.reset(seed=env_seed)
    raw = env.unwrapped
    game = raw.game
    rng = np.random.default_rng(play_seed)
    all_cards = set(range(NUM_CARDS))
    hands_seen = 0
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        seat = int(agent[-1])
        # Conservation: hands + current trick + finished tricks = the 20 cards, each once.
        held = [c for h in game.hands for c in h] + game.trick + [c for p in game.played for c in p]
        assert len(held) == NUM_CARDS and set(held) == all_cards
        assert sorted(game.won_cards[0] + game.won_cards[1]) == sorted(c for p in game.played for c in p)
        # The observation shows exactly the own hand and the public cards, seat-relative.
        vec = obs["observation"]
        assert set(np.flatnonzero(vec[SLICES["hand"]])) == set(game.hands[seat])
        earlier = vec[SLICES["earlier_tricks"]].reshape(4, NUM_CARDS)
        current = vec[SLICES["current_trick"]].reshape(4, NUM_CARDS)
        for rel in range(4):
            other = (seat + rel) % 4
            assert set(np.flatnonzero(earlier[rel])) == set(game.played[other])
            in_trick = [c for s, c in zip(game.trick_seats, game.trick, strict=True) if s == other]
            assert np.flatnonzero(current[rel]).tolist() == in_trick
        # Mask exactness: every masked-out action raises and changes nothing; every masked-in one is
        # accepted (tried on a copy) and has no reason against it.
        mask = obs["action_mask"]
        before = _fingerprint(game)
        for action in range(NUM_ACTIONS):
            assert (game.illegal_reason(action) is None) == bool(mask[action]), card_code(action % 20)
            if mask[action]:
                trial = copy.deepcopy(raw)
                trial.step(action)
            else:
                try:
                    env.step(action)
                except ValueError as err:
                    assert agent in str(err)
                else:
                    raise AssertionError(f"masked-out action {action} was accepted")
        assert _fingerprint(game) == before
        # Play one random legal action and check what a finished hand scored.
        legal = np.flatnonzero(mask)
        action = int(legal[rng.integers(len(legal))])
        number, contract, out_seat = game.hand_number, game.contract, game.out_seat
        dead_points = sum(CARD_POINTS[c] for c in game.hands[out_seat]) if out_seat >= 0 else 0
        cantes = sum(game.cante_points)
        env.step(action)
        assert sum(raw.rewards.values()) == 0
        if game.hand_number != number or game.over:
            hands_seen += 1
            result = game.last_result
            card_points = 130 - dead_points
            if contract == Contract.NONE:
                assert sum(result.hand_points) == 130 + cantes
            elif contract == Contract.SOLO:
                assert sum(result.hand_points) == card_points + cantes
            else:
                assert cantes == 0 and sum(result.hand_points) == card_points
    assert hands_seen >= 1
    winner, loser = game.scores[game.winner], game.scores[1 - game.winner]
    assert loser < 11 <= winner
    last = game.last_result
    if winner != 11:
        assert last.declaration_failed and pair_of(last.declarer) == 1 - game.winner


@settings(max_examples=40, deadline=None)
@given(SEEDS, SEEDS, st.integers(0, 3), st.integers(0, 2), st.integers(0, 4), st.integers(0, 4))
def test_C10_D2_hidden_cards_never_change_what_another_seat_sees(seed, play_seed, observer, keep, i, j):
    """C3/C4 privacy, with the cante window (C10, D2) in the way: swap one card between the hands
    of two seats other than ``observer`` (the shown card stays). While both worlds take the same
    actions, ``observer`` sees the same observations and the same agent selection in both."""
    a = cuatrola_v0.env()
    a.reset(seed=seed)
    game = a.unwrapped.game
    dealt, dealer, shown = [list(h) for h in game.hands], game.dealer, game.shown_card
    others = [seat for seat in range(4) if seat != observer]
    s, t = [seat for seat in others if seat != others[keep]]  # ``keep`` holds on to its cards
    i = (i + 1) % 5 if dealt[s][i] == shown else i  # only the dealer holds the shown card
    j = (j + 1) % 5 if dealt[t][j] == shown else j
    swapped = [list(h) for h in dealt]
    swapped[s][i], swapped[t][j] = dealt[t][j], dealt[s][i]
    worlds = []
    for spec in (dealt, swapped):
        env = cuatrola_v0.env()
        options = {"dealer": dealer, "trump_card": card_code(shown), "phase": "play"}
        env.reset(seed=seed, options={**options, "hands": [[card_code(c) for c in h] for h in spec]})
        worlds.append(env)
    one, two = worlds
    rng = np.random.default_rng(play_seed)
    me = f"player_{observer}"
    while not one.unwrapped.game.over and one.unwrapped.game.hand_number == 1:
        assert one.agent_selection == two.agent_selection
        np.testing.assert_array_equal(one.observe(me)["observation"], two.observe(me)["observation"])
        legal = np.flatnonzero(one.observe(one.agent_selection)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        if not two.observe(two.agent_selection)["action_mask"][action]:
            break  # the swapped cards now make the worlds differ in what their holders may do
        one.step(action)
        two.step(action)


def _oracle_legal(hand: list[int], trick: list[int], trump: int) -> set[int]:
    """C6 read literally, card by card: a card is legal unless a stronger obligation excludes it."""
    if not trick:
        return set(hand)
    led = trick[0]
    led_suit = CARD_SUIT[led]
    fallos = [c for c in trick[1:] if CARD_SUIT[c] == trump and led_suit != trump]
    top_fallo = min((CARD_RANK[c] for c in fallos), default=None)  # lower rank = stronger

    def can(pred) -> bool:
        return any(pred(c) for c in hand)

    def follows(c):
        return CARD_SUIT[c] == led_suit

    def beats_led(c):
        return follows(c) and CARD_RANK[c] < CARD_RANK[led]

    def beats_fallo(c):
        return CARD_SUIT[c] == trump and top_fallo is not None and CARD_RANK[c] < top_fallo

    def is_trump(c):
        return CARD_SUIT[c] == trump

    legal = set()
    for c in hand:
        if top_fallo is None:
            ok = (
                beats_led(c)
                if can(beats_led)
                else follows(c)
                if can(follows)
                else not can(is_trump) or is_trump(c)
            )
        else:
            ok = follows(c) if can(follows) else beats_fallo(c) if can(beats_fallo) else True
        if ok:
            legal.add(c)
    return legal


@st.composite
def tricks(draw):
    cards = draw(st.permutations(range(NUM_CARDS)))
    n_trick = draw(st.integers(0, 3))
    n_hand = draw(st.integers(1, 5))
    return cards[n_trick : n_trick + n_hand], cards[:n_trick], draw(st.integers(0, 3))


@settings(max_examples=400, deadline=None)
@given(tricks())
def test_C6_legal_plays_match_a_literal_reading(case):
    hand, trick, trump = case
    got, _ = legal_plays(hand, trick, trump)
    assert set(got) == _oracle_legal(hand, trick, trump)
    assert got and set(got) <= set(hand)


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(3, 4), st.integers(0, 3))
def test_C7_trick_winner_is_the_strongest_by_trump_then_led_suit(cards, size, trump):
    trick = cards[:size]
    led = CARD_SUIT[trick[0]]
    key = [(CARD_SUIT[c] == trump, CARD_SUIT[c] == led, -CARD_RANK[c]) for c in trick]
    assert trick_winner(trick, trump) == key.index(max(key))


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_observation_never_depends_on_other_players_hands(seed):
    """Swapping the hands of two other seats (not the dealer) leaves seat 0's view unchanged."""
    rng = np.random.default_rng(seed)
    order = [card_code(c) for c in rng.permutation(NUM_CARDS)]
    spec = [order[5 * i : 5 * i + 5] for i in range(4)]
    swapped = [spec[0], spec[2], spec[1], spec[3]]
    views = []
    for deal in (spec, swapped):
        env = cuatrola_v0.env()
        env.reset(seed=seed, options={"hands": deal, "trump_card": deal[3][0], "dealer": 3})
        views.append(env.observe("player_0")["observation"])
    np.testing.assert_array_equal(*views)
