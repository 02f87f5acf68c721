"""Exchanges with the center (rules Q12, Q13, Q14)."""

from __future__ import annotations

import numpy as np

from .helpers import K, act, events, field, idle, make_env, play, step, values

# neutral 4-player position (value indices; A=0 K=1 Q=2 J=3 10=4):
#   seat 0 [A K Q J]  seat 1 [10 A K Q]  seat 2 [J 10 A K]  seat 3 [Q J 10 A]  center [K Q J 10]


# ---------------------------------------------------------------- Q12 exchange
def test_q12_exchange_swaps_hand_slot_and_center_slot_in_place():
    """Q12 [decision]: the taken card lands in the slot the placed card left; hands are never re-sorted."""
    env = make_env(4)
    play(env)
    hand, center = list(env.engine.hands[2]), list(env.engine.center)
    obs, *_ = step(env, {2: act(env, K.EXCHANGE, (1, 3))})
    assert env.engine.hands[2] == [hand[0], center[3], hand[2], hand[3]]
    assert env.engine.center == [center[0], center[1], center[2], hand[1]]
    own = field(env, obs["player_2"], "self.hand").reshape(4, 5).argmax(axis=1).tolist()
    assert own == values(env.engine.hands[2])
    table = field(env, obs["player_0"], "table.center").reshape(4, 5).argmax(axis=1).tolist()
    assert table == values(env.engine.center)


