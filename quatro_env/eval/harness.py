"""The evaluation API: :func:`evaluate` (one line-up) and :func:`cross_play` (every pair).

Both return a plain-JSON report (schema ``quatro-eval/1``, documented in ``docs/evaluation.md``)
that :mod:`quatro_env.eval.report` renders as markdown / writes as JSON and
:mod:`quatro_env.eval.plots` draws.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from quatro_env.eval.metrics import probe_rows, secrecy, summarize_lineup, team_metrics
from quatro_env.eval.policies import PolicySpec, as_policy
from quatro_env.eval.runner import run_lineups
from quatro_env.eval.secrecy import with_decoders
from quatro_env.quatro.config import QuatroConfig

SCHEMA = "quatro-eval/1"


def make_config(config: QuatroConfig | Mapping[str, Any] | None = None, **overrides: Any) -> QuatroConfig:
    """A table config for the harness: every seat is played by a harness policy (no env bot seats)."""
    base = config.model_dump() if isinstance(config, QuatroConfig) else dict(config or {})
    base.update(overrides)
    if base.get("bot_seats"):
        raise ValueError("bot_seats: the harness plays every seat itself; leave bot_seats empty")
    return QuatroConfig(**base)


def config_dict(config: QuatroConfig, **run: Any) -> dict[str, Any]:
    """The rules a report states (its config line) and the run's own settings (matches, seed, ...)."""
    d = config.model_dump(mode="json")
    keep = (
        "num_players",
        "tick_seconds",
        "round_seconds",
        "points_to_win",
        "pulse_seconds",
        "exchange_cooldown_seconds",
        "floor_cooldown_seconds",
        "own_quartet_guard",
        "reveal_signs",
        "disconnect_prob",
    )
    out = {k: d[k] for k in keep}
    out.update(run)
    return out


def _labels(specs: Sequence[PolicySpec]) -> list[str]:
    return [s.label for s in specs]


def _distinct_specs(policies: Sequence[Any]) -> tuple[list[PolicySpec], list[str]]:
    """A tournament's policies as specs; rows and columns are named by their labels, so distinct."""
    specs = [as_policy(p) for p in policies]
    labels = _labels(specs)
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies: labels must be distinct, got {labels}")
    return specs, labels


def evaluate(
    policies: Sequence[Any],
    *,
    matches: int = 100,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
    probe_matches: int = 200,
    workers: int = 2,
    progress: bool = True,
    replays: str | Path | None = None,
    decoders: bool = False,
    key_control: bool = False,
) -> dict[str, Any]:
    """Play ``matches`` matches of one line-up: ``policies[k]`` plays one team (``num_players / 2``
    policies; any mix of bot names, checkpoints, callables — see :func:`as_policy`). Seats rotate
    between matches. The first ``probe_matches`` matches feed the secrecy probe, and with
    ``decoders`` also the Eve/Bob decoders (:mod:`quatro_env.eval.secrecy`; 2 to 10 minutes per
    team on 200 matches on one core: each decoder is chosen by cross-validation among 4 views);
    ``key_control`` also fits Bob without the key (``secrecy.measure``)."""
    if key_control and not decoders:
        raise ValueError("key_control: a control of the decoders, it needs decoders=True")
    cfg = make_config(config)
    specs = [as_policy(p) for p in policies]
    t0 = time.perf_counter()
    (records,) = run_lineups(
        cfg,
        [specs],
        matches,
        seed=seed,
        max_rounds=max_rounds,
        probe_matches=probe_matches,
        view_matches=probe_matches if decoders else 0,
        workers=workers,
        progress=progress,
        desc=" vs ".join(_labels(specs)),
        replay_dir=replays,
    )
    lineup = summarize_lineup(records, _labels(specs), cfg.tick_seconds)
    for k, team in enumerate(lineup["teams"]):
        team["secrecy"] = secrecy(*probe_rows(records, k), seed=seed)
        if decoders:
            team["secrecy"] = with_decoders(team["secrecy"], records, k, cfg.num_players, seed, key_control)
    return {
        "schema": SCHEMA,
        "kind": "evaluate",
        "config": config_dict(
            cfg, matches=matches, seed=seed, max_rounds=max_rounds, probe_matches=probe_matches
        ),
        "policies": _labels(specs),
        "lineups": [lineup],
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }


