"""The sign phase and the start of a round (rules Q7, Q8)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.quatro import Phase
from quatro_env.quatro.cards import EMOJIS

from .helpers import K, act, events, field, idle, make_env, step


def sign(env, e):
    return act(env, K.CHOOSE_SIGN, e)


def ready_all(env, except_seats=()):
    return {s: act(env, K.READY) for s in range(env.n) if s not in except_seats and not env.engine.is_bot[s]}


# ---------------------------------------------------------------- Q7 signs
def test_q7_the_24_emojis_are_the_fixed_list():
    """Q7: signs are chosen among 24 fixed emojis."""
    assert "".join(EMOJIS) == "🍍🚀🐢🦊🐙🌵🍄🌙⭐🔥💧⚡🎈🎲🎸👑🐝🦉🍉🌈🐳🍒🔔⚓"
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    r = env.codec.ranges[K.CHOOSE_SIGN]
    assert len(r) == 24
    assert obs["player_0"]["action_mask"][r.start : r.stop].all()


def test_q7_first_teammate_fixes_the_sign_and_it_cannot_be_changed():
    """Q7: the first teammate to choose fixes the team's sign for the round; nobody can change it."""
    env = make_env(4)
    env.reset(seed=0)
    obs, *_ = step(env, {0: sign(env, 3)})
    assert env.engine.team_sign == [3, None]
    for seat in (0, 2):
        mask = obs[f"player_{seat}"]["action_mask"]
        r = env.codec.ranges[K.CHOOSE_SIGN]
        assert not mask[r.start : r.stop].any()
        assert "already fixed" in env.engine.illegal_reason(seat, sign(env, 5))
    # the other team may still choose
    assert obs["player_1"]["action_mask"][sign(env, 5)] == 1


@pytest.mark.parametrize(("order", "winner", "expected"), [((2, 0, 1, 3), 2, 9), ((0, 1, 2, 3), 0, 4)])
def test_q7_same_tick_choice_is_fixed_by_the_earlier_in_the_order(order, winner, expected):
    """Q7/Q9: both teammates choose in one tick: the one earlier in the tick's order fixes it."""
    env = make_env(4)
    env.reset(seed=0)
    step(env, {0: sign(env, 4), 2: sign(env, 9)}, order=order)
    assert env.engine.team_sign[0] == expected
    fixed = events(env, "sign_fixed")
    assert [(e.seat, e.data["sign"]) for e in fixed] == [(winner, expected)]  # the other is moot


def test_q7_teammate_sees_the_sign_at_once_opponents_never():
    """Q7/Q26: the partner sees the fixed sign in ``self.sign`` after the tick; the other team never does."""
    env = make_env(4)
    env.reset(seed=0)
    obs, _, _, _, infos = step(env, {1: sign(env, 17)})
    for seat in (1, 3):
        s = field(env, obs[f"player_{seat}"], "self.sign")
        assert s[17] == 1 and s.sum() == 1
        assert [e.kind for e in infos[f"player_{seat}"]["events"]] == ["sign_fixed"]
    for seat in (0, 2):
        assert field(env, obs[f"player_{seat}"], "self.sign").sum() == 0
        assert infos[f"player_{seat}"]["events"] == []
    (ev,) = events(env, "sign_fixed")
    assert ev.visible_to == frozenset({1, 3})


def test_q7_two_teams_may_hold_the_same_sign():
    """Q7 [decision]: a sign held by another team is not refused (a refusal would leak it)."""
    env = make_env(6)
    env.reset(seed=0)
    step(env, {0: sign(env, 7)})
    obs, *_ = step(env, {1: sign(env, 7), 2: sign(env, 7)})
    assert env.engine.team_sign == [7, 7, 7]
    assert len(events(env, "sign_fixed")) == 2


