"""Errors, determinism and test control (rules Q29, Q30, Q31)."""

from __future__ import annotations

import numpy as np
import pytest

import quatro_env
from quatro_env.quatro import GameOverError, IllegalActionError, Phase

from .helpers import (
    K,
    act,
    deal_ids,
    events,
    field,
    idle,
    make_env,
    neutral_position,
    no_triple_deal,
    play,
    step,
    values,
)


# ---------------------------------------------------------------- Q29 errors
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("num_players", 5),
        ("tick_seconds", -1.0),
        ("points_to_win", 0),
        ("own_quartet_guard", "maybe"),
        ("reveal_signs", "sometimes"),
        ("bot_seats", (4,)),
        ("bot_seats", (1, 1)),
        ("bot_seats", (0, 1, 2, 3)),
        ("bot_policy", "genius"),
        ("disconnect_prob", 1.0),
        ("reconnect_prob", 1.5),
        ("disconnect_schedule", ((0, 9, False),)),
        ("episode", "game"),
        ("reward_mode", "elo"),
        ("max_rounds", 0),
        ("illegal_action", "ignore"),
        ("colour", "blue"),
    ],
)
def test_q29_bad_configuration_raises_value_error_naming_the_field(name, value):
    """Q29: a bad configuration raises ``ValueError`` naming the field."""
    with pytest.raises(ValueError, match=name):
        quatro_env.parallel_env(**{"num_players": 4, name: value})


def test_q29_bad_render_mode_is_named():
    """Q29: an unknown render mode is a ``ValueError`` naming ``render_mode``."""
    with pytest.raises(ValueError, match="render_mode"):
        quatro_env.parallel_env(render_mode="svg")


def test_q29_illegal_action_raises_naming_agent_action_and_reason():
    """Q29: an illegal action raises a clear error naming the agent, the action and the reason."""
    env = make_env(4)
    env.reset(seed=0)
    ex = act(env, K.EXCHANGE, (2, 1))
    with pytest.raises(IllegalActionError) as info:
        step(env, {1: ex})
    message = str(info.value)
    assert "player_1" in message
    assert str(ex) in message and "exchange(hand slot 2, center slot 1)" in message
    assert "only while a round is played" in message
    assert info.value.seat == 1 and info.value.action == ex
    assert isinstance(info.value, ValueError)
    assert env.engine.tick == 0  # nothing was played


@pytest.mark.parametrize("past_the_end", [999, 0, -1])
def test_q29_out_of_range_action_raises_naming_agent(past_the_end):
    """Q29: an index outside the action space is illegal too (0: the first index past it), described as
    "?"; an agent the table does not have is refused by name. Nothing is played."""
    env = make_env(4)
    env.reset(seed=0)
    bad = env.codec.num_actions + past_the_end if past_the_end >= 0 else -1
    with pytest.raises(IllegalActionError, match="player_2") as info:
        step(env, {2: bad})
    assert (info.value.seat, info.value.action, info.value.description) == (2, bad, "?")
    with pytest.raises(ValueError, match=r"missing \[\], unknown \['player_9'\]$"):
        env.step({**dict.fromkeys(env.agents, 0), "player_9": 0})
    assert env.engine.tick == 0


def test_q29_the_engine_itself_refuses_an_illegal_action_with_its_fields():
    """Q29 at the engine (the batched engine's reference; the ParallelEnv checks before it): an illegal
    action, or an index just outside the action space, raises before anything is played, with the seat,
    the action, its description and the reason; numpy integers are actions like ints."""
    env = make_env(4)
    env.reset(seed=0)
    engine, last = env.engine, env.codec.num_actions - 1
    ex = act(env, K.EXCHANGE, (2, 1))
    with pytest.raises(IllegalActionError) as info:
        engine.step([0, ex, 0, 0])
    err = info.value
    assert (err.seat, err.action) == (1, ex)
    assert err.reason == "exchanges happen only while a round is played (Q12)"
    assert err.description == "exchange(hand slot 2, center slot 1)"
    for bad in (last + 1, -1):
        with pytest.raises(IllegalActionError) as info:
            engine.step([0, 0, bad, 0])
        err = info.value
        assert (err.seat, err.action, err.description) == (2, bad, "?")
        assert err.reason == f"action index outside 0..{last}"
    assert engine.tick == 0
    ready = act(env, K.READY)
    engine.step([np.int64(ready), np.int32(0), np.uint8(0), 0])
    assert engine.tick == 1 and engine.ready[0]
    with pytest.raises(ValueError, match="seat 1 action"):
        engine.step([0, 1.0, 0, 0])
    with pytest.raises(ValueError, match=r"step needs one action per seat \(4\), got 3"):
        engine.step([0, 0, 0])
    engine.phase = Phase.OVER  # a finished match
    with pytest.raises(GameOverError, match=r"the match is over: call reset\(\) before step\(\) \(Q29\)"):
        engine.step([0, 0, 0, 0])


