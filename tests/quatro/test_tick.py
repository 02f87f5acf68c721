"""Simultaneity, the end of a round and the pause (rules Q9, Q10, Q11)."""

from __future__ import annotations

import pytest

from quatro_env.quatro import GameOverError, IllegalActionError, Phase

from .helpers import K, act, events, field, idle, kinds, make_env, play, quartet_position, step


def ready_all(env):
    return {env.agent_seat[a]: act(env, K.READY) for a in env.agents}


# ---------------------------------------------------------------- Q9 simultaneity
@pytest.mark.parametrize(("order", "winner", "loser"), [((1, 0, 2, 3), 1, 0), ((0, 3, 2, 1), 0, 1)])
def test_q9_forced_order_decides_who_gets_a_contested_slot(order, winner, loser):
    """Q9/Q31: actions resolve one by one in the tick's order; the forced order decides."""
    env = make_env(4)
    play(env)
    ex = act(env, K.EXCHANGE, (0, 0))
    before = {s: list(env.engine.hands[s]) for s in range(4)}
    center0 = env.engine.center[0]
    step(env, {0: ex, 1: ex}, order=order)
    assert env.last_tick.order == order
    (done,) = events(env, "exchange")
    (rejected,) = events(env, "exchange_rejected")
    assert (done.seat, rejected.seat) == (winner, loser)
    assert env.engine.hands[winner][0] == center0
    assert env.engine.hands[loser] == before[loser]
    assert env.engine.center[0] == before[winner][0]


def test_q9_public_events_are_reported_in_resolution_order():
    """Q9: after the tick its events are reported in resolution order (and the order is then public)."""
    env = make_env(4)
    play(env)
    acts = {s: act(env, K.EXCHANGE, (s, s)) for s in range(4)}
    obs, *_ = step(env, acts, order=(3, 1, 0, 2))
    assert [e.seat for e in events(env, "exchange")] == [3, 1, 0, 2]
    view = obs["player_1"]  # seat[r] is seat (1 + r) % 4
    assert [int(field(env, view, f"seat[{(s - 1) % 4}].order")[0]) for s in range(4)] == [3, 2, 4, 1]


def test_q9_random_order_is_a_fresh_permutation_each_tick():
    """Q9: the in-tick order is a fresh random permutation of the seats, drawn every tick."""
    env = make_env(6)
    play(env)
    orders = set()
    for _ in range(20):
        step(env)
        assert sorted(env.last_tick.order) == list(range(6))
        orders.add(env.last_tick.order)
    assert len(orders) >= 15


