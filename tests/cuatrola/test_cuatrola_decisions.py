"""One test per decision taken where the rules are silent (D1 .. D16 in docs/cuatrola.md)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import PASS, declare, play, sing
from quatro_env.cuatrola.cards import CARD_POINTS, SUITS, deal, parse_card
from quatro_env.cuatrola.observation import SLICES
from quatro_env.cuatrola.state import Phase
from tests.env_drivers import play_aec

from .helpers import hands, legal, play_cards, random_steps, scripted, seat_to_act

CANTE = hands("Ab 3b Rb Cb Ao", "3o Ac 3c Rc Cc", "Ro Ae 3e Re Ce", "Co So Sb Sc Se")


def test_D1_every_seat_speaks_once_even_when_only_pass_is_legal():
    env, game = scripted(CANTE, "Sb", dealer=3)
    env.step(declare("quintola"))
    for seat in (1, 2, 3):
        assert seat_to_act(env) == seat and legal(env) == [PASS]
        env.step(PASS)
    assert game.phase == Phase.PLAY


def test_D2_cante_window_is_a_turn_winner_first_then_partner_then_the_winner_leads():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    assert game.phase == Phase.CANTE and game.cante_queue == [0, 2]
    env.step(PASS)
    assert seat_to_act(env) == 2
    env.step(PASS)
    assert game.phase == Phase.PLAY and seat_to_act(env) == 0
    # Nobody of the winning pair can sing: the window still opens, for both, with only pass legal
    # (the turn structure must not tell the opponents who holds a Caballo + Rey, C3).
    spec = hands("Ao 3c Rc Ce Sb", "3o Ac Cc Ae 3e", "Ro Sc Re Se Ab", "Co So 3b Rb Cb")
    env, game = scripted(spec, "Cb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "Co")
    assert game.phase == Phase.CANTE and game.cante_queue == [0, 2]
    for seat in (0, 2):
        assert seat_to_act(env) == seat and legal(env) == [PASS]
        env.step(PASS)
    assert game.phase == Phase.PLAY and seat_to_act(env) == 0


@pytest.mark.parametrize("shift", [0, 1], ids=["seat-3-sings", "seat-0-sings"])
def test_D2_the_cante_window_is_skipped_only_when_every_suit_is_publicly_out(shift):
    """D2: once every suit was sung or had its Caballo or Rey played to a trick, nobody can sing
    again this hand, as everyone can see; only then is the window skipped. Played twice, the seats
    turned by ``shift``: a suit sung by seat 0 is out like any other (seat 0 is not "nobody")."""
    spec = hands("Ac 3c Rc Cc Sc", "Ao 3o Ae Ab 3b", "Re Ce 3e Cb So", "Ro Co Rb Se Sb")
    spec = spec[-shift:] + spec[:-shift] if shift else spec
    seat = [(k + shift) % 4 for k in range(4)]  # the unshifted deal's seat k sits at seat[k]
    env, game = scripted(spec, "Ro", dealer=seat[3], phase="play")
    play_cards(env, "Rc", "Ao", "Re", "Rb")  # seat[1] trumps; copas, espadas, bastos are out
    assert game.cante_still_possible()  # oros is not
    assert game.phase == Phase.CANTE and game.cante_queue == [seat[1], seat[3]]
    assert seat_to_act(env) == seat[1] and legal(env) == [PASS]
    env.step(PASS)
    assert seat_to_act(env) == seat[3] and legal(env) == [PASS, sing("oros")]
    env.step(sing("oros"))  # every suit is out now
    assert game.sung[SUITS.index("oros")] == seat[3]
    assert not game.cante_still_possible()
    play_cards(env, "3o", "So", "Co", "Ac")  # seat[1] wins again: no window
    assert game.phase == Phase.PLAY and seat_to_act(env) == seat[1]


def test_C10_D2_the_cante_window_does_not_tell_who_holds_a_caballo_and_rey():
    """C3/C4 keep hands private, so the turn after a trick (C10, D2) must not depend on them: two
    deals that differ only in a Rey swapped between seats 1 and 2 (in one, seat 2 holds Caballo +
    Rey de copas) give every other seat the same agent selection and the same observations."""
    one = hands("Ao 3o Ae 3e Se", "So Ac 3c Sc Re", "Ro Rc Cc Ce Ab", "Co 3b Rb Cb Sb")
    two = hands("Ao 3o Ae 3e Se", "So Ac Rc Sc Re", "Ro 3c Cc Ce Ab", "Co 3b Rb Cb Sb")
    worlds = [scripted(spec, "Sb", dealer=3, phase="play")[0] for spec in (one, two)]
    for env in worlds:
        play_cards(env, "Ao", "So", "Ro", "Co")  # seat 0 wins; only in one can seat 2 sing
    a, b = worlds
    assert a.agent_selection == b.agent_selection == "player_0"
    for step in range(2):  # seat 0 passes, then it is seat 2's turn in both worlds
        for agent in ("player_0", "player_3"):
            np.testing.assert_array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
            np.testing.assert_array_equal(a.observe(agent)["action_mask"], b.observe(agent)["action_mask"])
        if step == 0:
            a.step(PASS)
            b.step(PASS)
            assert a.agent_selection == b.agent_selection == "player_2"
    # The difference is in seat 2's own, private mask only.
    assert legal(a) == [PASS, sing("copas")] and legal(b) == [PASS]


def test_D3_with_two_singable_suits_the_player_chooses_one():
    spec = hands("Ao Rc Cc Re Ce", "3o Ac 3c Sc Ae", "Ro So 3e Se Ab", "Co 3b Rb Cb Sb")
    env, game = scripted(spec, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "Co")
    assert legal(env) == [PASS, sing("copas"), sing("espadas")]
    env.step(sing("espadas"))
    assert game.sung == [-1, -1, 0, -1] and game.cante_points == [20, 0]


def test_D4_no_cante_after_the_fifth_trick_the_hand_is_scored_at_once():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", config={"cantes": False})
    play_cards(
        env, "Ao", "3o", "Ro", "So", "Ab", "Ac", "Ae", "Sb", "3b", "3c", "3e", "Co", "Rb", "Rc", "Re", "Sc"
    )
    play_cards(env, "Cb", "Cc", "Ce")
    assert game.hand_number == 1
    env.step(play("Se"))
    assert game.hand_number == 2 and game.phase == Phase.DECLARE


def test_D5_in_a_solo_the_opponents_may_sing_and_their_cantes_count():
    spec = hands("So Ac Ae Ab 3b", "Ao Rc Cc 3e Se", "Ro Co 3c Rb Cb", "3o Sb Re Ce Sc")
    env, game = scripted(spec, "Sb", dealer=3, phase="play", contract="solo", declarer=0)
    play_cards(env, "So", "Ao", "3o")  # seat 1 (an opponent) wins; seat 3 had to beat the led So
    assert game.cante_queue == [1, 3]
    env.step(sing("copas"))
    assert game.cante_points == [0, 20] and game.hand_points(1) == 2 + 11 + 10 + 20


def test_D6_the_dead_hand_stays_out_of_play_with_the_shown_card():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=1)
    dead = list(game.hands[3])
    assert parse_card("Sb") in dead
    while game.hand_number == 1:
        assert game.hands[3] == dead
        env.step(legal(env)[0])
    assert sum(game.last_result.hand_points) == 130 - sum(CARD_POINTS[c] for c in dead)


def test_D7_the_player_sitting_out_observes_its_cards_with_a_zero_mask():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="solo", declarer=0)
    obs = env.observe("player_2")
    assert not obs["action_mask"].any()
    assert set(np.flatnonzero(obs["observation"][SLICES["hand"]])) == set(game.hands[2])
    assert obs["observation"][SLICES["sitting_out"]][0] == 1  # itself, relative seat 0


def test_D8_the_match_ends_right_after_the_hand_that_reaches_the_target():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", scores=[10, 10])
    while not game.over:
        env.step(legal(env)[0])
    assert game.hand_number == 1 and max(game.scores) == 11
    assert all(env.terminations.values()) and set(env.terminations) == set(env.possible_agents)


def test_D9_reset_with_a_seed_reseeds_and_without_one_continues_the_stream():
    def deals(env):
        return [list(h) for h in env.unwrapped.game.hands], env.unwrapped.game.dealer

    a, b = cuatrola_v0.env(), cuatrola_v0.env()
    a.reset(seed=1)
    b.reset(seed=1)
    first = deals(a)
    a.reset()
    b.reset()
    assert deals(a) == deals(b) != first
    a.reset(seed=1)
    assert deals(a) == first


def test_D10_scripted_positions_start_at_the_declaration_or_the_first_trick():
    env, game = scripted(CANTE, "Ac", dealer=1)
    assert game.phase == Phase.DECLARE and seat_to_act(env) == 2
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="cuatrola", declarer=2)
    assert game.phase == Phase.PLAY and seat_to_act(env) == 1  # mano (0) sits out
    with pytest.raises(ValueError, match="phase"):
        env.reset(options={"phase": "cante"})


@pytest.mark.parametrize("contract, declarer", [("none", None), ("cuatrola", 2), ("solo", 0)])
def test_D10_a_play_start_shows_the_plainest_declaration_round_that_ends_in_its_contract(contract, declarer):
    """Starting at the first trick, every seat has spoken (C4): the declarer its contract, the others a
    pass. Each agent then sees what it sees after playing that round (it saw "not yet spoken" for all)."""
    env, game = scripted(CANTE, "Sb", dealer=3)  # mano is seat 0
    for seat in range(4):
        env.step(declare(contract) if seat == declarer else PASS)
    assert game.phase == Phase.PLAY
    played = {agent: env.observe(agent)["observation"].copy() for agent in env.agents}
    options = {"phase": "play", "contract": contract, "declarer": declarer}
    env, game = scripted(CANTE, "Sb", dealer=3, **{k: v for k, v in options.items() if v is not None})
    assert -1 not in game.declarations
    for agent in env.agents:
        assert np.array_equal(env.observe(agent)["observation"], played[agent]), agent


def test_D11_bad_actions_raise_value_errors_and_change_nothing():
    env, game = scripted(CANTE, "Sb", dealer=3)
    for bad in (28, -1, 3.0, None, "Ao", np.int64(99)):
        with pytest.raises(ValueError, match="illegal action by player_0"):
            env.step(bad)
    assert game.declarations == [-1, -1, -1, -1] and seat_to_act(env) == 0
    env.step(np.int32(PASS))  # NumPy integers are accepted
    assert game.declarations[0] == 0


def test_D12_relative_seats_follow_play_order_self_next_partner_previous():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play")  # player_0 to act
    for agent, rel in (("player_0", 0), ("player_1", 3), ("player_2", 2), ("player_3", 1)):
        obs = env.observe(agent)["observation"]
        assert np.flatnonzero(obs[SLICES["to_act"]]).tolist() == [rel]
    env.step(play("Ao"))
    obs = env.observe("player_1")["observation"]
    current = obs[SLICES["current_trick"]].reshape(4, 20)
    assert current[3, parse_card("Ao")] == 1  # played by the previous seat


def test_D13_hand_points_are_tallied_and_shown_in_a_cuatrola():
    env, game = scripted(CANTE, "Sb", dealer=3, phase="play", contract="cuatrola", declarer=0)
    play_cards(env, "Ao", "3o", "So")
    obs = env.observe("player_0")["observation"]
    assert obs[SLICES["hand_points"]][0] == pytest.approx((11 + 10 + 2) / 230)


def test_D14_unknown_reset_options_are_ignored_with_a_warning():
    env = cuatrola_v0.env()
    with pytest.warns(UserWarning, match="ignores unknown option"):
        env.reset(seed=0, options={"options": 1})
    assert env.unwrapped.game.phase == Phase.DECLARE


def test_D15_the_target_is_configurable_and_scales_the_score_observation():
    env = cuatrola_v0.env(target_score=3)
    env.reset(seed=0, options={"scores": [2, 0]})
    assert env.observe("player_0")["observation"][SLICES["match_score"]][0] == pytest.approx(2 / 7)
    for _ in random_steps(env, seed=0):
        pass
    game = env.unwrapped.game
    assert game.over and max(game.scores) >= 3


def test_D16_after_the_match_the_observation_shows_the_final_table():
    env2 = cuatrola_v0.env()
    env2.reset(seed=5)
    game = env2.unwrapped.game
    for _ in env2.agent_iter():
        obs, _, term, _, _ = env2.last()
        if term:
            assert obs["observation"][SLICES["phase"]][Phase.OVER] == 1 and not obs["action_mask"].any()
            break
        mask = np.flatnonzero(obs["action_mask"])
        env2.step(int(mask[0]))
    assert game.over


def test_D17_the_deal_gives_blocks_of_five_from_mano_and_the_last_block_to_the_dealer():
    order = np.random.default_rng(7).permutation(20).tolist()
    dealt, shown = deal(np.random.default_rng(7), dealer=2)
    assert dealt[3] == order[:5] and dealt[2] == order[15:] and shown == order[-1]


@pytest.mark.parametrize(
    ("config", "field"), [({"cantes": 1}, "cantes"), ({"target_score": 11.0}, "target_score")]
)
def test_D18_config_types_are_strict(config, field):
    with pytest.raises(ValueError, match=field):
        cuatrola_v0.env(**config)


@pytest.mark.parametrize(
    ("seed", "options", "word"),
    [
        (0, 0, "reset options"),
        (0, [], "reset options"),
        (True, None, "seed"),
        (0, {"scores": [True, 0]}, "scores"),
    ],
)
def test_D18_a_refused_reset_changes_nothing(seed, options, word):
    env = cuatrola_v0.env()
    env.reset(seed=1)
    play_aec(env, 0, 6)
    before = (env.agent_selection, env.unwrapped.game.scores[:], [h[:] for h in env.unwrapped.game.hands])
    with pytest.raises(ValueError, match=word):
        env.reset(seed=seed, options=options)
    assert (env.agent_selection, env.unwrapped.game.scores, env.unwrapped.game.hands) == before
