"""The configuration object, the deck names and the action codec."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from quatro_env.kwartet import ActionCodec, Deck, KwartetConfig


def test_config_is_frozen_and_forbids_unknown_fields():
    config = KwartetConfig()
    with pytest.raises(ValidationError):
        config.num_players = 5
    with pytest.raises(ValueError, match="num_familes"):
        KwartetConfig(num_familes=8)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_families": 1}, "num_families"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"max_requests": 0}, "max_requests"),
        ({"history_length": 0}, "history_length"),
        ({"num_players": "four"}, "num_players"),
        ({"num_players": 2, "stock": True, "num_families": 3}, "num_families"),
    ],
)
def test_config_errors_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        KwartetConfig(**kwargs)


@given(players=st.integers(2, 6), families=st.integers(2, 13), data=st.data())
def test_codec_round_trips_every_action(players, families, data):
    codec = ActionCodec(players, families)
    action = data.draw(st.integers(0, codec.num_actions - 1))
    offset, card = codec.decode(action)
    assert 1 <= offset < players and 0 <= card < 4 * families
    assert codec.encode(offset, card) == action
    assert codec.encode(offset, codec.deck.name(card)) == action


def test_codec_layout_and_description():
    codec = ActionCodec(4, 8)
    assert codec.num_actions == 3 * 32
    assert codec.encode(1, "7♠") == 0 and codec.encode(3, "A♣") == 95
    assert codec.encode(2, "Q♥") == 32 + 4 * 5 + 1
    assert codec.describe(codec.encode(2, "Q♥")) == "ask (2 seats clockwise) for Q♥"
    assert codec.describe(codec.encode(1, "Q♥"), asker=3) == "ask (player_0, 1 seat clockwise) for Q♥"
    for bad in (lambda: codec.decode(96), lambda: codec.encode(0, 0), lambda: codec.encode(4, 0)):
        with pytest.raises(ValueError):
            bad()


def test_deck_names_and_parsing():
    deck = Deck(8)
    assert deck.family_names == ("7", "8", "9", "10", "J", "Q", "K", "A")
    assert deck.card("Q♥") == deck.card("QH") == deck.card("qh") == 21
    assert deck.card("10s") == 12 and deck.name(12) == "10♠"
    assert Deck(13).family_names[0] == "2" and Deck(1).family_names == ("A",)
    for bad in (0, 14):
        with pytest.raises(ValueError, match=rf"num_families must lie in \[1, 13\], got {bad}"):
            Deck(bad)
    assert Deck(2).card_names == ("K♠", "K♥", "K♦", "K♣", "A♠", "A♥", "A♦", "A♣")
    for bad in ("2♠", "Q", "Q♥♥", 32, -1, True, 21.0, ["Q", "♥"]):  # a float or a list is neither
        with pytest.raises(ValueError, match="card"):
            deck.card(bad)
    assert deck.family("q") == 5 and deck.family(0) == 0 and deck.family(7) == 7
    for bad in (8, -1, True, "2", 5.0):  # 8: the first index past eight families
        with pytest.raises(ValueError, match="unknown family"):
            deck.family(bad)
