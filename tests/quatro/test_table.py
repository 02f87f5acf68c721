"""Table, teams, deck, deal and time (rules Q1–Q6 of docs/quatro.md)."""

from __future__ import annotations

from collections import Counter

import pytest

import quatro_env
from quatro_env.quatro import QuatroConfig
from quatro_env.quatro.cards import VALUE_LABELS, deck_size, has_triple
from quatro_env.quatro.config import seconds_to_ticks

from .helpers import (
    K,
    act,
    deal_ids,
    events,
    field,
    idle,
    make_env,
    no_triple_deal,
    play,
    quartet_position,
    start_play,
    step,
    values,
)

DURATION_FIELDS = (
    "tick_seconds",
    "sign_phase_seconds",
    "round_seconds",
    "pause_seconds",
    "exchange_cooldown_seconds",
    "floor_cooldown_seconds",
    "pulse_seconds",
    "reminder_window_seconds",
    "vote_window_seconds",
    "vote_interval_seconds",
)


# ---------------------------------------------------------------- Q1 players
@pytest.mark.parametrize("n", [4, 6, 8])
def test_q1_four_six_eight_players_accepted(n):
    """Q1: 4, 6 or 8 players, seats 0..n-1."""
    env = make_env(n)
    assert env.possible_agents == [f"player_{s}" for s in range(n)]
    obs, infos = env.reset(seed=1)
    assert sorted(infos[a]["seat"] for a in env.agents) == list(range(n))


@pytest.mark.parametrize("n", [3, 5, 10, 2, 0])
def test_q1_other_player_counts_raise_value_error_naming_num_players(n):
    """Q1: any other count is a configuration error with a clear message naming ``num_players``."""
    with pytest.raises(ValueError, match="num_players"):
        quatro_env.parallel_env(num_players=n)
    with pytest.raises(ValueError, match="num_players"):
        quatro_env.env(num_players=n)
    with pytest.raises(ValueError, match="num_players"):
        QuatroConfig(num_players=n)


# ---------------------------------------------------------------- Q2 teams
@pytest.mark.parametrize("n", [4, 6, 8])
def test_q2_partner_sits_opposite_and_teams_are_t_and_t_plus_half(n):
    """Q2: partner(i) = (i + n/2) mod n; team t = {t, t + n/2}; n/2 teams."""
    env = make_env(n)
    _, infos = env.reset(seed=0)
    engine = env.engine
    half = n // 2
    assert engine.num_teams == half
    assert len(engine.scores) == half
    for seat in range(n):
        assert engine.partner_of(seat) == (seat + half) % n
        assert engine.team_of(seat) == engine.team_of((seat + half) % n) == seat % half
        assert infos[f"player_{seat}"]["team"] == seat % half
    for t in range(half):
        assert engine.team_members(t) == (t, t + half)


@pytest.mark.parametrize("n", [4, 6])
def test_q2_partner_is_the_teammate_whose_hand_a_quatro_judges(n):
    """Q2: the seat opposite is the partner (a «Quatro» of seat 1 is judged on seat 1 + n/2)."""
    env = make_env(n)
    partner = 1 + n // 2
    hands, center = quartet_position(n, (partner,))
    play(env, hands, center)
    step(env, {1: act(env, K.QUATRO)})
    (call,) = events(env, "call")
    assert call.data["correct"] is True
    assert env.engine.scores[1] == 1 and sum(env.engine.scores) == 1


# ---------------------------------------------------------------- Q3 deck
@pytest.mark.parametrize(
    ("n", "size", "labels"),
    [
        (4, 20, ["A", "K", "Q", "J", "10"]),
        (6, 28, ["A", "K", "Q", "J", "10", "9", "8"]),
        (8, 36, ["A", "K", "Q", "J", "10", "9", "8", "7", "6"]),
    ],
)
def test_q3_deck_has_n_plus_one_values_four_copies_each(n, size, labels):
    """Q3: n + 1 values × 4 copies (20/28/36 cards); 4n in hands + 4 in the center, all in play."""
    assert deck_size(n) == size
    assert list(VALUE_LABELS[: n + 1]) == labels
    env = make_env(n)
    start_play(env, seed=7)
    engine = env.engine
    assert engine.phase.name == "PLAY"
    cards = [c for h in engine.hands for c in h] + engine.center
    assert sorted(cards) == list(range(size))
    assert Counter(values(cards)) == {v: 4 for v in range(n + 1)}


