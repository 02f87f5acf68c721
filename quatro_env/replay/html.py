"""Write a replay as one self-contained HTML page (inline CSS, JS and data; nothing fetched).

An omniscient page embeds the omniscient view and every seat's view; ``seat=K`` writes a page that
embeds *only* seat K's view: frames decoded from seat K's observations, plus public facts (the
rules config, the tick clock, the policies' labels) — never the engine seed, from which a reader
could re-deal every hand.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from quatro_env.replay.loader import Replay
from quatro_env.replay.views import decode_observation, omniscient_frame, seat_frame

_STATIC = resources.files("quatro_env.replay") / "static"


def static_text(name: str) -> str:
    """One of the page assets shipped in ``quatro_env/replay/static``."""
    return (_STATIC / name).read_text(encoding="utf-8")


def omniscient_frames(replay: Replay) -> list[dict[str, Any]]:
    n = replay.num_players
    return [omniscient_frame(f.state, f.events, n) for f in replay.frames]


def seat_frames(replay: Replay, seat: int) -> list[dict[str, Any]]:
    """Seat ``seat``'s frames, from its observations only (and the public tick number)."""
    n = replay.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat: {seat} is outside 0..{n - 1}")
    out = []
    for k, f in enumerate(replay.frames):
        frame = seat_frame(decode_observation(f.observations[seat], seat, n), n)
        frame["tick"] = k  # the table clock is public: frame k is the table after k ticks
        out.append(frame)
    return out


def timeline(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seat: the frame ranges in which it held the floor, and the frames where it pulsed."""
    rows = []
    for s in range(len(frames[0]["seats"])):
        held: list[list[int]] = []
        pulses: list[list[Any]] = []
        for k, f in enumerate(frames):
            info = f["seats"][s]
            if info["floor"]:
                if held and held[-1][1] == k - 1:
                    held[-1][1] = k
                else:
                    held.append([k, k])
            if info["pulse_age"] == 0 and info["pulse"] is not None:
                pulses.append([k, info["pulse"]])
        rows.append({"seat": s, "held": held, "pulses": pulses})
    return rows


def markers(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Quartet formed, sign shown, «Quatro!», «Contra!», blank round — as far as this view knows."""
    out: list[dict[str, Any]] = []
    before = frames[0]
    for k, f in enumerate(frames[1:], start=1):
        for s, info in enumerate(f["seats"]):
            if f["phase"] == "play" and info["quartet"] and not before["seats"][s]["quartet"]:
                out.append({"frame": k, "kind": "quartet", "label": f"seat {s} holds a quartet"})
            sign = f["signs"][info["team"]]
            if info["pulse_age"] == 0 and sign is not None and info["pulse"] == sign:
                out.append({"frame": k, "kind": "sign", "label": f"seat {s} shows its team's sign {sign}"})
        if f["call"] is not None and before["call"] is None:
            kind = f["call"]["kind"]
            label = {"quatro": "«Quatro!»", "contra": "«Contra!»", "blank": "blank round"}[kind]
            who = f" by seat {f['call']['caller']}" if f["call"]["caller"] is not None else ""
            out.append({"frame": k, "kind": "call" if kind == "quatro" else kind, "label": label + who})
        before = f
    return out


def viewer_data(replay: Replay, seat: int | None = None) -> dict[str, Any]:
    """What the page embeds: every view (or seat ``seat``'s only) with its timeline and markers."""
    n = replay.num_players
    views: dict[str, list[dict[str, Any]]] = {}
    if seat is None:
        views["omniscient"] = omniscient_frames(replay)
        for s in range(n):
            views[f"seat {s}"] = seat_frames(replay, s)
    else:
        views[f"seat {seat}"] = seat_frames(replay, seat)
    labels = [
        entry.get("policy", "?") if isinstance(entry, dict) else "?" for entry in replay.header["seats"]
    ]
    title = f"Quatro, {n} players: " + " · ".join(f"seat {s} {p}" for s, p in enumerate(labels))
    return {
        "title": title + ("" if seat is None else f" — seat {seat}'s view"),
        "num_players": n,
        "tick_seconds": replay.config.tick_seconds,
        "config": replay.header["config"],
        "views": {
            name: {"frames": frames, "timeline": timeline(frames), "markers": markers(frames)}
            for name, frames in views.items()
        },
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no "</script>", no HTML comment openers)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data: dict[str, Any]) -> str:
    page = static_text("viewer.html")
    for marker, text in (
        ("/*__CSS__*/", static_text("table.css")),
        ("/*__TABLE_JS__*/", static_text("table.js")),
        ("/*__VIEWER_JS__*/", static_text("viewer.js")),
        ("/*__DATA__*/", _script_json(data)),
    ):
        page = page.replace(marker, text, 1)
    return page


def write_html(replay: Replay, out: str | Path, seat: int | None = None) -> Path:
    out = Path(out)
    out.write_text(render_html(viewer_data(replay, seat)), encoding="utf-8")
    return out
