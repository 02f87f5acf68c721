"""``quatro-train-rllib``: PPO (RLlib, new API stack) on Quatro, one masked policy shared by every seat.

    quatro-train-rllib                                   # the shipped rllib_ppo_4p config
    quatro-train-rllib --config rllib_ppo_4p run.iterations=5 training.lr=1e-4
    quatro-train-rllib --address HOST:PORT env_runners.num_env_runners=8

``--config`` takes a shipped config's name or a YAML path; ``section.key=value`` overrides any
entry of it (the same override syntax as ``quatro-train`` and ``quatro-eval``). Without
``--address`` a local Ray instance is started in this process; with it the trainer joins an
existing cluster (every node needs ``pip install -e '.[rllib]'``), with no other change.
Outputs go to ``run.checkpoint_dir`` (default ``runs/rllib_ppo_4p``): algorithm checkpoints
(``iter_NNNNNN``), each policy exported as TorchScript beside it (``iter_NNNNNN_policy.pt``, for
``quatro-eval torchscript:PATH``), and TensorBoard scalars (``run.tensorboard``, on by default:
``tensorboard --logdir runs``). See docs/integrations/rllib.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from quatro_env.common.cli import OneLineParser, int_in, one_line_error
from quatro_env.common.configs import read_yaml_mapping
from quatro_env.common.extras import install_extra
from quatro_env.common.overrides import merge, parse_overrides
from quatro_env.common.strict import as_flag, as_int

SECTIONS = ("env", "env_runners", "learners", "training", "model", "run")
RUN_KEYS = ("iterations", "checkpoint_dir", "checkpoint_every", "seed", "tensorboard")
DEFAULT_CONFIG = "rllib_ppo_4p"


def load_config(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """The config's sections (a shipped name or a YAML path), with ``section.key=value`` overrides."""
    config = read_yaml_mapping(path)  # missing, binary, not YAML or not a mapping: ValueError naming it
    extra = parse_overrides(overrides)
    for item, value in extra.items():
        if not isinstance(value, dict):
            raise ValueError(
                f"override {item}=...: name a section entry, e.g. run.{item}=..., training.{item}=..."
            )
    config = merge(config, extra)
    unknown = set(config) - set(SECTIONS)
    if unknown:
        raise ValueError(f"{path}: unknown sections {sorted(unknown)}; known: {list(SECTIONS)}")
    for section in SECTIONS:
        entries = config.get(section) or {}
        if not isinstance(entries, dict):
            raise ValueError(f"{section} section: a mapping of keys to values, got {type(entries).__name__}")
        named = [key for key in entries if not isinstance(key, str)]
        if named:  # the sections are keyword arguments (QuatroConfig, PPOConfig's methods)
            raise ValueError(f"{section} section: a key is a name (text), got {named[0]!r}")
    sections = {section: dict(config.get(section) or {}) for section in SECTIONS}
    bad = set(sections["run"]) - set(RUN_KEYS)
    if bad:
        raise ValueError(f"run section: unknown keys {sorted(bad)}; known: {list(RUN_KEYS)}")
    run = sections["run"]
    for key, lowest in (("iterations", 1), ("checkpoint_every", 0)):
        value = run.get(key, lowest)
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise ValueError(f"run.{key}: an integer >= {lowest}, got {value!r}")
    if run.get("seed") is not None:
        as_int(run["seed"], "run.seed", low=0)
    as_flag(run.get("tensorboard", True), "run.tensorboard")  # bool("false") would be True
    if not isinstance(run.get("checkpoint_dir", ""), str):
        raise ValueError(f"run.checkpoint_dir: a folder's path (text), got {run['checkpoint_dir']!r}")
    from quatro_env.quatro_v0 import parallel_env

    try:  # the table is built once here, before Ray starts: a typo is one line and exit 2
        parallel_env(**sections["env"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"env section: {one_line_error(err)}") from None
    return sections


def ppo_config_from(sections: dict[str, dict[str, Any]]) -> Any:
    """RLlib's PPO config from :func:`load_config`'s sections (``build_ppo_config``, masked)."""
    from quatro_env.integrations.rllib import build_ppo_config

    return build_ppo_config(
        sections["env"],
        env_runners=sections["env_runners"],
        learners=sections["learners"],
        training=sections["training"],
        model=sections["model"],
        seed=sections["run"].get("seed"),
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = OneLineParser(prog="quatro-train-rllib", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=DEFAULT_CONFIG, help="a shipped config's name or a YAML path")
    p.add_argument("--address", default=None, help="existing Ray cluster (HOST:PORT or 'auto')")
    p.add_argument("--num-cpus", type=int_in(1), default=None, help="CPUs of the local Ray instance")
    p.add_argument("--summary", default=None, help="write a JSON summary of the run to this file")
    p.add_argument("overrides", nargs="*", help="section.key=value, e.g. run.iterations=1 training.lr=1e-4")
    return p.parse_intermixed_args(argv)  # overrides may sit before or after the flags


def _row(i: int, seconds: float, result: dict[str, Any]) -> dict[str, Any]:
    from quatro_env.integrations.rllib import CHECKED_STEPS_METRIC, ILLEGAL_ACTIONS_METRIC

    runners = result.get("env_runners", {})
    return {
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


def _log_scalars(writer: Any, row: dict[str, Any]) -> None:
    step = row["env_steps"]
    for key, value in row.items():
        if key == "agent_returns_mean":
            for agent, ret in value.items():
                writer.add_scalar(f"return/{agent}", ret, step)
        elif key != "iteration" and not (isinstance(value, float) and math.isnan(value)):
            writer.add_scalar(f"train/{key}", value, step)
    writer.flush()


def _writer(enabled: bool, log_dir: Path) -> Any:
    if not enabled:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as exc:  # checked before Ray starts
        raise SystemExit(
            "quatro-train-rllib: run.tensorboard=true needs the 'tensorboard' package "
            "(pip install -e '.[rllib]'), or pass run.tensorboard=false"
        ) from exc
    return SummaryWriter(str(log_dir))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        config = load_config(args.config, args.overrides)
    except (ValueError, FileNotFoundError) as err:
        print(f"quatro-train-rllib: {err}", file=sys.stderr)
        return 2
    try:
        import ray
    except ImportError:
        print(f"quatro-train-rllib needs the [rllib] extra: {install_extra('rllib')}", file=sys.stderr)
        return 2
    run = config["run"]
    iterations = int(run.get("iterations", 1))
    checkpoint_dir = Path(run.get("checkpoint_dir", "runs/rllib_ppo_4p"))
    every = int(run.get("checkpoint_every", 0))
    writer = _writer(bool(run.get("tensorboard", True)), checkpoint_dir)

    from quatro_env.integrations.rllib import export_torchscript

    algo = None
    try:  # Ray is shut down however the run ends, its start and the algorithm's build included
        if args.address:
            ray.init(address=args.address)
        else:
            ray.init(num_cpus=args.num_cpus, include_dashboard=False)
        print(f"ray: {ray.cluster_resources()}", flush=True)
        algo_config = ppo_config_from(config)
        algo = algo_config.build_algo()
        summary: dict[str, Any] = {
            "address": args.address,
            "num_env_runners": algo_config.num_env_runners,
            "iterations": [],
            "checkpoints": [],
        }
        for i in range(1, iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            row = _row(i, time.perf_counter() - start, result)
            summary["iterations"].append(row)
            print(json.dumps(row), flush=True)
            if writer is not None:
                _log_scalars(writer, row)
            if (every and i % every == 0) or i == iterations:
                path = algo.save_to_path(str((checkpoint_dir / f"iter_{i:06d}").resolve()))
                scripted = export_torchscript(path, checkpoint_dir / f"iter_{i:06d}_policy.pt")
                summary["checkpoints"].append(str(path))
                summary["torchscript"] = str(scripted)
                print(f"checkpoint: {path}  (for quatro-eval: torchscript:{scripted})", flush=True)
    finally:
        if writer is not None:
            writer.close()
        if algo is not None:
            algo.stop()
        ray.shutdown()
    if args.summary:
        Path(args.summary).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