def test_q29_non_integer_action_raises():
    """Q29: an action is an int index."""
    env = make_env(4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_0"):
        env.step({"player_0": "ready", "player_1": 0, "player_2": 0, "player_3": 0})


def test_q29_illegal_action_noop_mode_flags_it_in_infos():
    """Q29: with ``illegal_action="noop"`` an illegal action becomes a no-op flagged in the agent's info."""
    env = make_env(4, illegal_action="noop")
    env.reset(seed=0)
    _, _, _, _, infos = step(env, {1: act(env, K.QUATRO), 2: act(env, K.READY)})
    assert infos["player_1"]["illegal_action"] is True
    assert [infos[f"player_{s}"]["illegal_action"] for s in (0, 2, 3)] == [False, False, False]
    assert [(e.kind, e.seat) for e in events(env)] == [("ready", 2)]
    assert env.engine.phase == Phase.SIGN and env.engine.scores == [0, 0]
    _, _, _, _, infos = step(env)
    assert infos["player_1"]["illegal_action"] is False


def test_q29_step_after_the_match_ended_raises_until_reset():
    """Q29: a finished match refuses ``step`` until ``reset``."""
    env = make_env(4, points_to_win=1)
    play(env)
    step(env, {0: act(env, K.CONTRA, 1)})
    assert env.agents == []
    with pytest.raises(GameOverError, match=r"^the episode is over: call reset\(\) before step\(\) \(Q29\)$"):
        env.step({})
    with pytest.raises(GameOverError):
        env.step({a: 0 for a in env.possible_agents})
    env.reset(seed=1)
    step(env)
    assert env.engine.tick == 1


# ---------------------------------------------------------------- Q30 determinism
def _trajectory(n, seed, ticks, **config):
    env = make_env(n, **config)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(1234)
    out = []
    for _ in range(ticks):
        if not env.agents:
            obs, _ = env.reset()
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rewards, term, trunc, infos = env.step(actions)
        tick = env.last_tick
        out.append(
            (
                tick.order,
                [(e.kind, e.seat, repr(e.data), e.visible_to) for e in tick.events],
                {a: o["observation"].tobytes() + o["action_mask"].tobytes() for a, o in obs.items()},
                rewards,
                [list(h) for h in env.engine.hands],
                list(env.engine.team_sign),
            )
        )
    return out


@pytest.mark.parametrize("n", [4, 6, 8])
def test_q30_same_seed_and_actions_give_the_same_trajectory(n):
    """Q30: deals, orders, random signs, disconnections and bots come from the seeded RNG."""
    config = dict(disconnect_prob=0.02, reconnect_prob=0.3, bot_seats=(1,), bot_policy="random_caller")
    a = _trajectory(n, 42, 250, **config)
    b = _trajectory(n, 42, 250, **config)
    assert a == b
    c = _trajectory(n, 43, 250, **config)
    assert c != a


def test_q30_reset_with_the_same_seed_replays_the_same_deal_and_orders():
    """Q30: ``reset(seed)`` twice on one environment gives the same trajectory."""
    env = make_env(6)
    runs = []
    for _ in range(2):
        env.reset(seed=9)
        ready = {s: act(env, K.READY) for s in range(6)}
        step(env, ready)
        orders = [env.last_tick.order]
        for _ in range(5):
            step(env)
            orders.append(env.last_tick.order)
        runs.append(
            ([list(h) for h in env.engine.hands], list(env.engine.center), env.engine.team_sign, orders)
        )
    assert runs[0] == runs[1]


# ---------------------------------------------------------------- Q31 test control
def test_q31_scripted_position_sets_hands_center_signs_scores_phase_and_clock():
    """Q31: ``reset(options={"position": ...})`` starts from a scripted position."""
    env = make_env(4)
    hands = [["A", "A", "K", "Q"], ["K", "K", "J", "10"], [1, 2, 3, 4], ["10", "J", "Q", "A"]]
    center = ["A", "Q", "J", "10"]
    obs, _ = env.reset(
        seed=0,
        options={
            "position": {
                "phase": "play",
                "hands": hands,
                "center": center,
                "signs": ["🚀", 20],
                "scores": [2, 4],
                "ticks_left": 7,
            }
        },
    )
    engine = env.engine
    assert engine.phase == Phase.PLAY
    assert [values(h) for h in engine.hands] == [[0, 0, 1, 2], [1, 1, 3, 4], [1, 2, 3, 4], [4, 3, 2, 0]]
    assert values(engine.center) == [0, 2, 3, 4]
    assert engine.team_sign == [1, 20]
    assert engine.scores == [2, 4]
    assert field(env, obs["player_0"], "table.phase_left")[0] == 7
    idle(env, 7)
    assert events(env, "blank_round")


def test_q31_scripted_pause_and_sign_positions():
    """Q31: a scripted position may start in the pause (revealed hands) or the sign phase (ready flags)."""
    env = make_env(4)
    obs, _ = env.reset(seed=0, options={"position": {"phase": "sign", "ready": [True, True, False, False]}})
    assert env.engine.phase == Phase.SIGN and env.engine.ready == [True, True, False, False]
    step(env, {2: act(env, K.READY), 3: act(env, K.READY)})
    assert env.engine.phase == Phase.PLAY
    obs, _ = play(env, phase="pause")
    assert env.engine.phase == Phase.PAUSE
    assert field(env, obs["player_0"], "seat[2].revealed_hand").sum() == 4
    assert obs["player_0"]["action_mask"][act(env, K.START_ROUND)] == 1


@pytest.mark.parametrize(
    ("position", "match"),
    [
        ({"phase": "play", "hands": [["A"] * 4] * 4, "center": ["K"] * 4}, "four times"),
        ({"phase": "sign", "hands": [["A", "K", "Q", "J"]] * 4, "center": ["10"] * 4}, "sign phase"),
        ({"phase": "play"}, "hands"),
        ({"phase": "over"}, "phase"),
        ({"scores": [5, 0]}, "scores"),
        ({"signs": ["🦄", None]}, "signs"),
        ({"hand": []}, "unknown key"),
    ],
)
def test_q31_invalid_scripted_positions_raise(position, match):
    """Q31: a scripted position is validated (every card exactly once, etc.)."""
    env = make_env(4)
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options={"position": position})


