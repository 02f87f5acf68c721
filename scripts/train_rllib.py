#!/usr/bin/env python
"""Train PPO (RLlib, new API stack) on Quatro with one masked policy shared by every seat.

    python scripts/train_rllib.py --config configs/rllib_ppo_4p.yaml
    python scripts/train_rllib.py --config configs/rllib_ppo_4p.yaml --address HOST:PORT --num-env-runners 8

Without ``--address`` a local Ray instance is started in this process; with it the script joins
an existing cluster (every node needs ``pip install 'quatro-env[rllib]'``), with no other change.
Checkpoints are algorithm checkpoints (``Algorithm.save_to_path``, ``CKPT_DIR/iter_NNNNNN``), each
with the policy also exported as TorchScript beside it (``CKPT_DIR/iter_NNNNNN_policy.pt``):
evaluate it with ``quatro-eval checkpoint:CKPT_DIR/iter_NNNNNN_policy.pt ...``, or load the
checkpoint in Python with ``quatro_env.integrations.rllib.load_rllib_policy(CKPT_DIR/iter_NNNNNN)``.
See docs/integrations/rllib.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from quatro_env.common.cli import OneLineParser, int_in

SECTIONS = ("env", "env_runners", "learners", "training", "model", "run")


def load_config(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        config = yaml.safe_load(f) or {}
    unknown = set(config) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"{path}: unknown sections {sorted(unknown)}; known: {list(SECTIONS)}")
    return {section: dict(config.get(section) or {}) for section in SECTIONS}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = OneLineParser(prog="train_rllib.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="YAML file (see configs/rllib_ppo_4p.yaml)")
    p.add_argument("--address", default=None, help="existing Ray cluster (HOST:PORT or 'auto')")
    p.add_argument(
        "--num-env-runners", type=int_in(0), default=None, help="overrides env_runners.num_env_runners"
    )
    p.add_argument("--iterations", type=int_in(1), default=None, help="overrides run.iterations")
    p.add_argument("--checkpoint-dir", default=None, help="overrides run.checkpoint_dir")
    p.add_argument("--checkpoint-every", type=int_in(0), default=None, help="overrides run.checkpoint_every")
    p.add_argument("--seed", type=int, default=None, help="overrides run.seed")
    p.add_argument("--num-cpus", type=int_in(1), default=None, help="CPUs of the local Ray instance")
    p.add_argument("--summary", default=None, help="write a JSON summary of the run to this file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    config = load_config(args.config)
    run = config["run"]
    if args.num_env_runners is not None:
        config["env_runners"]["num_env_runners"] = args.num_env_runners
    iterations = args.iterations if args.iterations is not None else int(run.get("iterations", 1))
    checkpoint_dir = Path(args.checkpoint_dir or run.get("checkpoint_dir", "runs/rllib_ppo"))
    every = args.checkpoint_every
    if every is None:
        every = int(run.get("checkpoint_every", 0))
    seed = args.seed if args.seed is not None else run.get("seed")

    import ray

    from quatro_env.integrations.rllib import (
        CHECKED_STEPS_METRIC,
        ILLEGAL_ACTIONS_METRIC,
        build_ppo_config,
        export_torchscript,
    )

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    print(f"ray: {ray.cluster_resources()}", flush=True)

    algo_config = build_ppo_config(
        config["env"],
        env_runners=config["env_runners"],
        learners=config["learners"],
        training=config["training"],
        model=config["model"],
        seed=seed,
    )
    algo = algo_config.build_algo()
    summary: dict[str, Any] = {
        "address": args.address,
        "num_env_runners": algo_config.num_env_runners,
        "iterations": [],
        "checkpoints": [],
    }
    try:
        for i in range(1, iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            runners = result.get("env_runners", {})
            row = {
                "iteration": i,
                "seconds": round(seconds, 3),
                "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                "episodes": int(runners.get("num_episodes_lifetime", 0)),
                "episode_len_mean": round(float(runners.get("episode_len_mean", float("nan"))), 2),
                # Per seat: with zero-sum rewards the sum over seats (episode_return_mean) is 0.
                "agent_returns_mean": {
                    agent: round(float(value), 3)
                    for agent, value in sorted(runners.get("agent_episode_returns_mean", {}).items())
                },
                "illegal_actions": int(runners.get(ILLEGAL_ACTIONS_METRIC, 0)),
                "checked_agent_steps": int(runners.get(CHECKED_STEPS_METRIC, 0)),
            }
            summary["iterations"].append(row)
            print(json.dumps(row), flush=True)
            if (every and i % every == 0) or i == iterations:
                path = algo.save_to_path(str((checkpoint_dir / f"iter_{i:06d}").resolve()))
                scripted = export_torchscript(path, checkpoint_dir / f"iter_{i:06d}_policy.pt")
                summary["checkpoints"].append(str(path))
                summary["torchscript"] = str(scripted)
                print(f"checkpoint: {path}  (for quatro-eval: torchscript:{scripted})", flush=True)
    finally:
        algo.stop()
        ray.shutdown()
    if args.summary:
        Path(args.summary).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
