"""The strict value checks every hand-checked input passes (``quatro_env/common/strict.py``; decision 16
of docs/quatro.md: nothing is silently coerced): what each accepts, returned as the plain Python type,
and each refusal's exact message (the field, the value, its type, the allowed span)."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.common.strict import as_flag, as_int, as_list, as_real, is_index


def _message(check, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as err:
        check(*args, **kwargs)
    return str(err.value)


def test_integers_are_ints_never_bools_floats_or_text_and_their_span_is_named():
    assert is_index(3) and is_index(np.int8(3)) and not is_index(True) and not is_index(np.bool_(True))
    got = as_int(np.int16(7), "seat", low=0, high=7)
    assert got == 7 and type(got) is int
    assert _message(as_int, True, "seat") == "seat: must be an integer, got True (bool)"
    assert _message(as_int, 1.0, "seat") == "seat: must be an integer, got 1.0 (float)"
    assert _message(as_int, "1", "seat") == "seat: must be an integer, got '1' (str)"
    assert _message(as_int, 9, "seat", low=0, high=7) == "seat: 9 is outside 0..7"
    assert _message(as_int, -1, "seed", low=0) == "seed: -1 is outside 0.."
    assert _message(as_int, 11, "rounds", high=10) == "rounds: 11 is outside ..10"
    assert as_int(-5, "score") == -5  # no span: any integer


def test_reals_are_finite_numbers_returned_as_floats():
    got = as_real(np.int32(2), "lr")
    assert got == 2.0 and type(got) is float
    assert _message(as_real, True, "lr") == "lr: must be a finite number, got True (bool)"
    assert _message(as_real, float("nan"), "lr") == "lr: must be a finite number, got nan (float)"
    assert _message(as_real, "0.1", "lr") == "lr: must be a finite number, got '0.1' (str)"


def test_flags_are_bools_returned_as_python_bools():
    for value in (True, np.bool_(True)):
        got = as_flag(value, "guard")
        assert got is True
    assert as_flag(np.bool_(False), "guard") is False
    assert _message(as_flag, 1, "guard") == "guard: must be True or False, got 1 (int)"
    assert _message(as_flag, "no", "guard") == "guard: must be True or False, got 'no' (str)"


def test_lists_are_sequences_not_text_or_mappings_of_the_length_asked():
    assert as_list((1, 2), "hand", length=2) == [1, 2]
    assert as_list(np.arange(3), "hand") == [0, 1, 2]
    assert _message(as_list, "ab", "hand") == "hand: must be a list, got 'ab' (str)"
    assert _message(as_list, {"a": 1}, "hand") == "hand: must be a list, got {'a': 1} (dict)"
    assert _message(as_list, [1, 2, 3], "hand", length=4) == "hand: need 4 items, got 3"
