"""The trainer's console entry points: each checks the [train] extra before importing torch, so that a
core install gets the one-line hint (``quatro_env.common.extras``), not a ``ModuleNotFoundError``."""

from __future__ import annotations

from quatro_env.common.extras import require


def main(argv: list[str] | None = None) -> None:
    """``quatro-train``."""
    require("quatro-train", ["torch", "numba"])
    from baselines.train_cli import main as train

    train(argv)


def convert_main(argv: list[str] | None = None) -> int:
    """``quatro-convert``."""
    require("quatro-convert", ["torch"])
    from baselines.convert import main as convert

    return convert(argv)


def exploit_main(argv: list[str] | None = None) -> int:
    """``quatro-exploit``."""
    require("quatro-exploit", ["torch", "numba"])
    from baselines.exploit import main as exploit

    return exploit(argv)
