"""The secrecy probe: can an outsider tell from a team's public channel that it holds a quartet?

:class:`ChannelTracker` turns the public channel history (Q15, Q27: floors taken and released,
emoji pulses — nothing private) into one feature row per team per play tick; the label is "this
team holds a quartet now" (either member, after that tick). :func:`fit_probe` trains a logistic
regression on the rows of some matches and reports the ROC AUC on *held-out matches*
(scikit-learn). The *partner* probe gets the same rows plus four features that need the team sign
(is each member showing / did it just pulse the sign) — what the partner sees.

The history is summarised by hand-made features (recency, counts, silences, novelty), so a linear
probe can use it; see ``docs/evaluation.md`` for the list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CLIP = 40.0
MEMBER_FEATURES = (
    "floor",  # holds the floor now
    "took_floor",  # took it this tick
    "released_floor",  # released it this tick
    "pulsed",  # pulsed this tick
    "since_pulse",  # ticks since its last pulse this round (clipped; 1 = none yet)
    "holding_for",  # ticks since it took the floor, while holding (0 = not holding)
    "changed",  # pulsed an emoji different from its previous pulse
    "novel",  # pulsed an emoji the team had not pulsed this round
    "pulses",  # pulses so far this round (clipped at 10)
)
TEAM_FEATURES = (
    "quiet",  # consecutive ticks with no member holding the floor or pulsing
    "silence_break",  # a take or pulse this tick after that many quiet ticks (0 = none)
    "distinct",  # distinct emojis the team pulsed this round / 24
    "round_time",  # ticks into the round / 120 (one stratum per tick for the time-matched AUC)
)
#: the round clock, one-hot in bins of play ticks (the clock alone predicts quartets: they form after
#: a few exchanges and end the round soon after); the *baseline* probe sees only these
TIME_BINS = (0, 4, 8, 12, 16, 24, 40)
CLOCK_FEATURES = tuple(f"clock[{a},{b})" for a, b in zip(TIME_BINS, TIME_BINS[1:] + (None,), strict=True))
SIGN_FEATURES = ("showing_sign", "pulsed_sign")  # per member: needs the team sign (partner's view)

OUTSIDER_NAMES = (
    tuple(f"m{j}.{f}" for j in range(2) for f in MEMBER_FEATURES) + TEAM_FEATURES + CLOCK_FEATURES
)
CLOCK_COLUMNS = tuple(range(len(OUTSIDER_NAMES) - len(CLOCK_FEATURES), len(OUTSIDER_NAMES)))
ROUND_TIME_COLUMN = OUTSIDER_NAMES.index("round_time")
PARTNER_NAMES = OUTSIDER_NAMES + tuple(f"m{j}.{f}" for j in range(2) for f in SIGN_FEATURES)


class ChannelTracker:
    """Public channel history of every team, one feature row per team per play tick."""

    def __init__(self, num_players: int) -> None:
        self.n, self.num_teams = num_players, num_players // 2
        self.new_round()

    def new_round(self) -> None:
        n, t = self.n, self.num_teams
        self.tick = 0
        self.last_pulse = [-1] * n
        self.prev_emoji: list[int | None] = [None] * n
        self.pulses = [0] * n
        self.took_at = [-1] * n
        self.shown = [False] * n  # pulsed since it last took the floor
        self.quiet = [0] * t
        self.seen: list[set[int]] = [set() for _ in range(t)]

    def update(self, floor: list[bool], events, signs: list[int | None]) -> tuple[np.ndarray, np.ndarray]:
        """Fold one play tick (its public events, the floors after it); return ``(outsider, sign)`` rows
        ``[teams, len(OUTSIDER_NAMES)]`` and ``[teams, 2 * len(SIGN_FEATURES)]``."""
        n, nt = self.n, self.num_teams
        took = [False] * n
        released = [False] * n
        pulsed: list[int | None] = [None] * n
        for ev in events:
            kind = ev.kind
            if kind == "floor_taken":
                took[ev.seat] = True
            elif kind == "floor_released":
                released[ev.seat] = True
            elif kind == "pulse":
                pulsed[ev.seat] = ev.data["emoji"]
        now = self.tick
        bin_ = sum(1 for edge in TIME_BINS[1:] if now >= edge)
        out = np.zeros((nt, len(OUTSIDER_NAMES)), np.float32)
        sign_rows = np.zeros((nt, 2 * len(SIGN_FEATURES)), np.float32)
        m = len(MEMBER_FEATURES)
        for team in range(nt):
            row = out[team]
            active = False
            seen = self.seen[team]
            novel_emojis = []
            for j, seat in enumerate((team, team + nt)):
                if took[seat]:
                    self.took_at[seat] = now
                    self.shown[seat] = False
                e = pulsed[seat]
                b = j * m
                row[b] = floor[seat]
                row[b + 1] = took[seat]
                row[b + 2] = released[seat]
                if e is not None:
                    row[b + 3] = 1.0
                    row[b + 6] = self.prev_emoji[seat] is not None and e != self.prev_emoji[seat]
                    row[b + 7] = e not in seen
                    novel_emojis.append(e)
                    self.prev_emoji[seat] = e
                    self.shown[seat] = True
                    self.last_pulse[seat] = now
                    self.pulses[seat] += 1
                last = self.last_pulse[seat]
                row[b + 4] = 1.0 if last < 0 else min(now - last, CLIP) / CLIP
                row[b + 5] = min(now - self.took_at[seat] + 1, CLIP) / CLIP if floor[seat] else 0.0
                row[b + 8] = min(self.pulses[seat], 10) / 10
                if floor[seat] or took[seat] or e is not None:
                    active = True
                sign = signs[team]
                if sign is not None:
                    sign_rows[team, 2 * j] = (
                        floor[seat] and self.shown[seat] and self.prev_emoji[seat] == sign
                    )
                    sign_rows[team, 2 * j + 1] = e == sign
            seen.update(novel_emojis)
            t0 = 2 * m
            broke = any(took[s] or pulsed[s] is not None for s in (team, team + nt))
            row[t0 + 1] = min(self.quiet[team], CLIP) / CLIP if broke else 0.0
            self.quiet[team] = 0 if active else self.quiet[team] + 1
            row[t0] = min(self.quiet[team], CLIP) / CLIP
            row[t0 + 2] = len(seen) / 24
            row[t0 + 3] = now / 120  # not clipped: the time-matched AUC pairs rows by this value
            row[t0 + 4 + bin_] = 1.0
        self.tick += 1
        return out, sign_rows


@dataclass
class ProbeResult:
    """A probe's held-out score and ROC curve (``fpr``/``tpr`` thinned to at most ~100 points);
    ``time_matched_auc`` compares only rows of the same round tick (:func:`time_matched_auc`)."""

    auc: float | None
    time_matched_auc: float | None
    fpr: list[float]
    tpr: list[float]
    train_rows: int
    test_rows: int
    test_positive_rate: float | None


def time_matched_auc(y: np.ndarray, scores: np.ndarray, strata: np.ndarray) -> float | None:
    """ROC AUC over the (quartet, no quartet) row pairs that share a stratum (the round tick).

    The plain AUC rewards knowing *when* quartets happen — the clock alone scores 0.8–0.9 on short
    rounds — while this one asks what the channel tells beyond the clock: a clock-only score is 0.5
    by construction. It is the pair-weighted mean of the per-stratum AUCs (strata with one class
    carry no pairs); ``None`` when no stratum has both classes. Scores within 1e-6 are ties: a probe
    fitted on float32 rows can score identical rows one float32 step apart."""
    from sklearn.metrics import roc_auc_score

    scores = np.round(scores, 6)
    total = weight = 0.0
    for value in np.unique(strata):
        here = strata == value
        pos = int(y[here].sum())
        pairs = pos * (int(here.sum()) - pos)
        if pairs:
            total += pairs * roc_auc_score(y[here], scores[here])
            weight += pairs
    return total / weight if weight else None


def fit_probe(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    test_fraction: float = 0.3,
    seed: int = 0,
    strata: np.ndarray | None = None,
) -> ProbeResult:
    """Logistic-regression probe; train/test split by match (``groups``), AUC on the held-out matches
    (and, given ``strata`` per row, the time-matched AUC on them)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score, roc_curve
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    unique = np.unique(groups)
    rng = np.random.default_rng(seed)
    test_groups = rng.choice(unique, size=max(1, int(round(test_fraction * unique.size))), replace=False)
    test = np.isin(groups, test_groups)
    train = ~test
    empty = ProbeResult(None, None, [], [], int(train.sum()), int(test.sum()), None)
    if unique.size < 2 or len(np.unique(y[train])) < 2 or len(np.unique(y[test])) < 2:
        return empty
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, class_weight="balanced"))
    model.fit(x[train], y[train])
    scores = model.predict_proba(x[test])[:, 1]
    auc = float(roc_auc_score(y[test], scores))
    matched = None if strata is None else time_matched_auc(y[test], scores, strata[test])
    fpr, tpr, _ = roc_curve(y[test], scores)
    if fpr.size > 100:
        keep = np.unique(np.linspace(0, fpr.size - 1, 100).round().astype(int))
        fpr, tpr = fpr[keep], tpr[keep]
    return ProbeResult(
        auc,
        matched,
        [round(float(f), 4) for f in fpr],
        [round(float(t), 4) for t in tpr],
        int(train.sum()),
        int(test.sum()),
        float(y[test].mean()),
    )
