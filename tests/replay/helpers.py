"""Short replays for the tests: a quick match written by the eval harness (the real writer path)."""

from __future__ import annotations

from pathlib import Path

from quatro_env.eval.harness import evaluate

#: a short table: rounds of 20 s at 0.5 s ticks, first to 1 point; reshuffles and votes happen too
QUICK = {"num_players": 4, "points_to_win": 1, "round_seconds": 20.0, "sign_phase_seconds": 3.0}


def write_replays(directory: Path, policies=("honest", "decoy"), matches: int = 2, **config) -> list[Path]:
    evaluate(
        list(policies),
        matches=matches,
        config={**QUICK, **config},
        seed=3,
        max_rounds=3,
        probe_matches=0,
        workers=1,
        progress=False,
        replays=directory,
    )
    return sorted(directory.glob("*.jsonl"))
