"""Eve and Bob: learned sequence decoders that measure how secret a team's code is (issue 18).

The question, per member ``s`` of the measured team and per play tick: *does ``s`` hold a quartet
now* (after the tick; the tick that ends a round is left out, as for the linear probes)?

* **Eve** reads, tick by tick, exactly the observation vector of an opponent — the seat one place
  clockwise of ``s`` (``(s + 1) mod n``, always on another team, Q2) — as the runner hands it to that
  seat's policy. Whatever an opponent can see (center, every exchange, floors, each pulse's emoji and
  seat, votes, clocks, scores, its own hand) Eve sees, and provably nothing more.
* **Bob** reads the same vector plus the *partner's extra*: the private block of ``s``'s partner
  (its hand, the team sign, its own emoji, reminder, rejected slot — ``ObservationEncoder.private``).
  He knows everything Eve knows and what the partner knows besides. The key is also *applied* for him:
  one product per seat of its last pulse's emoji and the team sign (does seat ``r``'s last pulse show
  our sign?) — a fixed function of the two inputs above, no information beyond them, but a model
  fitted on a few hundred matches cannot discover a 24-way equality test that changes every round.

Both are the same model — a linear embedding, a one-layer GRU over the ticks of a round (causal: a
tick's score uses only that tick and the ones before it) and a logistic head — fitted from scratch
on the training matches and scored on held-out matches (a split by match).

The headline is the **time-matched AUC**: the AUC over (quartet, no-quartet) pairs of held-out rows
*of the same round tick* (:func:`quatro_env.eval.probe.time_matched_auc`). Knowing *when* quartets
happen is worth a plain AUC of 0.8-0.9 on its own; on same-tick pairs any function of the clock
scores exactly 0.5, so the clock is removed exactly. The **secrecy gap** is Bob − Eve on it. The 95 %
intervals come from a bootstrap over held-out *matches* (rows of one match move together).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from quatro_env.eval.decoder_inputs import (
    INPUT_GROUPS,
    VIEWS,
    DecoderData,
    decoder_data,
    eve_seat,
    in_view,
    input_columns,
    partner_seat,
    private_size,
    without,
    without_key,
)
from quatro_env.eval.matched import (
    bootstrap_weights,
    count_strata,
    matched_share,
    pair_weights,
    percentile_ci95,
    weighted_time_matched_auc,
)
from quatro_env.eval.readers import collection_count, hand_card_count

#: the decoders' inputs (``decoder_inputs.py``) stay importable from here, where users found them
__all__ = [
    "BOOTSTRAP",
    "EVES_DECODER",
    "FIT_TASKS",
    "INPUT_GROUPS",
    "VIEWS",
    "DecoderData",
    "FitConfig",
    "cross_validate",
    "cv_curves",
    "decoder_data",
    "eve_seat",
    "fit_decoder",
    "fold_aucs",
    "held_out_matches",
    "in_view",
    "input_columns",
    "measure",
    "partner_seat",
    "predict",
    "private_size",
    "task_strata",
    "with_decoders",
    "without",
    "without_key",
]

BOOTSTRAP = 500


# ------------------------------------------------------------------------------ the model
def _torch():
    import torch

    return torch


def _build_model(input_dim: int, hidden: int, scale: np.ndarray):
    torch = _torch()
    nn = torch.nn

    class SequenceDecoder(nn.Module):
        """Embedding → GRU over the round's ticks → logit of "holds a quartet" at every tick."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("inv_scale", torch.as_tensor(1.0 / scale, dtype=torch.float32))
            self.embed = nn.Sequential(nn.Linear(input_dim, hidden), nn.ReLU())
            self.gru = nn.GRU(hidden, hidden, batch_first=True)
            self.head = nn.Linear(hidden, 1)

        def forward(self, x):  # x [B, T, D] uint8 → logits [B, T]
            out, _ = self.gru(self.embed(x.float() * self.inv_scale))
            return self.head(out).squeeze(-1)

    return SequenceDecoder()


