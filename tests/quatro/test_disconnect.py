"""Disconnected players (rule Q23, with Q6's "between ticks")."""

from __future__ import annotations

import pytest

from quatro_env.quatro import IllegalActionError, Phase

from .helpers import K, act, events, field, idle, kinds, make_env, play, quartet_position, step


def test_q23_disconnected_player_may_only_noop_and_keeps_seat_and_hand():
    """Q23: a disconnected player keeps seat and hand; only the no-op is legal; others see the connection."""
    env = make_env(4)
    play(env)
    hand = list(env.engine.hands[1])
    obs = env.force_connection(1, False)
    mask = obs["player_1"]["action_mask"]
    assert mask[0] == 1 and mask.sum() == 1
    assert "Q23" in env.engine.illegal_reason(1, act(env, K.EXCHANGE, (0, 0)))
    with pytest.raises(IllegalActionError, match="player_1"):
        step(env, {1: act(env, K.EXCHANGE, (0, 0))})
    obs, _, _, _, infos = step(env)
    assert "player_1" in env.agents
    assert env.engine.hands[1] == hand
    (ev,) = events(env, "disconnected")
    assert ev.public and ev.seat == 1
    for observer in range(4):
        assert field(env, obs[f"player_{observer}"], f"seat[{(1 - observer) % 4}].connected")[0] == 0
        assert field(env, obs[f"player_{observer}"], f"seat[{(2 - observer) % 4}].connected")[0] == 1


def test_q23_disconnection_releases_the_floor_publicly_at_once():
    """Q23 [decision]: a disconnection releases the floor at once (public): nothing in an absent name."""
    env = make_env(4)
    play(env)
    step(env, {1: act(env, K.TAKE_FLOOR)})
    step(env, {1: act(env, K.SHOW_EMOJI, 9)})
    obs = env.force_connection(1, False)
    assert env.engine.floor[1] is False and env.engine.emoji[1] is None
    assert field(env, obs["player_0"], "seat[1].floor")[0] == 0
    obs, *_ = step(env)
    assert kinds(env)[:2] == ["disconnected", "floor_released"]
    assert field(env, obs["player_0"], "seat[1].released_floor")[0] == 1
    assert field(env, obs["player_0"], "seat[1].order")[0] == 0  # not an action: no place in the order
    (rel,) = events(env, "floor_released")
    assert rel.public and rel.seat == 1 and rel.data["reason"] == "disconnected"
    for _ in range(12):
        step(env)
        assert not events(env, "pulse")
    env.force_connection(3, False)  # a seat without the floor: nothing to release
    step(env)
    assert [(e.kind, e.seat) for e in events(env)] == [("disconnected", 3)]


