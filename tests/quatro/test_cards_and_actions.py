"""The card helpers and the action codec, against plain definitions (Q3, Q5, Q18, Q29).

Written after mutation testing (docs/testing.md): a quartet test that read the second card as the
value, or a codec that refused action 0, passed every rule test, whose hands and actions never hit
those cases.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import (
    VALUE_LABELS,
    assign_suits,
    deck_size,
    has_triple,
    is_quartet,
    num_values,
    parse_cards,
)


@given(n=st.sampled_from([4, 6, 8]), data=st.data())
def test_q18_a_quartet_is_four_cards_of_one_value_and_q5_a_triple_three_or_more(n, data):
    """Q18/Q19: ``is_quartet``; Q5: ``has_triple``, on any four distinct cards of the deck."""
    hand = data.draw(st.lists(st.integers(0, deck_size(n) - 1), min_size=4, max_size=4, unique=True))
    counts = [sum(c // 4 == v for c in hand) for v in range(num_values(n))]
    assert is_quartet(hand) == (max(counts) == 4)
    assert has_triple(hand) == (max(counts) >= 3)


def test_q18_the_odd_card_may_sit_in_any_slot():
    """Three of a value and one other, in each of the four slots: never a quartet; all four: one."""
    for odd in range(4):
        hand = [8, 9, 10]  # the three Qs
        hand.insert(odd, 0)  # an A
        assert not is_quartet(hand) and has_triple(hand)
    for hand in itertools.permutations([8, 9, 10, 11]):
        assert is_quartet(list(hand))


@pytest.mark.parametrize("n", [4, 6, 8])
def test_q31_a_scripted_card_is_a_value_label_or_index_below_the_values_in_play(n):
    nv = num_values(n)
    assert parse_cards(["A", " k ", 0, nv - 1], n, "hand") == [0, 1, 0, nv - 1]
    for bad in (nv, -1, True, 1.0, VALUE_LABELS[nv] if nv < len(VALUE_LABELS) else "2"):
        with pytest.raises(ValueError, match="hand: "):
            parse_cards([bad], n, "hand")


def test_q3_a_scripted_deal_holds_each_value_exactly_four_times():
    """Q3: ``assign_suits`` numbers each value's copies 0..3 and refuses a fifth copy or a short value."""
    groups = [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3], [4, 4, 4, 4]]
    assert assign_suits(groups, 4) == [
        [0, 1, 4, 5],
        [2, 3, 6, 7],
        [8, 9, 12, 13],
        [10, 11, 14, 15],
        [16, 17, 18, 19],
    ]
    with pytest.raises(ValueError, match=r"value A appears more than four times \(Q3\)"):
        assign_suits([[0, 0, 0, 0], [0, 1, 1, 1]], 4)
    with pytest.raises(ValueError, match=r"exactly four times in hands \+ center \(Q3\); short: 10"):
        assign_suits(groups[:-1] + [[4, 4, 4]], 4)


@pytest.mark.parametrize("n", [4, 6, 8])
def test_q29_the_codec_decodes_its_first_and_last_action_and_nothing_past_them(n):
    codec = ActionCodec(n)
    assert codec.decode(0) == (ActionKind.NOOP, None)
    assert codec.decode(codec.num_actions - 1) == (ActionKind.START_ROUND, None)  # last (Q11)
    for bad in (codec.num_actions, -1):
        with pytest.raises(ValueError, match=rf"action {bad} is outside 0..{codec.num_actions - 1}"):
            codec.decode(bad)
    with pytest.raises(ValueError, match=rf"no action EXCHANGE with argument \(4, 0\) for {n} players"):
        codec.encode(ActionKind.EXCHANGE, (4, 0))


def test_q1_the_codec_is_built_for_a_table_of_4_6_or_8():
    with pytest.raises(ValueError, match=r"num_players must be 4, 6 or 8 \(Q1\), got 5"):
        ActionCodec(5)


def test_q29_every_action_kind_is_described_in_words():
    """The descriptions that errors and renders show, one per kind, at 6 players (two «Contra!»s)."""
    codec = ActionCodec(6)
    first = {kind: codec.ranges[kind].start for kind in ActionKind}
    described = {kind: codec.describe(index) for kind, index in first.items()}
    assert described == {
        ActionKind.NOOP: "noop",
        ActionKind.EXCHANGE: "exchange(hand slot 0, center slot 0)",
        ActionKind.TAKE_FLOOR: "take_floor",
        ActionKind.RELEASE_FLOOR: "release_floor",
        ActionKind.SHOW_EMOJI: described[ActionKind.SHOW_EMOJI],
        ActionKind.CHOOSE_SIGN: described[ActionKind.CHOOSE_SIGN],
        ActionKind.READY: "ready",
        ActionKind.QUATRO: "quatro",
        ActionKind.CONTRA: "contra(team 1 clockwise)",
        ActionKind.PROPOSE_RESHUFFLE: "propose_reshuffle",
        ActionKind.VOTE_YES: "vote_yes",
        ActionKind.VOTE_NO: "vote_no",
        ActionKind.START_ROUND: "start_round",
    }
    assert described[ActionKind.SHOW_EMOJI].startswith("show emoji ")
    assert described[ActionKind.CHOOSE_SIGN].startswith("choose sign ")
    assert codec.describe(codec.ranges[ActionKind.CONTRA].stop - 1) == "contra(team 2 clockwise)"
