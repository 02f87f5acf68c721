"""Replays: quatro-eval writes one per match; load() re-simulates it through the engine (Q30)."""

from __future__ import annotations

import ast
import base64
import gzip
import inspect
import io
import json
import shutil
import tracemalloc
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quatro_env.eval.cli import main as eval_main
from quatro_env.quatro import engine as engine_module
from quatro_env.quatro.engine import QuatroEngine
from quatro_env.quatro.events import EVENT_KINDS
from quatro_env.replay import FORMAT, VERSION, ReplayFormatError, ReplayMismatchError, load, loader, read
from quatro_env.replay.cli import main as replay_main
from quatro_env.replay.views import decode_observation
from tests.replay.helpers import write_replays


@pytest.fixture(scope="module")
def replay_files(tmp_path_factory):
    return write_replays(tmp_path_factory.mktemp("replays"))


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_eval_writes_one_replay_per_match_and_each_resimulates(replay_files):
    assert len(replay_files) == 2
    for path in replay_files:
        replay = load(path)  # re-simulates and compares every tick
        header = replay.header
        assert header["format"] == FORMAT and header["version"] == VERSION
        assert [s["policy"] for s in header["seats"]] in (["honest", "decoy"] * 2, ["decoy", "honest"] * 2)
        assert replay.end["ticks"] == len(replay.frames) - 1 > 0
        assert replay.end["scores"] == replay.frames[-1].state["scores"]
        kinds = {ev["kind"] for f in replay.frames for ev in f.events}
        assert {"round_started", "reveal"} <= kinds  # the reveal of a call or a blank round (Q10)
        assert any(f.state["hands"][0] for f in replay.frames)  # the omniscient state holds hands


def test_replay_records_calls_reveals_scores_and_private_events(replay_files):
    replay = load(replay_files[0])
    events = [ev for f in replay.frames for ev in f.events]
    ends = [ev for ev in events if ev["kind"] in ("call", "blank_round")]
    assert ends, "every round ends with a call or a blank round (Q10)"
    reveal = next(ev for ev in events if ev["kind"] == "reveal")
    assert len(reveal["data"]["hands"]) == 4
    private = [ev for ev in events if ev["visible_to"] is not None]
    assert private, "signs fixed or drawn are seen by the team only (Q7), and recorded as such"
    assert all(isinstance(ev["visible_to"], list) for ev in private)


