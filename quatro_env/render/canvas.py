"""Drawing helpers for ``render_mode="rgb_array"``: a Pillow canvas, cards, badges, emojis.

Pillow is an optional dependency (``pip install -e '.[render]'``); :func:`require_pillow`
says so when it is missing. Fonts: DejaVu Sans when installed (it has the card suits), else
Pillow's built-in font. Emojis are drawn with Noto Color Emoji when installed, else as a coloured
disc with the emoji's index (0..23), so every emoji stays distinguishable in a video frame.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from quatro_env.common.extras import install_extra

_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/Library/Fonts")
_EMOJI_FONTS = ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",)
RED_SUITS = frozenset("♥♦")
TEAM_COLOURS = ((30, 136, 229), (229, 57, 53), (142, 36, 170), (251, 140, 0))
FELT, FELT_EDGE, PAPER, INK = (31, 111, 74), (23, 86, 58), (244, 241, 234), (27, 27, 27)


def require_pillow():
    """Import Pillow, or fail with the install hint."""
    try:
        import PIL.Image
        import PIL.ImageDraw
        import PIL.ImageFont
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError(
            f"render_mode='rgb_array' draws with Pillow: {install_extra('render')} (or pip install pillow)"
        ) from err
    return PIL


@cache
def font(size: int, bold: bool = False):
    PIL = require_pillow()
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in _FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return PIL.ImageFont.truetype(str(path), size)
    return PIL.ImageFont.load_default(size)


@cache
def _emoji_font():
    PIL = require_pillow()
    for path in _EMOJI_FONTS:
        if Path(path).is_file():
            try:
                return PIL.ImageFont.truetype(path, 109)  # the only size the colour bitmaps come in
            except OSError:
                return None
    return None


def emoji_colour(index: int) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb((index * 7 % 24) / 24, 0.55, 0.95)
    return int(255 * r), int(255 * g), int(255 * b)


class Canvas:
    """A Pillow image with the few shapes a card table needs; :meth:`array` is the rgb_array."""

    def __init__(self, width: int, height: int, background=PAPER) -> None:
        PIL = require_pillow()
        self.PIL = PIL
        self.image = PIL.Image.new("RGB", (width, height), background)
        self.draw = PIL.ImageDraw.Draw(self.image)
        self.width, self.height = width, height

    def text(self, xy, text: str, size: int = 14, fill=INK, bold: bool = False, anchor: str = "la") -> None:
        self.draw.text(xy, text, font=font(size, bold), fill=fill, anchor=anchor)

    def text_width(self, text: str, size: int = 14, bold: bool = False) -> float:
        """How many pixels ``text`` takes in :meth:`text`'s font."""
        return self.draw.textlength(text, font=font(size, bold))

    def card(self, x: int, y: int, label: str | None, w: int = 34, h: int = 46, highlight=None) -> None:
        """A card face with its label (red for hearts and diamonds), or a back when ``label`` is None."""
        outline = highlight or (80, 80, 80)
        if label is None:
            self.draw.rounded_rectangle((x, y, x + w, y + h), 5, fill=(57, 73, 171), outline=outline, width=2)
            self.draw.line((x + 4, y + 4, x + w - 4, y + h - 4), fill=(92, 107, 192), width=3)
            return
        self.draw.rounded_rectangle((x, y, x + w, y + h), 5, fill=(255, 253, 246), outline=outline, width=2)
        colour = (198, 40, 40) if label[-1:] in RED_SUITS else INK
        self.text((x + w // 2, y + h // 2), label, size=14, fill=colour, bold=True, anchor="mm")

    def emoji(self, x: int, y: int, index: int, emoji: str, size: int = 22) -> None:
        face = _emoji_font()
        if face is not None:
            glyph = self.PIL.Image.new("RGBA", (136, 128), (0, 0, 0, 0))
            self.PIL.ImageDraw.Draw(glyph).text((0, 0), emoji, font=face, embedded_color=True)
            glyph = glyph.resize((size, size * 128 // 136))
            self.image.paste(glyph, (x, y), glyph)
            return
        self.draw.ellipse((x, y, x + size, y + size), fill=emoji_colour(index), outline=INK)
        self.text((x + size // 2, y + size // 2), str(index), size=11, bold=True, anchor="mm")

    def box(self, xy, fill, outline, width: int = 3, radius: int = 10) -> None:
        self.draw.rounded_rectangle(xy, radius, fill=fill, outline=outline, width=width)

    def bar(self, x: int, y: int, w: int, fraction: float, colour=(255, 112, 67)) -> None:
        self.draw.rounded_rectangle((x, y, x + w, y + 5), 2, fill=(207, 216, 220))
        if fraction > 0:
            self.draw.rounded_rectangle(
                (x, y, x + max(3, int(w * min(1.0, fraction))), y + 5), 2, fill=colour
            )

    def felt(self, xy) -> None:
        self.draw.ellipse(xy, fill=FELT, outline=FELT_EDGE, width=6)

    def array(self) -> np.ndarray:
        """The picture as an ``(height, width, 3)`` uint8 array."""
        return np.asarray(self.image, dtype=np.uint8).copy()


def seat_positions(
    n: int, cx: float, cy: float, rx: float, ry: float, first: int = 0
) -> list[tuple[int, int]]:
    """Centres of n seats around an ellipse, seat ``first`` at the bottom, then clockwise."""
    out: list[Any] = [None] * n
    for r in range(n):
        angle = np.pi / 2 + 2 * np.pi * r / n
        out[(first + r) % n] = (int(cx + rx * np.cos(angle)), int(cy + ry * np.sin(angle)))
    return out


TABLE_WIDTH, TABLE_HEIGHT = 800, 600  # the companion games' pictures


def seat_box(
    c: Canvas,
    x: int,
    y: int,
    w: int,
    title: str,
    cards: Sequence[str],
    lines: Sequence[str],
    colour,
    active: bool,
) -> None:
    rows = max(1, (len(cards) + 7) // 8)
    h = 30 + 30 * rows + 16 * len(lines)
    c.box(
        (x - w // 2, y - h // 2, x + w // 2, y + h // 2),
        (255, 255, 255),
        (242, 193, 78) if active else colour,
        width=5 if active else 3,
    )
    top = y - h // 2
    c.text((x - w // 2 + 8, top + 5), title, 13, bold=True)
    for k, label in enumerate(cards):
        cx = x - w // 2 + 8 + 28 * (k % 8)
        cy = top + 24 + 30 * (k // 8)
        c.card(cx, cy, label, w=26, h=28)
    for k, line in enumerate(lines):
        c.text((x - w // 2 + 8, top + 28 + 30 * rows + 16 * k), line, 11, INK)
