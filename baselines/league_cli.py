"""``quatro-league``'s entry point: checks the [train] extra before importing the league (torch)."""

from __future__ import annotations

from quatro_env.common.extras import require


def main(argv: list[str] | None = None) -> None:
    require("quatro-league", ["torch", "numba"])
    from baselines.league import main as league

    league(argv)
