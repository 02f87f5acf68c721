"""``quatro-train``'s command line: reads a config (or a checkpoint to resume), then trains in this
process or, with ``processes > 1``, launches the data-parallel trainer processes
(``baselines/replicas.py``). Split from ``baselines/ppo.py``, which holds the trainer itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from baselines.config import TrainConfig, load_config, one_line_error, override_config
from baselines.ppo import PPOTrainer
from baselines.replicas import Replicas, launch, rank_path
from baselines.trainer_state import load_trainer_checkpoint
from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem


def _config_from_args(args: argparse.Namespace) -> tuple[TrainConfig, dict[str, Any] | None]:
    """The config the command asks for, and the checkpoint it resumes from (validated), if any."""
    if not args.resume:
        return load_config(args.config, args.overrides), None
    state = load_trainer_checkpoint(args.resume)
    cfg = TrainConfig(**state["config"])
    if args.overrides:  # a new leg under a changed config (e.g. other opponents), from this state
        cfg = override_config(cfg, args.overrides)
        print(f"resuming {args.resume} with overrides {args.overrides}: not an identical continuation")
    if cfg.processes > 1:  # every process's file must be there, at the same update
        for rank in range(1, cfg.processes):
            other = load_trainer_checkpoint(rank_path(Path(args.resume), rank))
            if other.get("replica") != {"rank": rank, "world": cfg.processes}:
                raise ValueError(f"{rank_path(Path(args.resume), rank)}: not process {rank}'s checkpoint")
            if other["update"] != state["update"]:
                raise ValueError(
                    f"{rank_path(Path(args.resume), rank)}: at update {other['update']}, process 0's at "
                    f"{state['update']} (resume from a checkpoint_NNNNN.pt every process wrote)"
                )
    return cfg, state


def _train_process(
    replicas: Replicas, config: dict[str, Any], resume: str | None, updates: int | None, command: str
) -> dict[str, float]:
    """One of the data-parallel trainer processes (``launch``): its share of the tables, the same
    network; process 0's summary comes back to the launcher."""
    trainer = PPOTrainer(TrainConfig(**config), replicas)
    if resume:
        trainer.load_state_dict(load_trainer_checkpoint(rank_path(Path(resume), replicas.rank)))
    history = trainer.train(updates, command)
    return {"agent_steps": trainer.agent_steps, "wall_seconds": trainer.wall_seconds} | (
        {"steps_per_s": history[-1]["steps_per_s"]} if history else {}
    )


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(
        prog="quatro-train", description="Train PPO agents for Quatro on the batched engine."
    )
    parser.add_argument(
        "--config", help="a shipped config by name (ppo_4p, smoke, ppo_6p, ...) or a path to a YAML file"
    )
    parser.add_argument(
        "--resume",
        help="a checkpoint (latest.pt) to continue exactly from (overrides, if any, apply to its config)",
    )
    parser.add_argument("--updates", type=int_in(1), help="stop after this many more updates")
    parser.add_argument(
        "overrides", nargs="*", help="key=value overrides, e.g. num_envs=64 env.round_seconds=60"
    )
    args = parser.parse_intermixed_args(argv)  # key=value overrides before or after the flags
    command = "quatro-train " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.resume and args.config:
        parser.error("--config: not with --resume (the checkpoint holds its config; use key=value overrides)")
    try:
        cfg, state = _config_from_args(args)
        trainer = None
        if cfg.processes == 1:
            trainer = PPOTrainer(cfg)
            if state is not None:
                trainer.load_state_dict(state)
        run_dir = Path(cfg.out_dir) / cfg.run_name
        problem = output_dir_problem(run_dir, ("config.json", "progress.csv", "latest.pt", "policy.pt"))
        if problem:
            raise ValueError(f"out_dir/run_name: {problem}")
        (run_dir / "config.json").write_text(json.dumps(cfg.model_dump(mode="json"), indent=2))
    except (ValueError, OSError) as exc:  # bad config, override or checkpoint: one line, exit 2
        parser.exit(2, f"quatro-train: {one_line_error(exc)}\n")
    if trainer is not None:
        history = trainer.train(args.updates, command)
        summary = {"agent_steps": trainer.agent_steps, "wall_seconds": trainer.wall_seconds}
        summary |= {"steps_per_s": history[-1]["steps_per_s"]} if history else {}
    else:
        config = cfg.model_dump(mode="json")
        try:
            summary = launch(cfg.processes, _train_process, config, args.resume, args.updates, command)
        except RuntimeError as exc:
            parser.exit(1, f"quatro-train: {exc}\n")
    if "steps_per_s" in summary:
        print(
            f"done: {summary['agent_steps']:,} agent-steps in {summary['wall_seconds']:.0f} s "
            f"({summary['steps_per_s']:.0f} steps/s last update); outputs in {run_dir}"
        )


if __name__ == "__main__":
    main()