def test_q31_force_next_deal_and_order():
    """Q31: force the card order of the next deal and the in-tick order of the next tick only."""
    env = make_env(4)
    deal = no_triple_deal(4)
    env.reset(seed=0, options={"deal": deal, "order": [3, 2, 1, 0]})
    step(env, {s: act(env, K.READY) for s in range(4)})
    assert env.last_tick.order == (3, 2, 1, 0)
    assert [e.seat for e in events(env, "ready")] == [3, 2, 1, 0]
    assert env.engine.hands[0] == deal[:4] and env.engine.center == deal[16:]
    orders = set()
    for _ in range(8):
        step(env)
        orders.add(env.last_tick.order)
    assert len(orders) > 1  # the forced order applied to one tick only
    with pytest.raises(ValueError, match="permutation"):
        env.engine.force_next_order([0, 0, 1, 2])
    with pytest.raises(ValueError, match="permutation"):
        env.engine.force_next_deal(deal[:-1])
    with pytest.raises(ValueError, match="permutation"):
        env.reset(seed=0, options={"order": [0, 1, 2]})


def test_q31_forced_deal_is_dealt_before_the_q5_check():
    """Q31/Q5: a forced deal goes through the Q5 replacement like any deal."""
    env = make_env(4)
    hands = [["A", "K", "Q", "J"], ["10", "10", "10", "A"], ["K", "Q", "J", "A"], ["K", "Q", "J", "10"]]
    deal = deal_ids(hands, ["A", "K", "Q", "J"], 4)
    env.reset(seed=0, options={"deal": deal})
    step(env, {s: act(env, K.READY) for s in range(4)})
    assert events(env, "hands_replaced")[0].data["seats"] == (1,)


