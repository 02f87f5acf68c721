"""The Quatro replay file: JSON lines, versioned, re-simulated on load (see docs/watch_and_play.md).

One JSON object a line, each with a ``"type"``:

* ``header`` (first line): ``format`` ("quatro-replay"), ``version``, ``config`` (every
  ``QuatroConfig`` field), ``engine_seed``, ``seats`` (per seat: its index, the policy label and its
  seed), ``obs_dim``, ``num_actions`` (the config's table's) and free ``meta`` (who wrote it, match
  index, ...);
* ``reset``: the opening events, the omniscient ``state`` and every seat's ``observations``;
* ``tick`` (one per tick played): ``tick``, ``actions`` (one per seat, the action index the engine
  played), ``order`` (resolution order), ``events`` (in resolution order, each with
  ``visible_to``: null for public events, else the seats that saw it), ``points`` (won this tick,
  per team), the omniscient ``state`` after the tick and every seat's ``observations``;
* ``end`` (last line): ``scores``, ``winners``, ``rounds``, ``ticks``.

A line holds the fields of its type and no other (:data:`FIELDS`). An observation is the seat's uint8
vector, base64-encoded. Files may be gzip-compressed
(``.gz``). Loading parses JSON only — a replay is data, never code.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from quatro_env.common.cli import short
from quatro_env.common.strict import is_index
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.engine import QuatroEngine, TickResult
from quatro_env.quatro.events import Event
from quatro_env.replay.views import engine_state

FORMAT = "quatro-replay"
VERSION = 1
GAME = "quatro"
#: the fields of each line, as :class:`ReplayWriter` writes them: a reader refuses any other by name, so a
#: misspelt or foreign field is never silently ignored
FIELDS = {
    "header": ("type", "format", "version", "game", "config", "engine_seed", "seats", "obs_dim")
    + ("num_actions", "meta"),
    "reset": ("type", "events", "state", "observations"),
    "tick": ("type", "tick", "actions", "order", "events", "points", "state", "observations"),
    "end": ("type", "scores", "winners", "rounds", "ticks"),
}
#: a header's entry per seat: its index, its policy's label and its actor's seed
SEAT_FIELDS = ("seat", "policy", "seed")


def fields_problem(record: dict[str, Any], names: Sequence[str]) -> str | None:
    """What is wrong with ``record``'s fields (one ``names`` does not hold, or one missing), or None."""
    unknown = [key for key in record if key not in names]
    if unknown:
        return f"field {short(unknown[0])} is not one the format defines ({', '.join(names)})"
    missing = [key for key in names if key not in record]
    return f"missing field {missing[0]!r}" if missing else None


def check_seats(seats: Any, n: int) -> None:
    """``seats`` as the header holds them: per seat ``{"seat": s, "policy": label, "seed": seed}``. The writer
    checks them too, so it never writes a header its reader refuses."""
    if not isinstance(seats, (list, tuple)) or len(seats) != n:
        got = f"{len(seats)} entries" if isinstance(seats, (list, tuple)) else type(seats).__name__
        raise ValueError(f"field 'seats': must be a list of {n} entries (one per seat), got {got}")
    for s, entry in enumerate(seats):
        what = f"seats[{s}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{what}: must be an object ({', '.join(SEAT_FIELDS)}), got {short(entry)}")
        if problem := fields_problem(entry, SEAT_FIELDS):
            raise ValueError(f"{what}: {problem}")
        seat, policy, seed = (entry[key] for key in SEAT_FIELDS)
        if not is_index(seat) or seat != s:
            raise ValueError(f"{what}.seat: must be {s}, got {short(seat)}")
        if not isinstance(policy, str):
            raise ValueError(f"{what}.policy: must be a string (a label), got {short(policy)}")
        if not is_index(seed) or seed < 0:
            raise ValueError(f"{what}.seed: must be a non-negative integer, got {short(seed)}")


