"""Confidence intervals for win rates (Wilson score interval, via SciPy)."""

from __future__ import annotations

from scipy.stats import binomtest


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    The Wilson interval keeps its coverage near the nominal level even for rates near 0 or 1,
    where the normal approximation collapses to a zero-width interval.
    """
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in [0, trials={trials}], got {successes}")
    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)
