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
from baselines.limits import MAX_COUNT
from baselines.payload_checks import (
    as_reals,
    check_config_fields,
    check_optimizer_state,
    check_tensor,
    check_tensors_in,
    check_weights,
)
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


def check_trainer_state(state: Any, trainer: Any = None) -> None:
    """A trainer checkpoint's shape, before anything is changed: a clear ValueError, state untouched.
    Every tensor in it is dense, holds its own values and is finite (the optimiser's moments, the
    memories, the opponents' weights: one NaN trains or plays NaN from there), each count an integer in
    0..MAX_COUNT, each list of returns finite numbers; with the ``trainer`` that loads it, each network's
    weights and each of the trainer's tensors also have the trainer's names, dtypes and shapes."""
    check_payload(state, TRAINER_FORMAT, REQUIRED_KEYS, "trainer checkpoint")
    what = "trainer checkpoint"
    for key in ("config", "env_config"):  # read as TrainConfig(**config): names only
        check_config_fields(state[key], f"{what}: {key}")
    for key in ("model", "optimizer", "opponent", "engine"):
        if not isinstance(state[key], dict):
            raise ValueError(f"{what}: {key} must be a mapping, got {type(state[key]).__name__}")
    for key in TRAINER_TENSORS:
        check_tensor(state[key], f"{what}: {key}")
    for key, value in state["engine"].items():  # the engine refuses a tensor that does not fit
        check_tensor(value, f"{what}: engine[{key!r}]")
    for key in ("agent_steps", "update", "episodes", "eaves_updates"):
        if key in state:  # eaves_updates: only with a secrecy cost
            as_int(state[key], f"{what}: {key}", low=0, high=MAX_COUNT)
    if as_real(state["wall_seconds"], f"{what}: wall_seconds") < 0:
        raise ValueError(f"{what}: wall_seconds must be >= 0, got {state['wall_seconds']}")
    for key in ("finished_returns", "pool_returns", "bot_returns"):
        as_reals(state[key], f"{what}: {key}")
    for key in ("history", "pool"):
        if not isinstance(state[key], list):
            raise ValueError(f"{what}: {key} must be a list, got {type(state[key]).__name__}")
    for row, entry in enumerate(state["history"]):
        if not isinstance(entry, dict):
            raise ValueError(f"{what}: history[{row}] must be a mapping, got {type(entry).__name__}")
    for key in ("model", "opponent"):
        if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state[key].items()):
            raise ValueError(f"{what}: {key} must map parameter names to tensors")
    bots = state["bots"]
    if not (isinstance(bots, dict) and all(isinstance(v, torch.Tensor) for v in bots.values())):
        raise ValueError(
            "trainer checkpoint: bots must be the batched bots' tensors (BatchedBots.state_dict); "
            "a checkpoint from before the batched bots cannot resume exactly: ship its policy instead"
        )
    for key in ("optimizer", "eavesdropper_optimizer", "partner_reader_optimizer"):
        if key in state:  # the readers' optimisers: with a secrecy cost only
            check_optimizer_state(state[key], f"{what}: {key}")
    for key, value in state.items():  # opponents, snapshots, the readers' states...
        check_tensors_in(value, f"{what}: {key}")
    if trainer is not None:
        check_fits_trainer(state, trainer, what)
    check_tables_match(state)


def check_fits_trainer(state: dict[str, Any], trainer: Any, what: str) -> None:
    """The state's networks and tensors are the ``trainer``'s: its policy's names, dtypes and shapes for
    the model, the opponent and every pool snapshot (``load_state_dict`` casts an int64 tensor, and
    ``copy_`` casts a float ``mode`` to long or broadcasts one value to every table), its optimisers'
    moments shaped as their parameters; the secrecy readers likewise, when both have them."""
    like = trainer.model.state_dict()
    for key in ("model", "opponent"):
        check_weights(state[key], f"{what}: {key}", like)
    for index, snapshot in enumerate(state["pool"]):
        check_weights(snapshot, f"{what}: pool[{index}]", like)
    check_optimizer_state(state["optimizer"], f"{what}: optimizer", trainer.optimizer)
    own = {name: getattr(trainer, name) for name in TRAINER_TENSORS}
    secrecy = trainer.secrecy
    if secrecy is not None:
        own |= {k: v for k, v in secrecy.state_dict().items() if isinstance(v, torch.Tensor)}
        readers = {"eavesdropper": (secrecy.eavesdropper, secrecy.optimizer)}
        if secrecy.partner is not None:
            readers["partner_reader"] = (secrecy.partner, secrecy.partner_optimizer)
        for key, (network, optimizer) in readers.items():
            if key in state:  # else: secrecy starts in this leg (or the reader's own check names it)
                check_weights(state[key], f"{what}: {key}", network.state_dict())
                check_optimizer_state(state.get(f"{key}_optimizer"), f"{what}: {key}_optimizer", optimizer)
    for name, mine in own.items():
        if name in state:
            check_tensor(state[name], f"{what}: {name}", mine.dtype, mine.shape)


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