def test_recorded_observations_are_the_seats_views(replay_files):
    """Each seat's recorded vector is what the encoder gives that seat; decoding it gives its hand."""
    replay = load(replay_files[0])
    for frame in replay.frames[1:]:
        if frame.state["phase"] != "play":
            continue
        for seat in range(4):
            view = decode_observation(frame.observations[seat], seat, 4)
            assert view["self"]["hand"] == [c // 4 for c in frame.state["hands"][seat]]
            assert view["table"]["center"] == [c // 4 for c in frame.state["center"]]
            assert [t["score"] for t in view["teams"]] == frame.state["scores"]


def test_gzip_replays_load_too(replay_files, tmp_path):
    gz = tmp_path / "m.jsonl.gz"
    with gzip.open(gz, "wb") as fh:
        fh.write(replay_files[1].read_bytes())
    assert len(load(gz).frames) == len(load(replay_files[1]).frames)


def test_quatro_eval_cli_replays_flag(tmp_path):
    args = "random honest --matches 1 --points-to-win 1 --round-seconds 10 --workers 1 --probe-matches 0"
    code = eval_main([*args.split(), "--no-progress", "--replays", str(tmp_path / "r")])
    assert code == 0
    (path,) = (tmp_path / "r").glob("*.jsonl")
    assert load(path).end["ticks"] > 0


_DIFFERS = r"differs from the engine's: recorded"


@pytest.mark.parametrize(
    ("what", "message"),
    [
        ("action", r"^tick \d+: "),
        ("event", rf"^tick \d+: events\[0\]\.seat {_DIFFERS} [23], engine [0-3]$"),
        ("state", rf"^tick \d+: state\.ready {_DIFFERS} \[\w+, \w+, \w+, \w+\], engine \[\w+, "),
        (
            "observation",
            r"^tick \d+: observations\[2\] differs from the engine's at byte 5: recorded (\d+), engine ",
        ),
        ("order", rf"^tick \d+: order {_DIFFERS} \[\d, \d, \d, \d\], engine \[\d, \d, \d, \d\]$"),
        (
            "long value",
            rf"^tick \d+: events\[\d+\]\.data\.reason {_DIFFERS} 'teleport[a-z.]*\.\.\., engine '\w+'$",
        ),
        ("extra event", rf"^tick \d+: events {_DIFFERS} a list of (\d+), engine a list of (?!\1)\d+$"),
        ("rounds", rf"^end: rounds {_DIFFERS} (\d+), engine (?!\1)\d+$"),
        ("reset state", rf"^reset: state\.ready {_DIFFERS} \[\w+, \w+, \w+, \w+\], engine \["),
    ],
)
def test_a_tampered_replay_fails_the_engine_check(replay_files, tmp_path, what, message):
    """A difference is one line naming the tick, the field and both values there, cut short (a whole state
    was a kilobyte over three lines)."""
    records = _lines(replay_files[0])
    tick = next(r for r in records if r["type"] == "tick" and r["tick"] > 5 and r["events"])
    if what == "action":
        tick["actions"][0] = 68 if tick["actions"][0] != 68 else 0  # a «Quatro!» that was not made
    elif what == "event":
        tick["events"][0]["seat"] = 3 if tick["events"][0]["seat"] != 3 else 2
    elif what == "state":  # the scores and round are checked without the engine: read() refuses them
        tick["state"]["ready"][0] = not tick["state"]["ready"][0]
    elif what == "observation":  # one byte: the message names it, and the first one that differs
        raw = bytearray(base64.b64decode(tick["observations"][2]))
        raw[5] ^= 1
        tick["observations"][2] = base64.b64encode(bytes(raw)).decode()
    elif what == "long value":  # a free-form string: a floor's release reason
        tick = next(r for r in records if any(e["kind"] == "floor_released" for e in r.get("events", ())))
        event = next(e for e in tick["events"] if e["kind"] == "floor_released")
        event["data"]["reason"] = "teleport" * 1000
    elif what == "extra event":
        tick["events"].append(tick["events"][0])
    elif what == "rounds":  # the match was won: its last round completed; read() allows one fewer
        records[-1]["rounds"] -= 1
    elif what == "reset state":
        records[1]["state"]["ready"][0] = not records[1]["state"]["ready"][0]
    else:
        tick["order"] = tick["order"][::-1]
    path = _write(tmp_path / "bad.jsonl", records)
    read(path)  # well-formed ...
    with pytest.raises(ReplayMismatchError, match=message) as err:
        load(path)  # ... but not what the engine plays
    assert "\n" not in str(err.value) and len(str(err.value)) < 160


def _malformed(records, case):
    header = records[0]
    if case == "not json":
        return "{not json\n"
    if case == "nested too deeply":  # the JSON parser recurses: this line would raise RecursionError
        return json.dumps(header) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n"
    if case == "header not first":
        records = records[1:]
    elif case == "format":
        header["format"] = "something-else"
    elif case == "version":
        header["version"] = 99
    elif case == "config":
        header["config"]["num_players"] = 5
    elif case == "seed type":
        header["engine_seed"] = "0"
    elif case == "seed negative":
        header["engine_seed"] = -1
    elif case.startswith("header "):  # fields the format does not define, or that disagree with it
        if case == "header extra":
            header["evil"] = "x"
        elif case == "header missing":
            del header["meta"]
        elif case == "header game":
            header["game"] = "chess"
        elif case == "header num_actions":
            header["num_actions"] = -4  # the config's table has 74
        elif case.startswith("header type "):
            header[case.split()[-1]] = "x"
        elif case == "header seed zero":  # the least seed: accepted
            header["engine_seed"] = 0
    elif case.startswith("seats "):  # per seat: {"seat": s, "policy": label, "seed": seed}
        seats = header["seats"]
        if case == "seats junk":
            header["seats"] = [1, None, "x", {"policy": {"a": [1]}}]
        elif case == "seats count":
            del seats[3]
        elif case == "seats extra":
            seats[1]["code"] = "import os"
        elif case == "seats index":
            seats[2]["seat"] = 0
        elif case == "seats policy":
            seats[0]["policy"] = ["honest"]
        elif case == "seats seed":
            seats[3]["seed"] = 1.5
    elif case == "reset extra":
        records[1]["code"] = "import os"
    elif case == "tick extra":
        records[3]["foo"] = 1
    elif case == "end extra":
        records[-1]["foo"] = 1
    elif case.startswith("state "):  # the omniscient state the viewer draws (replay.records)
        state = records[3]["state"]
        if case == "state emoji":
            state["emoji"][0] = -1  # would silently show the last emoji
        elif case == "state hand":
            state["hands"][1] = [0, 1]
        elif case == "state card":
            state["center"] = [0, 1, 2, 99]
        elif case == "state call":
            state["last_call"] = {"kind": "honest", "caller": 0, "target_team": None, "scoring_teams": [0]}
        elif case == "state seats":
            state["connected"] = state["connected"][:3]
        elif case == "state missing":
            del state["phase"]
        elif case == "state extra":
            state["code"] = "import os"
        elif case == "state tick":  # the tick after the line's (tick 1): 2
            state["tick"] = 7
        elif case == "state phase_end":
            state["phase_end"] = 10**400
        elif case == "state cooldown":
            state["next_floor_tick"][2] = 10**9
        elif case == "state reminder":
            state["reminder"][1] = [0, 2**70]
        elif case == "state scores":  # no point scored at tick 1
            state["scores"][0] += 1
        elif case == "state round":
            state["round"] = 3
        elif case == "state pulse":
            state["last_pulse"][0] = [3, 10**9]
        elif case == "state vote":
            state["vote"] = {"proposer": 0, "voters": [1, 3], "yes": [], "absent": [], "deadline": 10**9}
        elif case == "state clock at its bound":  # the latest the engine may set: accepted
            state["phase_end"] = state["tick"] + 60
    elif case == "reset round":
        records[1]["state"]["round"] = 0
    elif case == "points past target":  # the fixture's matches are played to 1 point
        for line, score in ((3, 1), (4, 2)):
            records[line]["points"], records[line]["state"]["scores"] = [1, 0], [score, 0]
    elif case == "reset tick":  # the reset's state is the table before tick 0
        records[1]["state"]["tick"] = 1
    elif case.startswith("event "):
        event = {"kind": "pulse", "seat": 0, "data": {"emoji": 3}, "visible_to": None}
        if case == "event emoji":
            event["data"]["emoji"] = 24
        elif case == "event seat":
            event["seat"] = 4
        elif case == "event card":
            event["data"] = {"center_slot": 0, "taken": 20, "placed": 0}
        elif case == "event kind":
            event["kind"] = "teleport"
        elif case == "event team":  # teams of two: 2 teams at 4 players
            event.update(kind="sign_fixed", data={"team": 2, "sign": 3}, visible_to=[0, 2])
        elif case == "event team negative":
            event.update(kind="sign_fixed", data={"team": -1, "sign": 3}, visible_to=[0, 2])
        elif case == "event scoring teams":
            event.update(
                kind="call", data={"kind": "quatro", "target_team": None, "scoring_teams": [0, 10**400]}
            )
        elif case == "event voters":
            event.update(kind="vote_proposed", data={"voters": [1, 9]})
        elif case == "event center slot":
            event.update(kind="exchange", data={"center_slot": 4, "taken": 0, "placed": 1})
        elif case == "event round":
            event.update(kind="round_started", seat=None, data={"round": -1})
        records[3]["events"].append(event)
    elif case == "truncated":
        records = records[:-1]
    elif case == "second reset":
        records.insert(2, records[1])
    elif case == "line after end":
        records.append(records[-1])
    elif case == "tick first":
        del records[1]
    elif case == "end first":
        records = [records[0], records[-1]]
    elif case == "line not object":
        records.insert(2, [1])
    elif case == "tick bool":  # True == 1, the line's tick: only its type tells
        records[3]["tick"] = True
    elif case == "six-seat state":  # well formed, of another table than the header's
        state = records[3]["state"]
        per_seat = ("hands", "ready", "floor", "emoji", "last_pulse", "next_exchange_tick", "next_floor_tick")
        for key in (*per_seat, "reminder", "connected"):
            state[key] += state[key][:2]
        for key in ("scores", "signs"):
            state[key] += state[key][:1]
    elif case == "three teams' scores":
        records[3]["state"]["scores"] = [0, 0, 0]
    elif case == "placed card":  # a card of the largest deck, not of this table's
        records[3]["events"].append(
            {
                "kind": "exchange",
                "seat": 0,
                "data": {"center_slot": 0, "taken": 0, "placed": 20},
                "visible_to": None,
            }
        )
    elif case == "tick gap":
        del records[5]
    elif case == "base64":
        records[3]["observations"][0] = "!!!"
    elif case == "base64 type":
        records[3]["observations"][0] = 5
    elif case == "observation size":
        records[3]["observations"][0] = base64.b64encode(b"abc").decode()
    elif case == "observations count":
        records[3]["observations"] = records[3]["observations"][:3]
    elif case == "non-object event":
        records[3]["events"].append(5)
    elif case.startswith("type "):  # a field of the wrong JSON type
        line, field, value = {
            "type events": (3, "events", {}),
            "type state": (3, "state", []),
            "type observations": (3, "observations", "x"),
            "type tick": (3, "tick", "1"),
            "type rounds": (-1, "rounds", "3"),
            "type ticks": (-1, "ticks", None),
        }[case]
        records[line][field] = value
    elif case == "actions":
        records[3]["actions"] = [0, 1]
    elif case == "order repeated":
        records[3]["order"] = [0, 0, 0, 0]
    elif case == "order long":  # every seat once, and one more
        records[3]["order"] = [0, 1, 2, 3, 0]
    elif case == "points long":
        records[3]["points"] = [0, 0, 0]
    elif case.startswith(("actions ", "order ", "points ")):  # checked verified or not (--no-verify)
        field, what = case.split(" ")
        value = {"huge": 2**70, "negative": -1, "bool": True, "float": 0.0, "seat": 99}[what]
        records[3][field][-1] = value
    elif case.startswith("end "):
        end = records[-1]
        if case == "end missing":
            del end["scores"]
        elif case == "end scores":
            end["scores"] = [99, 99]
        elif case == "end nan":
            end["scores"] = [float("nan"), 0]  # json.dumps writes NaN, which json.loads takes
        elif case == "end winners":
            end["winners"] = ["x"]
        elif case == "end rounds":
            end["rounds"] = -1
        elif case == "end rounds ahead":  # the last state's round, completed, and one more
            end["rounds"] = records[-2]["state"]["round"] + 1
        elif case == "end ticks":
            end["ticks"] = -5
    elif case == "infinity":
        records[3]["state"]["phase_end"] = float("inf")
    elif case == "unknown type":
        records.insert(3, {"type": "exec", "code": "import os"})
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            "not json",
            r"^line 1: not valid JSON \(Expecting property name enclosed in double quotes at column 2\)$",
        ),
        ("second reset", r"^line 3: a second 'reset' line$"),
        ("line after end", r"^line \d+: a line after the 'end' line$"),
        ("tick first", r"^line 2: a 'tick' line before the 'reset' line$"),
        ("end first", r"^line 2: an 'end' line before the 'reset' line$"),
        ("line not object", r"^line 3: each line must be a JSON object$"),
        ("tick bool", r"^line 4: field 'tick' must be <class 'int'>, got a boolean$"),
        ("six-seat state", r"^line 4, field 'state': a table of 6 seats, the header says 4$"),
        ("three teams' scores", r"^line 4, field 'state': .*'scores' has 3 entries, the table has 2 teams"),
        ("placed card", r"^line 4, event \d+: card ids must be below 20 at this table, got \[20\]$"),
        ("nested too deeply", "line 2: not valid JSON here .nested too deeply."),
        ("header not first", "first line must be the header"),
        ("format", "field 'format'"),
        ("version", "version 99 is not supported"),
        ("config", r"^line 1 \(header\): field 'config' is not a valid QuatroConfig: num_players: [^\n]*$"),
        ("seed type", "field 'engine_seed'"),
        ("seed negative", "field 'engine_seed' must be a non-negative integer"),
        ("header extra", r"^line 1 \(header\): field 'evil' is not one the format defines \(type, format, "),
        *[
            (
                f"header type {field}",
                rf"^line 1 \(header\): field '{field}' must be <class '{kind}'>, got str$",
            )
            for field, kind in [
                ("version", "int"),
                ("config", "dict"),
                ("engine_seed", "int"),
                ("obs_dim", "int"),
                ("num_actions", "int"),
                ("meta", "dict"),
            ]
        ],
        ("header missing", r"^line 1 \(header\): missing field 'meta'$"),
        ("header game", r"^line 1 \(header\): field 'game' must be 'quatro', got 'chess'$"),
        ("header num_actions", r"^line 1 \(header\): field 'num_actions' is -4, the config's table has 74"),
        ("seats junk", r"^line 1 \(header\): seats\[0\]: must be an object \(seat, policy, seed\), got 1$"),
        (
            "seats count",
            r"^line 1 \(header\): field 'seats': must be a list of 4 entries .one per seat., got 3 entries$",
        ),
        ("seats extra", r"^line 1 \(header\): seats\[1\]: field 'code' is not one the format defines"),
        ("seats index", r"^line 1 \(header\): seats\[2\]\.seat: must be 2, got 0$"),
        ("seats policy", r"^line 1 \(header\): seats\[0\]\.policy: must be a string \(a label\)"),
        ("seats seed", r"^line 1 \(header\): seats\[3\]\.seed: must be a non-negative integer, got 1\.5$"),
        ("reset extra", r"^line 2: field 'code' is not one the format defines \(type, events, state, obs"),
        ("tick extra", r"^line 4: field 'foo' is not one the format defines \(type, tick, actions, "),
        ("end extra", r"^line \d+: field 'foo' is not one the format defines \(type, scores, winners, "),
        ("state emoji", r"line 4, field 'state': emoji\.0: Input should be greater than or equal to 0"),
        ("state hand", r"field 'state': .*hands\[1\] holds 2 cards"),
        ("state card", r"field 'state': .*card ids must be below 20 at this table, got \[99\]"),
        ("state call", r"field 'state': last_call\.kind: Input should be 'quatro', 'contra' or 'blank'"),
        ("state seats", r"field 'state': .*'connected' has 3 seats"),
        ("state missing", r"field 'state': phase: Field required"),
        ("state extra", r"field 'state': code: Extra inputs are not permitted"),
        ("event emoji", r"line 4, event \d+: .*data\.emoji must be an emoji index 0\.\.23, got 24"),
        ("event seat", r"line 4, event \d+: event seats must be below 4 at this table, got \[4\]"),
        ("event card", r"line 4, event \d+: card ids must be below 20 at this table, got \[20\]"),
        (
            "event kind",
            r"^line 4, event \d+: .*kind 'teleport' is not one the format defines \(events\.EVENT_K",
        ),
        ("event team", r"^line 4, event \d+: event teams must be below 2 at this table, got \[2\]$"),
        (
            "event team negative",
            r"^line 4, event \d+: .*data\.team must be a team index or a list of them, got -1$",
        ),
        (
            "event scoring teams",
            r"^line 4, event \d+: event teams must be below 2 at this table, got \[1000+\.\.\.0+\]$",
        ),
        ("event voters", r"^line 4, event \d+: event seats must be below 4 at this table, got \[9\]$"),
        (
            "event center slot",
            r"^line 4, event \d+: .*data\.center_slot must be a center slot 0\.\.3, got 4$",
        ),
        ("event round", r"^line 4, event \d+: .*data\.round must be a non-negative integer or a list of th"),
        (
            "state scores",
            r"^line 4, field 'state': scores are \[1, 0\]; the last state's \[0, 0\] plus this tick's "
            r"points \[0, 0\] make \[0, 0\]$",
        ),
        ("state round", r"^line 4, field 'state': round is 3 after round 1 \(a tick starts at most one new"),
        (
            "reset round",
            r"^line 2, field 'state': a match starts in round 1 with no points, got round 0 and scores "
            r"\[0, 0\]$",
        ),
        ("points past target", r"^line 5, field 'state': scores \[2, 0\] pass the match's points_to_win, 1$"),
        ("state pulse", r"^line 4, field 'state': last_pulse\[0\]\[1\] must be at most 62 .*got 1000000000$"),
        ("state vote", r"^line 4, field 'state': vote\.deadline must be at most 62 .*got 1000000000$"),
        ("state tick", r"^line 4, field 'state': tick is 7, expected 2 \(the next tick to play\)$"),
        ("reset tick", r"^line 2, field 'state': tick is 1, expected 0 \(the next tick to play\)$"),
        (
            "state phase_end",
            r"^line 4, field 'state': phase_end must be at most 62 \(tick 2 \+ the config's longest "
            r"duration, 60\), got 1000+\.\.\.0+$",
        ),
        (
            "state cooldown",
            r"^line 4, field 'state': next_floor_tick\[2\] must be at most 62 .*got 1000000000$",
        ),
        (
            "state reminder",
            r"^line 4, field 'state': reminder\[1\]\[1\] must be at most 62 .*got 1180591620717411303424$",
        ),
        ("truncated", "truncated"),
        ("tick gap", "field 'tick'"),
        ("base64", "base64"),
        ("base64 type", r"^line 4, seat 0: an observation is a base64 string, got int$"),
        ("observation size", r"^line 4, seat 0: observation has 3 bytes, expected obs_dim = \d+$"),
        ("observations count", r"^line 4: field 'observations' needs 4 entries, got 3$"),
        ("non-object event", r"^line 4: event \d+ must be an object with a string 'kind'$"),
        ("type events", r"^line 4: field 'events' must be <class 'list'>, got dict$"),
        ("type state", r"^line 4: field 'state' must be <class 'dict'>, got list$"),
        ("type observations", r"^line 4: field 'observations' must be <class 'list'>, got str$"),
        ("type tick", r"^line 4: field 'tick' must be <class 'int'>, got str$"),
        ("type rounds", r"^line \d+: field 'rounds' must be <class 'int'>, got str$"),
        ("type ticks", r"^line \d+: field 'ticks' must be <class 'int'>, got NoneType$"),
        ("order long", r"^line 4: field 'order' needs 4 items, got 5$"),
        ("points long", r"^line 4: field 'points' needs 2 items, got 3$"),
        ("actions", "field 'actions'"),
        ("actions huge", r"^line 4: actions\[3\] must be an integer in 0\.\.73, got 1180591620717411303424$"),
        ("actions negative", r"^line 4: actions\[3\] must be an integer in 0\.\.73, got -1$"),
        ("actions bool", r"^line 4: actions\[3\] must be an integer in 0\.\.73, got True$"),
        ("order seat", r"^line 4: order\[3\] must be an integer in 0\.\.3, got 99$"),
        (
            "order repeated",
            r"^line 4: field 'order' must be a permutation of the 4 seats, got \[0, 0, 0, 0\]",
        ),
        ("points negative", r"^line 4: points\[1\] must be an integer in 0\.\.1, got -1$"),
        ("points float", r"^line 4: points\[1\] must be an integer in 0\.\.1, got 0\.0$"),
        ("points huge", r"^line 4: points\[1\] must be an integer in 0\.\.1, got 1180591620717411303424$"),
        ("end missing", r"^line \d+: missing field 'scores'$"),
        ("end scores", r"^line \d+: field 'scores' is \[99, 99\], the last state's \[\d, \d\]$"),
        ("end nan", r"^line \d+: not valid JSON here \(NaN is not a JSON number\)$"),
        ("end winners", r"^line \d+: winners\[0\] must be an integer in 0\.\.1, got 'x'$"),
        (
            "end rounds",
            r"^line \d+: field 'rounds' is -1; the last state is in round (\d+), so \d+ or \1 rounds",
        ),
        ("end rounds ahead", r"^line \d+: field 'rounds' is (\d+); the last state is in round \d+, so"),
        ("end ticks", r"^line \d+: field 'ticks' is -5, the file has (\d+) ticks$"),
        ("infinity", r"^line 4: not valid JSON here \(Infinity is not a JSON number\)$"),
        ("unknown type", "unknown line type 'exec'"),
    ],
)
def test_malformed_replays_get_a_clear_error(replay_files, tmp_path, case, message):
    path = tmp_path / "bad.jsonl"
    records = _lines(replay_files[1])
    path.write_text(_malformed(records, case))
    with pytest.raises(ReplayFormatError, match=message) as err:
        read(path)
    if case == "end ticks":  # the count the file really has
        assert err.value.args[0].endswith(f"the file has {len(records) - 3} ticks")