def test_q12_exchange_is_a_public_event_with_who_slot_taken_and_placed_but_no_hand_slot():
    """Q12: every exchange is public: who, center slot, card taken, card placed; the hand slot is private."""
    env = make_env(4)
    play(env)
    hand, center = list(env.engine.hands[2]), list(env.engine.center)
    obs, _, _, _, infos = step(env, {2: act(env, K.EXCHANGE, (1, 3))})
    (ev,) = events(env, "exchange")
    assert ev.public and ev.seat == 2
    assert ev.data == {"center_slot": 3, "taken": center[3], "placed": hand[1]}
    for a in env.agents:
        assert ev in infos[a]["events"]
    view = obs["player_1"]  # seat 2 is seat[1] from seat 1's view
    assert field(env, view, "seat[1].exchanged")[0] == 1
    assert field(env, view, "seat[1].exchange_slot").tolist() == [0, 0, 0, 1]
    assert np.flatnonzero(field(env, view, "seat[1].taken")).tolist() == [center[3] // 4]
    assert np.flatnonzero(field(env, view, "seat[1].placed")).tolist() == [hand[1] // 4]
    assert field(env, view, "seat[0].exchanged")[0] == 0


def test_q12_all_sixteen_exchanges_are_legal_in_play_and_none_outside_it():
    """Q12: one gesture per (hand slot 0..3, center slot 0..3); only while a round is played."""
    env = make_env(4)
    r = env.codec.ranges[K.EXCHANGE]
    assert len(r) == 16
    assert [env.codec.decode(i).arg for i in r] == [(h, c) for h in range(4) for c in range(4)]
    obs, _ = env.reset(seed=0)
    assert not obs["player_0"]["action_mask"][r.start : r.stop].any()
    obs, _ = play(env)
    assert obs["player_0"]["action_mask"][r.start : r.stop].all()
    obs, *_ = step(env, {1: act(env, K.CONTRA, 1)})
    assert not obs["player_0"]["action_mask"][r.start : r.stop].any()


# ---------------------------------------------------------------- Q13 exchange cooldown
def test_q13_exchange_cooldown_blocks_every_exchange_of_that_player_only():
    """Q13: after a successful exchange you wait 2 s (4 ticks) before your next one; others are unaffected."""
    env = make_env(4)
    play(env)
    r = env.codec.ranges[K.EXCHANGE]
    obs, *_ = step(env, {0: act(env, K.EXCHANGE, (0, 0))})
    assert not obs["player_0"]["action_mask"][r.start : r.stop].any()
    assert "Q13" in env.engine.illegal_reason(0, act(env, K.EXCHANGE, (3, 3)))
    assert field(env, obs["player_0"], "seat[0].exchange_wait")[0] == 3
    assert field(env, obs["player_1"], "seat[3].exchange_wait")[0] == 3  # derivable publicly
    for seat in (1, 2, 3):
        assert obs[f"player_{seat}"]["action_mask"][r.start : r.stop].all()
    obs, *_ = step(env, {1: act(env, K.EXCHANGE, (0, 0))})
    assert len(events(env, "exchange")) == 1  # seat 1 was not blocked by seat 0's cooldown
    idle(env, 1)
    obs, *_ = step(env)
    assert obs["player_0"]["action_mask"][r.start : r.stop].all()


def test_q13_no_other_limit_than_the_cooldown():
    """Q13: an exchange every 4 ticks always succeeds (no cap per round)."""
    env = make_env(4)
    play(env)
    for k in range(10):
        step(env, {0: act(env, K.EXCHANGE, (k % 4, (k + 1) % 4))})
        assert [e.seat for e in events(env, "exchange")] == [0]
        idle(env, 3)


# ---------------------------------------------------------------- Q14 contested exchange
def test_q14_contested_exchange_rejected_privately_without_cooldown():
    """Q14: a slot changed earlier in the tick rejects your exchange: nothing moves, no cooldown,
    a private notice."""
    env = make_env(4)
    play(env)
    hand0, hand1 = list(env.engine.hands[0]), list(env.engine.hands[1])
    obs, _, _, _, infos = step(
        env, {0: act(env, K.EXCHANGE, (0, 2)), 1: act(env, K.EXCHANGE, (3, 2))}, order=(0, 1, 2, 3)
    )
    (rej,) = events(env, "exchange_rejected")
    assert rej.seat == 1 and rej.visible_to == frozenset({1})
    assert rej.data == {"center_slot": 2}
    assert env.engine.hands[1] == hand1
    assert env.engine.center[2] == hand0[0]  # seat 0's card, placed first
    assert env.engine.next_exchange_tick[1] <= env.engine.tick
    assert obs["player_1"]["action_mask"][act(env, K.EXCHANGE, (3, 2))] == 1  # may try again next tick
    assert field(env, obs["player_1"], "self.rejected_slot").tolist() == [0, 0, 1, 0]
    for seat in (0, 2, 3):
        assert field(env, obs[f"player_{seat}"], "self.rejected_slot").sum() == 0
        assert rej not in infos[f"player_{seat}"]["events"]
    assert rej in infos["player_1"]["events"]
    step(env, {1: act(env, K.EXCHANGE, (3, 2))})
    assert [e.seat for e in events(env, "exchange")] == [1]


def test_q14_exchanges_on_different_slots_both_succeed():
    """Q14: only the same center slot is contested."""
    env = make_env(4)
    play(env)
    step(env, {0: act(env, K.EXCHANGE, (0, 2)), 1: act(env, K.EXCHANGE, (0, 1))})
    assert sorted(e.seat for e in events(env, "exchange")) == [0, 1]
    assert not events(env, "exchange_rejected")


def test_q14_same_value_swap_still_counts_as_a_change():
    """Q14: any successful exchange on the slot counts as a change, even K for K."""
    env = make_env(4)
    play(env)
    assert values([env.engine.hands[0][1], env.engine.center[0]]) == [
        1,
        1,
    ]  # K in hand slot 1 and center slot 0
    step(env, {0: act(env, K.EXCHANGE, (1, 0)), 3: act(env, K.EXCHANGE, (2, 0))}, order=(0, 3, 1, 2))
    (ex,) = events(env, "exchange")
    assert values([ex.data["taken"], ex.data["placed"]]) == [1, 1]
    assert [e.seat for e in events(env, "exchange_rejected")] == [3]


def test_q14_every_later_exchange_on_a_changed_slot_is_rejected():
    """Q14: the second and third exchanges on one slot in a tick are both rejected."""
    env = make_env(4)
    play(env)
    ex = act(env, K.EXCHANGE, (0, 1))
    step(env, {0: ex, 1: ex, 2: ex, 3: ex}, order=(2, 0, 3, 1))
    assert [e.seat for e in events(env, "exchange")] == [2]
    assert [e.seat for e in events(env, "exchange_rejected")] == [0, 3, 1]


def _open_vote_with_one_answer_left(env):
    step(env, {0: act(env, K.PROPOSE_RESHUFFLE)})
    step(env, {1: act(env, K.VOTE_YES), 2: act(env, K.VOTE_YES)})
    assert env.engine.vote is not None and env.engine.vote.yes == {1, 2}


def test_q14_reshuffle_earlier_in_the_tick_changes_every_slot():
    """Q14: a reshuffle that passes earlier in the tick changes every slot: later exchanges are rejected."""
    env = make_env(4)
    play(env)
    _open_vote_with_one_answer_left(env)
    exchanges = {0: act(env, K.EXCHANGE, (0, 0)), 1: act(env, K.EXCHANGE, (1, 3))}
    step(env, {3: act(env, K.VOTE_YES), **exchanges}, order=(3, 0, 1, 2))
    assert events(env, "reshuffle")
    assert not events(env, "exchange")
    assert sorted(e.seat for e in events(env, "exchange_rejected")) == [0, 1]
    assert env.engine.next_exchange_tick[0] <= env.engine.tick  # no cooldown started


def test_q14_exchange_before_the_reshuffle_in_the_order_goes_through():
    """Q14: an exchange resolved before the reshuffle of the same tick is not contested."""
    env = make_env(4)
    play(env)
    _open_vote_with_one_answer_left(env)
    step(env, {3: act(env, K.VOTE_YES), 0: act(env, K.EXCHANGE, (0, 0))}, order=(0, 3, 1, 2))
    assert [e.kind for e in events(env) if e.kind in ("exchange", "reshuffle", "exchange_rejected")] == [
        "exchange",
        "reshuffle",
    ]
