"""What can sit at a team in the harness: built-in bots, checkpoints and user callables.

Every policy becomes a :class:`PolicySpec`: a picklable recipe (so worker processes can rebuild it)
whose :meth:`PolicySpec.build` makes one *seat actor* — an object with ``reset(seed)`` and
``act(observation, mask) -> int`` (the :class:`~quatro_env.bots.base.BotPolicy` interface). The
harness builds one actor per seat and calls ``reset`` with a fixed seed before every match.

Accepted forms (:func:`as_policy`):

* ``"honest"`` — a name of ``BOT_POLICIES``; parameters after a colon:
  ``"counter:threshold=0.6,keep_weight=2"`` (values parsed as int/float/bool when they look so);
* a shipped PPO checkpoint by name (``"ppo_4p"``), or ``"checkpoint:PATH"`` / a path to an existing
  file — a policy file written by ``quatro-train`` (``policy.pt``), read without running code
  (``baselines.checkpoint_io``; a file that would need code to load is refused);
* ``"torchscript:PATH"`` — a TorchScript module (see :class:`TorchPolicy`): a program, so only for
  files you trust;
* a class (``BotPolicy`` subclass or any factory ``cls(num_players, seed)`` returning an actor);
* any other callable ``f(observation, mask) -> int`` (stateless; wrapped);
* a ``PolicySpec`` (returned unchanged);
* a **mixed team**: ``"A+B"`` or a tuple ``(A, B)`` of any of the forms above — the team's first
  member (the lower seat) plays A, its partner B; cross-play of partners from different training
  runs (can B read A's sign?).

A bot name always means the bot, a shipped name the shipped file: a file of that name in the
working directory is only read when named as a path (``./honest``, ``checkpoint:honest``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from quatro_env.quatro.bots import BOT_POLICIES, build_bot, parse_bot_policy


@dataclass(frozen=True)
class PolicySpec:
    """A named, picklable recipe for seat actors."""

    label: str
    kind: str  # "bot" | "torchscript" | "factory" | "function" | "team"
    target: Any  # for "team": one PolicySpec per member
    kwargs: tuple[tuple[str, Any], ...] = field(default=())

    def build(self, num_players: int, seed: int | None = None, member: int = 0):
        """A seat actor; ``member`` (0: the team's lower seat, 1: its partner) matters to mixed teams."""
        if self.kind == "team":
            return self.target[member].build(num_players, seed)
        if self.kind == "bot":
            return BOT_POLICIES[self.target](num_players, seed, **dict(self.kwargs))
        if self.kind == "torchscript":
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
    if isinstance(policy, str) and _is_team(policy):
        policy = tuple(policy.split("+"))
    if isinstance(policy, tuple):
        if len(policy) != 2:
            raise ValueError(f"mixed team {policy!r}: a team has two members, got {len(policy)}")
        members = tuple(as_policy(p) for p in policy)
        if any(m.kind == "team" for m in members):
            raise ValueError(f"mixed team {policy!r}: a member cannot itself be a team")
        return PolicySpec(label or "+".join(m.label for m in members), "team", members)
    if isinstance(policy, Path):
        return _file_spec(str(policy), label)
    if isinstance(policy, str):
        name, _, params = policy.partition(":")
        if name in BOT_POLICIES:  # a bot name always means the bot, whatever files lie around
            return _bot_spec(policy, label)
        if name == "torchscript" and params:
            if not Path(params).is_file():
                raise ValueError(f"policy {policy!r}: TorchScript file {params!r} not found")
            return PolicySpec(label or f"ts:{Path(params).stem}", "torchscript", params)
        if name == "checkpoint" and params:  # a file; a shipped name when no such file exists
            return (
                _ppo_spec(params, label)
                if _is_shipped(params) and not Path(params).exists()
                else _file_spec(params, label)
            )
        if _is_shipped(policy):
            return _ppo_spec(policy, label)
        if policy.endswith((".pt", ".pth", ".pt2")) or Path(policy).is_file():
            return _file_spec(policy, label)
        raise ValueError(
            f"policy {policy!r}: unknown bot {name!r}; known: {sorted(BOT_POLICIES)}, "
            "a shipped checkpoint, checkpoint:PATH, torchscript:PATH, or a callable"
        )
    if inspect.isclass(policy):
        return PolicySpec(label or policy.__name__, "factory", policy)
    if callable(policy):
        return PolicySpec(label or getattr(policy, "__name__", "callable"), "function", policy)
    raise TypeError(f"cannot use {policy!r} as a policy")


def _bot_spec(text: str, label: str | None) -> PolicySpec:
    name, options = parse_bot_policy(text)
    build_bot(text, 4, 0)  # fail early on a value only the bot can judge (``partner_delay=-1``)
    return PolicySpec(label or text, "bot", name, tuple(options.items()))


def _is_shipped(name: str) -> bool:
    try:
        from baselines.policy import shipped_checkpoints
    except ImportError:  # the baselines need torch
        return False
    return name in shipped_checkpoints()


def _is_team(text: str) -> bool:
    """``"A+B"`` is a mixed team, unless it names a file (a path may hold "+") that is not made of
    known names: ``honest+decoy`` is always the team."""
    if "+" not in text or text.startswith(("checkpoint:", "torchscript:")):
        return False
    known = all(p.partition(":")[0] in BOT_POLICIES or _is_shipped(p) for p in text.split("+"))
    return known or not Path(text).exists()


def _ppo_spec(path: str, label: str | None) -> PolicySpec:
    """A trained PPO policy: a shipped name or a ``policy.pt``, checked now (read safely)."""
    try:
        from baselines.policy import PPOPolicy, load_policy_file
    except ImportError as err:
        raise ValueError(f"policy {path!r}: PPO checkpoints need torch ({err})") from None
    load_policy_file(path)  # refuses a file that would need code to load, before any match
    stem = path if _is_shipped(path) else Path(path).stem
    return PolicySpec(label or stem, "factory", PPOPolicy, (("path", path),))


def _file_spec(path: str, label: str | None) -> PolicySpec:
    if not Path(path).is_file():
        raise ValueError(f"policy {path!r}: checkpoint file {path!r} not found")
    return _ppo_spec(path, label)


class FunctionPolicy:
    """Wraps a stateless ``f(observation, mask) -> int``."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], int]) -> None:
        self.fn = fn

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.fn(observation, mask))


def _load_module(path: str):
    """A TorchScript module (``torch.jit.load``: no Python unpickling; its program is TorchScript)."""
    import warnings

    import torch

    try:
        with warnings.catch_warnings():  # jit.load's deprecation points to torch.export, which unpickles
            warnings.simplefilter("ignore", DeprecationWarning)
            module = torch.jit.load(path, map_location="cpu")
    except Exception as err:  # noqa: BLE001 - torch raises many kinds; one clear error instead
        raise ValueError(f"torchscript:{path}: not a TorchScript module ({type(err).__name__})") from None
    module.eval()
    return module


class TorchPolicy:
    """A TorchScript module (``torch.jit.save``) as a seat actor (``torchscript:PATH``).

    A TorchScript file is a program, run when the policy acts: name it only for files you trust.
    (Pickled ``nn.Module`` files and ``torch.export`` programs are not loaded: both unpickle Python
    objects; ``quatro-convert --trusted`` turns a trusted pickled module into TorchScript.) The module
    maps a float32 batch of observations
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