@pytest.mark.parametrize("case", ["state clock at its bound", "header seed zero"])
def test_the_bounds_are_inclusive(replay_files, tmp_path, case):
    """A phase end at the state's tick plus the config's longest duration (60 ticks here) is one the engine
    may set, and engine seed 0 is a seed: both are read (re-simulation then finds the file is not the
    engine's)."""
    path = tmp_path / "edge.jsonl"
    path.write_text(_malformed(_lines(replay_files[1]), case))
    replay = read(path)
    if case.startswith("state"):
        assert replay.frames[2].state["phase_end"] == 62
    else:
        assert replay.header["engine_seed"] == 0


@pytest.mark.parametrize("cap", ["MAX_LINE_CHARS", "MAX_REPLAY_CHARS"])
def test_the_caps_are_inclusive(replay_files, monkeypatch, cap):
    """A file whose longest line (newline included) or whole text is exactly at the cap is read; one
    character more is refused."""
    text = replay_files[0].read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    size = max(map(len, lines)) if cap == "MAX_LINE_CHARS" else len(text)
    monkeypatch.setattr(loader, cap, size)
    assert read(replay_files[0]).end
    monkeypatch.setattr(loader, cap, size - 1)
    with pytest.raises(ReplayFormatError, match=cap):
        read(replay_files[0])


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("state tick", "line 4, field 'state': tick is 7, expected 2"),
        ("state phase_end", "line 4, field 'state': phase_end must be at most 62"),
        ("event kind", "kind 'teleport' is not one the format defines"),
        ("event team", "event teams must be below 2 at this table, got [2]"),
        ("event center slot", "data.center_slot must be a center slot 0..3, got 4"),
        ("state scores", "line 4, field 'state': scores are [1, 0]; the last state's [0, 0] plus"),
        ("state round", "line 4, field 'state': round is 3 after round 1"),
    ],
)
def test_no_verify_refuses_what_the_engine_check_refuses(replay_files, tmp_path, case, message):
    """``quatro-replay --no-verify`` refuses, in one named line (exit 2), a state whose tick is not its
    line's, a clock past any the engine sets, an event kind the engine never emits, a team or center slot
    beyond the table, scores that are not the points scored and a skipped round: re-simulation
    refuses each too, and the viewer drew them (a countdown from 10**400)."""
    path = tmp_path / "bad.jsonl"
    path.write_text(_malformed(_lines(replay_files[1]), case))
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
        code = replay_main([str(path), "--no-verify", "-o", str(tmp_path / "page.html")])
    assert code == 2 and not (tmp_path / "page.html").exists()
    assert err.getvalue().startswith(f"quatro-replay: {path}: line ") and message in err.getvalue()
    assert err.getvalue().count("\n") == 1
    with pytest.raises((ReplayFormatError, ReplayMismatchError)):
        load(path)  # verified: refused too


