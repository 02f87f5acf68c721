"""What can sit at a team in the harness: built-in bots, checkpoints and user callables.

Every policy becomes a :class:`PolicySpec`: a picklable recipe (so worker processes can rebuild it)
whose :meth:`PolicySpec.build` makes one *seat actor* — an object with ``reset(seed)`` and
``act(observation, mask) -> int`` (the :class:`~quatro_env.bots.base.BotPolicy` interface). The
harness builds one actor per seat and calls ``reset`` with a fixed seed before every match.

Accepted forms (:func:`as_policy`):

* ``"honest"`` — a name of ``BOT_POLICIES``; parameters after a colon:
  ``"counter:threshold=0.6,keep_weight=2"`` (values parsed as int/float/bool when they look so);
* ``"checkpoint:PATH"`` or a path ending in ``.pt``/``.pth``/``.pt2`` — a torch module (see
  :class:`TorchPolicy`);
* a class (``BotPolicy`` subclass or any factory ``cls(num_players, seed)`` returning an actor);
* any other callable ``f(observation, mask) -> int`` (stateless; wrapped);
* a ``PolicySpec`` (returned unchanged);
* a **mixed team**: ``"A+B"`` or a tuple ``(A, B)`` of any of the forms above — the team's first
  member (the lower seat) plays A, its partner B; cross-play of partners from different training
  runs (can B read A's sign?).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from quatro_env.quatro.bots import BOT_POLICIES


def _parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


@dataclass(frozen=True)
class PolicySpec:
    """A named, picklable recipe for seat actors."""

    label: str
    kind: str  # "bot" | "checkpoint" | "factory" | "function" | "team"
    target: Any  # for "team": one PolicySpec per member
    kwargs: tuple[tuple[str, Any], ...] = field(default=())

    def build(self, num_players: int, seed: int | None = None, member: int = 0):
        """A seat actor; ``member`` (0: the team's lower seat, 1: its partner) matters to mixed teams."""
        if self.kind == "team":
            return self.target[member].build(num_players, seed)
        if self.kind == "bot":
            return BOT_POLICIES[self.target](num_players, seed, **dict(self.kwargs))
        if self.kind == "checkpoint":
            return TorchPolicy(num_players, seed, path=self.target, **dict(self.kwargs))
        if self.kind == "factory":
            return self.target(num_players, seed, **dict(self.kwargs))
        if self.kind == "function":
            return FunctionPolicy(self.target)
        raise ValueError(f"unknown policy kind {self.kind!r}")


def as_policy(policy: Any, label: str | None = None) -> PolicySpec:
    """Turn any accepted form (see the module doc) into a :class:`PolicySpec`."""
    if isinstance(policy, PolicySpec):
        return policy
    if isinstance(policy, str) and "+" in policy and not Path(policy).exists():  # a path may hold "+"
        policy = tuple(policy.split("+"))
    if isinstance(policy, tuple):
        if len(policy) != 2:
            raise ValueError(f"mixed team {policy!r}: a team has two members, got {len(policy)}")
        members = tuple(as_policy(p) for p in policy)
        if any(m.kind == "team" for m in members):
            raise ValueError(f"mixed team {policy!r}: a member cannot itself be a team")
        return PolicySpec(label or "+".join(m.label for m in members), "team", members)
    if isinstance(policy, (str, Path)):
        text = str(policy)
        ppo = _ppo_policy_spec(text, label)
        if ppo is not None:
            return ppo
        if text.startswith("checkpoint:") or text.endswith((".pt", ".pth", ".pt2")):
            path = text.split(":", 1)[1] if text.startswith("checkpoint:") else text
            if not Path(path).exists():
                raise ValueError(f"policy {text!r}: checkpoint file {path!r} not found")
            return PolicySpec(label or f"ckpt:{Path(path).stem}", "checkpoint", path)
        name, _, params = text.partition(":")
        if name not in BOT_POLICIES:
            raise ValueError(
                f"policy {text!r}: unknown bot {name!r}; known: {sorted(BOT_POLICIES)}, "
                "or checkpoint:PATH, or a callable"
            )
        kwargs = []
        for item in filter(None, (p.strip() for p in params.split(","))):
            key, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"policy {text!r}: parameter {item!r} is not key=value")
            kwargs.append((key.strip(), _parse_value(value)))
        spec = PolicySpec(label or text, "bot", name, tuple(kwargs))
        spec.build(4, 0)  # fail early on a bad parameter
        return spec
    if inspect.isclass(policy):
        return PolicySpec(label or policy.__name__, "factory", policy)
    if callable(policy):
        return PolicySpec(label or getattr(policy, "__name__", "callable"), "function", policy)
    raise TypeError(f"cannot use {policy!r} as a policy")


def _ppo_policy_spec(text: str, label: str | None) -> PolicySpec | None:
    """Trained PPO policies: a shipped name (``"ppo_4p"``) or a ``policy.pt`` from ``quatro-train``."""
    try:
        from baselines.policy import PPOPolicy, is_ppo_checkpoint, shipped_checkpoints
    except ImportError:  # the baselines need torch
        return None
    path = text.split(":", 1)[1] if text.startswith("checkpoint:") else text
    if path in shipped_checkpoints() or (Path(path).is_file() and is_ppo_checkpoint(path)):
        return PolicySpec(label or Path(path).stem, "factory", PPOPolicy, (("path", path),))
    return None


class FunctionPolicy:
    """Wraps a stateless ``f(observation, mask) -> int``."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], int]) -> None:
        self.fn = fn

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.fn(observation, mask))


def _load_module(path: str):
    import warnings

    import torch

    errors = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for loader in (
            lambda: torch.jit.load(path, map_location="cpu"),
            lambda: torch.export.load(path).module(),
            lambda: torch.load(path, map_location="cpu", weights_only=False),
        ):
            try:
                module = loader()
            except Exception as err:  # noqa: BLE001 - try the next format
                errors.append(f"{type(err).__name__}: {err}")
                continue
            if callable(module):
                if hasattr(module, "eval"):
                    module.eval()
                return module
    raise ValueError(f"checkpoint {path!r}: not a TorchScript, exported or pickled torch module ({errors})")


class TorchPolicy:
    """A torch checkpoint as a seat actor.

    The file is a TorchScript module (``torch.jit.save``), an exported program (``torch.export.save``)
    or a whole pickled ``nn.Module`` (``torch.save(model)``), tried in that order; the module maps a
    float32 batch of observations
    ``[B, obs_dim]`` to action logits ``[B, num_actions]`` (or a tuple whose first item is the
    logits). Illegal actions are masked out; ``greedy=True`` (default) takes the argmax, otherwise
    the action is sampled from the masked softmax with the seat's seeded generator.
    """

    _cache: dict[str, Any] = {}

    def __init__(self, num_players: int, seed: int | None = None, *, path: str, greedy: bool = True) -> None:
        import torch

        torch.set_num_threads(1)
        if path not in TorchPolicy._cache:
            TorchPolicy._cache[path] = _load_module(path)
        self.module = TorchPolicy._cache[path]
        self.greedy = greedy
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        import torch

        with torch.no_grad():
            out = self.module(torch.from_numpy(observation.astype(np.float32))[None])
        logits = (out[0] if isinstance(out, (tuple, list)) else out)[0].double().numpy()
        legal = mask.astype(bool)
        logits = np.where(legal, logits, -np.inf)
        if self.greedy:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(len(p), p=p / p.sum()))
