"""Copy a run's ``policy.pt`` into the package as a named checkpoint, with its provenance.

    python scripts/ship_checkpoint.py runs/ppo_4p_seed1/policy.pt ppo_4p_seed1 \
        --command "quatro-train --config configs/ppo_4p.yaml seed=1" --stopped "Ctrl-C at 21:30"
    python scripts/ship_checkpoint.py runs/ppo_4p_seed1/checkpoint_00300.pt ppo_4p_seed1

A trainer checkpoint (``latest.pt``, ``checkpoint_NNNNN.pt``) is accepted too: its policy is taken out
of it (``baselines.ppo.policy_payload``), so a run can ship the update its evaluation picked.

Writes ``baselines/checkpoints/NAME.pt`` and ``NAME.json`` (``--dest DIR``: into DIR): the command, seed,
agent-steps, updates, wall time and steps/s read from the checkpoint itself (never typed in), the whole
training config, and the machine it was trained on. NAME is lower-case letters, digits and ``_`` (it is
a file name inside the package and a policy name on every command line), never a bot's name (the bot
would always win over it), and an existing checkpoint is replaced only with ``--force``.
"""

from __future__ import annotations

import json
import os
import platform
import re
from pathlib import Path

import torch

from baselines.checkpoint_io import TRAINER_FORMAT, load_checkpoint, save_checkpoint
from baselines.policy import CHECKPOINT_DIR
from baselines.ppo import policy_payload
from quatro_env.common.cli import OneLineParser, one_line_error, output_dir_problem
from quatro_env.quatro.bots import BOT_POLICIES

#: a shipped name: a file name inside the package and a policy name on the command line
NAME_PATTERN = r"[a-z0-9_]+"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a shipped checkpoint, or None."""
    if not re.fullmatch(NAME_PATTERN, name):
        return f"expected lower-case letters, digits and _ only ({NAME_PATTERN}), got {name!r}"
    if name in BOT_POLICIES:  # as_policy reads a bot's name as the bot, whatever file ships
        return f"{name!r} is a bot's name: a checkpoint of that name could never be loaded"
    return None


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="ship_checkpoint.py", description=__doc__.splitlines()[0])
    parser.add_argument("policy", type=Path, help="a policy.pt written by quatro-train")
    parser.add_argument("name", help="the checkpoint's name, e.g. ppo_4p")
    parser.add_argument("--command", help="the command that trained it (default: the one recorded)")
    parser.add_argument("--stopped", default="", help="how and why training stopped")
    parser.add_argument(
        "--dest", type=Path, default=None, help="the folder shipped into (default: baselines/checkpoints)"
    )
    parser.add_argument("--force", action="store_true", help="replace a checkpoint of that name")
    args = parser.parse_args(argv)
    problem = name_problem(args.name)
    if problem:
        parser.error(f"argument name: {problem}")
    dest = args.dest if args.dest is not None else CHECKPOINT_DIR  # read now: tests point it elsewhere
    there = [p.name for p in (dest / f"{args.name}.pt", dest / f"{args.name}.json") if p.exists()]
    if there and not args.force:
        parser.error(
            f"argument name: {args.name!r} is shipped already ({', '.join(there)}); --force replaces it"
        )
    try:  # read safely: a file needing code to load is refused
        payload = load_checkpoint(args.policy)
    except ValueError as exc:
        parser.error(f"argument policy: {one_line_error(exc)}")
    problem = output_dir_problem(dest, (f"{args.name}.pt", f"{args.name}.json"))
    if problem:
        parser.error(f"--dest: {problem}")

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
    save_checkpoint(payload, dest / f"{args.name}.pt")
    (dest / f"{args.name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"shipped {args.name}: {meta['agent_steps']:,} agent-steps, {meta['wall_seconds']:.0f} s")


if __name__ == "__main__":
    main()
