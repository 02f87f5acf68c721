"""The Quatro table as a picture (``render_mode="rgb_array"``), drawn from the omniscient display frame.

The same frame (``quatro_env.replay.views.omniscient_frame``) feeds the HTML viewer, so the picture
and the viewer cannot disagree about what the table holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quatro_env.quatro.cards import EMOJIS
from quatro_env.quatro.engine import QuatroEngine
from quatro_env.quatro.events import Event
from quatro_env.render.canvas import TEAM_COLOURS, Canvas, seat_positions
from quatro_env.replay.format import event_record
from quatro_env.replay.views import engine_state, omniscient_frame

WIDTH, HEIGHT = 800, 600
_SEAT_W, _SEAT_H = 200, 104
_EVENT_SIZE = 11  # the events strip's font size


def draw_frame(frame: dict, width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """Any display frame (omniscient or one seat's: hidden cards are drawn as backs) as an RGB array."""
    c = Canvas(width, height)
    n = len(frame["seats"])
    scores = "  ".join(f"T{t} {s}" for t, s in enumerate(frame["scores"]))
    c.draw.rectangle((0, 0, width, 30), fill=(38, 50, 56))
    c.text(
        (10, 7),
        f"Quatro  tick {frame['tick']}  round {frame['round']}  {frame['phase']} "
        f"({frame['phase_left']} left)   scores {scores}",
        size=14,
        fill=(255, 255, 255),
        bold=True,
    )
    c.felt((110, 90, width - 110, height - 90))
    for k, label in enumerate(frame["center"]):
        c.card(width // 2 - 86 + 44 * k, height // 2 - 23, label)
    call = frame.get("call")
    if call is not None:
        who = f" by seat {call['caller']}" if call["caller"] is not None else ""
        c.text(
            (width // 2, height // 2 + 40),
            f"last call: {call['kind']}{who}",
            13,
            (255, 255, 255),
            anchor="mm",
        )
    for seat, (x, y) in zip(
        frame["seats"], seat_positions(n, width / 2, height / 2 + 10, 300, 205), strict=True
    ):
        _draw_seat(c, frame, seat, x - _SEAT_W // 2, y - _SEAT_H // 2)
    for k, line in enumerate(_event_lines(c, frame.get("events", ()), width - 20)):
        c.text((10, height - 30 + 14 * k), line, _EVENT_SIZE)
    return c.array()


def _event_lines(c: Canvas, events: Sequence[str], room: int, lines: int = 2) -> list[str]:
    """The tick's events in at most ``lines`` lines of ``room`` pixels, below the table (what a video of
    the table would otherwise lose: who exchanged what, who pulsed, who called). An event wider than a
    line is cut short ("…"); the events that find no line are counted on the last one ("(+3 more)")."""
    out: list[str] = []
    line = ""
    for k, text in enumerate(events):
        joined = f"{line}  ·  {text}" if line else text
        if not line or c.text_width(joined, _EVENT_SIZE) <= room:
            line = joined
            continue
        if len(out) + 1 == lines:
            return [*out, _fit(c, line, f"  (+{len(events) - k} more)", room)]
        out.append(_fit(c, line, "", room))
        line = text
    return [*out, _fit(c, line, "", room)] if line else out


def _fit(c: Canvas, text: str, tail: str, room: int) -> str:
    """``text + tail`` in ``room`` pixels, ``text`` cut short with "…" if need be."""
    if c.text_width(text + tail, _EVENT_SIZE) <= room:
        return text + tail
    while text and c.text_width(f"{text}…{tail}", _EVENT_SIZE) > room:
        text = text[:-1]
    return f"{text}…{tail}"


def _draw_seat(c: Canvas, frame: dict, s: dict, x: int, y: int) -> None:
    team_colour = TEAM_COLOURS[s["team"] % len(TEAM_COLOURS)]
    glow = (242, 193, 78) if s["floor"] else team_colour
    c.box((x, y, x + _SEAT_W, y + _SEAT_H), (255, 255, 255), glow, width=5 if s["floor"] else 3)
    sign = frame["signs"][s["team"]]
    c.text((x + 8, y + 5), f"seat {s['seat']} · T{s['team']}", 13, bold=True)
    if sign is not None:
        c.text((x + 120, y + 5), "sign", 11)
        c.emoji(x + 152, y + 2, EMOJIS.index(sign), sign, 18)
    hand = s["hand"] if s["hand"] is not None else [None] * 4
    for k, label in enumerate(hand):
        c.card(x + 8 + 38 * k, y + 24, label, highlight=(249, 168, 37) if s["quartet"] else None)
    info_x = x + 164
    if s["emoji"] is not None:
        c.emoji(info_x, y + 26, EMOJIS.index(s["emoji"]), s["emoji"], 26)
    elif s["pulse"] is not None:
        c.emoji(info_x + 4, y + 30, EMOJIS.index(s["pulse"]), s["pulse"], 18)
    badges = []
    if s["floor"]:
        badges.append("floor")
    if not s["connected"]:
        badges.append("offline")
    if frame["phase"] == "sign" and s["ready"]:
        badges.append("ready")
    c.text((x + 8, y + 74), " ".join(badges), 11)
    if frame["phase"] == "play":
        c.bar(x + 8, y + 90, 86, s["exchange_wait"] / 4)
        c.bar(x + 104, y + 90, 86, s["floor_wait"] / 4, (171, 71, 188))


def render_rgb(engine: QuatroEngine, events: Sequence[Event] = ()) -> np.ndarray:
    """The engine's table now (every hand shown: the spectator's picture) as an RGB array."""
    state = engine_state(engine)
    return draw_frame(omniscient_frame(state, [event_record(e) for e in events], engine.n))
