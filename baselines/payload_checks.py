"""The checks every loader of a shared file (a policy, a trainer checkpoint, a league file) applies to
its data, written once: a file is data, and bad data is refused by name with a ValueError.

A tensor is checked in an order where no check can crash on, or allocate for, what a later one refuses:
a tensor -> a dense (strided) tensor with values (not sparse, not on the meta device) -> its values are
the bytes the file holds (not a stride-0 view of 8 bytes standing for 10**10 values: a 600 KB file
must never allocate 40 GB) -> the exact dtype the saver writes -> the expected shape -> finite values.
"""

from __future__ import annotations

from typing import Any

import torch

from quatro_env.common.strict import as_real, is_index


def check_tensor(
    value: Any, what: str, dtype: torch.dtype | None = None, shape: torch.Size | None = None
) -> torch.Tensor:
    """``value`` if it is a dense tensor holding its own values (of ``dtype`` and ``shape`` when
    given), all finite if they are floats; else a ValueError naming ``what``."""
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{what} must be a tensor, got {type(value).__name__}")
    if value.layout != torch.strided:
        raise ValueError(f"{what} must be a dense tensor, got layout {value.layout}")
    if value.is_meta:  # a file's tensors load onto the CPU (a trainer's own states: its device), but
        # map_location leaves a meta tensor (shape and dtype, no values) on the meta device
        raise ValueError(f"{what} has no values (a tensor on the meta device)")
    stored = value.untyped_storage().nbytes() - value.storage_offset() * value.element_size()
    if value.numel() * value.element_size() > stored:
        raise ValueError(
            f"{what} is a view of {stored} bytes standing for {list(value.shape)} values (a stretched "
            f"tensor, not saved values)"
        )
    if dtype is not None and value.dtype != dtype:
        raise ValueError(f"{what} must be {dtype}, got {value.dtype}")
    if shape is not None and value.shape != shape:
        raise ValueError(f"{what} is {list(value.shape)}, expected {list(shape)}")
    if (value.is_floating_point() or value.is_complex()) and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{what} holds non-finite values (NaN or infinity)")
    return value


def check_tensors_in(data: Any, what: str) -> None:
    """Every tensor anywhere in ``data`` (dicts, lists, tuples) passes :func:`check_tensor`; named by its
    path (``trainer checkpoint: optimizer['state'][0]['exp_avg']``). Walked without recursion, so a
    deeply nested file is no RecursionError."""
    stack = [(data, what)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, torch.Tensor):
            check_tensor(item, path)
        elif isinstance(item, dict):
            stack += [(v, f"{path}[{k!r}]") for k, v in item.items()]
        elif isinstance(item, (list, tuple)):
            stack += [(v, f"{path}[{i}]") for i, v in enumerate(item)]


def check_weights(weights: Any, what: str, like: dict[str, torch.Tensor]) -> None:
    """A network's weights: exactly ``like``'s names (the network's own ``state_dict``), each of its
    dtype and shape, finite. ``load_state_dict`` would cast an int64 or float16 tensor silently."""
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()
    ):
        raise ValueError(f"{what} must map parameter names to tensors")
    missing = [k for k in like if k not in weights]
    unexpected = [k for k in weights if k not in like]
    if missing or unexpected:
        named = [
            f"{kind} {keys[:3]}{' ...' if len(keys) > 3 else ''}"
            for kind, keys in (("missing", missing), ("unexpected", unexpected))
            if keys
        ]
        raise ValueError(f"{what} does not fit the network: {', '.join(named)}")
    for key, expected in like.items():
        check_tensor(weights[key], f"{what}[{key!r}]", expected.dtype, expected.shape)


def check_optimizer_state(saved: Any, what: str, optimizer: torch.optim.Optimizer | None = None) -> None:
    """An optimiser's ``state_dict``: every number in it finite (a NaN moment or ``eps`` trains a NaN
    policy); with the ``optimizer`` that loads it, each parameter's moments of the parameter's dtype and
    shape (``step``: a float32 scalar), which ``load_state_dict`` does not check."""
    if not (
        isinstance(saved, dict)
        and isinstance(saved.get("state"), dict)
        and isinstance(saved.get("param_groups"), list)
    ):
        raise ValueError(f"{what} must be an optimizer's state_dict (state and param_groups)")
    for g, group in enumerate(saved["param_groups"]):
        if not isinstance(group, dict):
            raise ValueError(f"{what}: param_groups[{g}] must be a mapping, got {type(group).__name__}")
        for key, value in group.items():  # lr, eps, betas, weight_decay
            for number in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(number, float):
                    as_real(number, f"{what}: param_groups[{g}][{key!r}]")
    check_tensors_in(saved, what)
    if optimizer is None:
        return
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for index, entry in saved["state"].items():
        if not is_index(index) or not 0 <= index < len(params) or not isinstance(entry, dict):
            raise ValueError(
                f"{what}: state[{index!r}] is not the state of one of its {len(params)} parameters"
            )
        for key, value in entry.items():
            like = torch.zeros((), dtype=torch.float32) if key == "step" else params[index]
            check_tensor(value, f"{what}['state'][{index}][{key!r}]", like.dtype, like.shape)


def check_config_fields(config: Any, what: str) -> dict[str, Any]:
    """A saved config: a mapping of field names (``TrainConfig(**config)`` of a non-string key raised
    ``TypeError: keywords must be strings``)."""
    if not isinstance(config, dict):
        raise ValueError(f"{what} must be a mapping, got {type(config).__name__}")
    for key in config:
        if not isinstance(key, str):
            raise ValueError(f"{what}: {key!r} ({type(key).__name__}) is not a field name")
    return config


def as_reals(values: Any, what: str) -> list[float]:
    """A list of finite numbers (the returns a trainer keeps), or a ValueError naming the first bad one."""
    if not isinstance(values, list):
        raise ValueError(f"{what} must be a list, got {type(values).__name__}")
    return [as_real(v, f"{what}[{i}]") for i, v in enumerate(values)]