def test_the_event_kinds_are_the_ones_the_engine_emits():
    """``events.EVENT_KINDS`` (which a replay's events are checked against) lists every kind ``engine.py``
    builds an ``Event`` of, and no other: a kind is always a literal (or a choice of two)."""
    tree = ast.parse(inspect.getsource(engine_module))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Event"]
    kinds = set()
    for call in calls:
        kind = call.args[0]
        options = [kind.body, kind.orelse] if isinstance(kind, ast.IfExp) else [kind]
        assert all(isinstance(o, ast.Constant) for o in options), ast.unparse(kind)
        kinds |= {o.value for o in options}
    assert len(calls) > 20 and kinds == set(EVENT_KINDS)


def test_the_writer_makes_its_folders_and_writes_compact_plain_json(tmp_path):
    """The output's folders are made; every line is compact UTF-8 JSON; numpy numbers and sets in the
    header's seats and meta are written as plain JSON (a set sorted)."""
    from quatro_env import parallel_env
    from quatro_env.replay import ReplayWriter

    env = parallel_env(num_players=4)
    obs, _ = env.reset(seed=0)
    seats = [{"seat": s, "policy": "idle", "seed": np.int64(s)} for s in range(4)]
    meta = {"tags": {"b", "a"}, "flag": np.bool_(True), "note": "señal"}
    path = tmp_path / "a" / "b" / "m.jsonl"
    writer = ReplayWriter(path, env.config, 0, seats, meta=meta)
    writer.start(
        env.engine, env.last_tick.events, np.stack([obs[a]["observation"] for a in env.possible_agents])
    )
    writer.abort()
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["seats"][1]["seed"] == 1 and type(header["seats"][1]["seed"]) is int
    assert header["meta"] == {"tags": ["a", "b"], "flag": True, "note": "señal"} and "señal" in lines[0]
    assert all(", " not in line and '": ' not in line for line in lines)


