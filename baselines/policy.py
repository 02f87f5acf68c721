"""Trained PPO policies as seat actors: ``reset(seed)`` and ``act(observation, mask) -> int``.

A shipped checkpoint is loaded by name (``"ppo_4p"``) from ``baselines/checkpoints/``; any
``policy.pt`` written by ``quatro-train`` loads by path. The actor keeps its own GRU memory,
cleared by ``reset`` (the harness resets every seat before a match), and samples from the
masked policy with its own seeded generator (``greedy=True`` takes the most likely action).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from baselines.checkpoint_io import POLICY_FORMAT, first_line, load_checkpoint
from baselines.limits import MAX_WIDTH
from baselines.networks import ARCHS, RecurrentActorCritic, build_model
from baselines.payload_checks import check_config_fields, check_weights
from quatro_env.common.strict import as_int, is_index
from quatro_env.quatro.actions import ActionCodec
from quatro_env.quatro.encoding import ObservationEncoder

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
#: what a policy file declares besides its weights (``arch`` is optional: older files are "flat")
POLICY_KEYS = ("model", "obs_dim", "num_actions", "hidden_size", "rnn_size", "num_players")


def shipped_checkpoints() -> dict[str, Path]:
    """Name → file of every checkpoint that ships with the package."""
    return {p.stem: p for p in sorted(CHECKPOINT_DIR.glob("*.pt"))}


def resolve_checkpoint(name_or_path: str | Path) -> Path:
    shipped = shipped_checkpoints()
    if str(name_or_path) in shipped:
        return shipped[str(name_or_path)]
    path = Path(name_or_path)
    if not path.exists():
        raise ValueError(
            f"checkpoint {name_or_path!r}: not a file and not a shipped name ({sorted(shipped)})"
        )
    return path


def load_policy_file(name_or_path: str | Path) -> dict[str, Any]:
    """A policy file's payload (a shipped name or a path), read without running code and checked whole
    (its network is built and loaded once), so a bad file is refused now, not at its first match."""
    return load_model(name_or_path)[1]


def load_model(name_or_path: str | Path) -> tuple[RecurrentActorCritic, dict[str, Any]]:
    """The policy's network, eval mode, and the file's payload; a ValueError naming the file and what
    is wrong for a missing or ill-typed field, sizes another table does not have, weights that do not
    fit the declared network (by name, dtype and shape), or non-finite weights."""
    path = resolve_checkpoint(name_or_path)
    payload = load_checkpoint(path, (POLICY_FORMAT,))
    return checked_model(payload, f"checkpoint {str(path)!r}"), payload


def checked_model(payload: dict[str, Any], what: str) -> RecurrentActorCritic:
    """The network a policy payload declares, with its weights, in eval mode; a ValueError starting
    with ``what`` for anything that does not fit (see :func:`load_model`)."""
    missing = [key for key in POLICY_KEYS if key not in payload]
    if missing:
        raise ValueError(f"{what}: missing {missing}")
    players = payload["num_players"]
    if not is_index(players) or players not in (4, 6, 8):
        raise ValueError(f"{what}: num_players must be 4, 6 or 8, got {players!r}")
    table = {"obs_dim": ObservationEncoder(players).obs_dim, "num_actions": ActionCodec(players).num_actions}
    for key, size in table.items():
        if not is_index(payload[key]) or payload[key] != size:
            raise ValueError(f"{what}: {key} is {payload[key]!r}; a {players}-player table has {size}")
    for key in ("hidden_size", "rnn_size"):
        as_int(payload[key], f"{what}: {key}", low=1, high=MAX_WIDTH)
    arch = payload.get("arch", "flat")
    if not isinstance(arch, str) or arch not in ARCHS:
        raise ValueError(f"{what}: arch must be one of {list(ARCHS)}, got {arch!r}")
    if "config" in payload:  # the training config, read as TrainConfig(**config) (quatro-exploit)
        check_config_fields(payload["config"], f"{what}: config")
    weights = payload["model"]
    if not isinstance(weights, dict):
        raise ValueError(f"{what}: model must map parameter names to tensors")
    # a central critic's value head also reads the whole table (its state encoder, sized by the table, not
    # by the file); playing needs only the actor, but the file is loaded whole and strictly so a wrong or
    # truncated file is refused, not half-used
    model = build_model(
        arch,
        payload["obs_dim"],
        payload["num_actions"],
        payload["hidden_size"],
        payload["rnn_size"],
        state_dim=players * payload["obs_dim"] if "state_encoder.0.weight" in weights else None,
        num_players=players,
    )
    # names, then each tensor's layout, storage, exact dtype, shape and values, before anything reads them
    check_weights(weights, f"{what}: model", model.state_dict())
    try:
        model.load_state_dict(weights)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(
            f"{what}: its weights do not fit the network it declares ({first_line(exc)})"
        ) from None
    return model.eval()


@torch.no_grad()
def policy_tick(
    model: RecurrentActorCritic, obs: torch.Tensor, masks: torch.Tensor, h: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One tick of ``N`` seats: their ``[N, num_actions]`` masked action probabilities from ``[N, obs_dim]``
    observations and ``[N, num_actions]`` masks, and their memory after it. One seat (the harness's
    :class:`PPOPolicy`) or many (``quatro_env.eval.batch_play``): the same computation."""
    memory, h = model.unroll(obs[None], torch.zeros(1, obs.shape[0], dtype=torch.bool), h)
    dist, _ = model.heads(memory[0], masks)
    return dist.probs, h


class PPOPolicy:
    """One seat played by a trained recurrent policy."""

    def __init__(
        self, num_players: int, seed: int | None = None, path: str | Path = "ppo_4p", greedy: bool = False
    ) -> None:
        self.model, self.meta = load_model(path)
        if self.meta["num_players"] != num_players:
            raise ValueError(
                f"checkpoint {path!r} was trained for {self.meta['num_players']} players, not {num_players}"
            )
        self.greedy = greedy
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.generator = torch.Generator().manual_seed(int(seed) if seed is not None else 0)
        self.h = self.model.initial_state(1)

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """``[1, num_actions]``: the masked policy at this tick (the seat's memory moves on)."""
        obs = torch.as_tensor(np.asarray(observation, dtype=np.uint8)).unsqueeze(0)
        legal = torch.as_tensor(np.asarray(mask, dtype=np.int8)).unsqueeze(0)
        probs, self.h = policy_tick(self.model, obs, legal, self.h)
        return probs

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        probs = self.probabilities(observation, mask)
        if self.greedy:
            return int(probs.argmax(-1))
        return int(torch.multinomial(probs, 1, generator=self.generator))
