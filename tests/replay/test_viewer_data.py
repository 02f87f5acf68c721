"""The replay viewer's embedded data: self-contained, and a seat's file holds only that seat's view."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from quatro_env.quatro.cards import EMOJIS, SUIT_SYMBOLS, VALUE_LABELS
from quatro_env.replay import load
from quatro_env.replay.cli import main as replay_main
from quatro_env.replay.html import markers, render_html, seat_frames, viewer_data
from quatro_env.replay.views import decode_observation, seat_frame
from tests.replay.helpers import write_replays


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    (path, *_) = write_replays(tmp_path_factory.mktemp("viewer"), matches=1)
    return load(path)


def _embedded(html: str) -> dict:
    text = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S).group(1)
    return json.loads(text)


def test_page_is_self_contained(replay):
    html = render_html(viewer_data(replay))
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html), "no CDN, no network"
    assert "<script src" not in html and "<link" not in html
    assert "default-src 'none'" in html  # the page may not fetch anything, even by mistake
    data = _embedded(html)
    assert set(data["views"]) == {"omniscient", "seat 0", "seat 1", "seat 2", "seat 3"}


def test_omniscient_frames_follow_the_engine_state(replay):
    frames = viewer_data(replay)["views"]["omniscient"]["frames"]
    for frame, recorded in zip(frames, replay.frames, strict=True):
        state = recorded.state
        assert frame["tick"] == state["tick"]
        assert frame["scores"] == state["scores"]
        assert [len(s["hand"]) for s in frame["seats"]] == [len(h) for h in state["hands"]]
        for seat in range(4):
            values = [VALUE_LABELS[c // 4] for c in state["hands"][seat]]
            assert [label[:-1] for label in frame["seats"][seat]["hand"]] == values


def test_seat_view_is_exactly_the_decoded_observation(replay):
    """Each seat frame is seat_frame(decode_observation(that seat's observation)) — nothing more."""
    for seat in range(4):
        frames = seat_frames(replay, seat)
        for k, (frame, recorded) in enumerate(zip(frames, replay.frames, strict=True)):
            expected = seat_frame(decode_observation(recorded.observations[seat], seat, 4), 4)
            expected["tick"] = k
            assert frame == expected


def test_seat_file_depends_on_nothing_but_that_seats_observations(replay):
    """Scramble everything hidden from seat 1 (other observations, the omniscient state, private
    events, the seed): seat 1's page data does not change. So it cannot leak any of it."""
    seat = 1
    clean = viewer_data(replay, seat=seat)
    scrambled = copy.deepcopy(replay)
    rng = np.random.default_rng(0)
    scrambled.header["engine_seed"] = 12345
    for frame in scrambled.frames:
        frame.state = {"hands": "scrambled"}
        frame.events = [{"kind": "reveal", "data": {"hands": [[1, 2, 3, 4]] * 4}}]
        frame.actions = [int(a) for a in rng.integers(0, 74, 4)]
        others = [s for s in range(4) if s != seat]
        frame.observations[others] = rng.integers(0, 255, (3, frame.observations.shape[1]), dtype=np.uint8)
    assert viewer_data(scrambled, seat=seat) == clean


def test_seat_file_holds_no_hidden_information(replay, tmp_path):
    """Q26–Q28: no other hand before the reveal, no other team's sign, no other seat's current emoji,
    no suits at all (observations carry values only), no engine seed."""
    seat = 2
    out = tmp_path / "seat2.html"
    assert replay_main([str(_path(replay, tmp_path)), "-o", str(out), "--seat", str(seat)]) == 0
    data = _embedded(out.read_text())
    assert list(data["views"]) == [f"seat {seat}"]
    text = json.dumps(data, ensure_ascii=False)
    assert "engine_seed" not in text and "omniscient" not in text
    assert not any(s in text for s in SUIT_SYMBOLS)
    frames = data["views"][f"seat {seat}"]["frames"]
    own_team = seat % 2
    for frame, recorded in zip(frames, replay.frames, strict=True):
        revealed = recorded.state["revealed"]
        for s in frame["seats"]:
            if s["seat"] != seat:
                assert s["emoji"] is None
                if not revealed:
                    assert s["hand"] is None
        assert frame["signs"][1 - own_team] is None or replay.config.reveal_signs
    signs_seen = {f["signs"][own_team] for f in frames} - {None}
    assert signs_seen <= {EMOJIS[x] for f in replay.frames for x in f.state["signs"] if x is not None}


def _path(replay, tmp_path):
    """Write the replay back out (the CLI reads a file); it must load identically."""
    from quatro_env.replay.format import encode_observations

    path = tmp_path / "again.jsonl"
    lines = [dict(replay.header)]
    first = replay.frames[0]
    lines.append({"type": "reset", "events": first.events, "state": first.state,
                  "observations": encode_observations(first.observations)})  # fmt: skip
    for f in replay.frames[1:]:
        lines.append(
            {"type": "tick", "tick": f.tick, "actions": f.actions, "order": f.order, "events": f.events,
             "points": f.points, "state": f.state, "observations": encode_observations(f.observations)}
        )  # fmt: skip
    lines.append(replay.end)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_markers_cover_calls_and_signs(replay):
    data = viewer_data(replay)
    omni = data["views"]["omniscient"]
    kinds = {m["kind"] for m in omni["markers"]}
    calls = [ev for f in replay.frames for ev in f.events if ev["kind"] in ("call", "blank_round")]
    expected = {"call" if ev["data"]["kind"] == "quatro" else ev["data"]["kind"] for ev in calls}
    assert expected and expected <= kinds
    pulses_of_sign = [
        (k, ev["seat"])
        for k, f in enumerate(replay.frames)
        for ev in f.events
        if ev["kind"] == "pulse" and ev["data"]["emoji"] == f.state["signs"][ev["seat"] % 2]
    ]
    assert pulses_of_sign, "the honest bot shows its sign in this match"
    sign_markers = [(m["frame"], int(m["label"].split()[1])) for m in omni["markers"] if m["kind"] == "sign"]
    assert sorted(sign_markers) == sorted(pulses_of_sign)
    for seat in range(4):
        seat_markers = markers(data["views"][f"seat {seat}"]["frames"])
        seen = {(m["frame"], m["kind"]) for m in seat_markers if m["kind"] in ("call", "contra", "blank")}
        assert seen == {
            (m["frame"], m["kind"]) for m in omni["markers"] if m["kind"] in ("call", "contra", "blank")
        }


def test_timeline_pulses_match_the_recorded_pulse_events(replay):
    data = viewer_data(replay)
    for view in ("omniscient", "seat 0"):
        rows = data["views"][view]["timeline"]
        got = sorted((k, row["seat"]) for row in rows for k, _ in row["pulses"])
        want = sorted(
            (k, ev["seat"]) for k, f in enumerate(replay.frames) for ev in f.events if ev["kind"] == "pulse"
        )
        assert want and got == want, view


def test_quartet_markers_are_the_ticks_a_hand_becomes_a_quartet(tmp_path):
    from quatro_env.quatro.cards import is_quartet

    (path,) = write_replays(tmp_path, policies=("collector", "collector"), matches=1)
    replay = load(path)
    omni = viewer_data(replay)["views"]["omniscient"]
    got = sorted((m["frame"], int(m["label"].split()[1])) for m in omni["markers"] if m["kind"] == "quartet")
    want = []
    for k in range(1, len(replay.frames)):
        before, now = replay.frames[k - 1].state, replay.frames[k].state
        for s in range(4):
            was = bool(before["hands"][s]) and is_quartet(before["hands"][s])
            if now["phase"] == "play" and now["hands"][s] and is_quartet(now["hands"][s]) and not was:
                want.append((k, s))
    assert want, "collectors build quartets"
    assert got == want
