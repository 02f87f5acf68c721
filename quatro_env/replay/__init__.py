"""Replays of Quatro matches: record (:class:`ReplayWriter`), load and re-simulate (:func:`load`), view.

See docs/watch_and_play.md for the file format.
"""

from quatro_env.replay.format import FORMAT, VERSION, ReplayWriter
from quatro_env.replay.loader import Frame, Replay, ReplayFormatError, ReplayMismatchError, load, read, verify

__all__ = [
    "FORMAT",
    "VERSION",
    "Frame",
    "Replay",
    "ReplayFormatError",
    "ReplayMismatchError",
    "ReplayWriter",
    "load",
    "read",
    "verify",
]