def test_q9_every_live_agent_must_submit_an_action():
    """Q9: every player submits one action per tick (the no-op included)."""
    env = make_env(4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_2"):
        env.step({"player_0": 0, "player_1": 0, "player_3": 0})


ALMOST_QUARTET = (
    [["K", "Q", "J", "10"], ["K", "Q", "J", "10"], ["A", "A", "A", "K"], ["Q", "J", "10", "Q"]],
    ["A", "K", "J", "10"],
)


@pytest.mark.parametrize(
    ("order", "correct", "exchanged"), [((2, 0, 1, 3), True, True), ((0, 2, 1, 3), False, False)]
)
def test_q9_each_action_sees_the_state_left_by_the_earlier_ones(order, correct, exchanged):
    """Q9: the partner completes a quartet earlier in the tick → the «Quatro» later in the tick is right;
    in the other order the call comes first (false) and the exchange is moot (Q10)."""
    env = make_env(4)
    play(env, *ALMOST_QUARTET)
    step(env, {2: act(env, K.EXCHANGE, (3, 0)), 0: act(env, K.QUATRO)}, order=order)
    (call,) = events(env, "call")
    assert call.data["correct"] is correct
    assert bool(events(env, "exchange")) is exchanged
    assert env.engine.scores == ([1, 0] if correct else [0, 1])


def test_q9_masks_judged_at_tick_start_second_proposal_is_moot():
    """Q9: two proposals in one tick are both legal at the start; the later one does nothing, silently."""
    env = make_env(4)
    play(env)
    propose = act(env, K.PROPOSE_RESHUFFLE)
    step(env, {0: propose, 2: propose}, order=(2, 1, 0, 3))
    (proposed,) = events(env, "vote_proposed")
    assert proposed.seat == 2
    assert env.engine.vote.proposer == 2
    assert env.engine.vote.voters == frozenset({0, 1, 3})
    assert [e.seat for e in events(env) if e.seat == 0] == []


def test_q9_answer_after_the_vote_ended_in_the_same_tick_is_moot():
    """Q9: a «yes» resolved after a «no» of the same tick does nothing and is not reported."""
    env = make_env(4)
    play(env)
    step(env, {0: act(env, K.PROPOSE_RESHUFFLE)})
    step(env, {1: act(env, K.VOTE_NO), 2: act(env, K.VOTE_YES)}, order=(1, 2, 0, 3))
    assert [(e.kind, e.seat) for e in events(env) if e.kind.startswith("vote")] == [
        ("vote_answer", 1),
        ("vote_failed", None),
    ]
    assert env.engine.vote is None


def test_q9_same_action_from_a_disconnected_seat_is_illegal_not_moot():
    """Q9/Q23: legality is judged per seat at the tick's start (a disconnected seat may only no-op)."""
    env = make_env(4)
    play(env)
    env.force_connection(3, False)
    with pytest.raises(IllegalActionError):
        step(env, {3: act(env, K.TAKE_FLOOR)})


# ---------------------------------------------------------------- Q10 round end
def test_q10_first_call_ends_the_round_and_later_actions_do_nothing():
    """Q10: the round ends at the first call; later actions of the tick's order do nothing."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center)
    center_before = list(env.engine.center)
    hand3 = list(env.engine.hands[3])
    step(
        env,
        {0: act(env, K.QUATRO), 1: act(env, K.CONTRA, 1), 3: act(env, K.EXCHANGE, (0, 0))},
        order=(0, 1, 3, 2),
    )
    calls = events(env, "call")
    assert [(c.seat, c.data["kind"], c.data["correct"]) for c in calls] == [(0, "quatro", True)]
    assert env.engine.scores == [1, 0]
    assert not events(env, "exchange") and not events(env, "exchange_rejected")
    assert env.engine.center == center_before
    assert env.engine.hands[3] == hand3
    assert env.engine.phase == Phase.PAUSE


def test_q10_a_contra_first_in_the_order_wins_the_tick():
    """Q10: whichever call is first in the order ends the round (here a correct «Contra» by seat 1)."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center)
    step(env, {0: act(env, K.QUATRO), 1: act(env, K.CONTRA, 1)}, order=(1, 0, 2, 3))
    (call,) = events(env, "call")
    assert (call.seat, call.data["kind"], call.data["target_team"], call.data["correct"]) == (
        1,
        "contra",
        0,
        True,
    )
    assert env.engine.scores == [0, 1]


def test_q10_reveal_shows_every_hand_and_every_quartet():
    """Q10: after the call all hands are shown face up and every quartet is shown."""
    env = make_env(4)
    hands, center = quartet_position(4, (1, 3))
    play(env, hands, center)
    true_hands = [list(h) for h in env.engine.hands]
    obs, *_ = step(env, {0: act(env, K.QUATRO)})
    (reveal,) = events(env, "reveal")
    assert reveal.public
    assert reveal.data["hands"] == true_hands
    assert reveal.data["quartets"] == (1, 3)
    kinds_ = kinds(env)
    assert kinds_.index("call") < kinds_.index("reveal")
    for a in env.agents:  # every observer sees every hand
        me = env.agent_seat[a]
        for seat in range(4):
            shown = field(env, obs[a], f"seat[{(seat - me) % 4}].revealed_hand").reshape(4, 5)
            assert shown.argmax(axis=1).tolist() == hands[seat]
            assert shown.sum() == 4


def test_q10_blank_round_after_180_seconds_scores_nothing_and_is_revealed():
    """Q10: nobody calls within 180 s of play: a blank round, nobody scores; [decision] it is revealed."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center, scores=[2, 3])
    t0 = env.engine.tick
    idle(env, 359)
    assert env.engine.phase == Phase.PLAY
    obs, rewards, *_ = step(env)
    assert env.engine.tick - 1 == t0 + 359
    (blank,) = events(env, "blank_round")
    assert blank.data["scoring_teams"] == ()
    assert env.engine.scores == [2, 3]
    assert set(rewards.values()) == {0.0}
    (reveal,) = events(env, "reveal")
    assert reveal.data["quartets"] == (2,)
    assert env.engine.phase == Phase.PAUSE
    assert field(env, obs["player_0"], "table.last_call").tolist() == [0, 0, 1]
    for a in env.agents:  # the observation shows the hands too, not only the event (a mutation that
        me = env.agent_seat[a]  # revealed only called rounds passed the event checks above)
        for seat in range(4):
            shown = field(env, obs[a], f"seat[{(seat - me) % 4}].revealed_hand").reshape(4, 5)
            assert shown.argmax(axis=1).tolist() == hands[seat] and shown.sum() == 4


def test_q10_a_call_ends_the_clock_pulses_vote_and_floors_at_once():
    """Q10 [decision]: the call cancels the open vote (no result), releases the floors, stops the pulses."""
    env = make_env(4)
    play(env)
    step(env, {1: act(env, K.TAKE_FLOOR), 3: act(env, K.PROPOSE_RESHUFFLE)})
    step(env, {1: act(env, K.SHOW_EMOJI, 5), 2: act(env, K.VOTE_YES)})
    assert events(env, "pulse")
    obs, *_ = step(env, {0: act(env, K.CONTRA, 1), 1: act(env, K.SHOW_EMOJI, 6)}, order=(0, 1, 2, 3))
    assert [e.kind for e in events(env)] == ["call", "vote_cancelled", "floor_released", "reveal"]
    (released,) = events(env, "floor_released")
    assert (released.seat, released.data["reason"], released.public) == (1, "round_over", True)
    assert env.engine.vote is None
    assert env.engine.floor == [False] * 4
    assert not env.engine.reshuffled_this_round
    for _ in range(12):
        step(env)
        assert not events(env, "pulse")
        assert not events(env, "vote_failed")


# ---------------------------------------------------------------- Q11 pause
def _end_round(env, caller=0):
    return step(env, {caller: act(env, K.CONTRA, 1)})


def test_q11_pause_lasts_30_seconds_then_the_sign_phase_starts():
    """Q11: a 30 s pause (60 ticks) precedes the next round; revealed hands stay visible during it."""
    env = make_env(4)
    play(env)
    _end_round(env)
    assert env.engine.phase == Phase.PAUSE
    t = env.engine.tick  # the pause's first tick
    assert (env.engine.phase_start, env.engine.phase_end) == (t, t + 59)
    for _ in range(59):
        obs, *_ = step(env)
        assert env.engine.phase == Phase.PAUSE
        assert field(env, obs["player_1"], "seat[1].revealed_hand").sum() == 4
    obs, *_ = step(env)
    assert env.engine.phase == Phase.SIGN
    assert events(env, "sign_phase_started")[0].data["round"] == 2
    assert field(env, obs["player_1"], "seat[1].revealed_hand").sum() == 0
    assert field(env, obs["player_1"], "self.hand").sum() == 0


def test_q11_host_may_start_the_next_round_early():
    """Q11 [decision]: the host (seat 0) may start the next round; that starts the next sign phase."""
    env = make_env(4)
    play(env)
    obs, *_ = _end_round(env, caller=1)
    start = act(env, K.START_ROUND)
    assert obs["player_0"]["action_mask"][start] == 1
    for seat in (1, 2, 3):
        assert obs[f"player_{seat}"]["action_mask"][start] == 0
        assert "host" in env.engine.illegal_reason(seat, start)
    with pytest.raises(IllegalActionError, match="player_1"):
        step(env, {1: start})
    step(env, {0: start})
    assert env.engine.phase == Phase.SIGN
    assert [e.kind for e in events(env)] == ["start_requested", "sign_phase_started"]
    assert env.engine.phase_end == env.engine.tick + 59


def test_q11_start_is_only_legal_during_the_pause():
    """Q11: the host cannot «start the next round» during play or during the sign phase."""
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    start = act(env, K.START_ROUND)
    assert obs["player_0"]["action_mask"][start] == 0
    obs, *_ = play(env)
    assert obs["player_0"]["action_mask"][start] == 0


def test_q11_disconnected_host_cannot_start_the_round():
    """Q11: a disconnected host cannot start the next round; the pause then runs its full 30 s."""
    env = make_env(4)
    play(env)
    _end_round(env, caller=1)
    obs = env.force_connection(0, False)
    start = act(env, K.START_ROUND)
    assert obs["player_0"]["action_mask"].tolist() == [1] + [0] * (env.codec.num_actions - 1)
    with pytest.raises(IllegalActionError, match="player_0"):
        step(env, {0: start})
    idle(env, 59)
    assert env.engine.phase == Phase.PAUSE
    step(env)
    assert env.engine.phase == Phase.SIGN


def test_q11_floors_cooldowns_votes_and_allowances_are_cleared_between_rounds():
    """Q11 [decision]: between rounds floors are released, cooldowns, votes and the Q21 allowances cleared."""
    env = make_env(4, exchange_cooldown_seconds=100, floor_cooldown_seconds=100, vote_interval_seconds=100)
    play(env)
    step(env, {0: act(env, K.EXCHANGE, (0, 0)), 1: act(env, K.TAKE_FLOOR), 3: act(env, K.PROPOSE_RESHUFFLE)})
    assert env.engine.vote is not None
    _end_round(env, caller=2)
    step(env, {0: act(env, K.START_ROUND)})
    obs, *_ = step(env, ready_all(env))
    assert env.engine.phase == Phase.PLAY
    masks = {s: obs[f"player_{s}"]["action_mask"] for s in range(4)}
    assert masks[0][act(env, K.EXCHANGE, (0, 0))] == 1
    assert masks[1][act(env, K.TAKE_FLOOR)] == 1
    assert masks[1][act(env, K.RELEASE_FLOOR)] == 0
    assert masks[3][act(env, K.PROPOSE_RESHUFFLE)] == 1
    assert env.engine.floor == [False] * 4
    assert env.engine.vote is None
    for seat in range(4):
        view = obs[f"player_{seat}"]
        assert field(env, view, "table.vote_open")[0] == 0
        assert field(env, view, "table.proposal_wait")[0] == 0
        assert field(env, view, "seat[0].exchange_wait")[0] == 0
        assert field(env, view, "seat[0].floor_wait")[0] == 0


def test_q11_reshuffle_allowance_starts_afresh_next_round():
    """Q11/Q21: the one-reshuffle-per-round allowance is restored in the next round."""
    env = make_env(4, bot_seats=(1, 2, 3))
    play(env)
    step(env, {0: act(env, K.PROPOSE_RESHUFFLE)})  # no eligible voter: passes at once
    assert events(env, "reshuffle")
    assert "one reshuffle per round" in env.engine.illegal_reason(0, act(env, K.PROPOSE_RESHUFFLE))
    step(env, {0: act(env, K.CONTRA, 1)})
    step(env, {0: act(env, K.START_ROUND)})
    obs, *_ = step(env, {0: act(env, K.READY)})
    assert env.engine.phase == Phase.PLAY
    assert obs["player_0"]["action_mask"][act(env, K.PROPOSE_RESHUFFLE)] == 1


def test_q11_reminder_is_cleared_when_the_round_ends():
    """Q11 [decision]: between rounds every reminder is cleared: no reminder flag in the pause."""
    env = make_env(4)
    hands, center = quartet_position(4, (0,))
    play(env, hands, center)
    obs, *_ = step(env, {0: act(env, K.QUATRO), 1: act(env, K.CONTRA, 1)}, order=(0, 1, 2, 3))
    assert events(env, "quatro_held_back")
    assert env.engine.phase == Phase.PAUSE
    assert field(env, obs["player_0"], "self.reminder")[0] == 0
    assert field(env, obs["player_0"], "self.reminder_left")[0] == 0


def test_q11_no_pause_and_no_further_round_after_the_match_ends():
    """Q11/Q24: the match ends at 5 points: no pause, no further round, ``step`` refused."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center, scores=[4, 2])
    _, _, terminations, truncations, _ = step(env, {0: act(env, K.QUATRO)})
    assert env.engine.phase == Phase.OVER
    assert events(env, "match_over")[0].data == {"winners": (0,), "scores": [5, 2]}
    assert all(terminations.values()) and not any(truncations.values())
    assert env.agents == []
    with pytest.raises(GameOverError):
        env.engine.step([0] * 4)