def cross_play(
    policies: Sequence[Any],
    *,
    matches: int = 100,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
    probe_matches: int = 100,
    self_play: bool = False,
    workers: int = 2,
    progress: bool = True,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """Every pair of ``policies`` (and each with itself if ``self_play``) plays ``matches`` matches.

    A pair (A, B) alternates A and B around the teams (with 4 players: A against B); seats rotate.
    The report adds the cross-play matrices (row policy's win rate, CI, draw rate and points per round
    against the column policy), a per-policy summary pooled over all its opponents (self-play
    excluded), and the secrecy probes pooled per policy over every match it played.
    """
    cfg = make_config(config)
    specs, labels = _distinct_specs(policies)
    nt = cfg.num_players // 2
    pairs = [(i, j) for i in range(len(specs)) for j in range(i if self_play else i + 1, len(specs))]
    if not pairs:
        raise ValueError("policies: cross-play needs at least two policies (or self_play=True)")
    lineups = [[specs[i] if t % 2 == 0 else specs[j] for t in range(nt)] for i, j in pairs]
    t0 = time.perf_counter()
    results = run_lineups(
        cfg,
        lineups,
        matches,
        seed=seed,
        max_rounds=max_rounds,
        probe_matches=probe_matches,
        workers=workers,
        progress=progress,
        desc="cross-play",
        replay_dir=replays,
    )
    k = len(specs)
    win = [[None] * k for _ in range(k)]
    ci = [[None] * k for _ in range(k)]
    draw = [[None] * k for _ in range(k)]
    ppr = [[None] * k for _ in range(k)]
    lineup_reports = []
    pooled: dict[int, list[tuple[dict, tuple[int, ...]]]] = {i: [] for i in range(k)}
    probe: dict[int, list[tuple[np.ndarray, ...]]] = {i: [] for i in range(k)}
    for li, ((i, j), lineup, records) in enumerate(zip(pairs, lineups, results, strict=True)):
        slot_labels = [s.label for s in lineup]
        rep = summarize_lineup(records, slot_labels, cfg.tick_seconds)
        lineup_reports.append(rep)
        for side, other in ((i, j), (j, i)):
            slots = [s for s, spec in enumerate(lineup) if spec is specs[side]]
            for s in slots:
                x, sg, y, g = probe_rows(records, s, group_offset=li * 1_000_000)
                if y.size:
                    probe[side].append((x, sg, y, g))
            if i == j:
                break
            items = [(r, tuple(slots)) for r in records]
            m = team_metrics(items, specs[side].label, cfg.tick_seconds)
            win[side][other] = m["win_rate"]
            ci[side][other] = m["win_ci95"]
            draw[side][other] = rep["draw_rate"]
            ppr[side][other] = m["points_per_round"]
            pooled[side].extend(items)
    summary = []
    for i, spec in enumerate(specs):
        row = team_metrics(pooled[i], spec.label, cfg.tick_seconds) if pooled[i] else {"policy": spec.label}
        if probe[i]:
            x, sg, y, g = (np.concatenate(parts) for parts in zip(*probe[i], strict=True))
            row["secrecy"] = secrecy(x, sg, y, g, seed=seed)
        else:
            row["secrecy"] = secrecy(*(np.zeros(0),) * 4)
        summary.append(row)
    return {
        "schema": SCHEMA,
        "kind": "cross_play",
        "config": config_dict(
            cfg,
            matches_per_pair=matches,
            seed=seed,
            max_rounds=max_rounds,
            probe_matches=probe_matches,
            self_play=self_play,
        ),
        "policies": labels,
        "cross_play": {"win_rate": win, "win_ci95": ci, "draw_rate": draw, "points_per_round": ppr},
        "summary": summary,
        "lineups": lineup_reports,
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }


def partner_play(
    policies: Sequence[Any],
    opponent: Any,
    *,
    matches: int = 100,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
    workers: int = 2,
    progress: bool = True,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """Every ordered pair (A, B) of ``policies`` as *partners* — one mixed team, A in its lower seat
    and B beside it — against ``opponent`` at every other team, ``matches`` matches each; the
    diagonal is each policy with itself.

    Team-vs-team cross-play cannot tell whether independently trained policies share a convention
    (partners there are always one policy); here B must read A's sign and A must read B's. The
    report's matrices (row A, column B): the mixed team's win rate (with Wilson interval), «Quatro»
    precision and listening Δ; one line-up report per pair.
    """
    cfg = make_config(config)
    specs, labels = _distinct_specs(policies)
    if not specs:
        raise ValueError("policies: partner play needs at least one policy")
    if any(s.kind == "team" for s in specs):
        raise ValueError("policies: give single policies; partner play builds the mixed teams itself")
    opp = as_policy(opponent)
    nt = cfg.num_players // 2
    k = len(specs)
    pairs = [(i, j) for i in range(k) for j in range(k)]
    lineups = [[as_policy((specs[i], specs[j]))] + [opp] * (nt - 1) for i, j in pairs]
    t0 = time.perf_counter()
    run = dict(seed=seed, max_rounds=max_rounds, workers=workers, progress=progress, desc="partner play")
    run["replay_dir"] = replays
    results = run_lineups(cfg, lineups, matches, **run)
    matrices: dict[str, list[list[Any]]] = {
        key: [[None] * k for _ in range(k)]
        for key in ("win_rate", "win_ci95", "quatro_precision", "listening_delta")
    }
    lineup_reports = []
    for (i, j), lineup, records in zip(pairs, lineups, results, strict=True):
        rep = summarize_lineup(records, [s.label for s in lineup], cfg.tick_seconds)
        lineup_reports.append(rep)
        team = rep["teams"][0]
        matrices["win_rate"][i][j] = team["win_rate"]
        matrices["win_ci95"][i][j] = team["win_ci95"]
        matrices["quatro_precision"][i][j] = team["quatro_precision"]
        matrices["listening_delta"][i][j] = team["listening"]["delta"]
    return {
        "schema": SCHEMA,
        "kind": "partner_play",
        "config": config_dict(
            cfg, matches_per_pair=matches, seed=seed, max_rounds=max_rounds, probe_matches=0
        ),
        "policies": labels,
        "opponent": opp.label,
        "partner_play": matrices,
        "lineups": lineup_reports,
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }
