"""``quatro-convert``: turn an older checkpoint into the safe format (``checkpoint_io``).

    quatro-convert runs/old/policy.pt runs/old/policy_safe.pt           # an older policy file
    quatro-convert runs/old/latest.pt runs/old/latest_safe.pt --trusted # pickled objects inside
    quatro-convert my_module.pt my_module_ts.pt --trusted --players 4   # a pickled nn.Module

A file whose data loads without code (an untagged policy from an earlier ``quatro-train``) is
converted as it is. A file holding pickled Python objects (older trainer checkpoints kept the
batched bots and numpy's RNG as objects; ``torch.save(model)`` pickles a whole module) is only
read with ``--trusted``: reading it runs whatever code it names, so only for files you made or
trust. The output holds the same tensors (weights, optimiser, RNG) as plain data; a pickled
module becomes a TorchScript program (``torchscript:PATH`` in ``quatro-eval``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baselines.checkpoint_io import (
    POLICY_FORMAT,
    TRAINER_FORMAT,
    is_torchscript,
    load_checkpoint,
    safe_torch_load,
    save_checkpoint,
)
from baselines.policy import checked_model
from baselines.trainer_state import check_trainer_state
from quatro_env.common.cli import OneLineParser


def convert_payload(payload: Any) -> dict[str, Any]:
    """An older policy or trainer payload (a dict) in the current format, same tensors."""
    if not isinstance(payload, dict):
        raise ValueError(f"not a quatro-train checkpoint (a {type(payload).__name__}, not a dict)")
    if payload.get("format") in (POLICY_FORMAT, TRAINER_FORMAT):
        return payload
    if "optimizer" in payload:  # a trainer checkpoint
        state = dict(payload, format=TRAINER_FORMAT)
        bots = state.get("bots")
        if hasattr(bots, "state_dict"):  # a pickled BatchedBots: its arrays as tensors
            state["bots"] = bots.state_dict()
        elif isinstance(bots, dict) and any(not isinstance(v, torch.Tensor) for v in bots.values()):
            raise ValueError(
                "a trainer checkpoint from before the batched bots (#17): its scripted bots cannot be "
                "carried over exactly; convert its policy.pt (or ship_checkpoint it) instead"
            )
        rng = state.get("numpy_rng")
        if isinstance(rng, tuple):
            kind, key, pos, has_gauss, cached = rng
            state["numpy_rng"] = {
                "kind": kind,
                "key": torch.from_numpy(np.asarray(key).astype(np.int64)),
                "pos": int(pos),
                "has_gauss": int(has_gauss),
                "cached_gaussian": float(cached),
            }
        check_trainer_state(state)
        return state
    if {"model", "obs_dim", "num_actions", "rnn_size"} <= set(payload):
        return dict(payload, format=POLICY_FORMAT)
    raise ValueError(f"not a quatro-train checkpoint (keys {sorted(map(str, payload))[:8]})")


def _to_torchscript(module: torch.nn.Module, num_players: int | None) -> torch.jit.ScriptModule:
    module.eval()
    try:
        return torch.jit.script(module)
    except Exception as err:  # noqa: BLE001 - fall back to tracing on an observation batch
        if num_players is None:
            raise ValueError(
                f"cannot script this module ({type(err).__name__}); give --players to trace it"
            ) from None
        from quatro_env.quatro.encoding import ObservationEncoder

        example = torch.zeros(1, ObservationEncoder(num_players).obs_dim)
        return torch.jit.trace(module, example)


def convert_file(source: Path, target: Path, trusted: bool = False, num_players: int | None = None) -> str:
    """Convert ``source`` into ``target``; returns what was written (one line). The converted file is
    checked as its loaders check it (a policy's network is built and loaded) before it is written."""
    if not source.is_file():
        raise ValueError(f"{source}: no such file")
    if target.is_dir():
        raise ValueError(f"target {str(target)!r}: is a directory; give a file name")
    if is_torchscript(source):
        raise ValueError(f"{source}: already a TorchScript program; run it as torchscript:{source}")
    try:
        payload = safe_torch_load(source)
    except ValueError:  # pickled objects (UnsafeCheckpointError), or torch's legacy non-zip format
        if not trusted:
            raise
        payload = torch.load(source, map_location="cpu", weights_only=False)  # the user trusts it
    if isinstance(payload, torch.nn.Module):
        torch.jit.save(_to_torchscript(payload, num_players), str(target))
        return f"wrote {target}: a TorchScript module (quatro-eval torchscript:{target})"
    state = convert_payload(payload)
    if state["format"] == POLICY_FORMAT:
        checked_model(state, f"{source}")  # junk sizes or weights are refused, not stamped as a policy
    save_checkpoint(state, target)
    load_checkpoint(target, (state["format"],))  # it reads back without code
    return f"wrote {target}: {state['format']}"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="quatro-convert", description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the older checkpoint")
    parser.add_argument("target", type=Path, help="where the converted file goes")
    parser.add_argument(
        "--trusted", action="store_true", help="the file is yours or trusted: read pickled objects in it"
    )
    parser.add_argument("--players", type=int, choices=(4, 6, 8), help="to trace a pickled module")
    args = parser.parse_args(argv)
    if args.source.resolve() == args.target.resolve():
        print("quatro-convert: target: must differ from the source (keep the original)", file=sys.stderr)
        return 2
    try:
        print(convert_file(args.source, args.target, args.trusted, args.players))
    except ValueError as err:
        print(f"quatro-convert: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # an unwritable place: the file system's reason, one line
        print(f"quatro-convert: target {str(args.target)!r}: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
