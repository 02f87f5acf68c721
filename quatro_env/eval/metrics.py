"""From match records to numbers: results, calls, and the communication metrics.

Every metric is defined (with its reference) in ``docs/evaluation.md``; the short versions:

* **win rate** — matches the team's policy won (alone or shared, Q25) / matches; 95 % Wilson interval.
  A match stopped at the round limit with no winner is a *draw* (counted separately).
* **points per round**, **rounds per match**, **blank-round rate** (rounds that ended by the clock).
* **«Quatro»/«Contra» precision** — correct calls / calls that went through.
* **time to a correct call** — seconds from the quartet forming (the partner's, for «Quatro»; the
  accused team's earliest, for «Contra») to the correct call.
* **positive signalling** — mutual information (bits) between "I hold a quartet" and what my
  channel shows (nothing / the team sign / another emoji), over play ticks.
* **positive listening** — P(I call «Quatro» | my partner shows our sign) − P(I call | it does not).
* **secrecy** — ROC AUC of a logistic-regression probe on the public channel (outsider) and with
  the sign (partner), on held-out matches (:mod:`quatro_env.eval.probe`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from quatro_env.common.stats import wilson_interval
from quatro_env.eval.probe import CLOCK_COLUMNS, ROUND_TIME_COLUMN, fit_probe


def mutual_information_bits(table: np.ndarray) -> float:
    """I(X; Y) in bits from a contingency table (scikit-learn's ``mutual_info_score``)."""
    from sklearn.metrics import mutual_info_score

    table = np.asarray(table)
    if table.sum() == 0:
        return 0.0
    return float(mutual_info_score(None, None, contingency=table)) / math.log(2)


def _rate(num: float, den: float) -> float | None:
    return float(num) / float(den) if den else None


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def team_metrics(
    items: Sequence[tuple[dict[str, Any], int | Sequence[int]]], label: str, tick_seconds: float
) -> dict[str, Any]:
    """Metrics of one policy over ``items`` = (match record, the slot or slots it played) pairs.

    A match counts once: won if any of the policy's teams won; per-team numbers (points per round,
    calls, ...) add up over its teams."""
    n_matches = len(items)
    wins = points = team_rounds = illegal = accused = draws = 0
    calls = np.zeros(4, np.int64)
    delays: list[int] = []
    signal = np.zeros((2, 3), np.int64)
    listen = np.zeros((2, 2), np.int64)
    for r, slot in items:
        mine = {slot} if isinstance(slot, int) else set(slot)
        teams = [t for t, s in enumerate(r["team_slot"]) if s in mine]
        if any(t in r["winners"] for t in teams):
            wins += 1
        if not r["winners"]:
            draws += 1
        for t in teams:
            points += r["scores"][t]
            team_rounds += r["rounds"]
            calls += r["calls"][t]
            accused += int(r["accused"][t])
            delays.extend(r["delays"][t])
            signal += r["signal"][t]
            listen += r["listen"][t]
            illegal += int(r["illegal"][t])
    lo, hi = wilson_interval(wins, n_matches) if n_matches else (None, None)
    p_call_sign = _rate(listen[1, 1], listen[1].sum())
    p_call_none = _rate(listen[0, 1], listen[0].sum())
    seconds = np.asarray(delays, float) * tick_seconds
    return {
        "policy": label,
        "matches": n_matches,
        "wins": wins,
        "win_rate": _r(_rate(wins, n_matches)),
        "win_ci95": [_r(lo), _r(hi)],
        "draws": draws,
        "points": int(points),
        "points_per_round": _r(_rate(points, team_rounds)),
        "quatro_calls": int(calls[0]),
        "quatro_precision": _r(_rate(calls[1], calls[0])),
        "contra_calls": int(calls[2]),
        "contra_precision": _r(_rate(calls[3], calls[2])),
        "times_accused": accused,
        "correct_calls_timed": len(delays),
        "time_to_correct_call_s": {
            "mean": _r(seconds.mean()) if seconds.size else None,
            "median": _r(np.median(seconds)) if seconds.size else None,
        },
        "signalling": {
            "mutual_information_bits": _r(mutual_information_bits(signal)),
            "p_show_sign_given_quartet": _r(_rate(signal[1, 1], signal[1].sum())),
            "p_show_sign_given_no_quartet": _r(_rate(signal[0, 1], signal[0].sum())),
            "contingency": signal.tolist(),
        },
        "listening": {
            "p_call_given_sign": _r(p_call_sign),
            "p_call_given_no_sign": _r(p_call_none),
            "delta": _r(p_call_sign - p_call_none)
            if p_call_sign is not None and p_call_none is not None
            else None,
            "contingency": listen.tolist(),
        },
        "illegal_actions": illegal,
    }


def summarize_lineup(
    records: Sequence[dict[str, Any]], labels: Sequence[str], tick_seconds: float
) -> dict[str, Any]:
    """Line-up level numbers and one :func:`team_metrics` row per slot (``labels[k]`` = slot ``k``)."""
    n_matches = len(records)
    draws = sum(1 for r in records if not r["winners"])
    total_rounds = sum(r["rounds"] for r in records)
    blank = sum(r["blank_rounds"] for r in records)
    return {
        "policies": list(labels),
        "matches": n_matches,
        "draws": draws,
        "draw_rate": _r(draws / n_matches),
        "truncated": sum(1 for r in records if r["truncated"]),
        "rounds_per_match": _r(total_rounds / n_matches),
        "blank_round_rate": _r(_rate(blank, total_rounds)),
        "play_ticks_per_match": _r(sum(r["play_ticks"] for r in records) / n_matches, 2),
        "teams": [
            team_metrics([(r, k) for r in records], label, tick_seconds) for k, label in enumerate(labels)
        ],
    }


def probe_rows(
    records: Sequence[dict[str, Any]], slot: int, group_offset: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The probe rows of every team played by ``slot``: (outsider x, sign extras, y, match group)."""
    xs, ss, ys, gs = [], [], [], []
    for r in records:
        p = r["probe"]
        if p is None:
            continue
        for t, s in enumerate(r["team_slot"]):
            if s != slot:
                continue
            xs.append(p["x"][:, t])
            ss.append(p["s"][:, t])
            ys.append(p["y"][:, t])
            gs.append(np.full(p["y"].shape[0], group_offset + r["match"], np.int64))
    if not xs:
        empty = np.zeros((0,), np.float32)
        return empty, empty, empty, empty
    return np.concatenate(xs), np.concatenate(ss), np.concatenate(ys), np.concatenate(gs)


def secrecy(x: np.ndarray, s: np.ndarray, y: np.ndarray, groups: np.ndarray, seed: int = 0) -> dict[str, Any]:
    """Baseline (clock only), outsider (public channel + clock) and partner (+ the sign) probes,
    on the same held-out matches; each also scored on pairs of rows of the same round tick."""
    if y.size == 0:
        return {
            "baseline": None,
            "outsider": None,
            "partner": None,
            "rows": 0,
            "positive_rate": None,
            "sign_coverage": None,
            "false_sign_rate": None,
        }
    tick = x[:, ROUND_TIME_COLUMN]
    base = fit_probe(x[:, list(CLOCK_COLUMNS)], y, groups, seed=seed, strata=tick)
    out = fit_probe(x, y, groups, seed=seed, strata=tick)
    part = fit_probe(np.concatenate([x, s], axis=1), y, groups, seed=seed, strata=tick)
    # the sign is visible on a row when a member shows it on the floor or just pulsed it: how many of
    # the quartet rows carry it bounds what the partner can read (a quartet is held for a tick or two
    # before a sign can be shown, Q15)
    visible, holding = (s > 0).any(axis=1), y > 0
    return {
        "rows": int(y.size),
        "positive_rate": _r(float(y.mean())),
        "sign_coverage": _r(float(visible[holding].mean())) if holding.any() else None,
        "false_sign_rate": _r(float(visible[~holding].mean())) if (~holding).any() else None,
        "baseline": _probe_dict(base),
        "outsider": _probe_dict(out),
        "partner": _probe_dict(part),
    }


def _probe_dict(p) -> dict[str, Any]:
    return {
        "auc": _r(p.auc),
        "time_matched_auc": _r(p.time_matched_auc),
        "train_rows": p.train_rows,
        "test_rows": p.test_rows,
        "test_positive_rate": _r(p.test_positive_rate),
        "roc": {"fpr": p.fpr, "tpr": p.tpr},
    }
