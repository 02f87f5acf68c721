"""The Wilson score interval behind every win rate's 95 % interval (``common/stats.py``), against its
closed form; mutation testing found no test of it (a confidence level dropped, successes = trials
refused, one trial refused: all passed)."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from quatro_env.common.stats import wilson_interval


def _closed_form(k: int, n: int, confidence: float) -> tuple[float, float]:
    z = norm.ppf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(5, 10), (0, 10), (10, 10), (1, 1), (0, 1), (37, 200)])
@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_the_wilson_interval_is_its_closed_form(k, n, confidence):
    low, high = wilson_interval(k, n, confidence)
    assert (low, high) == pytest.approx(_closed_form(k, n, confidence), abs=1e-9)
    assert 0 <= low <= k / n <= high <= 1


def test_the_wilson_interval_narrows_with_trials_and_widens_with_confidence():
    def width(*args):
        low, high = wilson_interval(*args)
        return high - low

    assert width(500, 1000) < width(50, 100) < width(5, 10)
    assert width(5, 10, 0.8) < width(5, 10, 0.95) < width(5, 10, 0.99)


@pytest.mark.parametrize(
    ("k", "n", "message"),
    [
        (0, 0, "trials must be positive, got 0"),
        (0, -3, "trials must be positive, got -3"),
        (-1, 10, r"successes must lie in \[0, trials=10\], got -1"),
        (11, 10, r"successes must lie in \[0, trials=10\], got 11"),
    ],
)
def test_the_wilson_interval_refuses_counts_that_are_no_proportion(k, n, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        wilson_interval(k, n)
