"""Matched AUCs (issue 18): a holder is compared only with non-holders of the same stratum — the
same round tick (time-matched), or the same tick and card count of the member (count-matched) — so
that whatever the strata carry scores exactly 0.5. Their bootstrap over matches, and the loss weights
of a decoder fitted for such a task. Pure numpy: the decoders' side is ``secrecy.py``."""

from __future__ import annotations

import numpy as np

from quatro_env.eval.readers import LEDGER_CLIP


def weighted_time_matched_auc(
    y: np.ndarray, scores: np.ndarray, strata: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """The time-matched AUC under each row of ``weights`` [B, rows] (a row's weight: how many times
    its match was drawn); ``weights`` of ones gives :func:`~quatro_env.eval.probe.time_matched_auc`.
    Pairs within a stratum, ties count a half; NaN where no stratum has both classes. A non-finite
    score is refused: sorted as a level of its own, a NaN ranked above every holder (a diverged decoder
    scored 1.0 and could win the cross-validation)."""
    weights = np.atleast_2d(np.asarray(weights, np.float64))
    scores = np.asarray(scores, np.float64)
    if not np.isfinite(scores).all():
        raise ValueError(f"scores: {int((~np.isfinite(scores)).sum())} of {scores.size} are not finite")
    scores = np.round(scores, 6)
    y = np.asarray(y, bool)
    num = np.zeros(weights.shape[0])
    den = np.zeros(weights.shape[0])
    for value in np.unique(strata):
        here = np.flatnonzero(strata == value)
        pos, neg = here[y[here]], here[~y[here]]
        if not pos.size or not neg.size:
            continue
        levels, inv = np.unique(scores[here], return_inverse=True)
        onehot = np.zeros((here.size, levels.size))
        onehot[np.arange(here.size), inv] = 1.0
        is_pos = y[here]
        wp = weights[:, pos] @ onehot[is_pos]  # [B, levels]: positive weight at each score level
        wn = weights[:, neg] @ onehot[~is_pos]
        below = np.cumsum(wn, axis=1) - wn  # negative weight strictly below each level
        num += (wp * below).sum(axis=1) + 0.5 * (wp * wn).sum(axis=1)
        den += wp.sum(axis=1) * wn.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def count_strata(tick_strata: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Strata of the count-matched AUC: the round tick's stratum and the member's card count
    (``readers.card_count``, 0 to ``LEDGER_CLIP``) together. Pairs then compare a holder only with
    members that look the same to the card counter at the same tick: what the card flow tells, which
    reads every code measured at 0.93 or more, is removed as exactly as the clock."""
    return np.asarray(tick_strata) * (LEDGER_CLIP + 1) + np.clip(counts, 0, LEDGER_CLIP)


def matched_share(y: np.ndarray, strata: np.ndarray) -> float:
    """The share of positive rows whose stratum holds a negative row too: the rows a matched AUC
    compares (the others form no pair and are left out of it)."""
    y = np.asarray(y, bool)
    with_negative = np.unique(strata[~y])
    return float(np.isin(strata[y], with_negative).mean()) if y.any() else float("nan")


def bootstrap_weights(groups: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """[draws, rows]: each draw resamples the distinct ``groups`` (matches) with replacement."""
    unique, inv = np.unique(groups, return_inverse=True)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(unique.size, np.full(unique.size, 1.0 / unique.size), size=draws)
    return counts[:, inv].astype(np.float64)


def percentile_ci95(values: np.ndarray, digits: int = 4) -> list[float | None]:
    """The 95 % percentile interval of bootstrap ``values``, leaving out draws with no value (a resample
    with no matched pair has no AUC), or [None, None] if none has one."""
    values = values[np.isfinite(values)]
    if not values.size:
        return [None, None]
    lo, hi = np.percentile(values, [2.5, 97.5])
    return [round(float(lo), digits), round(float(hi), digits)]


def pair_weights(y: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """Loss weights for a matched task: a quartet row weighs the non-quartet rows of its stratum, a
    non-quartet row the quartet rows (so each stratum weighs its pairs, as the matched AUC counts
    them, and both classes weigh the same); rows of a one-class stratum weigh 0. Mean 1 over rows."""
    y = np.asarray(y, bool)
    _, inv = np.unique(strata, return_inverse=True)
    pos = np.bincount(inv, weights=y.astype(float))
    neg = np.bincount(inv) - pos
    w = np.where(y, neg[inv], pos[inv])
    return w / w.mean() if w.any() else w
