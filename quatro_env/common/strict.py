"""Strict scalar checks for hand-validated inputs (scripted positions, actions).

Decision 16 of docs/quatro.md: an input is never silently coerced. ``True`` is not the integer 1,
``1.0`` and ``"1"`` are not seat 1, and ``"no"`` is not a flag. These checks are cheap enough for
the API boundary; pydantic models use its strict mode for the same rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def is_index(value: Any) -> bool:
    """An integer proper (Python or NumPy), never a boolean."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``low..high`` (inclusive), or a ``ValueError`` naming ``what``."""
    if not is_index(value):
        raise ValueError(f"{what}: must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"{'' if low is None else low}..{'' if high is None else high}"
        raise ValueError(f"{what}: {value} is outside {span}")
    return value


def as_real(value: Any, what: str) -> float:
    """``value`` as a finite float: an int or a float (NumPy's too), never a bool, NaN or infinity."""
    number = isinstance(value, (int, float, np.integer, np.floating))
    if isinstance(value, (bool, np.bool_)) or not number or not math.isfinite(value):
        raise ValueError(f"{what}: must be a finite number, got {value!r} ({type(value).__name__})")
    return float(value)


def as_flag(value: Any, what: str) -> bool:
    """``value`` as a bool; 0/1, strings and None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what}: must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def as_list(value: Any, what: str, length: int | None = None) -> list:
    """``value`` as a list (a sequence, not a string or a mapping) of ``length`` items if given."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValueError(f"{what}: must be a list, got {value!r} ({type(value).__name__})")
    items = list(value)
    if length is not None and len(items) != length:
        raise ValueError(f"{what}: need {length} items, got {len(items)}")
    return items
