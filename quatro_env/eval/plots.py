"""PNG plots of a harness report (matplotlib, Agg backend): win-rate bars with 95% CIs, the
cross-play and partner-play heatmaps, and the secrecy ROC curves."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bars(x: float, lo: float, hi: float) -> list[list[float]]:
    """Error bar lengths below and above ``x``, never negative: a bootstrap percentile interval need not
    contain the estimate made on all the data (matplotlib refuses a negative length)."""
    return [[max(x - lo, 0.0)], [max(hi - x, 0.0)]]


def _distinct_color(plt, k: int):
    """The k-th of 60 colours (tab20, then tab20b, tab20c): the frontier's 28 rows repeated tab20's
    twenty, so two policies of one marker shared a colour and a legend entry could not tell them apart."""
    return plt.get_cmap(("tab20", "tab20b", "tab20c")[k // 20 % 3])(k % 20)


def _teams(report: dict[str, Any]) -> list[dict[str, Any]]:
    if report["kind"] == "evaluate":
        return [dict(t, policy=f"{k}: {t['policy']}") for k, t in enumerate(report["lineups"][0]["teams"])]
    return [t for t in report["summary"] if "win_rate" in t]


def _save(plt, fig, path: str | Path, rect: tuple[float, float, float, float] | None = None) -> Path:
    """Lay out (within ``rect`` of the figure, where a figure legend takes the rest), write at the
    reports' resolution, and free the figure."""
    fig.tight_layout(rect=rect)
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def win_rate_bars(report: dict[str, Any], path: str | Path) -> Path:
    plt = _plt()
    teams = _teams(report)
    names = [t["policy"] for t in teams]
    rates = [t["win_rate"] for t in teams]
    lo = [t["win_rate"] - t["win_ci95"][0] for t in teams]
    hi = [t["win_ci95"][1] - t["win_rate"] for t in teams]
    fig, ax = plt.subplots(figsize=(max(4, 1.1 * len(names)), 3.6))
    ax.bar(range(len(names)), rates, yerr=[lo, hi], capsize=4, color="#4c72b0")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("match win rate (95% Wilson CI)")
    title = "win rate" if report["kind"] == "evaluate" else "win rate, pooled over opponents"
    ax.set_title(title)
    return _save(plt, fig, path)


def _heatmap(labels, matrix, path, *, xlabel: str, ylabel: str, bar: str, title: str) -> Path:
    plt = _plt()
    import numpy as np

    m = np.array([[np.nan if v is None else v for v in row] for row in matrix], float)
    fig, ax = plt.subplots(figsize=(1.0 * len(labels) + 2.5, 0.8 * len(labels) + 1.8))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(labels)), labels, rotation=35, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if not np.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(im, ax=ax, label=bar)
    ax.set_title(title)
    return _save(plt, fig, path)


#: the labels of each tournament kind's win-rate matrix (``report[kind]``): x, y, colour bar, title
MATRIX_PLOTS = {
    "cross_play": ("opponent (column)", "policy (row)", "row's match win rate", "cross-play"),
    "partner_play": (
        "partner (column)",
        "lower seat (row)",
        "mixed team's match win rate",
        "partner play against {opponent}",
    ),
}


def matrix_heatmap(report: dict[str, Any], path: str | Path) -> Path:
    """The win-rate matrix of a cross-play or partner-play report."""
    xlabel, ylabel, bar, title = MATRIX_PLOTS[report["kind"]]
    return _heatmap(
        report["policies"],
        report[report["kind"]]["win_rate"],
        path,
        xlabel=xlabel,
        ylabel=ylabel,
        bar=bar,
        title=title.format(opponent=report.get("opponent")),
    )


def secrecy_roc(report: dict[str, Any], path: str | Path) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
    for k, t in enumerate(_teams(report)):
        sec = t.get("secrecy") or {}
        color = f"C{k % 10}"
        for which, ls in (("baseline", ":"), ("outsider", "-"), ("partner", "--")):
            p = sec.get(which)
            if p and p["auc"] is not None and p["roc"]["fpr"]:
                ax.plot(
                    p["roc"]["fpr"],
                    p["roc"]["tpr"],
                    ls=ls,
                    color=color,
                    lw=1.2,
                    label=f"{t['policy']} {which} ({p['auc']:.2f})",
                )
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(
        "secrecy probes: 'this team holds a quartet now'\n"
        "(dotted: clock only, solid: outsider, dashed: partner)",
        fontsize=9,
    )
    ax.legend(fontsize=6.5, loc="lower right")
    return _save(plt, fig, path)


