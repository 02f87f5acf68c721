"""The linear probes' features (``eval/probe.py``, the cheap view beside Eve and Bob, issue 18), value by
value on a scripted channel history: mutation testing found no test that read them, so a tracker that
started a round at tick 1, or carried a round's pulse counts into the next, passed."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from quatro_env.eval.probe import CLIP, OUTSIDER_NAMES, ChannelTracker


def _ev(kind: str, seat: int, **data):
    return SimpleNamespace(kind=kind, seat=seat, data=data)


def _row(row: np.ndarray) -> dict[str, float]:
    """Team 0's non-zero features by name."""
    return {name: pytest.approx(float(v)) for name, v in zip(OUTSIDER_NAMES, row, strict=True) if v}


FLOORS = {"none": [False] * 4, "seat0": [True, False, False, False]}


def test_the_outsider_features_of_a_scripted_channel_history():
    tracker = ChannelTracker(4)  # team 0: seats 0 and 2; team 1: seats 1 and 3
    signs = [5, None]
    steps = [  # (events, floors after the tick, team 0's expected non-zero features, its sign row)
        ([], "none", {"m0.since_pulse": 1, "m1.since_pulse": 1, "quiet": 1 / CLIP, "clock[0,4)": 1}, [0] * 4),
        (
            [_ev("floor_taken", 0)],
            "seat0",
            {
                "m0.floor": 1, "m0.took_floor": 1, "m0.since_pulse": 1, "m0.holding_for": 1 / CLIP,
                "m1.since_pulse": 1, "silence_break": 1 / CLIP, "round_time": 1 / 120, "clock[0,4)": 1,
            },
            [0, 0, 0, 0],
        ),
        (
            [_ev("pulse", 0, emoji=5)],
            "seat0",
            {
                "m0.floor": 1, "m0.pulsed": 1, "m0.holding_for": 2 / CLIP, "m0.novel": 1, "m0.pulses": 0.1,
                "m1.since_pulse": 1, "distinct": 1 / 24, "round_time": 2 / 120, "clock[0,4)": 1,
            },
            [1, 1, 0, 0],  # showing the sign, and just pulsed it
        ),
        (
            [_ev("pulse", 0, emoji=7)],
            "seat0",
            {
                "m0.floor": 1, "m0.pulsed": 1, "m0.holding_for": 3 / CLIP, "m0.changed": 1, "m0.novel": 1,
                "m0.pulses": 0.2, "m1.since_pulse": 1, "distinct": 2 / 24, "round_time": 3 / 120,
                "clock[0,4)": 1,
            },
            [0, 0, 0, 0],
        ),
        (
            [_ev("pulse", 0, emoji=5)],
            "seat0",
            {
                "m0.floor": 1, "m0.pulsed": 1, "m0.holding_for": 4 / CLIP, "m0.changed": 1, "m0.pulses": 0.3,
                "m1.since_pulse": 1, "distinct": 2 / 24, "round_time": 4 / 120, "clock[4,8)": 1,
            },
            [1, 1, 0, 0],
        ),
        (
            [_ev("floor_released", 0)],
            "none",
            {
                "m0.released_floor": 1, "m0.since_pulse": 1 / CLIP, "m0.pulses": 0.3, "m1.since_pulse": 1,
                "quiet": 1 / CLIP, "distinct": 2 / 24, "round_time": 5 / 120, "clock[4,8)": 1,
            },
            [0, 0, 0, 0],
        ),
    ]  # fmt: skip
    for k, (events, floors, expected, sign_row) in enumerate(steps):
        out, sign_rows = tracker.update(FLOORS[floors], events, signs)
        assert _row(out[0]) == expected, f"tick {k}"
        assert sign_rows[0].tolist() == sign_row, f"tick {k}"
        assert sign_rows[1].tolist() == [0, 0, 0, 0]  # team 1 has no sign to read
    quiet_team = {"m0.since_pulse": 1, "m1.since_pulse": 1, "quiet": 6 / CLIP}  # silent for six ticks
    assert _row(out[1]) == {**quiet_team, "round_time": 5 / 120, "clock[4,8)": 1}

    tracker.new_round()  # a new round forgets the last one's clock, pulses, emojis and silences
    out, _ = tracker.update(FLOORS["seat0"], [_ev("floor_taken", 0), _ev("pulse", 0, emoji=5)], signs)
    assert _row(out[0]) == {
        "m0.floor": 1, "m0.took_floor": 1, "m0.pulsed": 1, "m0.holding_for": 1 / CLIP, "m0.novel": 1,
        "m0.pulses": 0.1, "m1.since_pulse": 1, "distinct": 1 / 24, "clock[0,4)": 1,
    }  # fmt: skip
    assert _row(out[1]) == {"m0.since_pulse": 1, "m1.since_pulse": 1, "quiet": 1 / CLIP, "clock[0,4)": 1}