def test_q23_partner_may_still_call_quatro():
    """Q23: the partner of a disconnected player may still call «Quatro» on their hand."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center)
    env.force_connection(2, False)
    step(env, {0: act(env, K.QUATRO)})
    (call,) = events(env, "call")
    assert call.data["correct"] is True
    assert env.engine.scores == [1, 0]


def test_q23_sign_phase_does_not_wait_for_a_disconnected_player():
    """Q23/Q8: the round starts when every *connected* player is ready."""
    env = make_env(4)
    env.reset(seed=0)
    env.force_connection(3, False)
    step(env, {s: act(env, K.READY) for s in (0, 1, 2)})
    assert env.engine.phase == Phase.PLAY
    assert env.engine.ready[3] is False


def test_q23_round_still_ends_when_its_clock_runs_out():
    """Q23: the round still ends within its 180 s with disconnected players."""
    env = make_env(4)
    play(env, ticks_left=5)
    for seat in (1, 2, 3):
        env.force_connection(seat, False)
    idle(env, 5)
    assert events(env, "blank_round")
    assert env.engine.phase == Phase.PAUSE


def test_q23_schedule_applies_between_ticks():
    """Q23/Q6: a scheduled (tick, seat, connected) change happens just before that tick."""
    schedule = ((0, 2, False), (3, 1, False), (6, 1, True))
    env = make_env(4, disconnect_schedule=schedule, reconnect_prob=0.0)  # the schedule alone
    obs, infos = env.reset(seed=0)
    assert env.engine.connected == [True, True, False, True]
    assert [e.kind for e in infos["player_0"]["events"]] == ["disconnected"]
    idle(env, 2)
    assert env.engine.connected[1] is True
    obs, *_ = step(env)  # tick 2; seat 1 leaves before tick 3
    assert [(e.kind, e.seat) for e in events(env) if "connected" in e.kind] == [("disconnected", 1)]
    assert env.engine.connected[1] is False
    assert obs["player_1"]["action_mask"].sum() == 1
    idle(env, 3)  # ticks 3, 4, 5
    assert [(e.kind, e.seat) for e in events(env) if "connected" in e.kind] == [("reconnected", 1)]
    assert env.engine.connected[1] is True


@pytest.mark.parametrize(
    ("scheduled", "random_model"),
    [(False, dict(reconnect_prob=1.0)), (True, dict(disconnect_prob=0.9))],
    ids=["off-while-reconnect-is-certain", "on-while-disconnect-is-likely"],
)
def test_q23_a_scheduled_change_holds_for_its_tick_whatever_the_random_model_draws(scheduled, random_model):
    """Q23 [decision, project decisions 7 and 13]: a schedule entry (tick, seat, connected) holds during
    that tick; the random model, drawn at the same boundary, never undoes it (a seat changes at most
    once between two ticks, as under the random model alone). From the next boundary on the random
    model applies to the seat again."""
    for seed in range(20):
        env = make_env(4, disconnect_schedule=((3, 1, scheduled),), **random_model)
        env.reset(seed=seed)
        idle(env, 3)  # ticks 0-2; the schedule sets seat 1 before tick 3
        assert env.engine.connected[1] is scheduled, seed
        changes = [e.kind for e in events(env) if e.seat == 1 and "connected" in e.kind]
        assert changes in ([], ["reconnected" if scheduled else "disconnected"]), (seed, changes)
        if not scheduled:  # certain reconnection: seat 1 is back from tick 4
            step(env)
            assert env.engine.connected[1], seed


def test_q23_a_schedule_entry_leaves_the_random_model_to_every_other_seat():
    """Q23 [decision, project decisions 7 and 13]: at a boundary where the schedule changes one seat, the
    random model still applies to the others (here seat 2, off since the reset, comes back for certain
    while seat 0, before it in seat order, is taken off by the schedule)."""
    env = make_env(4, disconnect_schedule=((0, 2, False), (1, 0, False)), reconnect_prob=1.0)
    env.reset(seed=0)
    assert env.engine.connected == [True, True, False, True]
    step(env)  # tick 0; the schedule takes seat 0 off before tick 1, the random model brings seat 2 back
    assert env.engine.connected == [False, True, True, True]
    assert [(e.kind, e.seat) for e in events(env) if "connected" in e.kind] == [
        ("disconnected", 0),
        ("reconnected", 2),
    ]


def test_q23_probability_model_disconnects_and_reconnects():
    """Q23: per-tick disconnection / reconnection probabilities."""
    env = make_env(4, disconnect_prob=0.2, reconnect_prob=0.5)
    env.reset(seed=1)
    seen = set()
    for _ in range(60):
        step(env)
        seen |= {e.kind for e in events(env)}
        for seat in range(4):
            if not env.engine.connected[seat]:
                assert env._observations()[f"player_{seat}"]["action_mask"].sum() == 1
    assert {"disconnected", "reconnected"} <= seen


def test_q23_reconnect_probability_applies_to_scheduled_disconnections():
    """Q23 [decision, project]: the two models combine: a seat taken off by the schedule comes back
    through ``reconnect_prob`` even when ``disconnect_prob`` is 0."""
    env = make_env(4, disconnect_schedule=((0, 1, False),), reconnect_prob=0.5)
    env.reset(seed=0)
    assert not env.engine.connected[1]
    for _ in range(40):
        step(env)
        if env.engine.connected[1]:
            break
    assert env.engine.connected[1]
    assert events(env, "reconnected")[0].seat == 1


def test_q23_disconnections_are_off_by_default():
    """Q23: disconnections are off by default."""
    env = make_env(6)
    env.reset(seed=0)
    for _ in range(200):
        step(env)
        assert not events(env, "disconnected")
    assert all(env.engine.connected)


def test_q23_exchange_cooldown_persists_across_a_disconnection():
    """Q23 [decision]: cooldowns persist until they reconnect."""
    env = make_env(4)
    play(env)
    step(env, {1: act(env, K.EXCHANGE, (0, 0))})  # t: cooldown until t+4
    env.force_connection(1, False)
    step(env)
    obs = env.force_connection(1, True)
    assert obs["player_1"]["action_mask"][act(env, K.EXCHANGE, (0, 0))] == 0
    obs = idle(env, 2)[0]
    assert obs["player_1"]["action_mask"][act(env, K.EXCHANGE, (0, 0))] == 1


def test_q23_ready_flag_persists_across_a_disconnection():
    """Q23 [decision]: the ready flag persists until they reconnect (and after)."""
    env = make_env(4)
    env.reset(seed=0)
    step(env, {1: act(env, K.READY)})
    env.force_connection(1, False)
    step(env)
    assert env.engine.ready[1] is True
    obs = env.force_connection(1, True)
    assert env.engine.ready[1] is True
    assert field(env, obs["player_0"], "seat[1].ready")[0] == 1
    assert obs["player_1"]["action_mask"][act(env, K.READY)] == 0


def test_q23_reminder_window_persists_across_a_disconnection():
    """Q23 [decision]: a held-back «Quatro» reminder survives a short disconnection."""
    env = make_env(4)
    hands, center = quartet_position(4, (0, 2))
    play(env, hands, center)
    step(env, {0: act(env, K.QUATRO)})
    env.force_connection(0, False)
    step(env)
    obs = env.force_connection(0, True)
    assert field(env, obs["player_0"], "self.reminder")[0] == 1
    step(env, {0: act(env, K.QUATRO)})
    assert events(env, "call") and env.engine.scores == [1, 0]


def _round_end_and_next_play(**config) -> tuple[int, int, int]:
    """(the tick round 1 ends, its caller, the first play tick of round 2), bots at seats 1-3."""
    import quatro_env

    env = quatro_env.parallel_env(**config)
    env.reset(seed=0)
    start, ready = act(env, K.START_ROUND), act(env, K.READY)
    end = caller = None
    while True:
        mask = env._masks[0]
        env.step({"player_0": start if mask[start] else ready if mask[ready] else 0})
        if end is None and env.engine.phase == Phase.PAUSE:
            end, caller = env.last_tick.tick, env.engine.last_call.caller
        if end is not None and env.engine.phase == Phase.PLAY:
            return end, caller, env.engine.tick


def test_q23_a_bot_offline_across_a_round_end_starts_the_next_round_afresh():
    """A bot is asked every tick and its action dropped while offline (as the batched env and the
    harness do), so it sees the round end. Skipped, a `cover` bot offline from its correct «Quatro»
    into the next round's play kept the old round's state and called a wrong «Quatro» at once."""
    import quatro_env

    config = dict(bot_seats=(1, 2, 3), bot_policy="cover", sign_phase_seconds=1.0, pause_seconds=1.0)
    end, caller, play_from = _round_end_and_next_play(**config)
    schedule = ((end + 1, caller, False), (play_from + 1, caller, True))
    env = quatro_env.parallel_env(**config, disconnect_schedule=schedule)
    env.reset(seed=0)
    asked = []
    bot_act = env.bots[caller].act
    env.bots[caller].act = lambda obs, mask: asked.append(env.engine.tick) or bot_act(obs, mask)
    calls = []
    start, ready = act(env, K.START_ROUND), act(env, K.READY)
    while env.engine.tick <= play_from + 12:
        mask = env._masks[0]
        env.step({"player_0": start if mask[start] else ready if mask[ready] else 0})
        calls += [e.data for e in env.last_tick.events if e.kind == "call"]
    assert calls and all(call["correct"] for call in calls), calls
    assert asked == list(range(len(asked)))  # every tick, the offline ones too
