"""A complete masked multi-agent PPO on TorchRL (``pip install -e '.[torchrl]'``).

Every seat is an agent of the one group ``"player"`` and plays one shared policy (observations are
egocentric, so seats are alike): a small MLP gives logits over the actions, ``MaskedCategorical``
puts no probability on illegal ones (the mask is ``("player", "action_mask")``), a per-agent critic
reads the same observation. Data come from TorchRL's ``Collector``; advantages from GAE
over each agent's own reward and done flags; the update is ``ClipPPOLoss`` over shuffled
minibatches. :func:`train_ppo` runs the loop and returns one row of statistics per iteration::

    from quatro_env.integrations.torchrl_ppo import train_ppo
    actor, history = train_ppo(iterations=10, frames_per_batch=2048, num_players=4)

It is the example to start from, sized for a laptop; the project's own PPO (``quatro-train``) is
the tuned, recurrent one.
"""

from __future__ import annotations

from typing import Any

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators

from quatro_env.integrations.torchrl import make_torchrl_env

__all__ = ["build_actor_critic", "train_ppo"]

GROUP = "player"
OBS = (GROUP, "observation", "observation")
MASK = (GROUP, "action_mask")
ACTION = (GROUP, "action")
LOG_PROB = (GROUP, "action_log_prob")
VALUE = (GROUP, "state_value")
LOSS_TERMS = ("loss_objective", "loss_critic", "loss_entropy")


class _Scale(nn.Module):
    """uint8 counts and one-hots -> floats of a tame range."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log1p(x.float())


def _mlp(inputs: int, outputs: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(
        _Scale(),
        nn.Linear(inputs, hidden),
        nn.Tanh(),
        nn.Linear(hidden, hidden),
        nn.Tanh(),
        nn.Linear(hidden, outputs),
    )


def build_actor_critic(env: Any, hidden: int = 64) -> tuple[ProbabilisticActor, ValueOperator]:
    """The masked shared policy and the per-agent critic for a ``make_torchrl_env`` env."""
    obs_dim = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[ACTION].space.n
    logits = TensorDictModule(_mlp(obs_dim, num_actions, hidden), in_keys=[OBS], out_keys=[(GROUP, "logits")])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": MASK},
        out_keys=[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOG_PROB,
        spec=env.full_action_spec[ACTION],
    )
    critic = ValueOperator(_mlp(obs_dim, 1, hidden), in_keys=[OBS], out_keys=[VALUE])
    return actor, critic


def train_ppo(
    *,
    iterations: int = 10,
    frames_per_batch: int = 1024,
    epochs: int = 4,
    minibatch_size: int = 256,
    lr: float = 3e-4,
    gamma: float = 0.99,
    lmbda: float = 0.95,
    clip_epsilon: float = 0.2,
    entropy_coef: float = 0.01,
    hidden: int = 64,
    seed: int = 0,
    actor_critic: tuple[ProbabilisticActor, ValueOperator] | None = None,
    **table: Any,
) -> tuple[ProbabilisticActor, list[dict[str, float]]]:
    """Train the shared masked policy for ``iterations`` batches of ``frames_per_batch`` env steps.

    ``table`` holds QuatroConfig fields; ``actor_critic`` continues from given networks (else fresh
    ones from :func:`build_actor_critic`). Returns the trained actor and one row per iteration:
    ``iteration``, ``frames``, ``reward_mean`` (per agent and step), ``episodes`` (finished in
    the batch), the three loss terms, and ``illegal_actions`` (sampled outside the mask: always 0).
    """
    torch.manual_seed(seed)
    env = make_torchrl_env(seed=seed, **table)
    actor, critic = actor_critic or build_actor_critic(env, hidden)
    collector = Collector(
        env,
        actor,
        frames_per_batch=frames_per_batch,
        total_frames=frames_per_batch * iterations,
        device="cpu",
        # a feed-forward policy needs no env transforms: the env is used as given (torchrl 0.14 warns
        # that 0.15 would append an InitTracker by default otherwise)
        auto_register_policy_transforms=False,
    )
    loss = ClipPPOLoss(
        actor_network=actor, critic_network=critic, clip_epsilon=clip_epsilon, entropy_coeff=entropy_coef
    )
    loss.set_keys(
        action=ACTION,
        sample_log_prob=LOG_PROB,
        value=VALUE,
        reward=(GROUP, "reward"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=gamma, lmbda=lmbda)
    optimizer = torch.optim.Adam(loss.parameters(), lr=lr)
    history: list[dict[str, float]] = []
    try:
        for iteration, batch in enumerate(collector, start=1):
            with torch.no_grad():
                loss.value_estimator(
                    batch, params=loss.critic_network_params, target_params=loss.target_critic_network_params
                )
            flat = batch.reshape(-1)
            terms: dict[str, float] = {}
            for _ in range(epochs):
                for idx in torch.randperm(flat.shape[0]).split(minibatch_size):
                    out = loss(flat[idx])
                    total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                    optimizer.zero_grad()
                    total.backward()
                    nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                    optimizer.step()
                    terms = {k: float(out[k].detach()) for k in LOSS_TERMS}
            collector.update_policy_weights_()
            legal = batch[MASK].gather(-1, batch[ACTION].unsqueeze(-1))
            history.append(
                {
                    "iteration": iteration,
                    "frames": iteration * frames_per_batch,
                    "reward_mean": float(batch["next", GROUP, "reward"].mean()),
                    "episodes": int(batch["next", "done"].sum()),
                    **terms,
                    "illegal_actions": int((~legal).sum()),
                }
            )
    finally:
        collector.shutdown()
    return actor, history