# ---------------------------------------------------------------- Q4 deal
@pytest.mark.parametrize("n", [4, 6, 8])
def test_q4_deal_gives_four_cards_per_seat_and_four_center_slots(n):
    """Q4: 4 cards to each player, 4 face up in the center (slots 0..3), in deal order."""
    env = make_env(n)
    deal = no_triple_deal(n)
    start_play(env, deal=deal)
    engine = env.engine
    assert [len(h) for h in engine.hands] == [4] * n
    for seat in range(n):
        assert engine.hands[seat] == deal[4 * seat : 4 * seat + 4]
    assert engine.center == deal[4 * n :]
    assert not events(env, "hands_replaced")


# ---------------------------------------------------------------- Q5 no dealt triples
TRIPLE_FOR_SEAT_1 = (
    [["A", "K", "Q", "J"], ["10", "10", "10", "A"], ["K", "Q", "J", "A"], ["K", "Q", "J", "10"]],
    ["A", "K", "Q", "J"],
)


def test_q5_dealt_triple_is_replaced_with_a_public_notice_naming_the_seat_only():
    """Q5: seat 1 dealt three 10s is re-split with the center; the public notice names seat 1, no values."""
    env = make_env(4)
    hands, center = TRIPLE_FOR_SEAT_1
    deal = deal_ids(hands, center, 4)
    obs, *_ = start_play(env, seed=3, deal=deal)
    engine = env.engine
    (notice,) = events(env, "hands_replaced")
    assert notice.public
    assert notice.seat is None
    assert notice.data == {"seats": (1,)}  # never the values
    for seat in (0, 2, 3):  # other hands unchanged
        assert engine.hands[seat] == deal[4 * seat : 4 * seat + 4]
    assert sorted(engine.hands[1] + engine.center) == sorted(deal[4:8] + deal[16:20])
    assert not any(has_triple(h) for h in engine.hands)
    # the notice reaches every seat's observation (Q27)
    for seat in range(4):
        own_view = obs[f"player_{seat}"]
        rel = (1 - seat) % 4
        assert field(env, own_view, f"seat[{rel}].hand_replaced")[0] == 1
        assert field(env, own_view, f"seat[{(rel + 1) % 4}].hand_replaced")[0] == 0
        assert field(env, own_view, "self.hand").sum() == 4  # the notice adds to the view, drops nothing


def test_q5_several_seats_replaced_in_seat_order_and_other_hands_untouched():
    """Q5: a quartet (seat 0) and a triple (seat 2) are both replaced; seats 1 and 3 keep their cards."""
    hands = [["A", "A", "A", "A"], ["K", "Q", "J", "10"], ["K", "K", "K", "Q"], ["Q", "J", "10", "J"]]
    center = ["Q", "J", "10", "10"]
    env = make_env(4)
    deal = deal_ids(hands, center, 4)
    start_play(env, seed=11, deal=deal)
    engine = env.engine
    (notice,) = events(env, "hands_replaced")
    assert notice.data["seats"] == (0, 2)
    assert engine.hands[1] == deal[4:8]
    assert engine.hands[3] == deal[12:16]
    assert sorted(engine.hands[0] + engine.hands[2] + engine.center) == sorted(
        deal[0:4] + deal[8:12] + deal[16:20]
    )
    assert not any(has_triple(h) for h in engine.hands)


def test_q5_no_notice_when_no_hand_was_replaced():
    """Q5: the notice is given only when at least one hand was replaced."""
    env = make_env(6)
    start_play(env, deal=no_triple_deal(6))
    assert events(env, "round_started")
    assert not events(env, "hands_replaced")


@pytest.mark.parametrize("n", [4, 6, 8])
def test_q5_random_deals_never_leave_a_triple_in_a_hand(n):
    """Q5: whatever the shuffle, no hand starts the round with three cards of one value."""
    env = make_env(n)
    for seed in range(15):
        start_play(env, seed=seed)
        assert not any(has_triple(h) for h in env.engine.hands)
        notices = events(env, "hands_replaced")
        assert len(notices) <= 1