def test_q7_signs_stay_secret_at_the_reveal_unless_configured():
    """Q7 [decision]: no other team sees a sign, not even at the reveal, unless ``reveal_signs``."""
    for reveal_signs in (False, True):
        env = make_env(4, reveal_signs=reveal_signs)
        env.reset(seed=0)
        step(env, {0: sign(env, 2), 1: sign(env, 20)})
        step(env, ready_all(env))
        assert env.engine.phase == Phase.PLAY
        obs, *_ = step(env, {0: act(env, K.CONTRA, 1)})
        (reveal,) = events(env, "reveal")
        own = field(env, obs["player_0"], "team[0].revealed_sign")
        other = field(env, obs["player_0"], "team[1].revealed_sign")
        if reveal_signs:
            assert reveal.data["signs"] == [2, 20]
            assert other[20] == 1 and other.sum() == 1
            assert own[2] == 1
        else:
            assert "signs" not in reveal.data
            assert other.sum() == 0 and own.sum() == 0
        assert field(env, obs["player_0"], "self.sign")[2] == 1  # own sign is private info, shown still
        assert field(env, obs["player_0"], "table.phase")[int(Phase.PAUSE)] == 1


def test_q7_a_new_sign_is_chosen_every_round():
    """Q7/Q8: last round's sign means nothing: the next sign phase starts with no sign."""
    env = make_env(4)
    env.reset(seed=0)
    step(env, {0: sign(env, 5), 1: sign(env, 6)})
    step(env, ready_all(env))
    step(env, {0: act(env, K.CONTRA, 1)})
    obs, *_ = step(env, {0: act(env, K.START_ROUND)})
    assert env.engine.phase == Phase.SIGN
    assert env.engine.team_sign == [None, None]
    assert field(env, obs["player_0"], "self.sign").sum() == 0
    assert obs["player_2"]["action_mask"][sign(env, 5)] == 1


# ---------------------------------------------------------------- Q8 start
def test_q8_all_ready_starts_play_at_the_next_tick():
    """Q8: once every connected player has confirmed ready the round starts (play from the next tick)."""
    env = make_env(4)
    env.reset(seed=0)
    step(env, ready_all(env, except_seats=(3,)))
    assert env.engine.phase == Phase.SIGN
    t = env.engine.tick
    obs, *_ = step(env, {3: act(env, K.READY)})
    assert env.engine.phase == Phase.PLAY
    assert env.engine.phase_start == t + 1 == env.engine.tick
    (started,) = events(env, "round_started")
    assert started.public and started.data == {"round": 1}
    assert field(env, obs["player_0"], "table.phase")[int(Phase.PLAY)] == 1
    assert field(env, obs["player_0"], "table.phase_left")[0] == 255  # 360 ticks, clipped


def test_q8_sign_phase_times_out_after_30_seconds():
    """Q8: the round starts after 30 s (60 ticks at 0.5 s) even if nobody confirmed ready."""
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    assert field(env, obs["player_0"], "table.phase_left")[0] == 60
    idle(env, 59)
    assert env.engine.phase == Phase.SIGN
    step(env)
    assert env.engine.phase == Phase.PLAY
    assert env.engine.tick == 60


def test_q8_teams_without_a_sign_get_a_random_one_shown_to_both_teammates():
    """Q8: at the start a team with no sign gets one drawn at random, shown to both teammates only."""
    env = make_env(6)
    env.reset(seed=5)
    step(env, {0: sign(env, 12)})
    obs, _, _, _, infos = step(env, ready_all(env))
    engine = env.engine
    drawn = events(env, "sign_drawn")
    assert sorted(e.data["team"] for e in drawn) == [1, 2]
    assert engine.team_sign[0] == 12
    for ev in drawn:
        team = ev.data["team"]
        assert ev.visible_to == frozenset({team, team + 3})
        assert engine.team_sign[team] == ev.data["sign"]
        assert 0 <= ev.data["sign"] < 24
        for seat in (team, team + 3):
            s = field(env, obs[f"player_{seat}"], "self.sign")
            assert s[ev.data["sign"]] == 1 and s.sum() == 1
            assert ev in infos[f"player_{seat}"]["events"]
        for seat in set(range(6)) - {team, team + 3}:
            assert ev not in infos[f"player_{seat}"]["events"]


