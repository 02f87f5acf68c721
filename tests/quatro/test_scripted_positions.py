"""Q31 scripted positions, field by field: what the engine's ``set_position`` (card ids) and
``reset(options={"position": ...})`` (value labels) refuse, and what a position sets that the rule tests
in ``test_control.py`` did not read. Mutation testing (docs/testing.md, third round) found each: a
position that left a team without a sign, a pause phase as long as a round, a sign index of 24, a
position given hands without a center, the foreign-option warning, suits that repeated a card id."""

from __future__ import annotations

from pathlib import Path

import pytest

import quatro_env
from quatro_env.quatro.cards import assign_suits
from quatro_env.quatro.engine import Phase
from tests.quatro.helpers import make_env, neutral_position, values


def _engine_with_ids():
    """A fresh 4-player engine and a neutral position as card ids (hands, center)."""
    env = make_env(4)
    env.reset(seed=0)
    hands, center = neutral_position(4)
    *hands, center = assign_suits([*hands, center], 4)  # each value's copies numbered in order
    return env.engine, hands, center


@pytest.mark.parametrize(
    ("position", "match"),
    [
        ({"phase": Phase.OVER}, "phase: a scripted position starts in the sign, play or pause phase"),
        ({"phase": 1}, "phase: a scripted position starts"),  # the value of PLAY, not the Phase
        ({"phase": Phase.PLAY, "center": "CENTER"}, "hands: a play position needs hands and center"),
        ({"phase": Phase.PAUSE, "hands": "HANDS"}, "hands: a pause position needs hands and center"),
        ({"phase": Phase.SIGN, "center": "CENTER"}, r"none in the sign phase \(Q8\)"),
        ({"phase": Phase.SIGN, "hands": "HANDS"}, r"none in the sign phase \(Q8\)"),
        ({"phase": Phase.PLAY, "hands": "HANDS[:3]", "center": "CENTER"}, "need 4 hands of 4 cards"),
        ({"phase": Phase.PLAY, "hands": "HANDS", "center": "CENTER[:3]"}, "need 4 hands of 4 cards"),
        ({"phase": Phase.PLAY, "hands": "SHORT", "center": "CENTER"}, "need 4 hands of 4 cards"),
        ({"phase": Phase.PLAY, "hands": "TWICE", "center": "CENTER"}, r"every card exactly once \(Q3\)"),
        ({"phase": Phase.SIGN, "signs": [24, None]}, r"signs \(an emoji index or None\)"),
        ({"phase": Phase.SIGN, "signs": [None, -1]}, r"signs \(an emoji index or None\)"),
        ({"phase": Phase.SIGN, "scores": [-1, 0]}, "scores: -1 is outside"),
    ],
)
def test_q31_the_engine_refuses_a_position_by_field(position, match):
    engine, hands, center = _engine_with_ids()
    short = [hands[0][:3], *hands[1:]]
    twice = [[hands[0][0], *hands[0][1:3], hands[1][0]], *hands[1:]]  # one id twice, one missing
    named = {"HANDS": hands, "HANDS[:3]": hands[:3], "SHORT": short, "TWICE": twice}
    named |= {"CENTER": center, "CENTER[:3]": center[:3]}
    position = {k: named.get(v, v) if isinstance(v, str) else v for k, v in position.items()}
    before = (engine.phase, [list(h) for h in engine.hands], list(engine.center), list(engine.team_sign))
    with pytest.raises(ValueError, match=match):
        engine.set_position(**position)
    assert (engine.phase, engine.hands, engine.center, engine.team_sign) == before  # nothing changed


def test_q31_the_highest_emoji_index_is_a_sign():
    engine, _, _ = _engine_with_ids()
    engine.set_position(phase=Phase.SIGN, signs=[23, 0])
    assert engine.team_sign == [23, 0]


