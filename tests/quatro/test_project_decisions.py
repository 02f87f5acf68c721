"""Project decisions of docs/quatro.md ("Decisions added by the project") that no other test pins,
and the rules file's own [decision] on what the center may hold (Q5)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.quatro import Phase

from .helpers import K, act, deal_ids, events, field, idle, kinds, make_env, play, step


def ready(env):
    return act(env, K.READY)


def shown(env, obs, observer, seat):
    """(emoji index or None, age) of ``seat``'s last pulse as ``observer`` sees it."""
    rel = (seat - observer) % env.n
    view = obs[f"player_{observer}"]
    em = np.flatnonzero(field(env, view, f"seat[{rel}].pulse_emoji")).tolist()
    return (em[0] if em else None), int(field(env, view, f"seat[{rel}].pulse_age")[0])


# ---------------------------------------------------------------- decision 3: reconnection in the sign phase
def test_decision_3_a_seat_that_reconnects_in_the_sign_phase_is_waited_for():
    """Q8/Q23, project decision 3: a seat that reconnects during the sign phase is waited for: the
    round does not start while it is connected and not ready, even if everyone else is ready."""
    env = make_env(4)
    env.reset(seed=0)
    env.force_connection(3, False)
    step(env, {0: ready(env), 1: ready(env)})  # tick 0: seat 3 is away
    obs = env.force_connection(3, True)
    assert field(env, obs["player_0"], "seat[3].ready")[0] == 0
    step(env, {2: ready(env)})  # every seat ready but the one that came back
    assert env.engine.phase == Phase.SIGN
    assert "round_started" not in kinds(env)
    obs, *_ = idle(env, 3)
    assert env.engine.phase == Phase.SIGN
    assert obs["player_3"]["action_mask"][ready(env)] == 1
    step(env, {3: ready(env)})
    assert env.engine.phase == Phase.PLAY
    assert kinds(env)[-1] == "round_started"


def test_decision_3_a_reconnected_seat_that_never_confirms_is_waited_for_until_the_phase_times_out():
    """Q8/Q23, project decision 3: the wait for a reconnected seat ends when the sign phase times
    out (30 s = 60 ticks), not before."""
    env = make_env(4)
    env.reset(seed=0)
    env.force_connection(3, False)
    step(env, {0: ready(env), 1: ready(env)})  # tick 0
    env.force_connection(3, True)
    step(env, {2: ready(env)})  # tick 1
    idle(env, 57)  # ticks 2..58
    assert env.engine.phase == Phase.SIGN
    step(env)  # tick 59, the sign phase's last
    assert env.engine.phase == Phase.PLAY
    assert env.engine.ready[3] is False
    assert env.engine.tick == 60


def test_decision_3_a_bot_seat_that_reconnects_in_the_sign_phase_is_ready_at_once():
    """Q8/Q22, project decision 3: a bot seat absent when the sign phase began is not ready; once it
    reconnects it is ready at once (shown at once), and the round starts without waiting for it
    (the idle bot never confirms by itself)."""
    env = make_env(4, bot_seats=(3,))
    env.reset(seed=0, options={"position": {"phase": "sign", "connected": [True] * 3 + [False]}})
    assert env.engine.ready == [False, False, False, False]
    step(env, {0: ready(env)})
    obs = env.force_connection(3, True)
    assert env.engine.ready[3] is True
    assert field(env, obs["player_0"], "seat[3].ready")[0] == 1
    step(env, {1: ready(env), 2: ready(env)})
    assert env.engine.phase == Phase.PLAY


# ---------------------------------------------------------------- decision 7: disconnection, floor cooldown
def test_decision_7_a_disconnection_releases_the_floor_without_starting_the_floor_cooldown():
    """Q17/Q23, project decision 7: a disconnection releases the floor but starts no floor cooldown:
    a seat whose cooldown had expired may take the floor again in the first tick after it
    reconnects. A voluntary release, by contrast, starts the 2 s cooldown."""
    env = make_env(4)
    play(env)
    take, release = act(env, K.TAKE_FLOOR), act(env, K.RELEASE_FLOOR)
    step(env, {1: take})
    idle(env, 5)  # the take's cooldown (4 ticks) has expired
    env.force_connection(1, False)
    assert env.engine.floor[1] is False
    obs = env.force_connection(1, True)
    assert obs["player_1"]["action_mask"][take] == 1
    assert field(env, obs["player_0"], "seat[1].floor_wait")[0] == 0
    step(env, {1: take})
    assert [(e.kind, e.seat) for e in events(env) if e.kind.startswith("floor")] == [
        ("floor_released", 1),  # the disconnection, reported with this tick
        ("floor_taken", 1),
    ]
    idle(env, 4)
    obs, *_ = step(env, {1: release})  # the voluntary release starts the cooldown
    assert obs["player_1"]["action_mask"][take] == 0
    assert field(env, obs["player_0"], "seat[1].floor_wait")[0] == 3


