"""«Quatro!», «Contra!», scoring and the match (rules Q18, Q19, Q24, Q25)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.quatro import Phase

from .helpers import K, act, events, field, idle, kinds, make_env, play, quartet_position, step


def quatro(env):
    return act(env, K.QUATRO)


def contra(env, k=1):
    return act(env, K.CONTRA, k)


def the_call(env):
    (call,) = events(env, "call")
    return call


# ---------------------------------------------------------------- Q18 «Quatro!»
@pytest.mark.parametrize("n", [4, 6, 8])
def test_q18_quatro_is_judged_on_the_partners_hand(n):
    """Q18: the partner holds four of one value → the caller's team scores 1."""
    env = make_env(n)
    partner = 1 + n // 2
    hands, center = quartet_position(n, (partner,))
    play(env, hands, center)
    _, rewards, *_ = step(env, {1: quatro(env)})
    call = the_call(env)
    assert call.public
    assert (call.seat, call.data["kind"], call.data["correct"], call.data["scoring_teams"]) == (
        1,
        "quatro",
        True,
        (1,),
    )
    expected = [0] * (n // 2)
    expected[1] = 1
    assert env.engine.scores == expected


def test_q18_own_quartet_is_never_what_is_judged():
    """Q18: your own hand is never judged: a quartet of your own and none at the partner's is a false call."""
    env = make_env(4, own_quartet_guard="off")
    hands, center = quartet_position(4, (0,))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    call = the_call(env)
    assert call.data["correct"] is False
    assert env.engine.scores == [0, 1]


@pytest.mark.parametrize(("n", "expected"), [(4, [0, 1]), (6, [0, 1, 1]), (8, [0, 1, 1, 1])])
def test_q18_false_quatro_gives_every_other_team_a_point(n, expected):
    """Q18/Q25: a false «Quatro» gives 1 point to every other team (several teams with 6 or 8 players)."""
    env = make_env(n)
    play(env)
    _, rewards, *_ = step(env, {0: quatro(env)})
    call = the_call(env)
    assert call.data["correct"] is False
    assert call.data["scoring_teams"] == tuple(range(1, n // 2))
    assert env.engine.scores == expected
    assert sum(rewards.values()) == pytest.approx(0.0)
    assert rewards["player_0"] < 0 and rewards["player_1"] > 0


def test_q18_own_quartet_call_is_held_back_invisibly_with_a_reminder():
    """Q18 [decision]: guard "confirm": a call with an own quartet is held back, seen by you only."""
    env = make_env(4)
    hands, center = quartet_position(4, (0,))
    play(env, hands, center)
    obs, rewards, _, _, infos = step(
        env, {0: quatro(env), 3: act(env, K.EXCHANGE, (0, 0))}, order=(0, 3, 1, 2)
    )
    assert kinds(env) == ["quatro_held_back", "exchange"]  # the round goes on, the tick too
    (held,) = events(env, "quatro_held_back")
    assert (held.seat, held.data, held.visible_to) == (0, {}, frozenset({0}))
    assert env.engine.phase == Phase.PLAY and env.engine.scores == [0, 0]
    assert set(rewards.values()) == {0.0}
    assert field(env, obs["player_0"], "self.reminder")[0] == 1
    assert field(env, obs["player_0"], "self.reminder_left")[0] == 4
    for seat in (1, 2, 3):  # the partner included
        assert field(env, obs[f"player_{seat}"], "self.reminder")[0] == 0
        assert [e.kind for e in infos[f"player_{seat}"]["events"]] == ["exchange"]
        assert field(env, obs[f"player_{seat}"], f"seat[{(0 - seat) % 4}].order")[0] == 0
    assert held in infos["player_0"]["events"]


def test_q18_repeat_within_two_seconds_goes_through_judged_on_the_partner():
    """Q18: the same call again within 2 s goes through and is judged on the partner's hand."""
    env = make_env(4)
    hands, center = quartet_position(4, (0,))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    step(env, {0: quatro(env)})
    call = the_call(env)
    assert call.data["correct"] is False  # partner (seat 2) holds no quartet
    assert env.engine.scores == [0, 1]


def test_q18_repeat_in_the_last_tick_of_the_window_goes_through():
    """Q18/Q6: the confirm window opened at t accepts the repeat at t+4 (2 s at 0.5 s)."""
    env = make_env(4)
    hands, center = quartet_position(4, (0, 2))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    obs = idle(env, 3)[0]
    assert field(env, obs["player_0"], "self.reminder_left")[0] == 1
    step(env, {0: quatro(env)})
    assert the_call(env).data["correct"] is True
    assert env.engine.scores == [1, 0]


def test_q18_after_the_window_the_call_is_held_back_again_with_a_fresh_window():
    """Q18: once the window closes, the next such call is held back again, with a fresh window."""
    env = make_env(4)
    hands, center = quartet_position(4, (0,))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    obs = idle(env, 4)[0]
    assert field(env, obs["player_0"], "self.reminder")[0] == 0
    t = env.engine.tick
    step(env, {0: quatro(env)})
    assert kinds(env) == ["quatro_held_back"]
    assert env.engine.reminder[0] == (t, t + 4)
    step(env, {0: quatro(env)})
    assert events(env, "call")


def test_q18_held_back_even_if_the_partner_also_holds_a_quartet():
    """Q18: the reminder holds the call back even when it would be right; the repeat scores."""
    env = make_env(4)
    hands, center = quartet_position(4, (0, 2))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    assert kinds(env) == ["quatro_held_back"]
    step(env, {0: quatro(env)})
    assert the_call(env).data["correct"] is True
    assert env.engine.scores == [1, 0]


def test_q18_guard_off_every_call_goes_through_at_once():
    """Q18: with ``own_quartet_guard="off"`` a call with an own quartet goes through at once."""
    env = make_env(4, own_quartet_guard="off")
    hands, center = quartet_position(4, (0, 2))
    play(env, hands, center)
    obs, *_ = step(env, {0: quatro(env)})
    assert not events(env, "quatro_held_back")
    assert the_call(env).data["correct"] is True
    assert field(env, obs["player_0"], "self.reminder")[0] == 0


def test_q18_no_reminder_without_an_own_quartet():
    """Q18: without an own quartet the «Quatro» goes through at once even with the guard on."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center)
    step(env, {0: quatro(env)})
    assert not events(env, "quatro_held_back")
    assert env.engine.scores == [1, 0]


# ---------------------------------------------------------------- Q19 «Contra!»
def test_q19_four_players_have_a_single_contra():
    """Q19: with 4 players there is only one opposing team; with 6 or 8 you name which (relative)."""
    assert len(make_env(4).codec.ranges[K.CONTRA]) == 1
    assert len(make_env(6).codec.ranges[K.CONTRA]) == 2
    assert len(make_env(8).codec.ranges[K.CONTRA]) == 3


@pytest.mark.parametrize("holder", [1, 3])
def test_q19_correct_contra_when_either_member_holds_a_quartet(holder):
    """Q19: either member of the accused team holds a quartet → the accuser's team scores."""
    env = make_env(4)
    hands, center = quartet_position(4, (holder,))
    play(env, hands, center)
    step(env, {2: contra(env)})
    call = the_call(env)
    assert (call.data["kind"], call.data["target_team"], call.data["correct"]) == ("contra", 1, True)
    assert env.engine.scores == [1, 0]


def test_q19_incorrect_contra_gives_the_accused_team_the_point():
    """Q19: otherwise the accused team scores 1."""
    env = make_env(4)
    hands, center = quartet_position(4, (0,))  # a quartet in the accuser's own team does not matter
    play(env, hands, center)
    step(env, {0: contra(env)})
    call = the_call(env)
    assert call.data["correct"] is False and call.data["scoring_teams"] == (1,)
    assert env.engine.scores == [0, 1]


@pytest.mark.parametrize(
    ("n", "seat", "k", "target"), [(6, 1, 1, 2), (6, 1, 2, 0), (6, 4, 1, 2), (8, 3, 2, 1), (8, 6, 3, 1)]
)
def test_q19_contra_target_is_relative_to_the_caller(n, seat, k, target):
    """Q19: «Contra» on the team k seats clockwise: target = (team of caller + k) mod n/2."""
    env = make_env(n)
    member = target + n // 2
    hands, center = quartet_position(n, (member,))
    play(env, hands, center)
    step(env, {seat: contra(env, k)})
    call = the_call(env)
    assert call.data["target_team"] == target
    assert call.data["correct"] is True
    expected = [0] * (n // 2)
    expected[seat % (n // 2)] = 1
    assert env.engine.scores == expected
    assert field(env, env._observations()[f"player_{seat}"], f"team[{k}].accused")[0] == 1


def test_q19_point_goes_to_the_accused_even_if_another_team_held_a_quartet():
    """Q19: a wrong «Contra» scores for the accused team even if a third team held a quartet."""
    env = make_env(6)
    hands, center = quartet_position(6, (2,))  # team 2 holds a quartet
    play(env, hands, center)
    step(env, {0: contra(env, 1)})  # accuses team 1
    call = the_call(env)
    assert (call.data["target_team"], call.data["correct"]) == (1, False)
    assert env.engine.scores == [0, 1, 0]
    assert events(env, "reveal")[0].data["quartets"] == (2,)


def test_q19_contra_on_a_team_with_a_disconnected_member():
    """Q19/Q23: opponents may still call «Contra» on a team whose quartet holder is disconnected."""
    env = make_env(4)
    hands, center = quartet_position(4, (3,))
    play(env, hands, center)
    env.force_connection(3, False)
    step(env, {0: contra(env)})
    assert the_call(env).data["correct"] is True


# ---------------------------------------------------------------- Q24 match, Q25 shared wins
def test_q24_first_team_to_five_points_wins():
    """Q24: the first team to reach 5 points wins the match."""
    env = make_env(4)
    hands, center = quartet_position(4, (3,))
    play(env, hands, center, scores=[3, 4])
    step(env, {1: quatro(env)})
    (over,) = events(env, "match_over")
    assert over.data == {"winners": (1,), "scores": [3, 5]}
    assert env.engine.winners == (1,)
    assert env.engine.phase == Phase.OVER


def test_q24_points_to_win_is_configurable():
    """Q24: the target is configured (default 5)."""
    env = make_env(4, points_to_win=1)
    play(env)
    step(env, {0: contra(env)})
    assert events(env, "match_over")[0].data["winners"] == (1,)


def test_q24_points_are_never_taken_away_over_a_random_match():
    """Q24: a point won is never taken away; the match ends when the best team reaches 5."""
    env = make_env(4, illegal_action="raise")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    history = [list(env.engine.scores)]
    obs = env._observations()
    for _ in range(5000):
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
        history.append(list(env.engine.scores))
        if not env.agents:
            break
    assert not env.agents, "the random match did not end"
    for before, after in zip(history[:-1], history[1:], strict=True):
        assert all(b <= a for b, a in zip(before, after, strict=True))
    assert max(history[-1]) == 5
    assert env.engine.winners == tuple(t for t, s in enumerate(history[-1]) if s == 5)


def test_q25_several_teams_reaching_the_best_score_together_win_together():
    """Q25: a false «Quatro» with 6 players can take two teams to 5 at once: they win together."""
    env = make_env(6)
    play(env, scores=[3, 4, 4])
    _, rewards, terminations, *_ = step(env, {0: quatro(env)})
    (over,) = events(env, "match_over")
    assert over.data == {"winners": (1, 2), "scores": [3, 5, 5]}
    assert all(terminations.values())
    assert sum(rewards.values()) == pytest.approx(0.0)


def test_q25_eight_players_false_quatro_scores_three_teams():
    """Q25: with 8 players a false «Quatro» gives a point to the three other teams."""
    env = make_env(8)
    play(env, scores=[0, 4, 2, 4])
    step(env, {0: quatro(env)})
    assert env.engine.scores == [0, 5, 3, 5]
    assert env.engine.winners == (1, 3)
