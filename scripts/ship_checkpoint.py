"""Copy a run's ``policy.pt`` into the package as a named checkpoint, with its provenance.

    python scripts/ship_checkpoint.py runs/ppo_4p_seed1/policy.pt ppo_4p_seed1 \
        --command "quatro-train --config configs/ppo_4p.yaml seed=1" --stopped "Ctrl-C at 21:30"
    python scripts/ship_checkpoint.py runs/ppo_4p_seed1/checkpoint_00300.pt ppo_4p_seed1

A trainer checkpoint (``latest.pt``, ``checkpoint_NNNNN.pt``) is accepted too: its policy is taken out
of it (``baselines.ppo.policy_payload``), so a run can ship the update its evaluation picked.

Writes ``baselines/checkpoints/NAME.pt`` and ``NAME.json``: the command, seed, agent-steps,
updates, wall time and steps/s read from the checkpoint itself (never typed in), the whole
training config, and the machine it was trained on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

import torch

from baselines.checkpoint_io import TRAINER_FORMAT, load_checkpoint, save_checkpoint
from baselines.policy import CHECKPOINT_DIR
from baselines.ppo import policy_payload


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", type=Path, help="a policy.pt written by quatro-train")
    parser.add_argument("name", help="the checkpoint's name, e.g. ppo_4p")
    parser.add_argument("--command", help="the command that trained it (default: the one recorded)")
    parser.add_argument("--stopped", default="", help="how and why training stopped")
    args = parser.parse_args(argv)

    payload = load_checkpoint(args.policy)  # read safely: a file needing code to load is refused
    if payload["format"] == TRAINER_FORMAT:  # a whole trainer checkpoint: keep the policy alone
        payload = policy_payload(
            payload, f"(not recorded: taken out of the trainer checkpoint {args.policy})"
        )
    meta = {
        "command": args.command or payload["command"],
        "recorded_command": payload["command"],
        "seed": payload["seed"],
        "agent_steps": payload["agent_steps"],
        "updates": payload["updates"],
        "wall_seconds": round(payload["wall_seconds"], 1),
        "steps_per_s": round(payload["agent_steps"] / max(payload["wall_seconds"], 1e-9)),
        "config": payload["config"],
        "trained_on": (
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, torch {torch.__version__}, "
            f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')} (where this script ran)"
        ),
        "stopped": args.stopped,
    }
    CHECKPOINT_DIR.mkdir(parents=True, exist_ok=True)
    save_checkpoint(payload, CHECKPOINT_DIR / f"{args.name}.pt")
    (CHECKPOINT_DIR / f"{args.name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"shipped {args.name}: {meta['agent_steps']:,} agent-steps, {meta['wall_seconds']:.0f} s")


if __name__ == "__main__":
    main()
