"""The live table's message handling, without a browser: every bad message is named, none stops it."""

from __future__ import annotations

import pytest

from quatro_env.play.cli import LIVE_DEFAULTS, build_parser, make_config
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
