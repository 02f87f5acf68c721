"""The linear probes (``eval/probe.py``, the cheap view beside Eve and Bob, issue 18): their features value
by value on a scripted channel history, and the fit on synthetic matches. Mutation testing found no test
that read either: a tracker that started a round at tick 1 or carried a round's pulse counts into the
next passed, and so did a fit that returned no AUC at all."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from quatro_env.eval.probe import CLIP, OUTSIDER_NAMES, ChannelTracker


def _ev(kind: str, seat: int, **data):
    return SimpleNamespace(kind=kind, seat=seat, data=data)


def _row(row: np.ndarray) -> dict[str, float]:
    """A team's row: its non-zero features by name."""
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
        assert out.dtype == sign_rows.dtype == np.float32  # the rows of a few hundred matches stay small
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


def _probe_data(groups_n: int = 10, seed: int = 0):
    """Rows of ``groups_n`` matches, match g holding 2**g rows (so the held-out row count names the
    held-out matches); column 0 is the label plus noise, column 1 noise alone, the stratum is the row's
    index within its match modulo 4."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(groups_n), 2 ** np.arange(groups_n))
    y = (rng.random(groups.size) < 0.4).astype(np.int64)
    x = np.stack([y + rng.normal(0, 0.4, groups.size), rng.normal(0, 1, groups.size)], axis=1)
    strata = np.concatenate([np.arange(2**g) % 4 for g in range(groups_n)])
    return x, y, groups, strata


def test_the_linear_probe_holds_out_whole_matches_and_scores_them():
    """``fit_probe``: a seeded split by match (about 30 % of the matches held out, never a match on both
    sides), a held-out AUC that reads an informative column and not a noise column, the time-matched AUC
    on the held-out rows, and the held-out positive rate."""
    from quatro_env.eval.probe import fit_probe, time_matched_auc

    x, y, groups, strata = _probe_data()
    result = fit_probe(x, y, groups, seed=0, strata=strata)
    assert result.train_rows + result.test_rows == y.size
    held_out = [g for g in range(10) if result.test_rows >> g & 1]  # sizes are powers of two
    assert len(held_out) == 3  # round(0.3 * 10) whole matches
    test = np.isin(groups, held_out)
    assert result.test_positive_rate == pytest.approx(y[test].mean())
    assert result.auc > 0.9 and result.time_matched_auc > 0.9
    assert 2 <= len(result.fpr) == len(result.tpr) <= 101 and result.fpr[0] == 0 and result.fpr[-1] == 1
    noise = fit_probe(x[:, 1:], y, groups, seed=0, strata=strata)
    assert 0.35 < noise.auc < 0.65 and noise.test_rows == result.test_rows  # the same seed, the same split
    assert 50 < len(noise.fpr) <= 101  # a long curve is thinned to about 100 points for the report
    for curve in (noise.fpr, noise.tpr):  # from (0, 0) to (1, 1), rounded to 4 places
        assert curve[0] == 0 and curve[-1] == 1 and curve == sorted(curve) and 0 < curve[len(curve) // 2] < 1
        assert all(isinstance(v, float) and v == round(v, 4) for v in curve)
        assert any(v != round(v, 3) for v in curve)
    two = groups >= 8  # two matches: one to fit, one to score
    assert fit_probe(x[two], y[two], groups[two], seed=0).auc is not None
    assert fit_probe(x, y, groups, seed=1, strata=strata).test_rows != result.test_rows
    for seed in range(2, 12):  # three distinct matches whatever the seed (drawn without replacement)
        assert fit_probe(x, y, groups, seed=seed).test_rows.bit_count() == 3
    assert fit_probe(x, y, groups, test_fraction=0.5, seed=0).test_rows.bit_count() == 5
    default = fit_probe(x, y, groups)  # seed 0 by default; no strata, no matched AUC
    assert default.test_rows == result.test_rows and default.time_matched_auc is None
    # the stratum alone: the plain AUC reads it; the time-matched AUC finds no pair when the stratum
    # decides the label (None), and scores a stratum-only score exactly one half where pairs exist
    by_stratum = (strata == 0).astype(np.int64)
    clock = fit_probe(strata[:, None].astype(float) == 0, by_stratum, groups, seed=0, strata=strata)
    assert clock.auc == 1.0 and clock.time_matched_auc is None  # no stratum holds both classes
    mixed = np.where(strata == 0, y, 0)
    scores = (strata == 0).astype(float)
    assert time_matched_auc(mixed, scores, strata) == pytest.approx(0.5)


def test_the_linear_probe_is_empty_without_both_classes_on_each_side():
    from quatro_env.eval.probe import fit_probe

    x, y, groups, strata = _probe_data()
    for labels in (np.zeros_like(y), np.ones_like(y)):
        empty = fit_probe(x, labels, groups, seed=0, strata=strata)
        assert (empty.auc, empty.time_matched_auc, empty.fpr, empty.tpr) == (None, None, [], [])
        assert empty.test_positive_rate is None
        assert empty.train_rows + empty.test_rows == y.size
    held_out = np.isin(groups, [g for g in range(10) if fit_probe(x, y, groups).test_rows >> g & 1])
    for side in (held_out, ~held_out):  # quartets on one side of the split only: nothing to fit or score
        assert fit_probe(x, np.where(side, y, 0), groups).auc is None
    one_match = fit_probe(x[groups == 9], y[groups == 9], groups[groups == 9], seed=0)
    assert one_match.auc is None and one_match.test_rows == 512


def test_a_silent_floor_is_activity_a_re_take_hides_the_old_sign_and_pulse_counts_stop_at_ten():
    """Holding the floor without a gesture is not quiet; a member that pulsed the sign, released and took
    the floor again is not showing it until it pulses it again; the partner's (member 1's) sign has its
    own columns; the pulse count is clipped at ten."""
    tracker = ChannelTracker(4)
    signs = [5, None]
    floors = [True, False, True, False]  # both members of team 0 hold the floor
    tracker.update(floors, [_ev("floor_taken", 0), _ev("floor_taken", 2), _ev("pulse", 2, emoji=5)], signs)
    out, sign_rows = tracker.update(floors, [], signs)  # held in silence
    assert _row(out[0]).get("quiet", 0) == 0 and sign_rows[0].tolist() == [0, 0, 1, 0]
    tracker.update([True, False, False, False], [_ev("floor_released", 2)], signs)
    out, sign_rows = tracker.update(floors, [_ev("floor_taken", 2)], signs)
    assert sign_rows[0].tolist() == [0, 0, 0, 0]  # the sign it showed before the release is gone
    for _ in range(11):
        out, _ = tracker.update(floors, [_ev("pulse", 0, emoji=9)], signs)
    assert _row(out[0])["m0.pulses"] == 1.0
