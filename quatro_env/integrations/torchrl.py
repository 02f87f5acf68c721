"""Quatro on TorchRL (``pip install -e '.[torchrl]'``).

TorchRL's ``PettingZooWrapper`` turns every entry of the per-agent info dicts into a tensor.
Quatro's infos carry ``events`` (a variable-length list of :class:`~quatro_env.quatro.events.Event`
objects), which has no tensor form, so the env is first wrapped in :class:`TensorInfos`, which
keeps only the numeric info entries (``seat``, ``team``, ``tick``, ``illegal_action``).
:func:`make_torchrl_env` does both steps::

    env = make_torchrl_env(num_players=4, seed=0)   # PettingZooWrapper(use_mask=True, return_state=True)

The action mask arrives as ``("player", "action_mask")`` and also masks the action spec, so
``env.rand_action()`` and ``env.rollout()`` without a policy only ever pick legal actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseParallelWrapper
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from quatro_env.quatro_v0 import parallel_env

__all__ = ["NUMERIC_INFO_KEYS", "TensorInfos", "make_torchrl_env"]

NUMERIC_INFO_KEYS = ("seat", "team", "tick", "illegal_action")


class TensorInfos(BaseParallelWrapper):
    """A ParallelEnv wrapper that keeps only the info entries that have a fixed tensor form."""

    def __init__(self, env, keys: tuple[str, ...] = NUMERIC_INFO_KEYS) -> None:
        super().__init__(env)
        self.keys = tuple(keys)
        self.metadata = env.metadata
        self.possible_agents = list(env.possible_agents)
        self.state_space = env.state_space

    @property
    def agents(self) -> list[str]:
        return self.env.agents

    @property
    def render_mode(self) -> str | None:
        return self.env.render_mode

    def _filter(self, infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {a: {k: np.asarray(info[k]) for k in self.keys if k in info} for a, info in infos.items()}

    def reset(self, seed: int | None = None, options: dict | None = None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return obs, self._filter(infos)

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        return obs, rewards, terminations, truncations, self._filter(infos)


def make_torchrl_env(
    *,
    seed: int | None = None,
    group_map: Any = None,
    categorical_actions: bool = True,
    device: Any = "cpu",
    **config: Any,
) -> PettingZooWrapper:
    """Quatro as a TorchRL env: ``PettingZooWrapper(TensorInfos(parallel_env(**config)),
    use_mask=True, return_state=True)``; every agent is in the one group ``"player"`` unless
    ``group_map`` says otherwise (e.g. ``torchrl.envs.utils.MarlGroupMapType.ONE_GROUP_PER_AGENT``).
    """
    return PettingZooWrapper(
        env=TensorInfos(parallel_env(**config)),
        use_mask=True,
        return_state=True,
        categorical_actions=categorical_actions,
        group_map=group_map,
        seed=seed,
        device=device,
    )
