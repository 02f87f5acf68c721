"""The reshuffle vote and its limits; bots (rules Q20, Q21, Q22)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.quatro import IllegalActionError
from quatro_env.quatro.cards import has_triple

from .helpers import K, act, deal_ids, events, field, idle, make_env, no_triple_deal, play, step


def propose(env):
    return act(env, K.PROPOSE_RESHUFFLE)


def yes(env):
    return act(env, K.VOTE_YES)


def no(env):
    return act(env, K.VOTE_NO)


def vote_kinds(env):
    return [(e.kind, e.seat) for e in events(env) if e.kind.startswith("vote") or e.kind == "reshuffle"]


# ---------------------------------------------------------------- Q20 reshuffle
def test_q20_all_accept_redeals_with_same_signs_clock_floors_and_cooldowns():
    """Q20: all accept → everything re-dealt; same teams, signs, clock, no points; floors, emojis,
    pulse cycles and cooldowns stay as they were."""
    env = make_env(4)
    play(env, signs=[3, 11], scores=[1, 2])
    obs, *_ = step(
        env, {1: act(env, K.TAKE_FLOOR), 2: act(env, K.EXCHANGE, (0, 0)), 0: propose(env)}, order=(1, 2, 0, 3)
    )
    (proposed,) = events(env, "vote_proposed")
    assert proposed.public and proposed.data["voters"] == (1, 2, 3)
    for seat in range(4):  # every seat sees who proposed (Q27)
        view = obs[f"player_{seat}"]
        assert [field(env, view, f"seat[{(s - seat) % 4}].proposed")[0] for s in range(4)] == [1, 0, 0, 0]
    step(env, {1: act(env, K.SHOW_EMOJI, 4), 2: yes(env), 3: yes(env)})
    engine = env.engine
    kept = (
        list(engine.team_sign),
        engine.phase_end,
        list(engine.scores),
        list(engine.floor),
        list(engine.emoji),
        list(engine.pulse_anchor),
        list(engine.next_exchange_tick),
        list(engine.next_floor_tick),
    )
    deal = no_triple_deal(4)
    engine.force_next_deal(deal)
    _, rewards, *_ = step(env, {1: yes(env)})
    assert vote_kinds(env) == [("vote_answer", 1), ("reshuffle", None)]
    assert engine.hands == [deal[4 * s : 4 * s + 4] for s in range(4)]
    assert engine.center == deal[16:]
    after = (
        list(engine.team_sign),
        engine.phase_end,
        list(engine.scores),
        list(engine.floor),
        list(engine.emoji),
        list(engine.pulse_anchor),
        list(engine.next_exchange_tick),
        list(engine.next_floor_tick),
    )
    assert after == kept
    assert kept[0] == [3, 11] and kept[3] == [False, True, False, False] and kept[4][1] == 4
    assert set(rewards.values()) == {0.0}
    assert engine.vote is None and engine.reshuffled_this_round


def test_q20_reshuffle_deal_applies_the_no_triple_rule_and_notice():
    """Q20/Q5: the re-deal replaces a dealt triple and tells the table which seat."""
    env = make_env(4, bot_seats=(1, 2, 3))
    play(env)
    hands = [["A", "K", "Q", "J"], ["10", "10", "10", "A"], ["K", "Q", "J", "A"], ["K", "Q", "J", "10"]]
    deal = deal_ids(hands, ["A", "K", "Q", "J"], 4)
    env.engine.force_next_deal(deal)
    step(env, {0: propose(env)})
    assert [e.kind for e in events(env)] == ["vote_proposed", "reshuffle", "hands_replaced"]
    assert events(env, "hands_replaced")[0].data == {"seats": (1,)}
    assert env.engine.hands[0] == deal[0:4] and env.engine.hands[2] == deal[8:12]
    assert not any(has_triple(h) for h in env.engine.hands)


def test_q20_every_answer_and_the_open_vote_are_public():
    """Q20/Q27: proposer, voters, every answer and the outcome are public."""
    env = make_env(4)
    play(env)
    step(env, {2: propose(env)})
    obs, _, _, _, infos = step(env, {0: yes(env)})
    (answer,) = events(env, "vote_answer")
    assert answer.public and answer.data == {"yes": True}
    for observer in range(4):
        view = obs[f"player_{observer}"]

        def rel(s, observer=observer):
            return (s - observer) % 4

        assert field(env, view, "table.vote_open")[0] == 1
        assert field(env, view, "table.vote_left")[0] == 40 - 1
        assert field(env, view, f"seat[{rel(2)}].proposer")[0] == 1
        assert [field(env, view, f"seat[{rel(s)}].voter")[0] for s in range(4)] == [1, 1, 0, 1]
        assert [field(env, view, f"seat[{rel(s)}].said_yes")[0] for s in range(4)] == [1, 0, 0, 0]
        assert field(env, view, f"seat[{rel(0)}].voted_yes")[0] == 1
        assert answer in infos[f"player_{observer}"]["events"]


def test_q20_a_no_ends_the_vote_at_once():
    """Q20 [decision]: a «no» ends the vote at once; nothing is re-dealt."""
    env = make_env(4)
    play(env)
    hands = [list(h) for h in env.engine.hands]
    step(env, {0: propose(env)})
    obs, *_ = step(env, {1: yes(env), 3: no(env)}, order=(1, 3, 0, 2))
    assert vote_kinds(env) == [("vote_answer", 1), ("vote_answer", 3), ("vote_failed", None)]
    assert events(env, "vote_failed")[0].data == {"reason": "no"}
    assert env.engine.vote is None
    assert env.engine.hands == hands
    assert field(env, obs["player_2"], "table.vote_failed")[0] == 1
    assert field(env, obs["player_2"], "table.vote_open")[0] == 0
    assert not obs["player_2"]["action_mask"][yes(env)]
    for observer in range(4):  # Q20/Q27: the «no» is public, as the «yes» is (each seat's own view)
        view = obs[f"player_{observer}"]
        seats = [f"seat[{(s - observer) % 4}]" for s in range(4)]
        assert [field(env, view, f"{seat}.voted_no")[0] for seat in seats] == [0, 0, 0, 1]
        assert [field(env, view, f"{seat}.voted_yes")[0] for seat in seats] == [0, 1, 0, 0]
        assert field(env, view, "table.vote_failed")[0] == 1


def test_q20_a_reshuffle_is_public_to_every_seat():
    """Q20/Q27: the re-deal is public: every observer sees ``reshuffled`` on its tick and ``reshuffle_used``
    for the rest of the round (Q21); the tick after, ``reshuffled`` is off again."""
    env = make_env(4)
    play(env)
    step(env, {0: propose(env)})
    obs, *_ = step(env, {1: yes(env), 2: yes(env), 3: yes(env)})
    assert vote_kinds(env)[-1] == ("reshuffle", None)
    later, *_ = step(env)
    for observer in range(4):
        now, after = obs[f"player_{observer}"], later[f"player_{observer}"]
        assert [field(env, now, f"table.{name}")[0] for name in ("reshuffled", "reshuffle_used")] == [1, 1]
        assert [field(env, after, f"table.{name}")[0] for name in ("reshuffled", "reshuffle_used")] == [0, 1]


def test_q20_silence_fails_at_the_deadline():
    """Q20/Q6: no answer is a no: a vote opened at t fails at the end of t+40 (20 s), not before."""
    env = make_env(4)
    play(env)
    t = env.engine.tick
    step(env, {0: propose(env)})
    step(env, {1: yes(env), 2: yes(env)})
    idle(env, 38)
    assert env.engine.tick == t + 40
    assert env.engine.vote is not None
    obs, *_ = step(env)
    assert events(env, "vote_failed")[0].data == {"reason": "deadline"}
    assert env.engine.vote is None
    assert not events(env, "reshuffle")
    assert not obs["player_3"]["action_mask"][yes(env)]


def test_q20_an_answer_in_the_last_tick_of_the_window_counts():
    """Q20/Q6: a window opened at t accepts answers up to t+40 inclusive."""
    env = make_env(4)
    play(env)
    t = env.engine.tick
    step(env, {0: propose(env)})
    step(env, {1: yes(env), 2: yes(env)})
    idle(env, 38)
    assert env.engine.tick == t + 40
    step(env, {3: yes(env)})
    assert vote_kinds(env) == [("vote_answer", 3), ("reshuffle", None)]


@pytest.mark.parametrize("how", ["bots", "disconnected"])
def test_q20_no_eligible_voter_passes_at_once(how):
    """Q20: with no eligible voter (all others bots or disconnected) the reshuffle passes at once."""
    if how == "bots":
        env = make_env(4, bot_seats=(1, 2, 3))
        play(env)
    else:
        env = make_env(4)
        play(env)
        for seat in (1, 2, 3):
            env.force_connection(seat, False)
    env.engine.force_next_deal(no_triple_deal(4))
    step(env, {0: propose(env)})
    assert vote_kinds(env) == [("vote_proposed", 0), ("reshuffle", None)]
    assert events(env, "vote_proposed")[0].data["voters"] == ()
    assert env.engine.hands[0] == no_triple_deal(4)[:4]


def test_q20_bots_are_not_voters_and_cannot_answer():
    """Q20/Q22: bots never vote; agents played through the API do."""
    env = make_env(4, bot_seats=(1,))
    play(env)
    step(env, {0: propose(env)})
    assert env.engine.vote.voters == frozenset({2, 3})
    assert env.engine.legal_mask(1)[yes(env)] == 0
    assert "Q22" in env.engine.illegal_reason(1, yes(env))
    env.drive_bot(1, yes(env))
    with pytest.raises(IllegalActionError):
        step(env)
    env._driven.clear()
    step(env, {2: yes(env), 3: yes(env)})
    assert events(env, "reshuffle")


def test_q20_bots_may_propose():
    """Q20 [decision]: bots may propose; the voters are the connected non-bot players."""
    env = make_env(4, bot_seats=(1,))
    play(env)
    env.drive_bot(1, propose(env))
    step(env)
    (proposed,) = events(env, "vote_proposed")
    assert proposed.seat == 1 and proposed.data["voters"] == (0, 2, 3)


def test_q20_the_proposer_does_not_vote():
    """Q20 [decision]: the proposer does not vote."""
    env = make_env(4)
    play(env)
    obs, *_ = step(env, {3: propose(env)})
    assert obs["player_3"]["action_mask"][yes(env)] == 0
    assert obs["player_3"]["action_mask"][no(env)] == 0
    assert obs["player_0"]["action_mask"][yes(env)] == 1


def test_q20_a_seat_that_reconnects_is_not_a_voter():
    """Q20 [decision]: the voter set is fixed at the proposal: a seat reconnecting later is not a voter."""
    env = make_env(4)
    play(env)
    env.force_connection(3, False)
    step(env, {0: propose(env)})
    assert events(env, "vote_proposed")[0].data["voters"] == (1, 2)
    obs = env.force_connection(3, True)
    assert obs["player_3"]["action_mask"][yes(env)] == 0
    step(env, {1: yes(env), 2: yes(env)})
    assert events(env, "reshuffle")


def test_q20_a_voter_who_disconnects_makes_the_vote_fail_at_the_deadline():
    """Q20 [decision]: a voter who disconnects cannot answer, so the vote fails at the deadline."""
    env = make_env(4)
    play(env)
    step(env, {0: propose(env)})
    obs = env.force_connection(2, False)
    assert obs["player_2"]["action_mask"][yes(env)] == 0
    step(env, {1: yes(env), 3: yes(env)})
    assert env.engine.vote is not None
    idle(env, 38)
    assert env.engine.vote is not None
    idle(env, 1)
    assert events(env, "vote_failed")[0].data == {"reason": "deadline"}
    assert not env.engine.reshuffled_this_round


def test_q20_a_voter_who_disconnects_and_returns_still_cannot_answer():
    """Q20 [decision, project]: once a voter has disconnected, the vote can only fail (at the deadline),
    even if the voter reconnects in time: its answer is masked out."""
    env = make_env(4)
    play(env)
    step(env, {0: propose(env)})
    env.force_connection(2, False)
    obs = env.force_connection(2, True)
    assert obs["player_2"]["action_mask"][yes(env)] == 0
    assert "disconnected during this vote" in env.engine.illegal_reason(2, yes(env))
    step(env, {1: yes(env), 3: yes(env)})
    assert env.engine.vote is not None and not events(env, "reshuffle")
    idle(env, 39)
    assert events(env, "vote_failed")[0].data == {"reason": "deadline"}


def test_q20_reshuffle_only_in_play():
    """Q20: a reshuffle is proposed only while a round is played."""
    env = make_env(4)
    obs, _ = env.reset(seed=0)
    assert obs["player_0"]["action_mask"][propose(env)] == 0


# ---------------------------------------------------------------- Q21 limits
def test_q21_at_most_one_reshuffle_per_round():
    """Q21: after a reshuffle, no more proposals this round, even 30 s later."""
    env = make_env(4, bot_seats=(1, 2, 3))
    play(env)
    step(env, {0: propose(env)})
    assert events(env, "reshuffle")
    obs = idle(env, 80)[0]
    assert obs["player_0"]["action_mask"][propose(env)] == 0
    assert "one reshuffle per round" in env.engine.illegal_reason(0, propose(env))
    assert field(env, obs["player_0"], "table.reshuffle_used")[0] == 1


def test_q21_one_vote_open_at_a_time():
    """Q21 [decision]: while a vote is open nobody may propose."""
    env = make_env(4)
    play(env)
    obs, *_ = step(env, {0: propose(env)})
    for a in env.agents:
        assert obs[a]["action_mask"][propose(env)] == 0
    assert "already open" in env.engine.illegal_reason(1, propose(env))


def test_q21_thirty_seconds_between_proposals():
    """Q21 [decision]: a new vote may be proposed 30 s (60 ticks) after the previous proposal."""
    env = make_env(4)
    play(env)
    t = env.engine.tick
    step(env, {0: propose(env)})
    obs, *_ = step(env, {1: no(env)})
    assert env.engine.vote is None
    assert field(env, obs["player_2"], "table.proposal_wait")[0] == 58
    while env.engine.tick < t + 59:
        assert obs["player_2"]["action_mask"][propose(env)] == 0
        obs, *_ = step(env)
    assert env.engine.tick == t + 59
    assert obs["player_2"]["action_mask"][propose(env)] == 0
    assert "30 s between proposals" in env.engine.illegal_reason(2, propose(env))
    obs, *_ = step(env)
    assert obs["player_2"]["action_mask"][propose(env)] == 1
    step(env, {2: propose(env)})
    assert events(env, "vote_proposed")


# ---------------------------------------------------------------- Q22 bots
def test_q22_random_bots_never_vote():
    """Q22: seats driven by built-in bots never vote, whatever their policy does."""
    env = make_env(4, bot_seats=(1, 2, 3), bot_policy="random_caller")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    proposals = 0
    for _ in range(400):
        if not env.agents:
            env.reset()
        mask = env._observations()["player_0"]["action_mask"]
        action = propose(env) if mask[propose(env)] else int(rng.choice(np.flatnonzero(mask)))
        step(env, {0: action})
        for ev in events(env):
            assert not (ev.kind == "vote_answer" and ev.seat in (1, 2, 3))
            if ev.kind == "vote_proposed":
                proposals += 1
                assert ev.data["voters"] == tuple(s for s in (0,) if s != ev.seat)
    assert proposals > 0


def test_q22_bot_seats_are_not_agents():
    """Q22: bot seats are not agents of the environment; API-controlled seats are."""
    env = make_env(6, bot_seats=(0, 4))
    env.reset(seed=0)
    assert env.agents == ["player_1", "player_2", "player_3", "player_5"]
