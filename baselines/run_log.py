"""What a training run writes besides its checkpoints: the policy file's payload, one progress row per
update (``progress.csv``, TensorBoard), and the periodic evaluation against bots (``eval.csv``).

Split from ``baselines/ppo.py``: the trainer decides *when* to write; this module knows the formats.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from baselines.checkpoint_io import POLICY_FORMAT
from baselines.config import TrainConfig


def policy_payload(state: dict[str, Any], command: str) -> dict[str, Any]:
    """The policy alone, from a trainer checkpoint (``PPOTrainer.state_dict()``, e.g. ``latest.pt`` or
    ``checkpoint_00300.pt``), with what made it: the file ``policy.pt`` and the shipped checkpoints hold."""
    cfg = state["config"]
    return {
        "format": POLICY_FORMAT,
        "model": state["model"],
        "obs_dim": int(state["next_obs"].shape[-1]),
        "num_actions": int(state["next_mask"].shape[-1]),
        "arch": cfg["arch"],
        "hidden_size": cfg["hidden_size"],
        "rnn_size": cfg["rnn_size"],
        "num_players": int(state["next_obs"].shape[1]),
        "config": cfg,
        "agent_steps": state["agent_steps"],
        "updates": state["update"],
        "wall_seconds": state["wall_seconds"],
        "command": command,
        "seed": cfg["seed"],
    }


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def progress_row(
    *,
    update: int,
    agent_steps: int,
    steps_per_s: float,
    returns: tuple[list[float], list[float], list[float]],
    rollout_stats: dict[str, float],
    ticks: int,
    episodes: int,
    update_stats: dict[str, float],
) -> dict[str, float]:
    """One update's line of ``progress.csv``: recent game returns (all learner seats, against the pool,
    against bots: the last 200 episodes of each), the rollout's behaviour statistics, the update's."""
    everyone, vs_pool, vs_bots = (r[-200:] for r in returns)
    return {
        "update": update,
        "agent_steps": agent_steps,
        "steps_per_s": steps_per_s,
        "episode_return": _mean(everyone),
        "return_vs_pool": _mean(vs_pool),
        "return_vs_bots": _mean(vs_bots),
        "quartet_share": rollout_stats["quartet_share"],
        "best_count": rollout_stats["learner_best_count"],
        **{
            k: v
            for k, v in rollout_stats.items()
            if k.endswith(("_per_1k", "_share")) and k != "quartet_share"
        },
        "paid_seats_per_1k_ticks": 1000 * rollout_stats["points"] / ticks,
        "episodes": episodes,
        **update_stats,
    }


def open_writer(cfg: TrainConfig, run_dir: Path):
    """A TensorBoard writer for the run, or None when ``tensorboard`` is off."""
    if not cfg.tensorboard:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as exc:
        raise RuntimeError(
            "tensorboard: logging needs the 'tensorboard' package "
            "(pip install -e '.[train]') or set tensorboard=false"
        ) from exc
    return SummaryWriter(str(run_dir))


def log_row(run_dir: Path, row: dict[str, float], writer, prefix: str = "train") -> None:
    """Append ``row`` to ``progress.csv`` (``prefix`` train; a fresh file at update 1) or
    ``PREFIX.csv``, and to TensorBoard under ``PREFIX/`` against the agent-steps."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / ("progress.csv" if prefix == "train" else f"{prefix}.csv")
    new = not path.exists() or (prefix == "train" and row["update"] == 1)
    with path.open("w" if new else "a", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(row))
        if new:
            out.writeheader()
        out.writerow(row)
    if writer is not None:
        for key, value in row.items():
            if key != "update":
                writer.add_scalar(f"{prefix}/{key}", value, row["agent_steps"])


def evaluate_policy(policy_path: Path, cfg: TrainConfig, num_players: int, seed: int) -> dict[str, float]:
    """The policy file against each of ``cfg.eval_bots`` through the harness (or, ``eval_batched``, every
    match at once on the batched engine), on the game's own rules and rewards (no shaping, no
    curriculum): win rate and points per round of the policy's team."""
    from quatro_env.eval.batch_play import play_lineup
    from quatro_env.eval.harness import evaluate

    row: dict[str, float] = {}
    env = cfg.env_config(evaluation=True).model_dump()
    for bot in cfg.eval_bots:
        opponents = [bot] * (num_players // 2 - 1)
        if cfg.eval_batched:
            lineup = [f"checkpoint:{policy_path}", *opponents]
            team = play_lineup(lineup, matches=cfg.eval_matches, config=env, seed=seed)["teams"][0]
        else:
            report = evaluate(
                [str(policy_path), *opponents],
                matches=cfg.eval_matches,
                config=env,
                seed=seed,
                probe_matches=0,
                workers=1,
                progress=False,
            )
            team = report["lineups"][0]["teams"][0]
        row[f"win_rate_vs_{bot}"] = team["win_rate"]
        row[f"points_per_round_vs_{bot}"] = team["points_per_round"] or 0.0
    return row
