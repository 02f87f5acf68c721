"""The channel: floor, emojis and pulses (rules Q15, Q16, Q17)."""

from __future__ import annotations

import numpy as np

from quatro_env.quatro import Phase

from .helpers import K, act, events, field, idle, kinds, make_env, play, step


def take(env):
    return act(env, K.TAKE_FLOOR)


def release(env):
    return act(env, K.RELEASE_FLOOR)


def emoji(env, e):
    return act(env, K.SHOW_EMOJI, e)


def pulses(env):
    return [(e.seat, e.data["emoji"]) for e in events(env, "pulse")]


def shown(env, obs, observer, seat):
    """(emoji index or None, age) of ``seat``'s last pulse as ``observer`` sees it."""
    rel = (seat - observer) % env.n
    view = obs[f"player_{observer}"]
    em = np.flatnonzero(field(env, view, f"seat[{rel}].pulse_emoji")).tolist()
    return (em[0] if em else None), int(field(env, view, f"seat[{rel}].pulse_age")[0])


def _floor_with_first_emoji(env, seat=1, first=5):
    """Seat takes the floor (tick a-1) and chooses its first emoji (tick a); returns a."""
    play(env)
    step(env, {seat: take(env)})
    anchor = env.engine.tick
    obs, *_ = step(env, {seat: emoji(env, first)})
    return anchor, obs


# ---------------------------------------------------------------- Q15 floor and pulses
def test_q15_taking_the_floor_is_public():
    """Q15: taking the floor is public: everyone sees who holds it."""
    env = make_env(4)
    play(env)
    obs, _, _, _, infos = step(env, {2: take(env)})
    (ev,) = events(env, "floor_taken")
    assert ev.public and ev.seat == 2
    for observer in range(4):
        rel = (2 - observer) % 4
        assert field(env, obs[f"player_{observer}"], f"seat[{rel}].floor")[0] == 1
        assert field(env, obs[f"player_{observer}"], f"seat[{rel}].took_floor")[0] == 1
        assert field(env, obs[f"player_{observer}"], f"seat[{(rel + 1) % 4}].floor")[0] == 0
        assert ev in infos[f"player_{observer}"]["events"]


def test_q15_first_emoji_pulses_at_once_at_the_end_of_the_tick():
    """Q15 [decision]: the first emoji after taking the floor is shown to everyone at once."""
    env = make_env(4)
    anchor, obs = _floor_with_first_emoji(env, seat=1, first=5)
    assert kinds(env) == ["emoji_chosen", "pulse"]
    chosen, pulse = events(env)
    assert (chosen.seat, chosen.data, chosen.visible_to) == (1, {"emoji": 5}, frozenset({1}))
    assert pulse.public and (pulse.seat, pulse.data["emoji"]) == (1, 5)
    for observer in (0, 2, 3):
        assert shown(env, obs, observer, 1) == (5, 0)


def test_q15_pulses_repeat_every_five_seconds_while_the_floor_is_held():
    """Q15: the first emoji starts a 5 s cycle (10 ticks): pulses at a, a+10, a+20 and never in between."""
    env = make_env(4)
    anchor, _ = _floor_with_first_emoji(env, seat=1, first=5)
    pulse_ticks = []
    for _ in range(25):
        t = env.engine.tick
        step(env)
        if pulses(env):
            assert pulses(env) == [(1, 5)]
            pulse_ticks.append(t - anchor)
    assert pulse_ticks == [10, 20]


def test_q15_a_change_is_shown_only_at_the_next_pulse():
    """Q15: later changes are shown only at the next pulse; between pulses only you see your emoji."""
    env = make_env(4)
    anchor, _ = _floor_with_first_emoji(env, seat=1, first=5)
    idle(env, 2)
    obs, _, _, _, infos = step(env, {1: emoji(env, 7)})  # tick a+3
    assert kinds(env) == ["emoji_chosen"]
    assert [e.kind for e in infos["player_0"]["events"]] == []
    assert field(env, obs["player_1"], "self.emoji")[7] == 1
    for observer in (0, 2, 3):
        assert shown(env, obs, observer, 1) == (5, 3)
        assert field(env, obs[f"player_{observer}"], "self.emoji").sum() == 0
    while env.engine.tick < anchor + 10:
        obs, *_ = step(env)
        assert not pulses(env)
        assert shown(env, obs, 0, 1)[0] == 5
    obs, *_ = step(env)  # tick a+10
    assert pulses(env) == [(1, 7)]
    assert shown(env, obs, 3, 1) == (7, 0)


def test_q15_a_change_in_the_pulse_tick_is_what_the_pulse_shows():
    """Q15: a change in the tick of a pulse is what that pulse shows."""
    env = make_env(4)
    anchor, _ = _floor_with_first_emoji(env, seat=1, first=5)
    idle(env, 9)
    assert env.engine.tick == anchor + 10
    step(env, {1: emoji(env, 23)})
    assert pulses(env) == [(1, 23)]