def test_q8_random_signs_are_uniform_over_the_24():
    """Q8: the drawn sign is uniform over the 24. 480 draws (4 teams x 120 seeds): every sign appears,
    and the counts pass a chi-square test at 0.1 %. (48 draws needing 12 distinct signs let a draw over
    12 emojis pass.)"""
    from scipy.stats import chisquare

    env = make_env(8)
    drawn = []
    for seed in range(120):
        env.reset(seed=seed)
        step(env, ready_all(env))
        drawn += env.engine.team_sign
    counts = np.bincount(drawn, minlength=24)
    assert counts.size == 24 and counts.min() > 0, counts
    assert chisquare(counts).pvalue > 0.001, counts


def test_q8_hands_and_center_are_empty_during_the_sign_phase():
    """Q8 [decision]: hands are dealt when the round starts; in the sign phase hands and center are empty."""
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    obs, *_ = step(env, {0: sign(env, 1), 1: act(env, K.READY)})
    assert env.engine.hands == [[], [], [], []]
    assert env.engine.center == []
    for a in env.agents:
        assert field(env, obs[a], "self.hand").sum() == 0
        assert field(env, obs[a], "table.center").sum() == 0
    obs, *_ = step(env, ready_all(env, except_seats=(1,)))
    assert env.engine.phase == Phase.PLAY
    assert all(len(h) == 4 for h in env.engine.hands)
    assert field(env, obs["player_0"], "self.hand").sum() == 4


def test_q8_bot_seats_confirm_ready_at_once():
    """Q8/Q22: bot seats are ready from the start of every sign phase."""
    env = make_env(4, bot_seats=(1, 3))
    obs, _ = env.reset(seed=0)
    assert env.engine.ready == [False, True, False, True]
    assert field(env, obs["player_0"], "seat[1].ready")[0] == 1
    assert field(env, obs["player_0"], "seat[3].ready")[0] == 1
    assert field(env, obs["player_0"], "seat[0].ready")[0] == 0
    step(env, {0: act(env, K.READY), 2: act(env, K.READY)})
    assert env.engine.phase == Phase.PLAY


def test_q8_ready_cannot_be_undone_but_sign_may_still_be_chosen():
    """Q8: ready cannot be undone (nor repeated); a ready player may still fix the team's sign."""
    env = make_env(4)
    env.reset(seed=0)
    obs, *_ = step(env, {0: act(env, K.READY)})
    assert env.engine.ready[0]
    assert obs["player_0"]["action_mask"][act(env, K.READY)] == 0
    assert "cannot be undone" in env.engine.illegal_reason(0, act(env, K.READY))
    assert obs["player_0"]["action_mask"][sign(env, 8)] == 1
    step(env, {0: sign(env, 8)})
    assert env.engine.team_sign[0] == 8
    assert env.engine.ready[0]


def test_q8_only_sign_choices_and_ready_are_sign_phase_gestures():
    """Q8: in the sign phase the legal actions are the no-op, the 24 signs and ready."""
    env = make_env(6)
    obs, _ = env.reset(seed=0)
    mask = obs["player_4"]["action_mask"]
    legal = set(np.flatnonzero(mask).tolist())
    r = env.codec.ranges[K.CHOOSE_SIGN]
    assert legal == {0, act(env, K.READY), *range(r.start, r.stop)}


def test_q8_sign_gestures_end_with_the_sign_phase():
    """Q8: the sign fixed in the sign phase is kept at the deal; in play nobody can choose a sign or ready."""
    env = make_env(4)
    env.reset(seed=0)
    step(env, {0: sign(env, 0)})
    obs, *_ = step(env, ready_all(env))
    assert env.engine.team_sign[0] == 0
    r = env.codec.ranges[K.CHOOSE_SIGN]
    for a in env.agents:
        assert not obs[a]["action_mask"][r.start : r.stop].any()
        assert obs[a]["action_mask"][act(env, K.READY)] == 0
    assert "sign phase" in env.engine.illegal_reason(1, sign(env, 3))
