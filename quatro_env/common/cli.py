"""Argument parsing shared by the command-line tools: bad input is one line and exit code 2.

argparse's own error prints the whole usage first; a tool here prints ``prog: argument --x: ...``
alone (the usage is one ``--help`` away), and numeric options say the range they allow.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import reprlib
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError


class OneLineParser(argparse.ArgumentParser):
    """``error`` prints one line naming the argument and what it allows, and exits with 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {' '.join(message.split())}\n")


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[low, high]`` (``high`` None: no upper bound)."""
    allowed = f"a whole number >= {low}" if high is None else f"a whole number from {low} to {high}"

    def parse(text: str) -> int:
        if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
            # int() also takes "1_000" and other scripts' digits ("١"): a count is plain digits
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}")
        value = int(text)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {value}")
        return value

    parse.__name__ = "int"  # argparse names the type in some messages
    return parse


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0 (a duration, a budget)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text}")
    return value


positive_float.__name__ = "float"


#: a bad value as an error shows it: cut short (a value can be huge; a deep one was 28 MB of message)
_SHORT = reprlib.Repr()  # keyword arguments only from Python 3.12
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlevel = 80, 80, 2
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = 6


def short(value: object) -> str:
    """``repr(value)`` cut short for an error line: long strings, lists and deep values are elided."""
    return _SHORT.repr(value)


#: the errors one line names (a list of fifty bad items is fifty errors)
MAX_ERRORS_SHOWN = 3


def one_line_error(exc: Exception) -> str:
    """An input error as one line naming each field and what it allows (pydantic's own text spans
    lines and adds URLs)."""
    if not isinstance(exc, ValidationError):
        return " ".join(str(exc).split())
    parts, errors = [], exc.errors()
    for error in errors[:MAX_ERRORS_SHOWN]:
        field = ".".join(str(part) for part in error["loc"]) or exc.title
        message = error["msg"].removeprefix("Value error, ")
        if message.startswith(f"{field}:") or not error["loc"]:  # the message names its fields
            parts.append(message)
        else:
            parts.append(f"{field}: {message} (got {short(error.get('input'))})")
    if len(errors) > MAX_ERRORS_SHOWN:
        parts.append(f"and {len(errors) - MAX_ERRORS_SHOWN} more")
    return "; ".join(" ".join(p.split()) for p in parts)


def output_dir_problem(out: Path | None, files: tuple[str, ...] = ()) -> str | None:
    """Why the directory ``out`` cannot take a tool's output (created if missing), or None: checked before
    the work, so a long run does not end in a traceback over its output. ``files``: names the tool will
    write there, each refused where a directory of that name stands."""
    if out is None:
        return None
    for name in files:
        if (out / name).is_dir():
            return f"{str(out / name)!r} is a directory; the output file goes there"
    if out.exists() and not out.is_dir():
        return f"{str(out)!r} is a file; give a directory"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create the directory {str(out)!r} ({exc.strerror or type(exc).__name__})"
    if not os.access(out, os.W_OK):
        return f"the directory {str(out)!r} is not writable"
    return None