def test_q31_a_play_position_draws_the_signs_it_does_not_give():
    """A round is played with both signs fixed (Q8): a play position that names one sign keeps it and
    draws the other from the engine's stream (Q30)."""
    drawn = set()
    for seed in range(8):
        env, (hands, center) = make_env(4), neutral_position(4)
        env.reset(seed=seed, options={"position": {"phase": "play", "hands": hands, "center": center}})
        assert all(isinstance(s, int) and 0 <= s < 24 for s in env.engine.team_sign)
        one_sign = {"phase": "play", "hands": hands, "center": center, "signs": [5, None]}
        env.reset(seed=seed, options={"position": one_sign})
        assert env.engine.team_sign[0] == 5 and isinstance(env.engine.team_sign[1], int)
        drawn.add(env.engine.team_sign[1])
    assert len(drawn) > 1


@pytest.mark.parametrize("phase", ["play", "pause"])
def test_q31_a_position_without_ticks_left_lasts_its_whole_phase(phase):
    env = make_env(4)
    hands, center = neutral_position(4)
    env.reset(seed=0, options={"position": {"phase": phase, "hands": hands, "center": center}})
    engine = env.engine
    length = engine.durations.round if phase == "play" else engine.durations.pause
    assert engine.durations.round != engine.durations.pause
    assert engine.phase_end - engine.tick + 1 == length


def test_q31_a_position_replaces_the_current_round_it_does_not_add_one():
    engine, hands, center = _engine_with_ids()
    assert engine.round_index == 1
    engine.round_index = 3  # as if two rounds had been played
    engine.set_position(phase=Phase.PLAY, hands=hands, center=center)
    assert engine.round_index == 3


@pytest.mark.parametrize(
    ("position", "match"),
    [
        ({"phase": "play", "hands": "HANDS"}, "hands: need 4 hands and a center together"),
        ({"phase": "play", "center": "CENTER"}, "hands: need 4 hands and a center together"),
        ({"phase": "sign", "center": "CENTER"}, "hands: need 4 hands and a center together"),
        ({"phase": "play", "hands": "SHORT", "center": "CENTER"}, r"exactly 4 cards \(Q4\)"),
        (
            {"phase": "play", "hands": "THREE", "center": "CENTER"},
            r"hands \(one per seat, 4\): need 4 items",
        ),
        ({"phase": "play", "hands": "NOT A LIST", "center": "CENTER"}, r"hands\[1\]: must be a list, got 7"),
        ({"phase": "play", "hands": "HANDS", "center": "CENTER[:3]"}, r"exactly 4 cards \(Q4\)"),
    ],
)
def test_q31_reset_options_refuse_a_position_by_field(position, match):
    hands, center = neutral_position(4)
    named = {"HANDS": hands, "SHORT": [hands[0][:3], *hands[1:]], "THREE": hands[:3]}
    named["NOT A LIST"] = [hands[0], 7, *hands[2:]]
    named |= {"CENTER": center, "CENTER[:3]": center[:3]}
    position = {k: named.get(v, v) for k, v in position.items()}
    env = make_env(4)
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options={"position": position})


def test_q31_reset_options_name_a_foreign_key_and_the_callers_line():
    """Foreign top-level keys are ignored with a warning ([decision], scripted.py) that names them and
    points at the caller of ``reset``, not at the library; options that are not a dict are refused by type."""
    env = make_env(4)
    with pytest.warns(UserWarning, match=r"ignoring key\(s\) \['colour'\]; Quatro reads") as caught:
        env.reset(seed=0, options={"colour": "red"})
    # the caller's line, not the library's (under mutmut a trampoline sits between this test and reset)
    assert not Path(caught[0].filename).resolve().is_relative_to(Path(quatro_env.__file__).parent.resolve())
    with pytest.raises(ValueError, match="^reset options: must be a dict or None, got list$"):
        env.reset(seed=0, options=[("position", {})])


def test_q3_a_positions_suits_keep_every_card_id_once():
    """Q3: the suits a position's cards are given (drawn per seed, Q31) are a permutation of each value's
    copies: every card id of the deck is in play exactly once, each card keeps its value."""
    hands, center = neutral_position(4)
    for seed in range(30):
        env = make_env(4)
        env.reset(seed=seed, options={"position": {"phase": "play", "hands": hands, "center": center}})
        engine = env.engine
        assert sorted([c for h in engine.hands for c in h] + list(engine.center)) == list(range(20))
        assert [values(h) for h in engine.hands] == hands and values(engine.center) == center