def test_q31_force_connection_and_set_connected():
    """Q31: force a disconnect or reconnect between ticks; unknown seats are refused."""
    env = make_env(4)
    play(env)
    obs = env.force_connection(2, False)
    assert env.engine.connected == [True, True, False, True]
    assert obs["player_2"]["action_mask"].sum() == 1
    env.engine.set_connected(2, True)
    assert env.engine.connected[2] is True
    for seat in (4, 7, -1):  # 4: the first seat past the table
        with pytest.raises(ValueError, match=f"seat {seat} is outside 0..3"):
            env.engine.set_connected(seat, False)


def test_q31_drive_bot_plays_the_given_action_once():
    """Q31: ``drive_bot`` makes a bot seat play an action next tick (once)."""
    env = make_env(4, bot_seats=(1, 3))
    play(env)
    env.drive_bot(3, act(env, K.TAKE_FLOOR))
    step(env)
    assert [(e.kind, e.seat) for e in events(env)] == [("floor_taken", 3)]
    step(env)
    assert events(env) == []
    with pytest.raises(ValueError, match="not a bot seat"):
        env.drive_bot(0, 0)


def test_q31_silence_bots_makes_them_noop():
    """Q31: silenced bots play only the no-op; unsilenced they act again."""
    env = make_env(4, bot_seats=(1, 2, 3), bot_policy="random")
    play(env)
    env.silence_bots()
    for _ in range(30):
        step(env)
        assert not [e for e in events(env) if e.seat in (1, 2, 3)]
    env.silence_bots(False)
    acted = 0
    for _ in range(30):
        step(env)
        acted += len([e for e in events(env) if e.seat in (1, 2, 3)])
    assert acted > 0


def test_q31_each_ticks_events_are_readable_with_who_saw_them():
    """Q31: each tick's events (with ``visible_to``) are in ``last_tick.events``; infos hold each share."""
    env = make_env(4)
    env.reset(seed=0)
    _, _, _, _, infos = step(env, {0: act(env, K.CHOOSE_SIGN, 4), 1: act(env, K.READY)})
    all_events = env.last_tick.events
    assert {e.kind for e in all_events} == {"sign_fixed", "ready"}
    for a, seat in env.agent_seat.items():
        assert infos[a]["events"] == [e for e in all_events if e.visible_to is None or seat in e.visible_to]
    assert [e.kind for e in infos["player_1"]["events"]] == ["ready"]
    assert sorted(e.kind for e in infos["player_2"]["events"]) == ["ready", "sign_fixed"]
    (fixed,) = [e for e in all_events if e.kind == "sign_fixed"]
    assert (fixed.seat, fixed.data, fixed.visible_to) == (0, {"team": 0, "sign": 4}, frozenset({0, 2}))


@pytest.mark.parametrize("phase", ["sign", "play", "pause"])
def test_decision_17_ticks_left_lies_within_the_phase(phase):
    """Decision 17: ``ticks_left`` is 1..the phase's full length; -5 no longer wraps to 251."""
    env = make_env(4)
    length = {"sign": 60, "play": 360, "pause": 60}[phase]
    extra = {} if phase == "sign" else dict(zip(("hands", "center"), neutral_position(4), strict=True))
    for ticks in (1, length):
        env.reset(seed=0, options={"position": {"phase": phase, "ticks_left": ticks, **extra}})
        assert env.engine.phase_end - env.engine.tick + 1 == ticks
    for ticks in (0, -5, length + 1, 2.0, True):
        with pytest.raises(ValueError, match="ticks_left"):
            env.reset(seed=0, options={"position": {"phase": phase, "ticks_left": ticks, **extra}})


def test_decision_17_deal_and_order_none_mean_not_given():
    env = make_env(4)
    env.reset(seed=0, options={"deal": None, "order": None})
    twin = make_env(4)
    twin.reset(seed=0)
    assert env.engine.hands == twin.engine.hands and env.engine._forced_order is None