def write_plots(report: dict[str, Any], out_dir: str | Path, prefix: str = "") -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if report["kind"] == "partner_play":
        return [matrix_heatmap(report, out / f"{prefix}partner_play.png")]
    paths = [
        win_rate_bars(report, out / f"{prefix}win_rates.png"),
        secrecy_roc(report, out / f"{prefix}secrecy_roc.png"),
    ]
    if report["kind"] == "cross_play":
        paths.append(matrix_heatmap(report, out / f"{prefix}cross_play.png"))
    return paths


def policy_share_against_best_response(e: dict[str, Any]) -> tuple[float, float, float]:
    """One policy team's win rate against its best response, with the interval: the policy holds every
    team but the best response's, so one team's share is what neither the best response won nor was
    drawn, ``(1 - the best response's - draws) / (teams - 1)``, on the scale of its win rate against
    counter (one team against ``teams - 1``). Exact at 4 players (no shared win there, Q25); at 6 a
    win shared by two teams counts once. A file written before draws were recorded counts none."""
    others = e["eval_config"]["num_players"] // 2 - 1
    drawn = e["draws"] / e["matches"] if e.get("draws") else 0.0
    lo, hi = e["win_ci95"]
    return tuple(max(0.0, 1 - x - drawn) / others for x in (e["win_rate"], hi, lo))