def test_the_writer_refuses_seats_its_reader_would_refuse(tmp_path):
    """The header's seats are checked on writing too (``format.check_seats``): it writes none its reader
    refuses."""
    from quatro_env.quatro.config import QuatroConfig
    from quatro_env.replay import ReplayWriter

    seats = [{"seat": s, "policy": "idle", "seed": s} for s in range(4)]
    seats[2] = {"seat": 2, "policy": "idle"}
    with pytest.raises(ValueError, match=r"^seats\[2\]: missing field 'seed'$"):
        ReplayWriter(tmp_path / "m.jsonl", QuatroConfig(), 0, seats)
    assert not (tmp_path / "m.jsonl").exists()


_ANY_JSON = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=6),
    st.lists(st.integers(-2, 40), max_size=5),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 40), max_size=3),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_tampered_field_is_refused_by_name_or_drawn_never_a_crash(replay_files, tmp_path, data):
    """One field of a real replay replaced, deleted or added, anywhere: ``quatro-replay --no-verify``
    (no re-simulation: only the format checks stand between the file and the viewer) writes the page
    or refuses the file in one named line (exit 2), never a traceback."""
    records = _lines(replay_files[0])
    parent = data.draw(st.sampled_from(records), label="line")
    while True:
        keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        key = data.draw(st.sampled_from(keys), label="field") if keys else None
        child = parent[key] if keys else None
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans(), label="deeper"):
            parent = child
            continue
        break
    action = data.draw(st.sampled_from(["replace", "delete", "add"]), label="action")
    if action == "delete" and keys:
        del parent[key]
    elif action == "add" and isinstance(parent, dict):
        parent[data.draw(st.text(max_size=4), label="new key")] = data.draw(_ANY_JSON, label="value")
    elif action == "add":
        parent.insert(data.draw(st.integers(0, len(parent))), data.draw(_ANY_JSON, label="value"))
    elif keys:
        parent[key] = data.draw(_ANY_JSON, label="value")
    path = _write(tmp_path / "tampered.jsonl", records)
    seat = data.draw(st.sampled_from([[], ["--seat", "2"]]), label="seat")
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
        code = replay_main([str(path), "--no-verify", "-o", str(tmp_path / "page.html"), *seat])
    assert code in (0, 2)
    if code == 2:
        assert err.getvalue().startswith(f"quatro-replay: {path}: ") and "Traceback" not in err.getvalue()


