"""Load a replay file and check it against the engine: re-simulate every tick and compare.

A replay is data: each line is parsed with :func:`json.loads`, every field is checked, and a file
that does not follow the format raises :class:`ReplayFormatError` naming the line and the field.
The file is read a line at a time under :data:`MAX_LINE_CHARS` and :data:`MAX_REPLAY_CHARS`, so that a
small ``.jsonl.gz`` that decompresses to gigabytes (a gzip bomb) is refused, not held in memory.
With ``verify=True`` (the default) the match is played again from the recorded seed and actions;
any difference in events, order, state (whose scores the points add up to) or observations, or in the
end's rounds completed, raises :class:`ReplayMismatchError`.
A match cut short (a crash, Ctrl-C, a killed process) leaves no ``end`` line, and perhaps a torn last
line or a gzip stream without its end: ``partial=True`` reads it up to its last whole tick (still
checked against the engine tick by tick); without it such a file is refused as truncated. Damaged gzip
data (a bad block or checksum: not what a killed writer leaves) is refused either way.
"""

from __future__ import annotations

import gzip
import itertools
import json
import zlib
from collections.abc import Iterator
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from quatro_env.common.cli import one_line_error, short
from quatro_env.common.strict import is_index
from quatro_env.quatro.actions import ActionCodec
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.engine import IllegalActionError, QuatroEngine
from quatro_env.replay.format import (
    FIELDS,
    FORMAT,
    GAME,
    VERSION,
    check_seats,
    decode_observation_text,
    event_record,
    fields_problem,
    open_text,
)
from quatro_env.replay.records import EventRecord, TableState
from quatro_env.replay.views import engine_state

#: The longest line read (decompressed, in characters, its newline included). The longest line the
#: writer wrote in our measurements is 12.9 k (a tick at 8 players; 3.8 k at 4, the header about 1 k):
#: 1 Mi leaves 80 times that, still small to parse.
MAX_LINE_CHARS = 1 << 20
#: The most a whole replay may decompress to (characters). Measured 3.2 k a tick at 4 players and 12.1 k
#: at 8, so the longest match the default rules record (8 players, 100 rounds each played to its time
#: limit: 48,000 ticks) is about 0.6 G; a usual match is a few M. Parsing holds 2-3 times the file.
MAX_REPLAY_CHARS = 1 << 30
#: blank lines a replay may hold: the writer writes none, and a 49 kB gzip of fifty million of them
#: kept the reader busy for 26 s (minutes at the size cap)
MAX_BLANK_LINES = 1000


class ReplayFormatError(ValueError):
    """The file is not a valid replay (bad JSON, a missing or mistyped field, a wrong version)."""


class ReplayMismatchError(ValueError):
    """Re-simulating the recorded actions through the engine did not give the recorded match."""


@dataclass
class Frame:
    """The table after the reset (``tick is None``) or after one tick."""

    tick: int | None
    actions: list[int]
    order: list[int]
    events: list[dict[str, Any]]
    points: list[int]
    state: dict[str, Any]
    observations: np.ndarray  # [n, obs_dim] uint8


@dataclass
class Replay:
    header: dict[str, Any]
    config: QuatroConfig
    frames: list[Frame] = field(default_factory=list)
    end: dict[str, Any] = field(default_factory=dict)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def complete(self) -> bool:
        """Whether the file has its ``end`` line (False only for a match cut short, read with ``partial``)."""
        return bool(self.end)