def _plain(value: Any) -> Any:
    """JSON-ready copy: tuples and sets become lists, numpy scalars become Python numbers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def event_record(ev: Event) -> dict[str, Any]:
    return {
        "kind": ev.kind,
        "seat": ev.seat,
        "data": _plain(ev.data),
        "visible_to": None if ev.visible_to is None else sorted(ev.visible_to),
    }


def encode_observations(obs: np.ndarray) -> list[str]:
    return [base64.b64encode(np.ascontiguousarray(row, np.uint8).tobytes()).decode("ascii") for row in obs]


def decode_observation_text(text: Any, obs_dim: int, where: str) -> np.ndarray:
    if not isinstance(text, str):
        raise ValueError(f"{where}: an observation is a base64 string, got {type(text).__name__}")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as err:
        raise ValueError(f"{where}: observation is not valid base64 ({err})") from None
    if len(raw) != obs_dim:
        raise ValueError(f"{where}: observation has {len(raw)} bytes, expected obs_dim = {obs_dim}")
    return np.frombuffer(raw, np.uint8).copy()


#: a gzip replay is flushed (a zlib sync point) every this many ticks and after its first lines: a process
#: killed mid-match loses at most the last 99 ticks (a flush a line would cost 19 % in size, this 0.2 %)
GZIP_FLUSH_TICKS = 100


def gzipped(path: Path) -> bool:
    """A replay is gzip-compressed by its ``.gz`` suffix."""
    return path.suffix == ".gz"


def open_text(path: str | Path, mode: str) -> IO[str]:
    """A replay file as text; gzip by its ``.gz`` suffix. A plain file is written a line at a time, so a
    process killed mid-match leaves every line it finished (read them with ``partial``); a gzip stream is
    flushed by the writer every :data:`GZIP_FLUSH_TICKS` ticks."""
    path = Path(path)
    if gzipped(path):
        return gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8", buffering=1 if "w" in mode else -1)


class ReplayWriter:
    """Writes one match as it is played: :meth:`start` after reset, :meth:`tick` after each step."""

    def __init__(
        self,
        path: str | Path,
        config: QuatroConfig,
        engine_seed: int,
        seats: Sequence[dict[str, Any]],
        meta: dict[str, Any] | None = None,
    ) -> None:
        check_seats(seats, config.num_players)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open_text(self.path, "w")
        self._gzip = gzipped(self.path)
        self._ticks = 0
        self._header = {
            "type": "header",
            "format": FORMAT,
            "version": VERSION,
            "game": GAME,
            "config": _plain(config.model_dump()),
            "engine_seed": int(engine_seed),
            "seats": _plain(list(seats)),
            "meta": _plain(meta or {}),
        }

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def start(self, engine: QuatroEngine, events: Sequence[Event], obs: np.ndarray) -> None:
        self._header["obs_dim"] = int(obs.shape[1])
        self._header["num_actions"] = engine.codec.num_actions
        self._write(self._header)
        self._write(
            {
                "type": "reset",
                "events": [event_record(ev) for ev in events],
                "state": engine_state(engine),
                "observations": encode_observations(obs),
            }
        )
        if self._gzip:
            self._file.flush()

    def tick(self, actions: Sequence[int], result: TickResult, engine: QuatroEngine, obs: np.ndarray) -> None:
        self._ticks += 1
        self._write(
            {
                "type": "tick",
                "tick": result.tick,
                "actions": [int(a) for a in actions],
                "order": list(result.order),
                "events": [event_record(ev) for ev in result.events],
                "points": list(result.points),
                "state": engine_state(engine),
                "observations": encode_observations(obs),
            }
        )
        if self._gzip and self._ticks % GZIP_FLUSH_TICKS == 0:
            self._file.flush()  # TextIOWrapper -> GzipFile.flush: a zlib sync flush

    def close(self, engine: QuatroEngine) -> Path:
        self._write(
            {
                "type": "end",
                "scores": list(engine.scores),
                "winners": list(engine.winners),
                "rounds": engine.rounds_completed,
                "ticks": self._ticks,
            }
        )
        self._file.close()
        return self.path

    def abort(self) -> None:
        """Close without the end line (a match cut short); :func:`load` then reports it as truncated."""
        self._file.close()