def test_a_missing_or_binary_file_is_refused(tmp_path):
    with pytest.raises(ReplayFormatError, match="no such file"):
        read(tmp_path / "nope.jsonl")
    blob = tmp_path / "pickle.jsonl"
    blob.write_bytes(b"\x80\x04\x95\x00\x00cposix\nsystem\n")  # a pickle is not JSON: never unpickled
    with pytest.raises(ReplayFormatError):
        read(blob)


def test_replay_of_a_disconnection_schedule_resimulates(tmp_path):
    """Q23 changes happen between ticks and draw from the engine's generator: still reproducible."""
    (path, *_) = write_replays(
        tmp_path, matches=1, disconnect_prob=0.05, reconnect_prob=0.3, disconnect_schedule=((4, 1, False),)
    )
    replay = load(path)
    kinds = [ev["kind"] for f in replay.frames for ev in f.events]
    assert "disconnected" in kinds and "reconnected" in kinds
    copy = tmp_path / "copy.jsonl"
    shutil.copy(path, copy)
    assert load(copy).end == replay.end


def test_engine_seed_and_actions_reproduce_the_match(replay_files):
    """The header's seed and the per-tick actions are all a re-simulation needs (Q30)."""
    replay = load(replay_files[0])
    engine = QuatroEngine(replay.config)
    engine.reset(replay.header["engine_seed"])
    for frame in replay.frames[1:]:
        engine.step(frame.actions)
    assert engine.scores == replay.end["scores"]


