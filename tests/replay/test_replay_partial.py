"""A match cut short (a crash, Ctrl-C, a killed process) leaves a replay without its ``end`` line, perhaps
with a torn last line or a gzip stream without its end. It used to be refused whole; ``partial`` reads it
up to its last whole tick, still checked against the engine tick by tick, and nothing else is forgiven."""

from __future__ import annotations

import gzip
import json
import zlib

import numpy as np
import pytest

from quatro_env.replay import ReplayFormatError, ReplayMismatchError, load, read
from quatro_env.replay.cli import main as replay_main
from quatro_env.replay.format import GZIP_FLUSH_TICKS
from tests.replay.helpers import write_replays


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """A complete replay and its lines (each with its newline)."""
    path = write_replays(tmp_path_factory.mktemp("replays"), matches=1)[0]
    return path, path.read_text().splitlines(keepends=True)


def _cut(tmp_path, lines, keep: int, torn: str = "", name: str = "cut.jsonl"):
    """The first ``keep`` lines, then ``torn`` (a line's beginning, no newline)."""
    path = tmp_path / name
    path.write_text("".join(lines[:keep]) + torn)
    return path


def test_a_replay_without_its_end_line_is_refused_with_the_way_to_read_it(whole, tmp_path):
    path = _cut(tmp_path, whole[1], len(whole[1]) - 1)
    with pytest.raises(ReplayFormatError, match=r"truncated \(no 'end' line: a match cut short; .*--partial"):
        load(path)


