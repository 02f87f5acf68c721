"""``render_mode="human"``: a window where a display exists, else the text table on stdout."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable

import numpy as np


def display_available() -> bool:
    """A graphical display to open a window on (X11/Wayland on Linux; assumed elsewhere)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


class TableWindow:
    """A Tk window showing the latest picture; created lazily, updated in place."""

    def __init__(self) -> None:
        import tkinter

        from PIL import ImageTk  # noqa: F401 - fail here (then text) when Pillow lacks Tk support

        self.root = tkinter.Tk()
        self.root.title("Quatro")
        self.label = tkinter.Label(self.root)
        self.label.pack()
        self._photo = None

    def show(self, picture: np.ndarray) -> None:
        from PIL import Image, ImageTk

        self._photo = ImageTk.PhotoImage(Image.fromarray(picture))
        self.label.configure(image=self._photo)
        self.root.update()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the user may have closed it already
            self.root.destroy()


def show_or_print(
    window: TableWindow | None, picture: Callable[[], np.ndarray], text: Callable[[], str]
) -> TableWindow | None:
    """Draw into ``window`` (opening one if needed) when a display exists; else print the text, each
    frame followed by a blank line so that the tables printed one after another stay apart."""
    if window is None and display_available():
        try:
            window = TableWindow()
        except Exception:  # noqa: BLE001 - no Tk, no Pillow, or the display refused: fall back to text
            window = None
    if window is not None:
        try:
            window.show(picture())
            return window
        except Exception:  # noqa: BLE001 - the window was closed or drawing failed: text from now on
            window.close()
    print(text(), end="\n\n")
    return None