def _batches(
    seqs: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    order: np.ndarray,
    size: int,
    weights: dict[int, np.ndarray] | None = None,
):
    """Padded batches ``(x [B, T, D], y [B, T], valid [B, T], w [B, T])`` of the sequences in
    ``order`` (``w``: the rows' loss weights, ones without ``weights``)."""
    torch = _torch()
    for start in range(0, len(order), size):
        idx = order[start : start + size]
        t = max(len(labels[i]) for i in idx)
        x = np.zeros((len(idx), t, seqs[idx[0]].shape[1]), np.uint8)
        y = np.zeros((len(idx), t), np.float32)
        w = np.zeros((len(idx), t), np.float32)
        valid = np.zeros((len(idx), t), bool)
        for row, i in enumerate(idx):
            k = len(labels[i])
            x[row, :k], y[row, :k], valid[row, :k] = seqs[i], labels[i], True
            w[row, :k] = 1.0 if weights is None else weights[i]
        yield torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(valid), torch.from_numpy(w)


#: the tasks a decoder can be fitted and chosen for (:attr:`FitConfig.task`)
FIT_TASKS = ("time", "count")
#: the name of Bob's candidate that is Eve's own chosen decoder (he knows everything she knows)
EVES_DECODER = "Eve's decoder"


@dataclass
class FitConfig:
    """The decoders' training recipe (the same for Eve and Bob)."""

    hidden: int = 64
    lr: float = 3e-3
    batch: int = 32
    #: the most epochs; cross-validation picks how many (held-out AUCs of the views without the
    #: channel were still rising at 8 on 600 matches, and on 200 peaked near 12-14)
    max_epochs: int = 16
    weight_decay: float = 1e-4
    #: folds of the training matches (by match) over which each decoder's view (:data:`VIEWS`) and
    #: number of epochs are chosen by cross-validation: each candidate is fitted on all folds but one
    #: and scored (time-matched AUC, after every epoch) on that one, the AUCs are averaged over the
    #: folds, and the best candidate is refitted on all the training matches. One split of a few
    #: dozen matches chose noisily (``ppo_4p_league``: 0.82 where all inputs gave 0.83). 0: the
    #: fixed recipe of the first seven sessions (the first view, ``max_epochs``, no choice; they
    #: used 8).
    select_folds: int = 3
    views: tuple[str, ...] = tuple(VIEWS)
    #: what the decoders are fitted and chosen for. ``"time"`` (the headline): every row in the loss,
    #: quartet rows weighed up, folds scored time-matched. ``"count"``: the count-matched task — each
    #: row weighs the pairs it forms in its stratum of round tick × card count (:func:`pair_weights`),
    #: and the folds score the count-matched AUC. Why: fitted for the time-matched task, a decoder
    #: spends its fit on the card flow, so its count-matched figure is only a lower bound on what an
    #: opponent fitting for that task reads.
    task: str = "time"

    def __post_init__(self) -> None:
        if self.task not in FIT_TASKS:
            raise ValueError(f"task: one of {list(FIT_TASKS)}, got {self.task!r}")
        unknown = [v for v in self.views if v not in VIEWS]
        if unknown or not self.views:
            raise ValueError(f"views: a non-empty subset of {list(VIEWS)}, got {list(self.views)}")
        if self.select_folds == 1 or self.select_folds < 0:
            raise ValueError(f"select_folds: 0 (no choice) or at least 2, got {self.select_folds}")
        if self.select_folds == 0 and len(self.views) > 1:
            raise ValueError("views: more than one view needs select_folds >= 2 to choose between them")