def test_decision_7_a_disconnection_neither_restarts_nor_clears_a_running_floor_cooldown():
    """Q17/Q23, project decision 7: a floor cooldown running at the disconnection persists unchanged:
    the take at t still frees the next gesture at t+4, not later (no cooldown from the disconnection)."""
    env = make_env(4)
    play(env)
    take = act(env, K.TAKE_FLOOR)
    t = env.engine.tick
    step(env, {1: take})
    idle(env, 1)  # tick t+1
    env.force_connection(1, False)
    obs = env.force_connection(1, True)
    while env.engine.tick < t + 4:
        assert obs["player_1"]["action_mask"][take] == 0
        obs, *_ = step(env)
    assert obs["player_1"]["action_mask"][take] == 1  # tick t+4


# ---------------------------------------------------------------- decision 11: a bot host
def _bot_host_pause(env):
    play(env, order=(1, 0, 2, 3))
    step(env, {1: act(env, K.CONTRA, 1)})  # seat 1 ends the round first in the order
    assert env.engine.phase == Phase.PAUSE


def test_decision_11_a_driven_bot_host_starts_the_next_round_early():
    """Q11/Q22, project decision 11: the host (seat 0) may be a bot, and it can still start the next
    round during the pause: the next sign phase starts at once, not after 30 s."""
    env = make_env(4, bot_seats=(0,))
    _bot_host_pause(env)
    assert "player_0" not in env.agents
    idle(env, 2)
    assert env.engine.phase == Phase.PAUSE
    env.drive_bot(0, act(env, K.START_ROUND))
    obs, *_ = step(env)
    assert [(e.kind, e.seat) for e in events(env)] == [("start_requested", 0), ("sign_phase_started", None)]
    assert env.engine.phase == Phase.SIGN
    assert field(env, obs["player_1"], "table.phase")[int(Phase.SIGN)] == 1


def test_decision_11_a_scripted_bot_host_starts_the_next_round_by_itself():
    """Q11/Q22, project decision 11: a scripted bot in the host seat starts the next round on its own
    in the first tick of the pause (the default bots do so; nobody waits 30 s)."""
    env = make_env(4, bot_seats=(0,), bot_policy="collector")
    _bot_host_pause(env)
    step(env)
    assert ("start_requested", 0) in [(e.kind, e.seat) for e in events(env)]
    assert env.engine.phase == Phase.SIGN


