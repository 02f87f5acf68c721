"""One or more tests per rule of docs/rules (C1 .. C11); each test name starts with its rule id."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import PASS, declare, play, sing
from quatro_env.cuatrola.cards import (
    CARD_CODES,
    CARD_POINTS,
    NUM_CARDS,
    RANKS,
    SUITS,
    TOTAL_CARD_POINTS,
    card_code,
    parse_card,
)
from quatro_env.cuatrola.observation import SLICES
from quatro_env.cuatrola.scoring import Contract, hand_result
from quatro_env.cuatrola.state import CuatrolaGame, Phase
from quatro_env.cuatrola.tricks import Obligation, legal_plays, trick_winner

from .helpers import hands, legal, legal_cards, play_cards, random_steps, scripted, seat_to_act


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def codes(ids) -> list[str]:
    return [card_code(c) for c in ids]


def finish_hand(env):
    """Play the first legal action until the current hand ends; return its result."""
    game = env.unwrapped.game
    number = game.hand_number
    while game.hand_number == number and not game.over:
        env.step(legal(env)[0])
    return game.last_result


BASTOS, OROS = 3, 0

# Cante deal: trumps bastos (Sb shown, dealer 3, mano 0). Seat 0 holds the trump Caballo + Rey,
# seat 2 the espadas pair, seat 1 (an opponent) the copas pair. Seat 0's Ao wins trick 1.
CANTE = hands("Ab 3b Rb Cb Ao", "3o Ac 3c Rc Cc", "Ro Ae 3e Re Ce", "Co So Sb Sc Se")
# Two-pairs deal: seat 0 holds copas and espadas pairs; seat 2 holds the only trump it can use.
TWO_PAIRS = hands("Ao Rc Cc Re Ce", "3o Ac 3c Sc Ae", "Ro So 3e Se Ab", "Co 3b Rb Cb Sb")
# Strong deal: dealer 0 holds every trump (bastos).
ALL_TRUMPS = hands("Ab 3b Rb Cb Sb", "Ao 3o Ro Co So", "Ac 3c Rc Cc Sc", "Ae 3e Re Ce Se")
# Dealer 0 holds four top trumps and So; seat 1 holds Ao and Sb: seat 1 takes trick 1 with Ao.
FOUR_TRUMPS = hands("Ab 3b Rb Cb So", "Ao Sb Ac 3c Rc", "3o Ro Co Cc Sc", "Ae 3e Re Ce Se")


# --------------------------------------------------------------------------- C1
def test_C1_partners_sit_face_to_face_and_share_rewards():
    env = cuatrola_v0.env()
    env.reset(seed=3)
    seen_reward = False
    for _ in random_steps(env, seed=3):
        r = env.unwrapped.rewards
        if r:
            assert r["player_0"] == r["player_2"] == -r["player_1"] == -r["player_3"]
            seen_reward |= r["player_0"] != 0
    assert seen_reward


def test_C1_play_passes_from_seat_i_to_seat_i_plus_1():
    env, game = scripted(CANTE, "Sb", dealer=3)
    order = []
    for _ in range(4):  # declaration round from mano (seat 0)
        order.append(seat_to_act(env))
        env.step(PASS)
    for _ in range(4):  # first trick
        order.append(seat_to_act(env))
        env.step(legal(env)[0])
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]
    env, game = scripted(CANTE, "Ro", dealer=2, phase="play")  # mano 3 leads
    seats = []
    for _ in range(4):
        seats.append(seat_to_act(env))
        env.step(legal(env)[0])
    assert seats == [3, 0, 1, 2]


# --------------------------------------------------------------------------- C2
def test_C2_deck_of_20_cards_ranks_and_points():
    assert NUM_CARDS == 20 and len(set(CARD_CODES)) == 20
    assert SUITS == ("oros", "copas", "espadas", "bastos")
    assert RANKS == ("As", "3", "Rey", "Caballo", "Sota")
    assert [CARD_POINTS[c] for c in cards("Ao 3o Ro Co So")] == [11, 10, 4, 3, 2]
    assert TOTAL_CARD_POINTS == 120 == sum(CARD_POINTS)


def test_C2_trick_strength_within_a_suit_as_3_rey_caballo_sota():
    order = cards("Ae 3e Re Ce Se")
    for i, high in enumerate(order):
        for low in order[i + 1 :]:
            assert trick_winner([low, high], BASTOS) == 1
            assert trick_winner([high, low], BASTOS) == 0


# --------------------------------------------------------------------------- C3
@pytest.mark.parametrize("seed", range(5))
def test_C3_deal_five_each_trump_from_the_dealers_last_card(seed):
    env = cuatrola_v0.env()
    env.reset(seed=seed)
    game = env.unwrapped.game
    assert all(len(h) == 5 for h in game.hands)
    assert sorted(c for h in game.hands for c in h) == list(range(20))
    assert game.shown_card in game.hands[game.dealer]
    assert game.trump == game.shown_card // 5
    assert game.mano == (game.dealer + 1) % 4 and env.agent_selection == f"player_{game.mano}"
    for agent in env.agents:  # the shown card and trumps are public
        obs = env.observe(agent)["observation"]
        assert obs[SLICES["shown_card"]][game.shown_card] == 1
        assert obs[SLICES["trump_suit"]][game.trump] == 1


def test_C3_first_dealer_from_seed_or_option_and_deal_passes_to_previous_mano():
    dealers = set()
    for seed in range(12):
        env = cuatrola_v0.env()
        env.reset(seed=seed)
        dealers.add(env.unwrapped.game.dealer)
        again = cuatrola_v0.env()
        again.reset(seed=seed)
        assert again.unwrapped.game.dealer == env.unwrapped.game.dealer
    assert dealers == {0, 1, 2, 3}
    env = cuatrola_v0.env()
    env.reset(seed=0, options={"dealer": 2})
    game = env.unwrapped.game
    assert game.dealer == 2
    for _ in range(3):
        mano = game.mano
        finish_hand(env)
        if game.over:
            break
        assert game.dealer == mano


def test_C3_shown_card_is_played_normally_and_trumps_stay_when_the_dealer_sits_out():
    # Dealer 3 holds the shown Sb; seat 1 declares solo, so seat 3 (the dealer) sits out.
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=1)
    assert game.out_seat == 3 and game.trump == BASTOS
    finish_hand(env)
    assert parse_card("Sb") not in game.played[3]  # out of play with the dead hand
    # Dealer 3 plays the shown card when it is legal.
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", config={"cantes": False})
    play_cards(env, "Ao", "3o", "Ro")
    assert "Sb" not in legal_cards(env)  # must follow oros first
    play_cards(env, "So", "Ab", "Ac", "Ae")
    assert legal_cards(env) == ["Sb"]
    env.step(play("Sb"))
    assert parse_card("Sb") in game.played[3]


# --------------------------------------------------------------------------- C4
def test_C4_one_round_from_mano_to_dealer_each_once():
    env, game = scripted(CANTE, "Sb", dealer=3)
    spoken = []
    while game.phase == Phase.DECLARE:
        spoken.append(seat_to_act(env))
        env.step(PASS)
    assert spoken == [0, 1, 2, 3]
    assert game.phase == Phase.PLAY and game.contract == Contract.NONE


def test_C4_a_contract_must_outbid_strictly_and_the_highest_stands():
    env, game = scripted(CANTE, "Sb", dealer=3)
    env.step(declare("cuatrola"))  # seat 0
    assert legal(env) == [PASS, declare("quintola")]
    with pytest.raises(ValueError, match="C4: a contract must be higher than the standing cuatrola"):
        env.step(declare("solo"))
    env.step(PASS)  # seat 1
    env.step(PASS)  # seat 2
    env.step(PASS)  # seat 3
    assert (game.contract, game.declarer, game.out_seat) == (Contract.CUATROLA, 0, 2)


def test_C4_the_standing_declarers_partner_may_outbid_and_the_other_then_sits_out():
    env, game = scripted(CANTE, "Sb", dealer=3)
    env.step(declare("solo"))  # seat 0
    env.step(PASS)  # seat 1
    env.step(declare("cuatrola"))  # seat 2, partner of seat 0
    env.step(PASS)
    assert (game.contract, game.declarer, game.out_seat) == (Contract.CUATROLA, 2, 0)


def test_C4_the_declarers_partner_sits_out_three_card_tricks_hidden_no_actions_shared_reward():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=0)
    out_hand = list(game.hands[2])
    selected = set()
    while not (game.tricks_done == 4 and len(game.trick) == 2):
        selected.add(seat_to_act(env))
        assert len(game.trick) < 3
        env.step(legal(env)[0])
    assert 2 not in selected
    assert [len(p) for p in game.played] == [4, 4, 0, 4] and game.hands[2] == out_hand
    for agent in ("player_0", "player_1", "player_3"):  # the dead hand stays hidden
        obs = env.observe(agent)["observation"]
        assert not obs[SLICES["hand"]][out_hand].any()
    env.step(legal(env)[0])
    # Only the cards in play are won (the policy passes on every cante).
    assert sum(game.last_result.hand_points) == 130 - sum(CARD_POINTS[c] for c in out_hand)
    r = env.unwrapped._cumulative_rewards
    assert r["player_2"] == r["player_0"] == 2.0 and r["player_1"] == -2.0


def test_C4_all_pass_all_four_play_for_one_point():
    env, game = scripted(CANTE, "Sb", dealer=3)
    for _ in range(4):
        env.step(PASS)
    assert game.out_seat == -1
    for _ in range(4):
        env.step(legal(env)[0])
    assert [len(p) for p in game.played] == [1, 1, 1, 1]
    assert finish_hand(env).match_points == 1


# --------------------------------------------------------------------------- C5
def test_C5_mano_leads_or_the_next_playing_seat_and_the_trick_winner_leads_next():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    assert seat_to_act(env) == 0  # mano
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=2)
    assert game.out_seat == 0 and seat_to_act(env) == 1  # mano sits out: the next seat leads
    env, game = scripted(TWO_PAIRS, "Sb", dealer=3, phase="play", config={"cantes": False})
    play_cards(env, "Ao", "3o", "Ro", "Co")  # seat 0 wins
    assert seat_to_act(env) == 0
    play_cards(env, "Rc", "Ac", "Ab", "Sb")  # seat 2 trumps and wins
    assert seat_to_act(env) == 2


# --------------------------------------------------------------------------- C6
T = BASTOS  # trumps in the C6 cases; oros is the led plain suit


@pytest.mark.parametrize(
    ("hand", "trick", "expected", "obligation"),
    [
        ("Ao Rc Sb", "", "Ao Rc Sb", Obligation.LEAD),
        # 1. montar: beat the led card with a higher card of the led suit
        ("Ao Ro Cc 3b", "3o", "Ao", Obligation.MONTAR),
        # 2. asistir: cannot beat it, follow suit (even holding trumps)
        ("3o So Rb", "Ao", "3o So", Obligation.ASISTIR),
        # 3. fallar: no card of the led suit, must trump
        ("Ac Rb Sb", "Ao", "Rb Sb", Obligation.FALLAR),
        # neither the led suit nor trumps: any card
        ("Ac 3e", "Ao", "Ac 3e", Obligation.LIBRE_SIN_PALO),
        # an earlier trump exists: follow suit but no need to beat the led card
        ("So Ao Ab", "Co Sb", "Ao So", Obligation.ASISTIR_TRAS_FALLO),
        # an earlier trump exists and no led suit: beat that trump (montar el fallo)
        ("Ab Sb Ac", "Co Rb", "Ab", Obligation.MONTAR_FALLO),
        # cannot beat the earlier trump: anything goes (a lower trump, another suit)
        ("Sb Ac", "Co Rb", "Ac Sb", Obligation.LIBRE_NO_MONTA),
        ("3b Ac", "Co Ab", "Ac 3b", Obligation.LIBRE_NO_MONTA),
        # two earlier trumps: must beat the higher one
        ("Cb 3b Ac", "Co Sb Rb", "3b", Obligation.MONTAR_FALLO),
        ("Cb Ac", "Co Sb Rb", "Ac Cb", Obligation.LIBRE_NO_MONTA),
        # "beat the led card" is literal: higher than the led card, not than the best so far
        ("3o So", "Co Ao", "3o", Obligation.MONTAR),
        # arrastre (trump lead): montar, asistir, and free without trumps
        ("Ab Sb Ao", "Rb", "Ab", Obligation.MONTAR),
        ("Rb Sb", "Cb Ab", "Rb", Obligation.MONTAR),
        ("Sb Ao", "Ab", "Sb", Obligation.ASISTIR),
        ("Ao Ac", "Cb", "Ao Ac", Obligation.LIBRE_SIN_PALO),
    ],
)
def test_C6_obligations_case_by_case(hand, trick, expected, obligation):
    got, why = legal_plays(cards(hand), cards(trick), T)
    assert sorted(codes(got), key=parse_card) == sorted(expected.split(), key=parse_card)
    assert why is obligation


def test_C6_obligations_hold_even_when_the_partner_is_winning():
    spec = hands("Ro Ac 3c Rc Cc", "So Sc Ae 3e Se", "Ao 3o Co Re Ce", "Ab 3b Rb Cb Sb")
    env, _ = scripted(spec, "Sb", dealer=3, phase="play")
    play_cards(env, "Ro", "So")  # partner (seat 0) is winning with Ro
    assert legal_cards(env) == ["Ao", "3o"]
    with pytest.raises(
        ValueError, match=r"player_2: play Caballo de oros \[Co\].*C6: must beat the led card"
    ):
        env.step(play("Co"))


def test_C6_illegal_card_is_refused_and_the_state_is_unchanged():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    env.step(play("Ao"))
    before = (list(game.hands[1]), list(game.trick), seat_to_act(env))
    with pytest.raises(ValueError, match="C6: must follow the led suit"):
        env.step(play("Ac"))
    with pytest.raises(ValueError, match="Ab is not in the hand"):
        env.step(play("Ab"))
    assert (list(game.hands[1]), list(game.trick), seat_to_act(env)) == before


# --------------------------------------------------------------------------- C7
@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        ("Co Ao 3o So", 1),  # highest of the led suit
        ("Co Ac Ae So", 0),  # other plain suits never win
        ("Co Ao Sb 3o", 2),  # any trump beats the led suit
        ("Co Sb Rb Ao", 2),  # highest trump
        ("Cb Ab Ao", 1),  # arrastre: highest trump
    ],
)
def test_C7_trick_winner_highest_trump_else_highest_of_led_suit(trick, winner):
    assert trick_winner(cards(trick), T) == winner


# --------------------------------------------------------------------------- C8
def test_C8_hand_points_are_card_points_last_trick_and_cantes():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    env.step(sing("bastos"))  # seat 0: +40
    play_cards(env, "Ab", "Ac", "Ae", "Sb")
    env.step(PASS)  # seat 0 (bastos already sung, D2)
    env.step(sing("espadas"))  # seat 2: +20
    play_cards(env, "3b", "3c", "3e", "Co")
    env.step(PASS)  # copas could still be sung (D2): the window opens, and both pass
    env.step(PASS)
    play_cards(env, "Rb", "Rc", "Re", "Sc")
    assert game.hand_points(0) == 27 + 35 + 33 + 14 + 60
    play_cards(env, "Cb", "Cc", "Ce", "Se")
    result = game.last_result
    assert result.hand_points == (120 + 10 + 60, 0)
    assert result.winner_pair == 0 and game.scores == [1, 0]


# --------------------------------------------------------------------------- C9
@pytest.mark.parametrize(
    ("contract", "declarer", "mano", "points", "tricks", "winner", "value"),
    [
        (Contract.NONE, -1, 1, (70, 60), 0, 0, 1),
        (Contract.NONE, -1, 1, (65, 65), 0, 1, 1),  # tie: mano's pair
        (Contract.NONE, -1, 2, (65, 65), 0, 0, 1),
        (Contract.SOLO, 3, 0, (80, 90), 2, 1, 2),
        (Contract.SOLO, 3, 0, (90, 80), 2, 0, 2),  # failed solo: points to the opponents
        (Contract.SOLO, 3, 0, (75, 75), 2, 0, 2),  # tie goes to mano's pair (seat 0): the solo fails
        (Contract.SOLO, 1, 1, (75, 75), 2, 1, 2),  # tie, the declarer is mano: the solo stands
        (Contract.SOLO, 1, 3, (75, 75), 2, 1, 2),  # tie, mano sits out as the declarer's partner: stands
        (Contract.CUATROLA, 0, 1, (0, 200), 4, 0, 4),  # hand points count for nothing
        (Contract.CUATROLA, 0, 1, (200, 0), 3, 1, 4),
        (Contract.QUINTOLA, 1, 1, (0, 130), 5, 1, 5),
        (Contract.QUINTOLA, 1, 1, (0, 130), 4, 0, 5),
    ],
)
def test_C9_hand_result_table(contract, declarer, mano, points, tricks, winner, value):
    result = hand_result(contract, declarer, mano, points, tricks)
    assert (result.winner_pair, result.match_points) == (winner, value)
    assert result.declaration_failed == (contract != Contract.NONE and winner != declarer % 2)


def test_C9_quintola_with_all_five_tricks_wins_five():
    env, game = scripted(ALL_TRUMPS, "Sb", dealer=0, phase="play", contract="quintola", declarer=0)
    result = finish_hand(env)
    assert result.declarer_tricks == 5 and not result.declaration_failed
    assert game.scores == [5, 0] and env.unwrapped._cumulative_rewards["player_2"] == 5.0


@pytest.mark.parametrize(("contract", "scores"), [("quintola", [0, 5]), ("cuatrola", [4, 0])])
def test_C9_cuatrola_needs_four_tricks_quintola_five_played_to_the_fifth_trick(contract, scores):
    env, game = scripted(FOUR_TRUMPS, "Cb", dealer=0, phase="play", contract=contract, declarer=0)
    play_cards(env, "Ao", "Ae", "So")  # seat 1 leads and takes trick 1 from the declarer
    assert game.tricks_won[1] == 1 and game.phase == Phase.PLAY  # a failed quintola is played on
    result = finish_hand(env)
    assert result.declarer_tricks == 4  # so all five tricks were played
    assert game.scores == scores


def test_C9_failed_cuatrola_gives_its_four_points_to_the_opponents():
    spec = hands("So Sc Se Sb Cb", "Ao 3o Ro Co Ac", "3c Rc Cc Ae 3e", "Re Ce Ab 3b Rb")
    env, game = scripted(spec, "So", dealer=0, phase="play", contract="cuatrola", declarer=0)
    result = finish_hand(env)
    assert result.declaration_failed and result.declarer_tricks < 4
    assert game.scores == [0, 4]


# --------------------------------------------------------------------------- C10
def test_C10_winners_pair_may_sing_trumps_for_40_after_winning_a_trick():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    assert game.phase == Phase.CANTE and seat_to_act(env) == 0
    assert legal(env) == [PASS, sing("bastos")]
    assert not env.observe("player_1")["action_mask"].any()  # opponents never sing on our trick
    env.step(sing("bastos"))
    assert game.cante_points == [40, 0]
    assert game.phase == Phase.PLAY and seat_to_act(env) == 0  # one cante per trick: window closed


def test_C10_a_suit_already_sung_is_not_offered_again():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    env.step(sing("bastos"))
    play_cards(env, "Ab", "Ac", "Ae", "Sb")  # seat 0 wins again, still holding Rb and Cb
    assert game.cante_queue == [0, 2] and legal(env) == [PASS]  # D2: asked, but bastos is sung
    env.step(PASS)
    assert seat_to_act(env) == 2 and legal(env) == [PASS, sing("espadas")]
    env.step(PASS)
    with pytest.raises(ValueError, match="C10: a cante is sung only right after"):
        env.step(sing("bastos"))


def test_C10_a_pass_hands_the_chance_to_the_partner_plain_suit_is_20():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    env.step(PASS)
    assert seat_to_act(env) == 2 and legal(env) == [PASS, sing("espadas")]
    env.step(sing("espadas"))
    assert game.cante_points == [20, 0] and seat_to_act(env) == 0


def test_C10_once_per_suit_per_hand_and_one_per_trick_with_a_choice_of_suit():
    env, game = scripted(TWO_PAIRS, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "Co")
    assert legal(env) == [PASS, sing("copas"), sing("espadas")]
    env.step(sing("copas"))
    assert game.phase == Phase.PLAY  # the espadas pair must wait for another won trick
    play_cards(env, "Rc", "Ac", "Ab", "Sb")  # partner (seat 2) trumps and wins
    assert seat_to_act(env) == 2 and legal(env) == [PASS]  # D2: the winner is asked first
    env.step(PASS)
    assert seat_to_act(env) == 0 and legal(env) == [PASS, sing("espadas")]
    with pytest.raises(ValueError, match="C10: copas was already sung"):
        env.step(sing("copas"))
    env.step(sing("espadas"))
    assert game.cante_points == [40, 0] and game.sung == [-1, 0, 0, -1]


def test_C10_the_chance_lapses_with_the_next_card():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    env.step(PASS)
    env.step(PASS)
    play_cards(env, "Ab", "Ac")
    assert seat_to_act(env) == 2
    with pytest.raises(ValueError, match="C10: a cante is sung only right after"):
        env.step(sing("espadas"))


def test_C10_no_cantes_in_a_cuatrola_or_quintola():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="cuatrola", declarer=0)
    play_cards(env, "Ao", "3o", "So")
    assert game.phase == Phase.PLAY and seat_to_act(env) == 0
    assert sing("bastos") not in legal(env)
    while game.hand_number == 1:
        assert game.phase != Phase.CANTE
        env.step(legal(env)[-1])
    assert sum(game.last_result.hand_points) == 130 - sum(CARD_POINTS[c] for c in cards(" ".join(CANTE[2])))


def test_C10_a_player_sitting_out_cannot_sing():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=0)
    play_cards(env, "Ao", "3o", "So")
    env.step(PASS)  # seat 0 declines; seat 2 holds the espadas pair but sits out
    assert game.phase == Phase.PLAY and seat_to_act(env) == 0


# --------------------------------------------------------------------------- C11
def test_C11_a_declaration_may_not_take_the_pair_past_11():
    env, game = scripted(CANTE, "Sb", dealer=3, scores=[8, 3])
    assert legal(env) == [PASS, declare("solo")]
    with pytest.raises(ValueError, match=r"C11: the pair's 8 match points \+ 4 for a cuatrola would pass 11"):
        env.step(declare("cuatrola"))
    env.step(PASS)
    assert legal(env) == [PASS, declare("solo"), declare("cuatrola"), declare("quintola")]  # pair at 3
    env, game = scripted(CANTE, "Sb", dealer=3, scores=[10, 6])
    assert legal(env) == [PASS]  # pass is always allowed
    env.step(PASS)
    assert legal(env) == [PASS, declare("solo"), declare("cuatrola"), declare("quintola")]


def test_C11_match_ends_at_exactly_11():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", scores=[10, 9])
    finish_hand(env)
    assert game.over and game.scores == [11, 9] and game.winner == 0
    assert all(env.terminations.values())
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)


def test_C11_the_target_is_11_and_cantes_are_on_unless_configured():
    """C11, C10: the env and a bare rules object both play to 11 with cantes (one default, the config's)."""
    env = cuatrola_v0.raw_env()
    bare = CuatrolaGame()
    assert env.game.target == bare.target == 11
    assert env.game.cantes_enabled is bare.cantes_enabled is True


def test_C11_an_opponents_failed_declaration_may_take_a_pair_past_11():
    env, game = scripted(
        FOUR_TRUMPS, "Cb", dealer=0, phase="play", contract="quintola", declarer=0, scores=[3, 8]
    )
    finish_hand(env)
    assert game.over and game.scores == [3, 13] and game.winner == 1
    assert env.unwrapped._cumulative_rewards["player_1"] == 5.0


def test_C11_rewards_zero_sum_per_hand_or_win_loss_per_match():
    for reward, expected in (("hand", 5.0), ("match", 1.0)):
        env, game = scripted(
            FOUR_TRUMPS,
            "Cb",
            dealer=0,
            phase="play",
            contract="quintola",
            declarer=0,
            scores=[3, 8],
            config={"reward": reward},
        )
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, r, term, _, _ = env.last()
            totals[agent] += r
            env.step(None if term else legal(env)[0])
        assert totals == {
            "player_0": -expected,
            "player_1": expected,
            "player_2": -expected,
            "player_3": expected,
        }
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", config={"reward": "match"})
    finish_hand(env)
    assert not game.over and all(v == 0 for v in env.unwrapped._cumulative_rewards.values())


def test_C11_limits_follow_a_configured_target():
    env, game = scripted(CANTE, "Sb", dealer=3, scores=[1, 0], config={"target_score": 5})
    assert legal(env) == [PASS, declare("solo"), declare("cuatrola")]  # 1 + 4 <= 5 < 1 + 5
    assert np.isclose(env.observe("player_0")["observation"][SLICES["match_score"]][0], 1 / 9)