def test_q15_release_in_the_pulse_tick_suppresses_the_pulse_and_clears_the_emoji():
    """Q15: a release in the pulse tick suppresses the pulse; releasing the floor clears the emoji."""
    env = make_env(4)
    anchor, _ = _floor_with_first_emoji(env, seat=1, first=5)
    idle(env, 9)
    obs, *_ = step(env, {1: release(env)}, order=(3, 1, 0, 2))
    assert not pulses(env)
    assert field(env, obs["player_0"], "seat[1].order")[0] == 2  # an action: its place in the order (Q27)
    (rel,) = events(env, "floor_released")
    assert rel.public and rel.seat == 1 and rel.data["reason"] == "released"
    assert env.engine.floor[1] is False and env.engine.emoji[1] is None
    assert field(env, obs["player_1"], "self.emoji").sum() == 0
    assert field(env, obs["player_0"], "seat[1].floor")[0] == 0
    assert field(env, obs["player_0"], "seat[1].released_floor")[0] == 1
    for _ in range(12):
        step(env)
        assert not pulses(env)


def test_q15_retaking_the_floor_starts_a_fresh_cycle():
    """Q15: after a release, the first emoji after taking the floor again pulses at once, on a new cycle."""
    env = make_env(4)
    anchor, _ = _floor_with_first_emoji(env, seat=1, first=5)
    idle(env, 3)
    step(env, {1: release(env)})  # a+4
    idle(env, 3)
    step(env, {1: take(env)})  # a+8
    step(env)  # a+9
    step(env)  # a+10: old cycle would pulse here, but no emoji was chosen since
    assert not pulses(env)
    new_anchor = env.engine.tick
    step(env, {1: emoji(env, 2)})
    assert pulses(env) == [(1, 2)]
    idle(env, 9)
    step(env)
    assert env.engine.tick - 1 == new_anchor + 10
    assert pulses(env) == [(1, 2)]


def test_q15_the_channel_exists_only_in_the_play_phase():
    """Q15: no floor gesture or emoji in the sign phase or the pause."""
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    channel = [take(env), release(env), *range(emoji(env, 0), emoji(env, 23) + 1)]
    assert not obs["player_0"]["action_mask"][channel].any()
    play(env)
    obs, *_ = step(env, {0: act(env, K.CONTRA, 1)})
    assert env.engine.phase == Phase.PAUSE
    assert not obs["player_2"]["action_mask"][channel].any()


def test_q15_emoji_needs_the_floor_but_has_no_rate_limit():
    """Q15: an emoji needs the floor; changing it is not a floor gesture and has no rate limit."""
    env = make_env(4)
    obs, _ = play(env)
    r = env.codec.ranges[K.SHOW_EMOJI]
    assert not obs["player_1"]["action_mask"][r.start : r.stop].any()
    obs, *_ = step(env, {1: take(env)})
    for e in range(6):
        assert obs["player_1"]["action_mask"][r.start : r.stop].all()
        obs, *_ = step(env, {1: emoji(env, e)})
        assert env.engine.emoji[1] == e
    assert env.engine.next_floor_tick[1] == env.engine.tick - 6 + 4 - 1  # only the take set it


# ---------------------------------------------------------------- Q16 nothing by itself
def test_q16_nothing_is_shown_while_no_emoji_was_chosen():
    """Q16: holding the floor without choosing shows nothing in your name (no pulse, ever)."""
    env = make_env(4)
    play(env)
    step(env, {1: take(env)})
    for _ in range(25):
        obs, *_ = step(env)
        assert not pulses(env)
    for observer in (0, 2, 3):
        assert shown(env, obs, observer, 1) == (None, 255)


def test_q16_decoys_are_legal():
    """Q16: nothing forces you to show your real sign: any of the 24 emojis may be shown."""
    env = make_env(4)
    play(env, signs=["🐢", None])
    assert env.engine.team_sign[0] == 2
    step(env, {0: take(env)})
    step(env, {0: emoji(env, 19)})
    assert pulses(env) == [(0, 19)]


# ---------------------------------------------------------------- Q17 floor gesture cooldown
def test_q17_two_seconds_between_floor_gestures():
    """Q17: a take at t blocks the release t+1..t+3; a release blocks the next take likewise."""
    env = make_env(4)
    play(env)
    t = env.engine.tick
    obs, *_ = step(env, {3: take(env)})
    for k in range(1, 4):
        assert env.engine.tick == t + k
        assert obs["player_3"]["action_mask"][release(env)] == 0
        assert "Q17" in env.engine.illegal_reason(3, release(env))
        assert field(env, obs["player_0"], "seat[3].floor_wait")[0] == 4 - k
        obs, *_ = step(env)
    assert obs["player_3"]["action_mask"][release(env)] == 1
    obs, *_ = step(env, {3: release(env)})  # t+4
    assert obs["player_3"]["action_mask"][take(env)] == 0  # t+5
    idle(env, 1)
    obs, *_ = step(env)
    assert env.engine.tick == t + 7
    assert obs["player_3"]["action_mask"][take(env)] == 0
    obs, *_ = step(env)
    assert obs["player_3"]["action_mask"][take(env)] == 1  # t+8


def test_q17_floor_cooldown_is_per_player():
    """Q17: one player's floor gesture does not delay anyone else's."""
    env = make_env(4)
    play(env)
    obs, *_ = step(env, {3: take(env)})
    assert all(obs[f"player_{s}"]["action_mask"][take(env)] == 1 for s in (0, 1, 2))