# ---------------------------------------------------------------- decision 13: when connection draws happen
def _trajectory(env, seed, ticks, force=None):
    """Play ``ticks`` ticks of uniformly random legal actions (their own rng); ``force`` = (tick, seat)
    disconnects a seat just before that tick. Returns what each tick showed."""
    picker = np.random.default_rng(1234)
    obs, _ = env.reset(seed=seed)
    out = [(sorted((a, o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()),)]
    for t in range(ticks):
        if not env.agents:
            break
        if force is not None and t == force[0]:
            obs = env.force_connection(force[1], False)
        actions = {a: int(picker.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rewards, *_ = env.step(actions)
        out.append(
            (
                env.last_tick.order,
                list(env.last_tick.events),
                sorted((a, o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()),
                sorted(rewards.items()),
            )
        )
    return out


def test_decision_13_no_connection_draw_while_no_change_is_possible():
    """Q23/Q30, project decision 13: with ``disconnect_prob`` 0 and every seat connected no connection
    draw is made, so ``reconnect_prob`` > 0 leaves the random stream alone: observations, events and
    in-tick orders are those of the same seed with ``reconnect_prob`` 0."""
    for seed in (0, 3):
        without = _trajectory(make_env(4, reconnect_prob=0.0, points_to_win=99), seed, 150)
        with_p = _trajectory(make_env(4, reconnect_prob=0.5, points_to_win=99), seed, 150)
        assert len(without) == 151
        assert with_p == without, seed


def test_decision_13_a_disconnected_seat_makes_the_reconnection_draws_happen():
    """Q23/Q30, project decision 13: once a seat is disconnected (forced here) a reconnection draw is
    made at every boundary, even one that changes nothing: with a tiny ``reconnect_prob`` (the seat
    stays away) the random stream shifts, so the next in-tick orders differ from ``reconnect_prob`` 0."""
    force = (5, 2)
    without = _trajectory(make_env(4, reconnect_prob=0.0), 0, 12, force)
    tiny = make_env(4, reconnect_prob=1e-12)
    drawn = _trajectory(tiny, 0, 12, force)
    assert tiny.engine.connected[2] is False  # the draws never brought it back
    assert drawn[: force[0] + 1] == without[: force[0] + 1]  # identical up to the disconnection
    assert drawn[force[0] + 1][0] == without[force[0] + 1][0]  # that tick's order precedes the draw
    orders_without = [tick[0] for tick in without[force[0] + 2 :]]
    orders_drawn = [tick[0] for tick in drawn[force[0] + 2 :]]
    assert orders_drawn != orders_without


# ---------------------------------------------------------------- decision 14: the last pulse
def test_decision_14_the_last_pulse_stays_after_a_release_and_after_a_disconnection():
    """Q27/Q23, project decision 14: a seat's last pulse (emoji and age) stays in every observation
    after it releases the floor, and after a disconnection released it; no new pulse follows."""
    env = make_env(4)
    play(env)
    step(env, {1: act(env, K.TAKE_FLOOR), 2: act(env, K.TAKE_FLOOR)})
    obs, *_ = step(env, {1: act(env, K.SHOW_EMOJI, 5), 2: act(env, K.SHOW_EMOJI, 7)})  # both pulse
    assert shown(env, obs, 0, 1) == (5, 0) and shown(env, obs, 0, 2) == (7, 0)
    idle(env, 2)
    env.force_connection(2, False)
    obs, *_ = step(env, {1: act(env, K.RELEASE_FLOOR)})  # 3 ticks after the pulses
    assert env.engine.floor[1] is False and env.engine.floor[2] is False
    for observer in (0, 3):
        assert shown(env, obs, observer, 1) == (5, 3)
        assert shown(env, obs, observer, 2) == (7, 3)
    for age in range(4, 25):
        obs, *_ = step(env)
        assert not events(env, "pulse")
        assert shown(env, obs, 0, 1) == (5, age)
        assert shown(env, obs, 3, 2) == (7, age)


def test_decision_14_the_last_pulse_stays_through_the_pause_and_is_cleared_at_the_next_sign_phase():
    """Q27/Q11, project decision 14: the last pulse stays visible through the pause (the floor is
    released by the round's end) and is cleared when the next sign phase starts."""
    env = make_env(4)
    play(env)
    step(env, {3: act(env, K.TAKE_FLOOR)})
    step(env, {3: act(env, K.SHOW_EMOJI, 11)})
    obs, *_ = step(env, {0: act(env, K.CONTRA, 1)})  # ends the round, releases seat 3's floor
    assert env.engine.phase == Phase.PAUSE
    for age in range(1, 61):  # the whole pause: 60 ticks
        assert env.engine.phase == Phase.PAUSE
        assert not env.engine.floor[3]
        for observer in (0, 1, 2):
            assert shown(env, obs, observer, 3) == (11, age)
        obs, *_ = step(env)
    assert env.engine.phase == Phase.SIGN
    for observer in range(4):
        assert shown(env, obs, observer, 3) == (None, 255)


# ---------------------------------------------------------------- Q5: the center may hold anything
@pytest.mark.parametrize(
    ("hands", "center"),
    [
        ([["K", "Q", "J", "10"]] * 4, ["A", "A", "A", "A"]),
        (
            [["A", "K", "Q", "J"], ["K", "Q", "J", "10"], ["K", "Q", "J", "10"], ["Q", "J", "10", "10"]],
            ["A"] * 3 + ["K"],
        ),
    ],
    ids=["quartet-in-the-center", "triple-in-the-center"],
)
def test_q5_the_center_may_hold_anything(hands, center):
    """Q5 [decision]: the center may hold anything: a deal that puts a quartet or a triple in the center
    and no triple in any hand is kept as dealt (no re-split, no notice)."""
    env = make_env(4)
    deal = deal_ids(hands, center, 4)
    env.reset(seed=0, options={"deal": deal})
    obs, *_ = step(env, {s: ready(env) for s in range(4)})
    assert env.engine.phase == Phase.PLAY
    assert env.engine.center == deal[16:]
    assert env.engine.hands == [deal[4 * s : 4 * s + 4] for s in range(4)]
    assert not events(env, "hands_replaced")
    for a in env.agents:
        assert field(env, obs[a], "seat[0].hand_replaced").sum() == 0
    center_values = field(env, obs["player_0"], "table.center").reshape(4, 5).argmax(axis=1).tolist()
    assert center_values == [c // 4 for c in deal[16:]]


# ---------------------------------------------------------------- decision 2: the end of a tick
def test_decision_2_a_vote_deadline_on_the_rounds_last_tick_fails_before_the_blank_round():
    """Q10/Q20, project decision 2: the end-of-tick clock runs the vote deadline before the phase end:
    a vote whose deadline is the round's last tick, with nobody calling, is reported as failed at its
    deadline, then the blank round; it is not cancelled by the round's end."""
    env = make_env(4)
    play(env, ticks_left=41)  # ticks 0..40
    step(env, {0: act(env, K.PROPOSE_RESHUFFLE)})  # tick 0: deadline 0 + 40
    assert env.engine.vote.deadline == env.engine.phase_end == 40
    idle(env, 39)
    assert env.engine.phase == Phase.PLAY and env.engine.vote is not None
    obs, *_ = step(env)  # tick 40
    assert kinds(env) == ["vote_failed", "blank_round", "reveal"]
    assert events(env, "vote_failed")[0].data == {"reason": "deadline"}
    assert field(env, obs["player_2"], "table.vote_failed")[0] == 1
    assert env.engine.phase == Phase.PAUSE
