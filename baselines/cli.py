"""``quatro-train``'s entry point: checks the [train] extra before importing the trainer (torch)."""

from __future__ import annotations

from quatro_env.common.extras import require


def main(argv: list[str] | None = None) -> None:
    require("quatro-train", ["torch", "numba"])
    from baselines.train_cli import main as train

    train(argv)