def test_a_mixed_team_records_each_members_policy(tmp_path):
    (path,) = write_replays(tmp_path, policies=("honest+decoy", "random"), matches=1)
    seats = [s["policy"] for s in load(path).header["seats"]]
    assert seats == ["honest", "random", "decoy", "random"]  # match 0: the mixed team sits at team 0


def test_a_long_line_up_gets_a_short_distinct_file_name():
    """Labels are checkpoint paths and parameters: two of them over 255 bytes made ``quatro-eval --replays``
    die on ``File name too long``. Long stems are cut and keep a hash of the whole line-up."""
    from quatro_env.eval.runner import MAX_STEM, replay_stem

    short = replay_stem(["honest", "checkpoint:runs/a b/policy.pt"])
    assert short == "honest-vs-checkpoint_runs_a_b_policy.pt"
    long_a = replay_stem(["counter:threshold=0." + "0" * 200 + "5", "honest"])
    long_b = replay_stem(["counter:threshold=0." + "0" * 200 + "5", "decoy"])
    assert len(long_a) == len(long_b) == MAX_STEM and long_a != long_b
    assert len(f"{long_a}_m00000.jsonl.gz".encode()) < 255


def test_an_integer_too_long_for_python_is_refused_naming_the_line(replay_files, tmp_path):
    """json.loads raises a plain ValueError (not JSONDecodeError) past Python's 4300-digit int limit."""
    lines = replay_files[1].read_text().splitlines(keepends=True)
    lines[2] = '{"type": "tick", "tick": ' + "9" * 5000 + "}\n"
    path = tmp_path / "bigint.jsonl"
    path.write_text("".join(lines))
    with pytest.raises(ReplayFormatError, match=r"^line 3: not valid JSON here \(Exceeds the limit"):
        read(path)