# ---------------------------------------------------------------- Q6 time
@pytest.mark.parametrize(
    ("seconds", "dt", "ticks"),
    [(2.1, 0.3, 7), (2.0, 0.5, 4), (0.1, 0.3, 1), (180.0, 0.5, 360), (30.0, 0.7, 43), (0.3, 0.1, 3)],
)
def test_q6_durations_round_up_to_ticks_exactly(seconds, dt, ticks):
    """Q6: every duration is converted to ticks by rounding up, computed exactly (2.1 s at 0.3 s = 7)."""
    assert seconds_to_ticks(seconds, dt) == ticks


def test_q6_configured_durations_are_converted_with_the_tick_length():
    """Q6: the engine uses the exact conversion for every configured duration."""
    env = make_env(4, tick_seconds=0.3, exchange_cooldown_seconds=2.1, round_seconds=0.9)
    d = env.engine.durations
    assert d.exchange_cooldown == 7
    assert d.round == 3
    assert d.floor_cooldown == 7  # 2 s / 0.3 s = 6.67 → 7
    default = make_env(4).engine.durations
    assert (default.sign_phase, default.round, default.pause) == (60, 360, 60)
    assert (default.exchange_cooldown, default.floor_cooldown, default.reminder_window) == (4, 4, 4)
    assert (default.pulse, default.vote_window, default.vote_interval) == (10, 40, 60)


def test_q6_exchange_cooldown_of_7_ticks_at_0_3_seconds():
    """Q6/Q13: a 2.1 s cooldown at 0.3 s ticks blocks t+1..t+6 and frees t+7."""
    env = make_env(4, tick_seconds=0.3, exchange_cooldown_seconds=2.1)
    play(env)
    ex = act(env, K.EXCHANGE, (0, 0))
    obs, *_ = step(env, {0: ex})
    for _ in range(6):
        assert obs["player_0"]["action_mask"][ex] == 0
        obs, *_ = step(env)
    assert obs["player_0"]["action_mask"][ex] == 1


def test_q6_two_second_cooldown_at_half_second_blocks_three_ticks_frees_the_fourth():
    """Q6: a 2 s wait after a gesture at tick t blocks t+1..t+3 and frees t+4."""
    env = make_env(4)
    play(env)
    ex = act(env, K.EXCHANGE, (1, 2))
    t = env.engine.tick
    obs, *_ = step(env, {0: ex})
    blocked = []
    for _ in range(3):
        blocked.append((env.engine.tick, int(obs["player_0"]["action_mask"][ex])))
        obs, *_ = step(env)
    assert blocked == [(t + 1, 0), (t + 2, 0), (t + 3, 0)]
    assert env.engine.tick == t + 4
    assert obs["player_0"]["action_mask"][ex] == 1
    assert env.engine.illegal_reason(0, ex) is None


def test_q6_call_in_the_last_tick_of_the_round_counts():
    """Q6/Q10: actions in the last tick of a phase still count (a call at 179.5 s)."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center, ticks_left=1)
    step(env, {0: act(env, K.QUATRO)})
    assert [e.kind for e in events(env) if e.kind in ("call", "blank_round")] == ["call"]
    assert env.engine.scores == [1, 0]


def test_q6_full_round_is_exactly_360_ticks_at_defaults():
    """Q6/Q10: the 180 s play phase spans exactly 360 ticks: a call in the 360th tick still counts."""
    env = make_env(4)
    hands, center = quartet_position(4, (2,))
    play(env, hands, center)
    idle(env, 359)
    assert env.engine.phase.name == "PLAY"
    assert not events(env, "blank_round")
    step(env, {0: act(env, K.QUATRO)})
    assert events(env, "call") and not events(env, "blank_round")
    assert env.engine.scores == [1, 0]


@pytest.mark.parametrize("name", DURATION_FIELDS)
@pytest.mark.parametrize("value", [0, -0.5])
def test_q6_non_positive_durations_raise_naming_the_field(name, value):
    """Q6/Q29: every duration and tick_seconds must be > 0; the error names the field."""
    with pytest.raises(ValueError, match=name):
        make_env(4, **{name: value})


def test_q6_infinite_or_nan_durations_raise_value_error_naming_the_field():
    """Q6/Q29: a duration must be a finite positive number of seconds; a bad one is a ValueError naming it."""
    wrong = []
    for name in DURATION_FIELDS:
        for value in (float("inf"), float("nan")):
            try:
                make_env(4, **{name: value})
            except ValueError as exc:
                if name not in str(exc):
                    wrong.append(f"{name}={value}: {exc}")
            else:
                wrong.append(f"{name}={value}: accepted")
    assert not wrong, "\n".join(wrong)
