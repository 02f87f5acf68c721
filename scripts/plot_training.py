"""Learning curves of ``quatro-train`` runs, from their ``progress.csv`` files (seeds overlaid), as one PNG.

python scripts/plot_training.py runs/ppo_4p_seed*/progress.csv --out docs/results/ppo_4p_learning.png
"""

from __future__ import annotations

import csv
from pathlib import Path

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem

PANELS = (
    ("return_vs_bots", "game return vs scripted bots"),
    ("return_vs_pool", "game return vs pool snapshots"),
    ("best_count", "learner: cards of its best value (mean)"),
    ("quartet_share", "learner: share of seat-ticks holding a quartet"),
    ("paid_seats_per_1k_ticks", "seats paid per 1k table-ticks"),
    ("entropy", "policy entropy"),
    ("quatro_paid_share", "learner «Quatro» calls: share that scored"),
    ("sign_shown_share", "learner holding a quartet: shows its sign"),
    ("contra_paid_share", "learner «Contra» calls: share that scored"),
    ("steps_per_s", "agent-steps/s (rollout + update)"),
)


def _smooth(values: list[float], window: int) -> list[float]:
    """Trailing rolling mean that skips NaN (a panel's value is NaN until its first episode ends)."""
    out = []
    for i in range(len(values)):
        recent = [v for v in values[max(0, i - window + 1) : i + 1] if v == v]
        out.append(sum(recent) / len(recent) if recent else float("nan"))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="plot_training.py", description=__doc__.splitlines()[0])
    parser.add_argument("progress", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--smooth", type=int_in(1), default=5, help="rolling-mean window, in updates")
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.progress if not path.is_file()]
    if missing:
        parser.error(f"argument progress: no such file: {', '.join(missing)}")
    problem = output_dir_problem(args.out.parent, (args.out.name,))
    if problem:
        parser.error(f"--out: {problem}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 5, figsize=(21, 6.5))
    total = []
    for path in args.progress:
        with path.open() as f:
            rows = list(csv.DictReader(f))
        if not rows:
            raise SystemExit(f"{path}: no rows")
        if "agent_steps" not in rows[0]:
            raise SystemExit(f"{path}: no agent_steps column (not a quatro-train progress.csv)")
        steps = [int(r["agent_steps"]) / 1e6 for r in rows]
        label = (
            path.parent.name if path.stem == "progress" else path.stem
        )  # runs/NAME/progress.csv or NAME.csv
        total.append(f"{label} {steps[-1]:.1f}M")
        for ax, (key, title) in zip(axes.flat, PANELS, strict=True):
            if key in rows[0]:
                ax.plot(steps, _smooth([float(r[key]) for r in rows], args.smooth), lw=1, label=label)
            ax.set_title(title, fontsize=10)
    for ax in axes.flat:
        ax.set_xlabel("agent-steps (millions)")
        ax.grid(alpha=0.3)
    drawn = [ax for ax in axes.flat if ax.get_legend_handles_labels()[0]]
    if drawn:  # the runs' names, on the first panel any of them has a column for
        drawn[0].legend(fontsize=8)
    fig.suptitle("; ".join(total) + f" (rolling mean of {args.smooth} updates)")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
