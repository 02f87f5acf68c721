"""The live table's message handling, without a browser: every bad message is named, none stops it."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quatro_env.play.cli import LIVE_DEFAULTS, build_parser, make_config
from quatro_env.play.server import MAX_MESSAGE_CHARS, TableServer
from quatro_env.play.table import LiveTable, MessageError
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import EMOJIS
from quatro_env.quatro.config import QuatroConfig


@pytest.fixture()
def table():
    return LiveTable(QuatroConfig(sign_phase_seconds=0.5, **LIVE_DEFAULTS), 0, "honest", "idle", seed=1)


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("quatro", "JSON object"),
        ({"kind": "quatro"}, "field 'type'"),
        ({"type": "action", "kind": "fly"}, "unknown action 'fly'"),
        ({"type": "action", "kind": ["quatro"]}, "field 'kind': expected an action name"),  # unhashable
        ({"type": "action", "kind": {"quatro": 1}}, "field 'kind': expected an action name"),
        ({"type": "action", "kind": "exchange", "hand": 4, "center": 0}, "field 'hand'"),
        ({"type": "action", "kind": "exchange", "hand": 0, "center": True}, "field 'center'"),
        ({"type": "action", "kind": "show_emoji", "emoji": 24}, "field 'emoji'"),
        ({"type": "action", "kind": "contra", "team": 0}, "another team"),
        ({"type": "action", "kind": "contra", "team": 7}, "field 'team'"),
        ({"type": "action", "kind": "exchange", "hand": 0, "center": 0}, "Q12"),  # sign phase: not yet
        ({"type": "action", "kind": "start_round"}, "Q11"),
    ],
)
def test_bad_messages_are_named_and_change_nothing(table, message, error):
    with pytest.raises(MessageError, match=error):
        table.submit(message)
    assert table.pending is None
    table.step()  # the table plays on


def test_a_legal_message_is_played_next_tick_and_the_view_is_the_seats():
    table = LiveTable(QuatroConfig(sign_phase_seconds=0.5, **LIVE_DEFAULTS), 0, "idle", "honest", seed=1)
    assert table.submit({"type": "action", "kind": "choose_sign", "emoji": 5}) == f"choose sign {EMOJIS[5]}"
    table.step()
    assert table.engine.team_sign[0] == 5  # Q7: the (idle) partner chose nothing, so this fixes it
    frame = table.frame()
    assert frame["signs"] == [EMOJIS[5], None]  # the other team's sign stays hidden (Q28)
    assert all(s["hand"] is None for s in frame["seats"] if s["seat"] != 0)
    assert "choose_sign" not in frame["legal"]  # the mask: the sign is fixed


def test_contra_is_sent_as_an_absolute_team_and_played_relative(table):
    table.step()
    while table.engine.phase.name != "PLAY":
        table.step()
    table.submit({"type": "action", "kind": "contra", "team": 1})
    assert table.codec.kinds[table.pending] == ActionKind.CONTRA and table.codec.args[table.pending] == 1
    table.step()
    assert table.engine.last_call.kind == "contra" and table.engine.last_call.target_team == 1


def test_disconnection_and_reconnection_are_q23_changes(table):
    table.set_connected(False)
    result = table.step()
    assert any(ev.kind == "disconnected" and ev.seat == 0 for ev in result.events)
    with pytest.raises(MessageError, match="Q23"):
        table.submit({"type": "action", "kind": "ready"})
    table.set_connected(True)
    assert any(ev.kind == "reconnected" for ev in table.step().events)


def test_cli_config_and_loopback_default():
    args = build_parser().parse_args(["--tick-seconds", "0.25", "--set", "round_seconds=60"])
    assert args.host == "127.0.0.1"
    config = make_config(args)
    assert config.tick_seconds == 0.25 and config.round_seconds == 60 and config.reconnect_prob == 0.0
    with pytest.raises(ValueError, match="bot_seats"):
        LiveTable(QuatroConfig(bot_seats=(1,)), 0)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_ACTION_LIKE = st.fixed_dictionaries(
    {"type": st.just("action")},
    optional={
        "kind": _JSON | st.sampled_from(["quatro", "exchange", "contra", "show_emoji"]),
        "hand": _JSON,
        "center": _JSON,
        "team": _JSON,
        "emoji": _JSON,
    },
)


@settings(max_examples=150, deadline=None)
@given(message=_JSON | _ACTION_LIKE)
def test_any_json_message_gets_a_reply_and_never_stops_the_socket(message):
    """The server's handler answers every text with a reply (queued, or an error naming why); an
    exception there would end the page's connection (the socket loop does not catch it)."""
    server = TableServer(
        LiveTable(QuatroConfig(sign_phase_seconds=0.5, **LIVE_DEFAULTS), 0, "honest", "idle")
    )
    reply = server.handle(json.dumps(message))
    assert reply["type"] in ("queued", "error") and reply.get("message", reply.get("action"))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        # within the length limit; past the parser's depth at the default recursion limit, a list if a
        # library raised it (hypothesis does): either way a named error, never an exception
        ("[" * 1000 + "]" * 1000, "nested too deeply|a message is a JSON object"),
        ("{" * 3, "not valid JSON"),
        ("x" * (MAX_MESSAGE_CHARS + 1), "too long"),
        (None, "binary"),
    ],
    ids=["deep", "unclosed", "long", "binary"],
)
def test_texts_that_are_not_a_message_get_a_named_error(table, text, error):
    reply = TableServer(table).handle(text)
    assert reply["type"] == "error" and re.search(error, reply["message"])
    assert table.pending is None


def test_a_parser_recursion_error_is_a_named_reply(table, monkeypatch):
    """The branch the deep text takes when the parser recurses past the limit, taken for certain."""
    from quatro_env.play import server

    def recurses(text):
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    monkeypatch.setattr(server.json, "loads", recurses)
    reply = TableServer(table).handle("[[[]]]")
    assert reply == {"type": "error", "message": "not valid JSON here: nested too deeply"}
