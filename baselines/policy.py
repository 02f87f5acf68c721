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

from baselines.checkpoint_io import POLICY_FORMAT, load_checkpoint
from baselines.networks import RecurrentActorCritic, build_model

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"


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
    """A policy file's payload (a shipped name or a path), read without running code."""
    return load_checkpoint(resolve_checkpoint(name_or_path), (POLICY_FORMAT,))


def load_model(name_or_path: str | Path) -> tuple[RecurrentActorCritic, dict[str, Any]]:
    payload = load_policy_file(name_or_path)
    # a central critic's value head also reads the whole table (its state encoder); playing needs only the
    # actor, but the file is loaded whole and strictly so a wrong or truncated file is refused, not half-used
    state_encoder = payload["model"].get("state_encoder.0.weight")
    model = build_model(
        payload.get("arch", "flat"),
        payload["obs_dim"],
        payload["num_actions"],
        payload["hidden_size"],
        payload["rnn_size"],
        state_dim=None if state_encoder is None else int(state_encoder.shape[1]),
        num_players=payload["num_players"],
    )
    model.load_state_dict(payload["model"])
    model.eval()
    return model, payload


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
