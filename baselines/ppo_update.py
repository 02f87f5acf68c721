"""The PPO update's arithmetic on one rollout: GAE, the minibatches the update trains on, the clipped loss.

Split from ``baselines/ppo.py`` (which keeps the loop that calls these: ``PPOTrainer.optimise``) so
that each piece is a function of its inputs: the rollout's buffers (``[T, N, ...]`` tensors, ``N`` =
tables x seats, as ``PPOTrainer.rollout`` returns them) and the config's coefficients.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from baselines.config import TrainConfig
from baselines.packing import pack

MB_KEYS = ("obs", "mask", "done", "learn", "action", "logp", "value", "adv", "ret")  # what a minibatch takes
LOSS_PARTS = ("pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac")  # what the log keeps of a loss


def gae(
    buf: dict[str, torch.Tensor],
    next_value: torch.Tensor,
    next_done: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages and returns (GAE(γ, λ)); ``buf["done"][t]`` marks a memory reset *before* tick t,
    so the episode that ends at tick t is cut by ``done[t + 1]`` (``next_done`` after the last tick)."""
    steps = buf["reward"].shape[0]
    adv = torch.zeros_like(buf["reward"])
    last = torch.zeros_like(next_value)
    for t in reversed(range(steps)):
        if t == steps - 1:
            nonterminal, next_v = 1.0 - next_done.float(), next_value
        else:
            nonterminal, next_v = 1.0 - buf["done"][t + 1].float(), buf["value"][t + 1]
        delta = buf["reward"][t] + gamma * next_v * nonterminal - buf["value"][t]
        last = delta + gamma * gae_lambda * nonterminal * last
        adv[t] = last
    return adv, adv + buf["value"]


def table_minibatch(
    buf: dict[str, torch.Tensor], tables: torch.Tensor, n: int, central_critic: bool
) -> dict[str, Any] | None:
    """Every seat of ``tables`` over the whole rollout (``[T, len(tables) * n]``); weight = learns.
    None when no seat of these tables learns."""
    steps = buf["done"].shape[0]
    slots = (tables.unsqueeze(1) * n + torch.arange(n, device=tables.device)).reshape(-1)
    mb: dict[str, Any] = {k: buf[k][:, slots] for k in MB_KEYS}
    mb["w"] = mb["learn"].float()
    if not bool(mb["learn"].any()):
        return None
    mb["h0"] = buf["h0"][:, slots]
    mb["state"] = None
    if central_critic:
        mb["state"] = mb["obs"].reshape(steps, len(tables), -1).repeat_interleave(n, dim=1)
    return mb


def packed_minibatch(
    buf: dict[str, torch.Tensor],
    tables: torch.Tensor,
    segments: np.ndarray,
    n: int,
    central_critic: bool,
) -> dict[str, Any] | None:
    """The learner segments of ``tables``, packed (``baselines/packing.py``): the same weighted rows
    as :func:`table_minibatch`, without the rows that weigh nothing. None without a learner segment."""
    steps, slots = buf["done"].shape[:2]
    num_envs = slots // n
    chosen = np.zeros(num_envs, bool)
    chosen[tables.cpu().numpy()] = True
    mine = segments[chosen[segments[:, 0] // n]]
    if not len(mine):
        return None
    device = buf["done"].device
    index, h0_slot = pack(mine, steps, slots)
    index, h0_slot = index.to(device), h0_slot.to(device)
    valid = index >= 0
    rows = index.clamp(min=0)
    mb: dict[str, Any] = {k: buf[k].reshape(steps * slots, *buf[k].shape[2:])[rows] for k in MB_KEYS}
    mb["learn"] = mb["learn"] & valid
    mb["done"] = mb["done"] | ~valid  # padding after a column's last segment: never read by it
    mb["w"] = mb["learn"].float()
    h0 = buf["h0"][:, h0_slot.clamp(min=0)]
    mb["h0"] = h0 * (h0_slot >= 0).view(1, -1, 1)
    mb["state"] = None
    if central_critic:
        per_table = buf["obs"].reshape(steps * num_envs, -1)
        mb["state"] = per_table[(rows // slots) * num_envs + (rows % slots) // n]
    return mb


def _moments(w: torch.Tensor, adv: torch.Tensor, dims: tuple[int, ...] | None = None) -> torch.Tensor:
    """``[Σw, Σw·adv, Σw·adv²]`` over ``dims`` (all of them by default), as the last dimension."""
    terms = (w, adv * w, adv * adv * w)
    return torch.stack([t.sum() if dims is None else t.sum(dims) for t in terms], dim=-1)


def advantage_moments(mb: dict[str, Any]) -> torch.Tensor:
    """``[Σw, Σw·adv, Σw·adv²]`` over a minibatch's weighted rows: summed over the trainer's processes,
    they normalise every process's share of a minibatch alike (``ppo_loss(..., moments)``)."""
    return _moments(mb["w"], mb["adv"])


def table_moments(buf: dict[str, torch.Tensor], n: int) -> torch.Tensor:
    """``[tables, 3]``: :func:`advantage_moments` of each table's learner rows over the rollout, so a
    minibatch's moments are a sum over its tables (known before any minibatch is built)."""
    steps, slots = buf["learn"].shape
    learn = buf["learn"].view(steps, slots // n, n).float()
    return _moments(learn, buf["adv"].view(steps, slots // n, n), (0, 2))


def ppo_loss(
    model: torch.nn.Module,
    mb: dict[str, Any],
    cfg: TrainConfig,
    ent_coef: float,
    moments: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The clipped PPO objective on one minibatch's weighted rows (advantages normalised over them),
    and its parts (detached) for the log. ``moments``: :func:`advantage_moments` of the whole
    minibatch when ``mb`` is one process's share of it; each part is then this share's contribution
    (the shares' losses and gradients add up to the whole minibatch's)."""
    w = mb["w"]
    memory, _ = model.unroll(mb["obs"], mb["done"], mb["h0"])
    dist, value = model.heads(memory, mb["mask"], mb["state"])
    logp = dist.log_prob(mb["action"])
    ratio = (logp - mb["logp"]).exp()
    adv = mb["adv"]
    if moments is None:
        total = w.sum()
        mean = (adv * w).sum() / total
        std = (((adv - mean) ** 2 * w).sum() / total).sqrt()
    else:
        total, mean = moments[0], moments[1] / moments[0]
        std = (moments[2] / total - mean * mean).clamp(min=0).sqrt()
    adv = (adv - mean) / (std + 1e-8)
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef))
    pg_loss = (pg * w).sum() / total
    if cfg.clip_vloss:
        v_clipped = mb["value"] + (value - mb["value"]).clamp(-cfg.clip_coef, cfg.clip_coef)
        v_err = torch.max((value - mb["ret"]) ** 2, (v_clipped - mb["ret"]) ** 2)
    else:
        v_err = (value - mb["ret"]) ** 2
    v_loss = 0.5 * (v_err * w).sum() / total
    entropy = (dist.entropy() * w).sum() / total
    loss = pg_loss + cfg.vf_coef * v_loss - ent_coef * entropy
    with torch.no_grad():
        log_ratio = logp - mb["logp"]
        kl = (((ratio - 1) - log_ratio) * w).sum() / total
        clipfrac = (((ratio - 1).abs() > cfg.clip_coef).float() * w).sum() / total
    parts = {"pg_loss": pg_loss, "v_loss": v_loss, "entropy": entropy, "approx_kl": kl, "clipfrac": clipfrac}
    return loss, {k: v.detach() for k, v in parts.items()}
