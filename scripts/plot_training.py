"""Learning curves of a ``quatro-train`` run, from its ``progress.csv``, as one PNG.

python scripts/plot_training.py runs/ppo_4p/progress.csv docs/results/ppo_4p_learning.png
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

PANELS = (
    ("return_vs_pool", "game return vs pool snapshots"),
    ("quartet_share", "share of seat-ticks holding a quartet"),
    ("paid_seats_per_1k_ticks", "seats paid per 1k table-ticks"),
    ("entropy", "policy entropy"),
    ("v_loss", "value loss"),
    ("steps_per_s", "agent-steps/s (rollout + update)"),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("progress", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with args.progress.open() as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{args.progress}: no rows")
    steps = [int(r["agent_steps"]) / 1e6 for r in rows]
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.5))
    for ax, (key, title) in zip(axes.flat, PANELS, strict=True):
        if key in rows[0]:
            ax.plot(steps, [float(r[key]) for r in rows], lw=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("agent-steps (millions)")
        ax.grid(alpha=0.3)
    fig.suptitle(f"{args.progress.parent.name}: {len(rows)} updates, {steps[-1]:.1f}M agent-steps")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
