"""PettingZoo conventions as thin wrappers, the same for the three games.

* :func:`flat_observation` — the observation becomes the plain ``Box`` of the env's
  ``obs["observation"]`` and the action mask moves to ``infos[agent]["action_mask"]``, the other
  place PettingZoo's conventions put it. SuperSuit's observation wrappers (``pad_observations_v0``,
  ``black_death_v3``, ``agent_indicator_v0``, ``frame_stack_v1``, ``dtype_v0``, ``flatten_v0``,
  ``normalize_obs_v0``) need a ``Box`` and reject the ``Dict``.
* :class:`MaxCyclesParallel` — PettingZoo's ``max_cycles``: every agent is truncated after that many
  steps (``quatro_v0.parallel_env(max_cycles=...)``).

Both only re-arrange what the env returns; the env itself is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

from quatro_env.common.strict import as_int

__all__ = ["FlatObservationAEC", "FlatObservationParallel", "MaxCyclesParallel", "flat_observation"]

OBS_KEY, MASK_KEY = "observation", "action_mask"


def _box(space: spaces.Space, agent: Any) -> spaces.Box:
    if not isinstance(space, spaces.Dict) or OBS_KEY not in space.spaces or MASK_KEY not in space.spaces:
        raise TypeError(
            f"flat_observation: {agent}'s observation space is not a Dict of {OBS_KEY!r} and {MASK_KEY!r}"
        )
    return space[OBS_KEY]


def _with_mask(info: Mapping[str, Any], obs: Mapping[str, Any]) -> dict[str, Any]:
    return {**info, MASK_KEY: obs[MASK_KEY]}


class FlatObservationParallel(BaseParallelWrapper):
    """A ParallelEnv whose observations are ``Box`` arrays; masks are in ``infos[agent]["action_mask"]``."""

    def __init__(self, env: ParallelEnv) -> None:
        super().__init__(env)
        self._spaces = {a: _box(env.observation_space(a), a) for a in env.possible_agents}

    def observation_space(self, agent: Any) -> spaces.Box:
        return self._spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return {a: o[OBS_KEY] for a, o in obs.items()}, {
            a: _with_mask(infos.get(a, {}), o) for a, o in obs.items()
        }

    def step(self, actions: Mapping[Any, Any]):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        flat_infos = {a: _with_mask(infos.get(a, {}), o) for a, o in obs.items()}
        return {a: o[OBS_KEY] for a, o in obs.items()}, rewards, terminations, truncations, flat_infos


class FlatObservationAEC(BaseWrapper):
    """An AECEnv whose ``observe`` gives ``Box`` arrays; the mask is in ``infos[agent]["action_mask"]``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._spaces = {a: _box(env.observation_space(a), a) for a in env.possible_agents}
        # Built once per step: two reads of an info are the same objects (PettingZoo's API test
        # compares them), and observe() runs once per agent and step, not once per read.
        self._infos: dict[Any, dict[str, Any]] | None = None

    def observation_space(self, agent: Any) -> spaces.Box:
        return self._spaces[agent]

    def observe(self, agent: Any) -> Any:
        obs = self.env.observe(agent)
        return None if obs is None else obs[OBS_KEY]

    @property
    def infos(self) -> dict[Any, dict[str, Any]]:  # read by last() and by every wrapper above
        if self._infos is None:
            self._infos = {a: _with_mask(info, self.env.observe(a)) for a, info in self.env.infos.items()}
        return self._infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._infos = None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._infos = None
        self.env.step(action)


def flat_observation(env: ParallelEnv | AECEnv) -> FlatObservationParallel | FlatObservationAEC:
    """``env`` with ``Box`` observations and the action mask in ``infos[agent]["action_mask"]``."""
    if isinstance(env, ParallelEnv):
        return FlatObservationParallel(env)
    if isinstance(env, AECEnv):
        return FlatObservationAEC(env)
    raise TypeError(
        f"flat_observation: expected a PettingZoo ParallelEnv or AECEnv, got {type(env).__name__}"
    )


class MaxCyclesParallel(BaseParallelWrapper):
    """Truncates every agent still playing after ``max_cycles`` steps (PettingZoo's ``max_cycles``)."""

    def __init__(self, env: ParallelEnv, max_cycles: int) -> None:
        max_cycles = as_int(max_cycles, "max_cycles", low=1)
        super().__init__(env)
        self.max_cycles = max_cycles
        self._cycles = 0
        self.agents: list[Any] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        result = self.env.reset(seed=seed, options=options)
        self._cycles = 0
        self.agents = list(self.env.agents)
        return result

    def step(self, actions: Mapping[Any, Any]):
        if not self.agents:  # truncated (or never reset): the table below would play on
            raise RuntimeError("the episode is over: call reset() before step() (max_cycles)")
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        self._cycles += 1
        if self._cycles >= self.max_cycles:
            truncations = {a: truncations[a] or not terminations[a] for a in truncations}
        self.agents = [a for a in self.agents if not (terminations.get(a) or truncations.get(a))]
        return obs, rewards, terminations, truncations, infos