def _need(record: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in record:
        raise ReplayFormatError(f"{where}: missing field {key!r}")
    value = record[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ReplayFormatError(f"{where}: field {key!r} must be {kind}, got a boolean")
    if not isinstance(value, kind):
        raise ReplayFormatError(f"{where}: field {key!r} must be {kind}, got {type(value).__name__}")
    return value


def _ints(
    record: dict[str, Any], key: str, where: str, length: int | None, low: int = 0, high: int | None = None
) -> list[int]:
    """Field ``key``: a list of integers in ``low..high`` (of ``length`` items if given). Checked verified
    or not: the viewer and a caller of :func:`read` take them as they are."""
    values = _need(record, key, list, where)
    if length is not None and len(values) != length:
        raise ReplayFormatError(f"{where}: field {key!r} needs {length} items, got {len(values)}")
    for k, value in enumerate(values):
        if not is_index(value) or value < low or (high is not None and value > high):
            span = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
            raise ReplayFormatError(f"{where}: {key}[{k}] must be {span}, got {short(value)}")
    return values


def _parse_header(record: dict[str, Any]) -> tuple[dict[str, Any], QuatroConfig]:
    where = "line 1 (header)"
    if record.get("type") != "header":
        raise ReplayFormatError(
            f"{where}: the first line must be the header, got type {record.get('type')!r}"
        )
    if record.get("format") != FORMAT:
        raise ReplayFormatError(f"{where}: field 'format' must be {FORMAT!r}, got {record.get('format')!r}")
    version = _need(record, "version", int, where)
    if version != VERSION:
        raise ReplayFormatError(
            f"{where}: replay version {version} is not supported (this reader: {VERSION})"
        )
    if problem := fields_problem(record, FIELDS["header"]):
        raise ReplayFormatError(f"{where}: {problem}")
    if record["game"] != GAME:
        raise ReplayFormatError(f"{where}: field 'game' must be {GAME!r}, got {short(record['game'])}")
    try:
        config = QuatroConfig(**_need(record, "config", dict, where))
    except (ValidationError, TypeError) as err:
        raise ReplayFormatError(
            f"{where}: field 'config' is not a valid QuatroConfig: {one_line_error(err)}"
        ) from None
    if _need(record, "engine_seed", int, where) < 0:
        raise ReplayFormatError(f"{where}: field 'engine_seed' must be a non-negative integer")
    try:
        check_seats(record["seats"], config.num_players)
    except ValueError as err:
        raise ReplayFormatError(f"{where}: {err}") from None
    _need(record, "obs_dim", int, where)
    actions = ActionCodec(config.num_players).num_actions
    if _need(record, "num_actions", int, where) != actions:
        raise ReplayFormatError(
            f"{where}: field 'num_actions' is {short(record['num_actions'])}, the config's table has "
            f"{actions} actions"
        )
    _need(record, "meta", dict, where)
    return record, config


def _validated(model: type[EventRecord | TableState], data: dict[str, Any], n: int, where: str) -> None:
    """Check ``data`` against ``model`` (:mod:`replay.records`) at a table of ``n`` players; a
    ReplayFormatError names the first bad field."""
    try:
        model.model_validate(data).check_table(n)
    except ValidationError as err:
        first = err.errors()[0]
        path = ".".join(str(part) for part in first["loc"])
        raise ReplayFormatError(f"{where}: {path + ': ' if path else ''}{first['msg']}") from None
    except ValueError as err:
        raise ReplayFormatError(f"{where}: {err}") from None


def _parse_frame(record: dict[str, Any], replay: Replay, where: str, is_tick: bool) -> Frame:
    n, obs_dim = replay.num_players, replay.header["obs_dim"]
    events = _need(record, "events", list, where)
    for k, ev in enumerate(events):
        if not isinstance(ev, dict) or not isinstance(ev.get("kind"), str):
            raise ReplayFormatError(f"{where}: event {k} must be an object with a string 'kind'")
        _validated(EventRecord, ev, n, f"{where}, event {k}")
    state = _need(record, "state", dict, where)
    _validated(TableState, state, n, f"{where}, field 'state'")
    obs_texts = _need(record, "observations", list, where)
    if len(obs_texts) != n:
        raise ReplayFormatError(f"{where}: field 'observations' needs {n} entries, got {len(obs_texts)}")
    try:
        obs = np.stack(
            [decode_observation_text(t, obs_dim, f"{where}, seat {s}") for s, t in enumerate(obs_texts)]
        )
    except ValueError as err:
        raise ReplayFormatError(str(err)) from None
    if not is_tick:
        return Frame(None, [0] * n, [], events, [0] * (n // 2), state, obs)
    tick = _need(record, "tick", int, where)
    actions = _ints(record, "actions", where, n, 0, replay.header["num_actions"] - 1)
    order = _ints(record, "order", where, n, 0, n - 1)
    if len(set(order)) != n:
        raise ReplayFormatError(f"{where}: field 'order' must be a permutation of the {n} seats, got {order}")
    points = _ints(record, "points", where, n // 2, 0, 1)  # a round ends once a tick, a point a team (Q24)
    return Frame(tick, actions, order, events, points, state, obs)


def _check_clocks(state: dict[str, Any], now: int, longest: int, where: str) -> None:
    """A state's clocks (its shape already checked: :class:`TableState`), as the engine sets them: its
    ``tick`` is the next one to play (``now``: 0 after the reset, t + 1 after tick t), and every phase end,
    cooldown, reminder window, vote deadline and pulse lies at most ``longest`` ticks (the config's longest
    duration) past it. Checked verified or not: the viewer counts down to them (a phase_end of 10**400)."""
    where = f"{where}, field 'state'"
    if state["tick"] != now:
        raise ReplayFormatError(
            f"{where}: tick is {short(state['tick'])}, expected {now} (the next tick to play)"
        )
    clocks = [("phase_end", state["phase_end"])]
    if state["vote"] is not None:
        clocks.append(("vote.deadline", state["vote"]["deadline"]))
    for name in ("next_exchange_tick", "next_floor_tick"):
        clocks += [(f"{name}[{s}]", tick) for s, tick in enumerate(state[name])]
    for s, window in enumerate(state["reminder"]):  # (opened, last tick)
        clocks += [] if window is None else [(f"reminder[{s}][{k}]", tick) for k, tick in enumerate(window)]
    for s, pulse in enumerate(state["last_pulse"]):  # (emoji, tick)
        clocks += [] if pulse is None else [(f"last_pulse[{s}][1]", pulse[1])]
    bound = now + longest
    for name, tick in clocks:
        if tick > bound:
            raise ReplayFormatError(
                f"{where}: {name} must be at most {bound} (tick {now} + the config's longest duration, "
                f"{longest}), got {short(tick)}"
            )


def _check_start(state: dict[str, Any], where: str) -> None:
    """The reset line's state: the first round's sign phase, no point scored yet."""
    if state["round"] != 1 or any(state["scores"]):
        raise ReplayFormatError(
            f"{where}, field 'state': a match starts in round 1 with no points, got round "
            f"{short(state['round'])} and scores {short(state['scores'])}"
        )


def _check_progress(before: dict[str, Any], frame: Frame, points_to_win: int, where: str) -> None:
    """One tick's change of the score and the round, as the engine makes it: each team's score grows by
    the points of that tick and never past ``points_to_win`` (Q24: the match ends there), and the round
    number by at most one (a new sign phase). Checked verified or not: the viewer shows them."""
    where = f"{where}, field 'state'"
    state = frame.state
    scores = [a + b for a, b in zip(before["scores"], frame.points, strict=True)]
    if state["scores"] != scores:
        raise ReplayFormatError(
            f"{where}: scores are {short(state['scores'])}; the last state's {before['scores']} plus this "
            f"tick's points {frame.points} make {scores}"
        )
    if max(scores) > points_to_win:
        raise ReplayFormatError(f"{where}: scores {scores} pass the match's points_to_win, {points_to_win}")
    if state["round"] not in (before["round"], before["round"] + 1):
        raise ReplayFormatError(
            f"{where}: round is {short(state['round'])} after round {before['round']} "
            f"(a tick starts at most one new round)"
        )


def _check_end(record: dict[str, Any], replay: Replay, where: str) -> None:
    """The end line: the last state's scores and winners, its rounds, and the number of tick lines."""
    last, teams = replay.frames[-1].state, replay.num_players // 2
    scores = _ints(record, "scores", where, teams)
    winners = _ints(record, "winners", where, None, 0, teams - 1)
    for key, value in (("scores", scores), ("winners", winners)):
        if value != last[key]:
            raise ReplayFormatError(f"{where}: field {key!r} is {short(value)}, the last state's {last[key]}")
    rounds = _need(record, "rounds", int, where)
    if rounds not in (last["round"] - 1, last["round"]):  # rounds completed: the current one, or not yet
        raise ReplayFormatError(
            f"{where}: field 'rounds' is {short(rounds)}; the last state is in round {last['round']}, "
            f"so {last['round'] - 1} or {last['round']} rounds were completed"
        )
    if _need(record, "ticks", int, where) != len(replay.frames) - 1:
        raise ReplayFormatError(
            f"{where}: field 'ticks' is {short(record['ticks'])}, the file has {len(replay.frames) - 1} ticks"
        )


def _numbered_lines(path: Path, partial: bool = False) -> Iterator[tuple[int, str]]:
    """The file's lines, numbered from 1, read one at a time (never more than the caps above in memory:
    ``list(fh)`` would decompress a whole gzip bomb first). With ``partial``, a gzip stream that stops
    before its end (a killed writer) ends the lines where it stops. Damaged gzip data (a bad deflate
    block or checksum) is refused even with ``partial``: a killed writer never leaves it, and the lines
    before the damage are not vouched for by the checksum."""
    total = 0
    with open_text(path, "r") as fh:
        for number in itertools.count(1):
            try:
                line = fh.readline(MAX_LINE_CHARS + 1)  # one character more tells a line over the cap
            except EOFError as err:
                if partial:
                    return
                raise ReplayFormatError(
                    f"replay {str(path)!r}: cannot be read as text ({err}; a writer killed mid-match: "
                    f"{PARTIAL_HINT})"
                ) from None
            except (zlib.error, gzip.BadGzipFile) as err:
                raise ReplayFormatError(f"replay {str(path)!r}: its gzip data is damaged ({err})") from None
            except (OSError, UnicodeDecodeError) as err:
                raise ReplayFormatError(f"replay {str(path)!r}: cannot be read as text ({err})") from None
            if not line:
                return
            if len(line) > MAX_LINE_CHARS:
                raise ReplayFormatError(
                    f"line {number}: longer than the limit of {MAX_LINE_CHARS} characters (MAX_LINE_CHARS)"
                )
            total += len(line)
            if total > MAX_REPLAY_CHARS:
                raise ReplayFormatError(
                    f"replay {str(path)!r}: longer than the limit of {MAX_REPLAY_CHARS} characters"
                    f" (MAX_REPLAY_CHARS), at line {number}"
                )
            yield number, line


#: how a replay cut short is read anyway (in the error that refuses it)
PARTIAL_HINT = "`quatro-replay --partial` (read(..., partial=True)) views it up to its last whole tick"


def read(path: str | Path, partial: bool = False) -> Replay:
    """Parse and validate a replay file without re-simulating it. ``partial``: accept a match cut short
    (no ``end`` line; a last line torn mid-write is dropped; any other bad line, or damaged gzip data, is
    still refused)."""
    path = Path(path)
    if not path.is_file():
        raise ReplayFormatError(f"replay {str(path)!r}: no such file")
    replay: Replay | None = None
    blank = longest = 0
    for number, line in _numbered_lines(path, partial):
        where = f"line {number}"
        if partial and not line.endswith("\n") and not _parses(line):
            break  # the last line, torn: the writer ends every line it finished with a newline
        if not line.strip():  # the writer writes none; a few are forgiven, millions would spin for minutes
            blank += 1
            if blank > MAX_BLANK_LINES:
                raise ReplayFormatError(
                    f"{where}: more than {MAX_BLANK_LINES} blank lines (a replay has none)"
                )
            continue
        try:
            record = _loads(line)
        except json.JSONDecodeError as err:
            torn = "" if line.endswith("\n") else f"; the last line, torn: a match cut short? {PARTIAL_HINT}"
            raise ReplayFormatError(
                f"{where}: not valid JSON ({err.msg} at column {err.colno}){torn}"
            ) from None
        except ValueError as err:  # an integer of more than 4300 digits (Python's limit), or NaN
            raise ReplayFormatError(f"{where}: not valid JSON here ({err})") from None
        except RecursionError:  # e.g. a hundred thousand nested brackets: the parser recurses
            raise ReplayFormatError(f"{where}: not valid JSON here (nested too deeply)") from None
        if not isinstance(record, dict):
            raise ReplayFormatError(f"{where}: each line must be a JSON object")
        kind = record.get("type")
        if replay is None:
            header, config = _parse_header(record)
            replay = Replay(header, config)
            longest = max(astuple(to_ticks(config)))  # a phase, a cooldown or a window: _check_clocks
            continue
        if replay.end:
            raise ReplayFormatError(f"{where}: a line after the 'end' line")
        if kind in ("reset", "tick", "end") and (problem := fields_problem(record, FIELDS[kind])):
            raise ReplayFormatError(f"{where}: {problem}")
        if kind == "reset":
            if replay.frames:
                raise ReplayFormatError(f"{where}: a second 'reset' line")
            replay.frames.append(_parse_frame(record, replay, where, is_tick=False))
            _check_clocks(replay.frames[0].state, 0, longest, where)
            _check_start(replay.frames[0].state, where)
        elif kind == "tick":
            if not replay.frames:
                raise ReplayFormatError(f"{where}: a 'tick' line before the 'reset' line")
            frame = _parse_frame(record, replay, where, is_tick=True)
            expected = len(replay.frames) - 1
            if frame.tick != expected:
                raise ReplayFormatError(f"{where}: field 'tick' is {frame.tick}, expected {expected}")
            _check_clocks(frame.state, expected + 1, longest, where)
            _check_progress(replay.frames[-1].state, frame, replay.config.points_to_win, where)
            replay.frames.append(frame)
        elif kind == "end":
            if not replay.frames:
                raise ReplayFormatError(f"{where}: an 'end' line before the 'reset' line")
            _check_end(record, replay, where)
            replay.end = record
        else:
            raise ReplayFormatError(f"{where}: unknown line type {kind!r}")
    if replay is None:
        raise ReplayFormatError(f"replay {str(path)!r}: the file is empty")
    if not replay.frames:
        raise ReplayFormatError(f"replay {str(path)!r}: no 'reset' line")
    if not replay.end and not partial:
        raise ReplayFormatError(
            f"replay {str(path)!r}: truncated (no 'end' line: a match cut short; {PARTIAL_HINT})"
        )
    return replay


def _loads(line: str) -> Any:
    """``json.loads``, but NaN and Infinity, which JSON does not have (Python's parser takes them), are
    refused: the writer never writes them, and a NaN score compares unequal to everything."""
    return json.loads(line, parse_constant=_not_json)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON number")


def _parses(line: str) -> bool:
    try:
        _loads(line)
    except (ValueError, RecursionError):
        return False
    return True


#: how many characters of a recorded or replayed value a mismatch shows
SHOWN_CHARS = 60


def _compare(what: str, where: str, recorded: Any, replayed: Any) -> None:
    """Raise on a difference, in one line: where it first differs (``state.scores``, ``events[1].seat``)
    and both values there, cut short (a whole state was a kilobyte over three lines)."""
    if recorded != replayed:
        path, recorded, replayed = _first_difference(what, recorded, replayed)
        raise ReplayMismatchError(
            f"{where}: {path} differs from the engine's: recorded {recorded}, engine {replayed}"
        )


def _first_difference(path: str, recorded: Any, replayed: Any) -> tuple[str, str, str]:
    """Where two unequal JSON values first differ, and both values there as shown: into objects of the same
    keys and lists of objects or lists (a list of numbers is shown whole)."""
    if isinstance(recorded, dict) and isinstance(replayed, dict) and recorded.keys() == replayed.keys():
        key = next((k for k in recorded if recorded[k] != replayed[k]), None)
        if key is not None:
            return _first_difference(f"{path}.{key}", recorded[key], replayed[key])
    elif (
        isinstance(recorded, list) and isinstance(replayed, list) and (_nested(recorded) or _nested(replayed))
    ):
        pairs = enumerate(zip(recorded, replayed, strict=False))
        k = next((k for k, (a, b) in pairs if a != b), None)
        if k is not None:
            return _first_difference(f"{path}[{k}]", recorded[k], replayed[k])
        return path, f"a list of {len(recorded)}", f"a list of {len(replayed)}"  # one the other's start
    return path, _shown(recorded), _shown(replayed)


def _nested(value: Any) -> bool:
    """A list of objects or lists (events, hands), which a difference is looked for in."""
    return any(isinstance(x, (dict, list)) for x in value)


def _shown(value: Any) -> str:
    """``value`` in at most :data:`SHOWN_CHARS` characters."""
    text = short(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _compare_observations(where: str, recorded: np.ndarray, replayed: np.ndarray) -> None:
    """Compare the observation vectors; a difference names the seat and the byte."""
    if not np.array_equal(recorded, replayed):
        seat, index = (int(i) for i in np.argwhere(recorded != replayed)[0])
        raise ReplayMismatchError(
            f"{where}: observations[{seat}] differs from the engine's at byte {index}: "
            f"recorded {recorded[seat, index]}, engine {replayed[seat, index]}"
        )


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def verify(replay: Replay) -> None:
    """Play the recorded actions again from the recorded seed; raise on the first difference.

    :func:`read` has tied each tick's points to its scores and the end line's scores, winners and tick
    count to the file's last state, so comparing every state covers them; the end's number of rounds
    completed is the one figure no state holds."""
    engine = QuatroEngine(replay.config)
    encoder = ObservationEncoder(replay.num_players)
    obs = np.zeros((replay.num_players, encoder.obs_dim), np.uint8)
    if replay.header["obs_dim"] != encoder.obs_dim:
        raise ReplayMismatchError(
            f"header: obs_dim {replay.header['obs_dim']} != the encoder's {encoder.obs_dim}"
        )
    events = engine.reset(replay.header["engine_seed"])
    encoder.encode(engine, events, (), obs)
    first = replay.frames[0]
    _compare("events", "reset", first.events, _json([event_record(e) for e in events]))
    _compare("state", "reset", first.state, _json(engine_state(engine)))
    _compare_observations("reset", first.observations, obs)
    for frame in replay.frames[1:]:
        where = f"tick {frame.tick}"
        if engine.match_over:
            raise ReplayMismatchError(f"{where}: the engine's match was already over")
        try:
            result = engine.step(frame.actions)
        except IllegalActionError as err:
            raise ReplayMismatchError(
                f"{where}: a recorded action is illegal for the engine: {err}"
            ) from None
        encoder.encode(engine, result.events, result.order, obs)
        _compare("order", where, frame.order, list(result.order))
        _compare("events", where, frame.events, _json([event_record(e) for e in result.events]))
        _compare("state", where, frame.state, _json(engine_state(engine)))
        _compare_observations(where, frame.observations, obs)
    end = replay.end
    if not end:  # a match cut short (read with ``partial``): every tick it has was checked
        return
    _compare("rounds", "end", end["rounds"], engine.rounds_completed)


def load(path: str | Path, verify_engine: bool = True, partial: bool = False) -> Replay:
    """Read a replay and (by default) check it against the engine; return it. ``partial``: :func:`read`."""
    replay = read(path, partial)
    if verify_engine:
        verify(replay)
    return replay