@pytest.mark.parametrize("ticks_kept", [0, 1, 7])
def test_partial_reads_up_to_the_last_whole_tick_and_checks_it(whole, tmp_path, ticks_kept):
    full = load(whole[0])
    lines = whole[1]
    torn = lines[2 + ticks_kept][: len(lines[2 + ticks_kept]) // 2]  # the next tick, half written
    for torn_line in ("", torn):
        replay = load(_cut(tmp_path, lines, 2 + ticks_kept, torn_line), partial=True)  # header, reset, ticks
        assert not replay.complete and replay.end == {}
        assert len(replay.frames) == 1 + ticks_kept
        for got, want in zip(replay.frames, full.frames, strict=False):
            assert got.tick == want.tick and got.state == want.state and got.actions == want.actions
    assert full.complete and len(load(whole[0], partial=True).frames) == len(full.frames)


def test_partial_still_checks_every_tick_against_the_engine(whole, tmp_path):
    lines = list(whole[1][:6])
    record = json.loads(lines[4])
    record["state"]["ready"][0] = not record["state"]["ready"][0]  # a tampered tick of a cut replay
    lines[4] = json.dumps(record) + "\n"
    with pytest.raises(ReplayMismatchError, match="tick 2: state.ready differs"):
        load(_cut(tmp_path, lines, len(lines)), partial=True)


def test_partial_forgives_only_the_torn_last_line(whole, tmp_path):
    lines = list(whole[1][:6])
    lines[3] = lines[3][:40] + "\n"  # a torn line with lines after it: not a cut, a corrupt file
    with pytest.raises(ReplayFormatError, match="line 4: not valid JSON"):
        read(_cut(tmp_path, lines, len(lines)), partial=True)
    unfinished = whole[1][4].rstrip("\n")  # a whole last line without its newline is still a tick
    assert len(read(_cut(tmp_path, whole[1], 4, unfinished), partial=True).frames) == 4  # reset + 3 ticks
    for keep, message in ((0, "the file is empty"), (1, "no 'reset' line")):  # nothing to view
        with pytest.raises(ReplayFormatError, match=message):
            read(_cut(tmp_path, whole[1], keep, "{"), partial=True)


def test_a_gzip_stream_cut_short_is_read_up_to_where_it_stops(whole, tmp_path):
    data = gzip.compress("".join(whole[1]).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) * 2 // 3])  # a killed writer: the stream has no end
    with pytest.raises(ReplayFormatError, match="cannot be read as text .*--partial"):
        read(path)
    replay = load(path, partial=True)
    full = load(whole[0])
    assert not replay.complete and 1 < len(replay.frames) < len(full.frames)
    assert [f.state for f in replay.frames] == [f.state for f in full.frames[: len(replay.frames)]]


def _damaged(lines, damage: str) -> bytes:
    """A gzip replay whose data is damaged: a bad deflate block after its first ticks, or a bad checksum."""
    text = "".join(lines).encode()
    if damage == "checksum":
        data = bytearray(gzip.compress(text))
        data[-8] ^= 1  # the CRC-32 of the trailer
        return bytes(data)
    stream = zlib.compressobj(wbits=31)  # a gzip stream, flushed (as the writer does) after five lines
    return stream.compress("".join(lines[:5]).encode()) + stream.flush(zlib.Z_SYNC_FLUSH) + b"\xff" * 16


@pytest.mark.parametrize("damage", ["block", "checksum"])
@pytest.mark.parametrize("partial", [False, True])
def test_damaged_gzip_data_is_refused_in_one_line_even_with_partial(whole, tmp_path, capsys, damage, partial):
    """A bad deflate block raised zlib.error through quatro-replay (a traceback). A killed writer leaves a
    stream that stops, never damaged data, so ``--partial`` refuses it too: nothing vouches for its lines."""
    path = tmp_path / "damaged.jsonl.gz"
    path.write_bytes(_damaged(whole[1], damage))
    with pytest.raises(ReplayFormatError, match=r"^replay '.*damaged\.jsonl\.gz': its gzip data is damaged"):
        read(path, partial=partial)
    code = replay_main([str(path), "-o", str(tmp_path / "page.html"), *(["--partial"] if partial else [])])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "its gzip data is damaged" in err
    assert err.startswith(f"quatro-replay: {path}: ")


def test_quatro_replay_partial_writes_the_viewer_and_says_the_match_was_cut(whole, tmp_path, capsys):
    path = _cut(tmp_path, whole[1], 12, whole[1][12][:30])
    out = tmp_path / "cut.html"
    assert replay_main([str(path), "-o", str(out)]) == 2  # its torn last line is named, with the way out
    err = capsys.readouterr().err
    assert "line 13: not valid JSON" in err and "the last line, torn" in err and "--partial" in err
    assert not out.exists()
    assert replay_main([str(path), "-o", str(out), "--partial"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"wrote {out} (10 ticks, omniscient + every seat; cut short: the match has no end line)"
    )
    assert out.stat().st_size > 0


@pytest.mark.parametrize("name", ["killed.jsonl", "killed.jsonl.gz"])
def test_a_writer_killed_mid_match_leaves_every_tick_it_wrote(tmp_path, name):
    """The writer writes a plain replay a line at a time: what a killed process leaves (here: the file read
    while its writer is still open, never closed) is every finished tick, readable with ``partial``. A gzip
    replay is flushed every ``GZIP_FLUSH_TICKS`` ticks: it leaves every tick up to its last flush (it left
    nothing, not even its header, while the match was short of gzip's buffer)."""
    from quatro_env.quatro.config import QuatroConfig
    from quatro_env.quatro.encoding import ObservationEncoder
    from quatro_env.quatro.engine import QuatroEngine
    from quatro_env.replay import ReplayWriter
    from tests.replay.helpers import QUICK

    config = QuatroConfig(**QUICK)
    engine, encoder = QuatroEngine(config), ObservationEncoder(config.num_players)
    obs = np.zeros((config.num_players, encoder.obs_dim), np.uint8)
    seats = [{"seat": s, "policy": "idle", "seed": s} for s in range(config.num_players)]
    writer = ReplayWriter(tmp_path / name, config, 7, seats)
    events = engine.reset(7)
    encoder.encode(engine, events, (), obs)
    writer.start(engine, events, obs)
    played = 2 * GZIP_FLUSH_TICKS + 5
    kept = played if name.endswith(".jsonl") else 2 * GZIP_FLUSH_TICKS
    for _ in range(played):
        actions = [0] * config.num_players  # the no-op
        result = engine.step(actions)
        encoder.encode(engine, result.events, result.order, obs)
        writer.tick(actions, result, engine, obs)
    try:
        replay = load(writer.path, partial=True)  # the writer is neither closed nor flushed by hand
        assert not replay.complete and [f.tick for f in replay.frames] == [None, *range(kept)]
    finally:
        writer.abort()