def _gzip(path, *chunks: bytes):
    with gzip.open(path, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)
    return path


def test_a_gzip_bomb_line_is_refused_at_the_line_cap_without_filling_memory(tmp_path):
    """64 MiB of spaces in one JSON object, 64 KB gzipped: refused after reading MAX_LINE_CHARS (1 Mi)."""
    bomb = _gzip(tmp_path / "bomb.jsonl.gz", b'{"type": "header"', *[b" " * (1 << 20)] * 64, b"}\n")
    assert bomb.stat().st_size < 1 << 17
    tracemalloc.start()
    try:
        with pytest.raises(ReplayFormatError, match=r"^line 1: longer than the limit of 1048576 characters"):
            read(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20  # reading the whole file first held more than the 64 MiB line


def test_a_gzip_bomb_of_many_lines_is_refused_at_the_file_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "MAX_REPLAY_CHARS", 100_000)  # small: a fast test, light on memory
    monkeypatch.setattr(loader, "MAX_BLANK_LINES", 10**9)  # the file cap, not the blank-line cap
    bomb = _gzip(tmp_path / "bomb.jsonl.gz", *[b"\n" * (1 << 20)] * 8)  # blank lines are skipped
    with pytest.raises(ReplayFormatError, match=r"longer than the limit of 100000 characters \(MAX_REPLAY"):
        read(bomb)


def test_a_replay_of_blank_lines_is_refused_at_once(tmp_path):
    """50M blank lines in 49 kB of gzip kept the reader busy for 26 s (minutes at the file cap)."""
    bomb = _gzip(tmp_path / "blank.jsonl.gz", *[b"\n" * (1 << 20)] * 48)
    with pytest.raises(ReplayFormatError, match=r"line 1001: more than 1000 blank lines"):
        read(bomb)


@pytest.mark.parametrize(
    ("cap", "message"),
    [
        ("MAX_LINE_CHARS", r"^line 1: longer than the limit of 500 characters \(MAX_LINE_CHARS\)"),
        ("MAX_REPLAY_CHARS", r"longer than the limit of 500 characters \(MAX_REPLAY_CHARS\), at line 1$"),
    ],
)
def test_a_replay_over_a_cap_is_refused_naming_the_limit(replay_files, tmp_path, monkeypatch, cap, message):
    """The caps are generous (a real replay loads: the tests above), and they are what refuses a file."""
    path = _gzip(tmp_path / "real.jsonl.gz", replay_files[0].read_bytes())
    assert read(path).end
    monkeypatch.setattr(loader, cap, 500)
    with pytest.raises(ReplayFormatError, match=message):
        read(path)
