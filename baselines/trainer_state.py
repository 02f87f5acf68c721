"""The pieces of a trainer checkpoint that are not the trainer's own fields: copies, RNG, engine.

``PPOTrainer.state_dict`` is a snapshot (every tensor copied) in plain data, so it can be kept in
memory as "the state at the last completed update" and written on Ctrl-C, and loaded back with
``torch.load(weights_only=True)``. The engine's state is read and written by the two helpers
``engine_state`` / ``load_engine_state`` alone, so that switching to an engine API is one edit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from baselines.checkpoint_io import TRAINER_FORMAT, check_payload, load_checkpoint
from quatro_env.common.strict import as_int, as_real

# the trainer's tensors that a checkpoint holds as they are (copied in place on load)
TRAINER_TENSORS = (
    "next_obs",
    "next_mask",
    "next_done",
    "h",
    "h_opp",
    "mode",
    "learner",
    "running_return",
    "potential",
)
REQUIRED_KEYS = (
    "config",
    "model",
    "optimizer",
    "opponent",
    "pool",
    "engine",
    *TRAINER_TENSORS,
    "bots",
    "bot_returns",
    "agent_steps",
    "update",
    "wall_seconds",
    "torch_rng",
    "numpy_rng",
    "history",
    "finished_returns",
    "pool_returns",
    "episodes",
    "env_config",
)


def cloned(obj: Any) -> Any:
    """``obj`` with every tensor inside (dicts, lists, tuples) replaced by a detached copy."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        return {k: cloned(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(cloned(v) for v in obj)
    return obj


def set_learning_rate(optimizer: torch.optim.Optimizer, rate: float) -> None:
    """Every parameter group at ``rate``: a loaded optimizer state brings the rate it was saved with,
    and a resumed leg under a changed config must train at the config's."""
    for group in optimizer.param_groups:
        group["lr"] = rate


def engine_state(engine: Any) -> dict[str, torch.Tensor]:
    """The batched engine's state (its public ``state_dict``: its RNG is counter-based, in it)."""
    return engine.state_dict()


def load_engine_state(engine: Any, state: dict[str, torch.Tensor]) -> None:
    """Copy in place through the engine's ``load_state_dict`` (it refuses a state that does not fit)."""
    engine.load_state_dict(state)


def numpy_rng_state() -> dict[str, Any]:
    """``np.random.get_state()`` as plain data (an int64 tensor for the MT19937 key)."""
    kind, key, pos, has_gauss, cached = np.random.get_state()
    return {
        "kind": kind,
        "key": torch.from_numpy(key.astype(np.int64)),
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached_gaussian": float(cached),
    }


def set_numpy_rng_state(state: dict[str, Any]) -> None:
    np.random.set_state(
        (
            state["kind"],
            state["key"].numpy().astype(np.uint32),
            state["pos"],
            state["has_gauss"],
            state["cached_gaussian"],
        )
    )


def check_trainer_state(state: Any) -> None:
    """A trainer checkpoint's shape, before anything is changed: a clear error, state untouched. The
    kinds of its fields are checked here (a count is a non-negative int, a tensor a tensor, a log a
    list); their sizes against the trainer's when it loads them."""
    check_payload(state, TRAINER_FORMAT, REQUIRED_KEYS, "trainer checkpoint")
    what = "trainer checkpoint"
    for key in ("config", "model", "optimizer", "opponent", "engine", "env_config"):
        if not isinstance(state[key], dict):
            raise ValueError(f"{what}: {key} must be a mapping, got {type(state[key]).__name__}")
    for key in TRAINER_TENSORS:
        if not isinstance(state[key], torch.Tensor):
            raise ValueError(f"{what}: {key} must be a tensor, got {type(state[key]).__name__}")
    for key in ("agent_steps", "update", "episodes"):
        as_int(state[key], f"{what}: {key}", low=0)
    if as_real(state["wall_seconds"], f"{what}: wall_seconds") < 0:
        raise ValueError(f"{what}: wall_seconds must be >= 0, got {state['wall_seconds']}")
    for key in ("history", "finished_returns", "pool_returns", "bot_returns"):
        if not isinstance(state[key], list):
            raise ValueError(f"{what}: {key} must be a list, got {type(state[key]).__name__}")
    weights = state["model"]
    if not all(isinstance(v, torch.Tensor) for v in weights.values()):
        raise ValueError(f"{what}: model must map parameter names to tensors")
    broken = [k for k, v in weights.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())]
    if broken:
        raise ValueError(f"{what}: non-finite values (NaN or infinity) in model {broken[:3]}")
    bots = state["bots"]
    if not (isinstance(bots, dict) and all(isinstance(v, torch.Tensor) for v in bots.values())):
        raise ValueError(
            "trainer checkpoint: bots must be the batched bots' tensors (BatchedBots.state_dict); "
            "a checkpoint from before the batched bots cannot resume exactly: ship its policy instead"
        )
    check_tables_match(state)


def check_tables_match(state: dict[str, Any]) -> None:
    """The saved next observation and mask are the engine's: a checkpoint written in mid-tick (by an
    older quatro-train) would otherwise play a stale mask (``illegal action for table 0 seat 2``)."""
    engine = state["engine"]
    if "masks" not in engine or "observations" not in engine:
        raise ValueError("trainer checkpoint: the engine state has no masks/observations")
    if not (
        torch.equal(state["next_mask"].cpu(), engine["masks"].cpu())
        and torch.equal(state["next_obs"].cpu(), engine["observations"].cpu())
    ):
        raise ValueError(
            "trainer checkpoint: its next_obs/next_mask do not match the tables' state "
            "(written in the middle of a tick); resume from an earlier checkpoint_NNNNN.pt"
        )


def load_trainer_checkpoint(path: str | Path) -> dict[str, Any]:
    """A trainer checkpoint file (``latest.pt``, ``checkpoint_NNNNN.pt``), safely, checked."""
    state = load_checkpoint(path, (TRAINER_FORMAT,))
    try:
        check_trainer_state(state)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return state