def secrecy_frontier(
    rows: list[dict[str, Any]], exploit: dict[str, dict[str, Any]], path: str | Path
) -> Path:
    """Strength against secrecy, one point per policy: win rate against counter (filled) and against
    its trained best response (hollow, where measured: one policy team's share,
    :func:`policy_share_against_best_response`) over the secrecy gap (Bob − Eve), with the 95 %
    intervals of both. Left the headline, time-matched gap; right the count-matched gap (pairs of the
    same card count too), for the rows measured with it."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12.0, 6.4), sharey=True)
    colors = {r["policy"]: _distinct_color(plt, k) for k, r in enumerate(rows)}
    for ax, gap_key, ci_key, what in (
        (axes[0], "gap", "gap_ci95", "time-matched AUC"),
        (axes[1], "cm_gap", "cm_gap_ci95", "count-matched AUC (same tick and card count)"),
    ):
        for r in rows:
            s = r["secrecy"]
            if s.get(gap_key) is None:  # no quartet (no gap), or measured before this gap
                continue
            color = colors[r["policy"]]
            marker = "o" if r["policy"].startswith("ppo_") else "s"  # trained checkpoints / scripted bots
            gap, (glo, ghi) = s[gap_key], s[ci_key]
            w, (wlo, whi) = r["win_rate_vs_counter"], r["win_ci95"]
            xerr = _bars(gap, glo, ghi) if glo is not None else None
            ax.errorbar(
                gap,
                w,
                xerr=xerr,
                yerr=_bars(w, wlo, whi),
                fmt=marker,
                color=color,
                capsize=3,
                label=r["policy"],
            )
            e = exploit.get(r["policy"])
            if e is not None:
                b, blo, bhi = policy_share_against_best_response(e)
                ax.errorbar(
                    gap,
                    b,
                    yerr=_bars(b, blo, bhi),
                    fmt=marker,
                    mfc="none",
                    color=color,
                    capsize=3,
                )
        frame = gap_frame(rows, gap_key, ci_key)
        if frame is not None:
            ax.set_xlim(*frame)
        ax.axvline(0, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(f"secrecy gap: Bob − Eve, {what}\n(95% match-bootstrap CI)")
    # one legend entry for every hollow point (labels beside each point overlapped where gaps are close)
    axes[0].plot([], [], "o", mfc="none", color="grey", label="hollow: vs its best response")
    axes[0].plot([], [], "s", color="grey", label="square: scripted bot; circle: trained")
    axes[0].set_ylabel("match win rate (95% Wilson CI)")
    axes[0].set_ylim(-0.03, 1.03)
    fig.suptitle(
        "strength vs secrecy: filled = against counter, hollow = against its best response", fontsize=9
    )
    # below both panels: inside either it hid points
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=6, frameon=False)
    legend_rows = math.ceil(len(labels) / 6)
    return _save(plt, fig, path, rect=(0, 0.04 + 0.028 * legend_rows, 1, 1))


#: an interval at most this wide is drawn whole; a wider one (a row with a few quartets: ``random``'s
#: count-matched gap is [-1, 0]) may run off the edge rather than squeeze every other point together
WHOLE_INTERVAL = 0.5


def gap_frame(rows: list[dict[str, Any]], gap_key: str, ci_key: str) -> tuple[float, float] | None:
    """The frontier's gap axis: every point, zero, and the whole of each interval no wider than
    :data:`WHOLE_INTERVAL`, with a margin (None where no row has the gap)."""
    ends = [0.0]
    for r in rows:
        s = r["secrecy"]
        if s.get(gap_key) is None:
            continue
        ends.append(s[gap_key])
        lo, hi = s.get(ci_key) or (None, None)
        if lo is not None and hi is not None and hi - lo <= WHOLE_INTERVAL:
            ends += [lo, hi]
    if len(ends) == 1:
        return None
    return min(ends) - 0.1, max(ends) + 0.15


def exploit_spread(rows: list[dict[str, Any]], path: str | Path) -> Path:
    """Each policy's best response trained with several seeds (dots; ``scripts/exploit_spread.py``)
    beside the recorded run (a square with its 95 % Wilson interval, which covers its final matches
    only): how much of an exploitability figure is the response's own training. A dotted tick marks
    chance (``row["chance"]``: 1/2 at 4 players, 1/3 at 6)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.2, 0.42 * len(rows) + 1.6))
    for y, r in enumerate(rows):
        rec, first = r["recorded"], y == 0
        lo, hi = rec["win_ci95"]
        ax.errorbar(
            rec["win_rate"],
            y - 0.15,
            xerr=_bars(rec["win_rate"], lo, hi),
            fmt="s",
            color="grey",
            capsize=3,
            label="recorded run (95% Wilson CI)" if first else None,
        )
        ax.plot(
            [r["chance"]] * 2,
            [y - 0.4, y + 0.4],
            ":",
            color="black",
            lw=1,
            label="chance (one team's share)" if first else None,
        )
        seeds = list(r["seeds"].values())
        ax.plot(
            seeds,
            [y + 0.15] * len(seeds),
            "o",
            color="#4c72b0",
            alpha=0.75,
            label="one seed" if first else None,
        )
        ax.plot(
            [r["mean"]],
            [y + 0.15],
            "|",
            color="black",
            ms=12,
            mew=2,
            label="mean of the seeds" if first else None,
        )
    ax.set_yticks(range(len(rows)), [r["policy"] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.02)
    ax.grid(axis="x", lw=0.4, alpha=0.5)
    ax.set_xlabel(
        f"best response's win rate against the policy ({rows[0]['recorded']['matches']} final matches a run)"
    )
    ax.set_title("exploitability over the response's training seeds", fontsize=9)
    fig.legend(fontsize=7, loc="lower center", ncol=4, frameon=False)  # below: inside, it hid points
    return _save(plt, fig, path, rect=(0, 0.05, 1, 1))


def exploit_curve(result: dict[str, Any], path: str | Path) -> Path:
    """The best response's win rate against the frozen policy over its training agent-steps."""
    plt = _plt()
    curve = result["curve"]
    x = [c["agent_steps"] for c in curve]
    w = [c["win_rate"] for c in curve]
    lo = [c["win_rate"] - c["win_ci95"][0] for c in curve]
    hi = [c["win_ci95"][1] - c["win_rate"] for c in curve]
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.errorbar(x, w, yerr=[lo, hi], fmt="o-", capsize=3, label=f"every {curve[0]['matches']} matches")
    ax.errorbar(
        [result["agent_steps"]],
        [result["win_rate"]],
        yerr=_bars(result["win_rate"], *result["win_ci95"]),
        fmt="s",
        color="C3",
        capsize=4,
        label=f"final, {result['matches']} matches"
        + (f", {result['draws']} drawn" if result.get("draws") is not None else ""),
    )
    teams = result["eval_config"]["num_players"] // 2
    ax.axhline(1 / teams, color="grey", lw=0.8, ls=":", label=f"chance: 1 of {teams} teams")
    ax.set_ylim(-0.02, 1.02)  # a point at 0 or 1 shows whole
    ax.set_xlabel("best response's training agent-steps")
    ax.set_ylabel("best response's win rate (95% Wilson CI)")
    ax.set_title(f"exploitability of {result['policy']} (init: {result['init']})", fontsize=9)
    ax.legend(fontsize=7)
    return _save(plt, fig, path)