def fit_decoder(
    seqs: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    train: np.ndarray,
    seed: int,
    fit: FitConfig | None = None,
    epochs: int | None = None,
    after_epoch: Callable[[Any, int], None] | None = None,
    strata: Sequence[np.ndarray] | None = None,
):
    """Fit a decoder from scratch on the ``train`` sequences for ``epochs`` (default ``max_epochs``);
    ``after_epoch(model, epoch)`` is called after each (the selection scores it there). Eve and Bob
    are both fitted this way, with the same seed. ``strata`` (per sequence, the rows' strata) is
    needed by ``fit.task == "count"``. (Bob once started from Eve's fitted weights: once
    Eve had fit the training quartets through the exchanges, his extra columns got almost no
    gradient — ``cover``: Bob 0.82 warm-started, 0.996 from scratch, on the same 200 matches.)"""
    torch = _torch()
    fit = fit or FitConfig()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    rows = np.concatenate([seqs[i] for i in train])
    scale = np.maximum(rows.max(axis=0).astype(np.float32), 1.0)
    model = _build_model(rows.shape[1], fit.hidden, scale)
    opt = torch.optim.AdamW(model.parameters(), lr=fit.lr, weight_decay=fit.weight_decay)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    y_train = np.concatenate([labels[i] for i in train]).astype(bool)
    weights = None
    if fit.task == "count":  # the pairs of each stratum weigh (both classes alike)
        if strata is None:
            raise ValueError("fit_decoder: task 'count' needs the rows' strata")
        flat = pair_weights(y_train, np.concatenate([strata[i] for i in train]))
        weights = dict(
            zip(train, np.split(flat, np.cumsum([len(labels[i]) for i in train])[:-1]), strict=True)
        )
    else:  # quartet rows are a few per cent: weigh them up to balance the classes (as the linear probes do)
        pos_weight = torch.tensor(min(50.0, (~y_train).sum() / max(1, y_train.sum())))
    for epoch in range(1, (epochs or fit.max_epochs) + 1):
        model.train()
        for x, y, valid, w in _batches(seqs, labels, rng.permutation(train), fit.batch, weights):
            if weights is None:
                loss = bce(model(x)[valid], y[valid], pos_weight=pos_weight)
            else:
                loss = (bce(model(x)[valid], y[valid], reduction="none") * w[valid]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        if after_epoch is not None:
            after_epoch(model, epoch)
    return model


def fold_aucs(
    seqs: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    fit_part: np.ndarray,
    fold: np.ndarray,
    strata: Sequence[np.ndarray],
    seed: int,
    fit: FitConfig,
) -> np.ndarray:
    """[max_epochs]: the matched AUC on the ``fold`` sequences of a decoder fitted on ``fit_part``,
    after each epoch (``strata``, per sequence: its rows' strata, :func:`task_strata`)."""
    y = np.concatenate([labels[i] for i in fold]).astype(bool)
    fold_strata = np.concatenate([strata[i] for i in fold])
    ones = np.ones((1, y.size))
    aucs = np.full(fit.max_epochs, np.nan)

    def score(model, epoch: int) -> None:
        scores = predict(model, seqs, labels, fold)
        aucs[epoch - 1] = weighted_time_matched_auc(y, scores, fold_strata, ones)[0]

    fit_decoder(seqs, labels, fit_part, seed, fit, after_epoch=score, strata=strata)
    return aucs


def predict(model, seqs: Sequence[np.ndarray], labels: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
    """Scores (probabilities) of the rows of the sequences ``idx``, concatenated in that order."""
    torch = _torch()
    out = []
    with torch.no_grad():
        for x, _, valid, _ in _batches(seqs, labels, idx, 256):
            out.append(torch.sigmoid(model(x))[valid].numpy())
    return np.concatenate(out) if out else np.zeros(0)


# ------------------------------------------------------------------------------ scoring
def task_strata(data: DecoderData, task: str, readers: DecoderData | None = None) -> list[np.ndarray]:
    """Per sequence, its rows' strata for ``task`` (:class:`FitConfig`): the round tick (``"time"``),
    or the round tick and the member's card count read off ``readers`` (default ``data``; ``"count"``)."""
    ticks = [np.asarray(t, np.int64) for t in data.tick]  # every tick its own stratum, however long the round
    if task == "time":
        return ticks
    readers = data if readers is None else readers
    return [count_strata(t, collection_count(c)) for t, c in zip(ticks, readers.counted, strict=True)]


def _auc_and_draws(
    y: np.ndarray, scores: np.ndarray, strata: np.ndarray, draws: np.ndarray
) -> tuple[float, np.ndarray]:
    """The matched AUC over every held-out row, and under each bootstrap draw, in one pass over the strata."""
    both = weighted_time_matched_auc(y, scores, strata, np.vstack([np.ones((1, y.size)), draws]))
    return float(both[0]), both[1:]


def _r(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 4)


def held_out_matches(groups: np.ndarray, seed: int, test_fraction: float = 0.3) -> np.ndarray:
    """The matches :func:`measure` holds out for scoring (the same draw as the first seven sessions')."""
    rng = np.random.default_rng(seed)
    return rng.choice(groups, size=max(1, int(round(test_fraction * groups.size))), replace=False)


def cv_curves(
    candidates: dict[str, list[np.ndarray]],
    data: DecoderData,
    train: np.ndarray,
    seed: int,
    fit: FitConfig,
    strata: Sequence[np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """``{candidate: [max_epochs] mean matched AUC over the folds after each epoch}``, the folds
    drawn by match from the ``train`` sequences only (NaN where no fold had both classes);
    ``strata``: :func:`task_strata` (default: the time-matched task's)."""
    strata = task_strata(data, "time") if strata is None else strata
    matches = np.unique(data.match[train])
    fold_of = dict(
        zip(
            np.random.default_rng(seed + 2).permutation(matches),
            np.arange(matches.size) % fit.select_folds,
            strict=True,
        )
    )
    folds = np.array([fold_of[m] for m in data.match[train]])
    per_fold: dict[str, list[np.ndarray]] = {name: [] for name in candidates}
    for f in range(fit.select_folds):
        held, rest = train[folds == f], train[folds != f]
        for name, seqs in candidates.items():
            per_fold[name].append(fold_aucs(seqs, data.y, rest, held, strata, seed, fit))
    with warnings.catch_warnings():  # a fold without both classes scores NaN; the others decide
        warnings.simplefilter("ignore", RuntimeWarning)
        return {name: np.nanmean(np.stack(aucs), axis=0) for name, aucs in per_fold.items()}


def cross_validate(
    candidates: dict[str, list[np.ndarray]],
    data: DecoderData,
    train: np.ndarray,
    seed: int,
    fit: FitConfig,
    strata: Sequence[np.ndarray] | None = None,
) -> dict[str, tuple[float, int]]:
    """``{candidate: (best mean AUC over the folds, its epoch)}`` (:func:`cv_curves`; ties keep the
    earlier epoch)."""
    out = {}
    for name, mean in cv_curves(candidates, data, train, seed, fit, strata).items():
        mean = np.where(np.isfinite(mean), mean, -np.inf)
        out[name] = (float(mean.max()), int(mean.argmax()) + 1)
    return out


def _choose(scores: dict[str, tuple[float, int]]) -> str:
    """The candidate with the best cross-validated AUC (the first listed on a tie)."""
    names = list(scores)
    return max(names, key=lambda k: (round(scores[k][0], 9), -names.index(k)))


def _partner(
    candidates: dict[str, list[np.ndarray]],
    data: DecoderData,
    train: np.ndarray,
    test: np.ndarray,
    seed: int,
    fit: FitConfig,
    strata: Sequence[np.ndarray],
    eves: tuple[tuple[float, int] | None, np.ndarray],
) -> tuple[str, int, np.ndarray, dict[str, tuple[float, int]] | None]:
    """A partner's decoder (Bob's, or his without the key): with ``fit.select_folds`` the view and epochs
    of ``candidates`` that read most on the training folds, Eve's own decoder among them (he knows what she
    knows; ``eves``: her cross-validated score and her held-out scores), refitted on every training match;
    else the first view. Returns the view, its epochs, its held-out scores and the cross-validation."""
    view, epochs, cv = next(iter(candidates)), fit.max_epochs, None
    if fit.select_folds:
        cv = cross_validate(candidates, data, train, seed, fit, strata)
        cv[EVES_DECODER] = eves[0]
        view = _choose(cv)
        epochs = cv[view][1]
    if view == EVES_DECODER:
        return view, epochs, eves[1], cv
    model = fit_decoder(candidates[view], data.y, train, seed, fit, epochs, strata=strata)
    return view, epochs, predict(model, candidates[view], data.y, test), cv


def measure(
    data: DecoderData,
    seed: int = 0,
    test_fraction: float = 0.3,
    fit: FitConfig | None = None,
    bootstrap: int = BOOTSTRAP,
    readers_from: DecoderData | None = None,
    key_control: bool = False,
) -> dict[str, Any]:
    """Fit Eve and Bob on the training matches of ``data`` and score them on the held-out ones.

    With ``fit.select_folds`` each decoder is *chosen* first, on the training matches only
    (:func:`cross_validate`): Eve takes the view of :data:`VIEWS` and the epoch count that read most,
    Bob the best of the same views each with the partner's extra, or Eve's own choice (he knows what
    she knows). The choice is refitted on all the training matches and only then scored on the
    held-out matches, which no choice has seen.

    Returns the ``secrecy`` block of a report: the time-matched and plain AUCs of Eve and Bob, the
    gap with its bootstrap interval, the clock-only AUC (P(quartet | round tick) from the training
    rows), the public collection's and the card counter's time-matched AUCs (``readers.collection_count``,
    ``readers.card_count``: no fitted weight), the *count-matched* AUCs of Eve and Bob and their gap
    (``*_cm_*``: pairs of the same round tick and the same card count of the member, so that the card
    flow, which reads every code at 0.93 or more, is removed as exactly as the clock; ``cm_matched``:
    the share of quartet rows such a pair covers), the sign coverage (share of quartet rows on which
    the member shows the sign), sizes, and the choice (``eve_view``, ``bob_view``, ``epochs``,
    ``selection``, ``fit_task``: the task of ``fit.task`` the decoders were fitted and chosen for).

    ``readers_from``: the same sequences with every input (default ``data``), read for the fixed readers
    and the count strata. An ablation passes its full data there: with the exchanges zeroed in ``data``,
    the card counts would read 0 everywhere and the count-matched pairs would silently become
    time-matched ones.

    ``key_control``: also the partner without the key (:func:`without_key`), chosen among the same views
    and Eve's decoder as Bob is (``nokey_view``; Bob's own view without the key can read less than Eve),
    and report ``nokey_tm_auc``, ``nokey_cm_auc`` and the key's own gaps ``key_gap`` and ``key_cm_gap``
    (Bob minus him, paired intervals): ``gap`` counts the partner's hand as well as the key. A fitted
    decoder does not learn to count with the hand, so a second partner without the key is a reader with
    no fitted weight that does (:func:`readers.hand_card_count`: ``hand_count_tm_auc``,
    ``hand_count_cm_auc``), and ``key_floor`` / ``key_cm_floor`` are Bob minus the better of the two."""
    from sklearn.metrics import roc_auc_score

    readers = data if readers_from is None else readers_from
    same = len(readers.y) == len(data.y) and np.array_equal(readers.match, data.match)
    if not same or any(len(a) != len(b) for a, b in zip(readers.y, data.y, strict=True)):
        raise ValueError("readers_from: must hold the same sequences as data (the full data of an ablation)")

    fit = fit or FitConfig()
    groups = np.unique(data.match)
    empty = {
        "eve_tm_auc": None,
        "bob_tm_auc": None,
        "gap": None,
        "gap_ci95": [None, None],
        "eve_auc": None,
        "bob_auc": None,
        "clock_auc": None,
        "collection_tm_auc": None,
        "card_count_tm_auc": None,
        "eve_cm_auc": None,
        "bob_cm_auc": None,
        "cm_gap": None,
        "cm_gap_ci95": [None, None],
        "cm_matched": None,
        "eve_cm_ci95": [None, None],
        "bob_cm_ci95": [None, None],
        "sign_coverage": None,
        "rows": int(sum(len(y) for y in data.y)),
        "matches": int(groups.size),
        "eve_tm_ci95": [None, None],
        "bob_tm_ci95": [None, None],
        "test_matches": None,
        "train_matches": None,
        "test_rows": None,
        "positive_rate": None,
        "epochs": None,
        "eve_view": None,
        "bob_view": None,
        "selection": None,
        "eve_ledger": True,
        "eve_card_count": True,
        "fit_task": fit.task,
    }  # the same keys as a measured block, so that a report reads alike for a team with nothing to decode
    if key_control:
        empty |= dict.fromkeys(("nokey_view", "nokey_tm_auc", "key_gap", "nokey_cm_auc", "key_cm_gap"))
        empty |= dict.fromkeys(("hand_count_tm_auc", "hand_count_cm_auc", "key_floor", "key_cm_floor"))
        intervals = ("key_gap_ci95", "key_cm_gap_ci95", "key_floor_ci95", "key_cm_floor_ci95")
        empty |= {name: [None, None] for name in intervals}  # a list each: no two keys share one
    if groups.size < 4:
        return empty
    test_groups = held_out_matches(groups, seed, test_fraction)
    test = np.flatnonzero(np.isin(data.match, test_groups))
    train = np.flatnonzero(~np.isin(data.match, test_groups))
    y_all = data.y
    y_test = np.concatenate([y_all[i] for i in test]).astype(bool)
    y_train = np.concatenate([y_all[i] for i in train]).astype(bool)
    if y_test.all() or not y_test.any() or y_train.all() or not y_train.any():
        return empty

    views = {v: in_view(data, v) for v in fit.views}
    eve_seqs = {v: [d.eve_input(k) for k in range(len(y_all))] for v, d in views.items()}
    bob_seqs = {f"{v} + partner": [d.bob(k) for k in range(len(y_all))] for v, d in views.items()}
    epochs = {"eve": fit.max_epochs, "bob": fit.max_epochs}
    strata_of = {task: task_strata(data, task, readers) for task in FIT_TASKS}  # per sequence
    fit_strata = strata_of[fit.task]
    eve_view, eve_cv, selection = fit.views[0], None, None
    if fit.select_folds:
        eve_cv = cross_validate(eve_seqs, data, train, seed, fit, fit_strata)
        eve_view = _choose(eve_cv)
        epochs["eve"] = eve_cv[eve_view][1]
    eve_model = fit_decoder(eve_seqs[eve_view], y_all, train, seed, fit, epochs["eve"], strata=fit_strata)
    eve = predict(eve_model, eve_seqs[eve_view], y_all, test)
    eves = (eve_cv[eve_view] if eve_cv else None, eve)
    bob_view, epochs["bob"], bob, bob_cv = _partner(bob_seqs, data, train, test, seed, fit, fit_strata, eves)
    if fit.select_folds:
        selection = {
            "folds": fit.select_folds,
            "eve": {v: [_r(a), e] for v, (a, e) in eve_cv.items()},
            "bob": {v: [_r(a), e] for v, (a, e) in bob_cv.items()},
        }
    # the held-out rows' strata for both tasks: the headline is time-matched, its companion count-matched
    strata = np.concatenate([strata_of["time"][i] for i in test])
    by_count = np.concatenate([strata_of["count"][i] for i in test])
    rows_match = np.concatenate([np.full(len(y_all[i]), data.match[i]) for i in test])

    # the clock alone: P(quartet | round tick) on the training rows, scored on the held-out rows
    tick_train = np.concatenate([data.tick[i] for i in train]).astype(np.int64)
    ticks = int(max(tick_train.max(initial=0), strata.max(initial=0))) + 1
    rate = np.bincount(tick_train, weights=y_train.astype(float), minlength=ticks) / np.maximum(
        np.bincount(tick_train, minlength=ticks), 1
    )
    clock_auc = float(roc_auc_score(y_test, rate[strata]))

    ones = np.ones((1, y_test.size))
    collection = np.concatenate([collection_count(readers.ledger[i]) for i in test])
    # the member's card count, read off Eve's card-count features (the last seat's one-hot, as the ledger's)
    counted = np.concatenate([collection_count(readers.counted[i]) for i in test])
    w = bootstrap_weights(rows_match, bootstrap, seed + 1)
    eve_tm, eve_b = _auc_and_draws(y_test, eve, strata, w)
    bob_tm, bob_b = _auc_and_draws(y_test, bob, strata, w)
    eve_cm, eve_cm_b = _auc_and_draws(y_test, eve, by_count, w)
    bob_cm, bob_cm_b = _auc_and_draws(y_test, bob, by_count, w)
    holding = np.concatenate(y_all).astype(bool)
    shown = np.concatenate(data.sign).astype(bool)
    control = {}
    if key_control:  # the partner without the key, his view and epochs chosen as Bob's are
        blind_data = without_key(data)
        blind_seqs = {
            f"{v} + partner": [in_view(blind_data, v).bob(k) for k in range(len(y_all))] for v in fit.views
        }
        nokey_view, _, blind, _ = _partner(blind_seqs, data, train, test, seed, fit, fit_strata, eves)
        nokey_tm, nokey_b = _auc_and_draws(y_test, blind, strata, w)
        nokey_cm, nokey_cm_b = _auc_and_draws(y_test, blind, by_count, w)
        # ... and the partner counting cards with his own hand, a reader with no fitted weight: the key's
        # share is measured against the better of the two (per bootstrap draw, so the interval is paired)
        hand = np.concatenate([hand_card_count(data.eve[i], data.extra[i], data.num_players) for i in test])
        hand_tm, hand_b = _auc_and_draws(y_test, hand, strata, w)
        hand_cm, hand_cm_b = _auc_and_draws(y_test, hand, by_count, w)
        control = {
            "nokey_view": nokey_view,
            "nokey_tm_auc": _r(nokey_tm),
            "key_gap": _r(bob_tm - nokey_tm),
            "key_gap_ci95": percentile_ci95(bob_b - nokey_b),
            "nokey_cm_auc": _r(nokey_cm),
            "key_cm_gap": _r(bob_cm - nokey_cm),
            "key_cm_gap_ci95": percentile_ci95(bob_cm_b - nokey_cm_b),
            "hand_count_tm_auc": _r(hand_tm),
            "hand_count_cm_auc": _r(hand_cm),
            "key_floor": _r(bob_tm - max(nokey_tm, hand_tm)),
            "key_floor_ci95": percentile_ci95(bob_b - np.maximum(nokey_b, hand_b)),
            "key_cm_floor": _r(bob_cm - max(nokey_cm, hand_cm)),
            "key_cm_floor_ci95": percentile_ci95(bob_cm_b - np.maximum(nokey_cm_b, hand_cm_b)),
        }
    return control | {
        "eve_tm_auc": _r(eve_tm),
        "bob_tm_auc": _r(bob_tm),
        "gap": _r(bob_tm - eve_tm),
        "gap_ci95": percentile_ci95(bob_b - eve_b),
        "eve_auc": _r(float(roc_auc_score(y_test, eve))),
        "bob_auc": _r(float(roc_auc_score(y_test, bob))),
        "clock_auc": _r(clock_auc),
        "collection_tm_auc": _r(float(weighted_time_matched_auc(y_test, collection, strata, ones)[0])),
        "card_count_tm_auc": _r(float(weighted_time_matched_auc(y_test, counted, strata, ones)[0])),
        "eve_cm_auc": _r(eve_cm),
        "bob_cm_auc": _r(bob_cm),
        "cm_gap": _r(bob_cm - eve_cm),
        "cm_gap_ci95": percentile_ci95(bob_cm_b - eve_cm_b),
        "eve_cm_ci95": percentile_ci95(eve_cm_b),
        "bob_cm_ci95": percentile_ci95(bob_cm_b),
        "cm_matched": _r(matched_share(y_test, by_count)),
        "sign_coverage": _r(float(shown[holding].mean())) if holding.any() else None,
        "rows": int(holding.size),
        "matches": int(groups.size),
        "eve_tm_ci95": percentile_ci95(eve_b),
        "bob_tm_ci95": percentile_ci95(bob_b),
        "test_matches": int(test_groups.size),
        "train_matches": int(groups.size - test_groups.size),  # the issue asks for >= 200
        "test_rows": int(y_test.size),
        "positive_rate": _r(float(holding.mean())),
        "epochs": epochs,
        "eve_view": eve_view,
        "bob_view": bob_view,
        "selection": selection,
        "eve_ledger": True,  # Eve also read each seat's public collection (rows measured before: absent)
        "eve_card_count": True,  # ... and each seat's card count (rows measured before: absent)
        "fit_task": fit.task,  # what the decoders were fitted and chosen for (FitConfig.task)
    }


def with_decoders(
    probes: dict[str, Any],
    records: Sequence[dict[str, Any]],
    slot: int,
    num_players: int,
    seed: int,
    key_control: bool = False,
) -> dict[str, Any]:
    """A team's ``secrecy`` block with the decoders' numbers added (:func:`measure`). ``rows``,
    ``sign_coverage`` and ``positive_rate`` then count member-ticks, the decoders' rows; the linear
    probes' team-tick figures stay beside them as ``probe_rows``, ``probe_sign_coverage`` and
    ``probe_positive_rate`` (``false_sign_rate`` is the probes' own, per team-tick)."""
    out = dict(probes)
    out["probe_rows"] = out.pop("rows", None)
    out["probe_sign_coverage"] = out.pop("sign_coverage", None)
    out["probe_positive_rate"] = out.pop("positive_rate", None)
    out.update(measure(decoder_data(records, slot, num_players), seed=seed, key_control=key_control))
    return out
