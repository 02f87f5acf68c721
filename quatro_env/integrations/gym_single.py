"""A single-agent Gymnasium view of Quatro: one seat learns, every other seat is played for it.

Needs nothing beyond the core install. The other seats (teammates and opponents alike) are
played by *seat policies*, each one of:

- the name of a built-in bot, options included (any name of ``BOT_POLICIES``: ``"random"``,
  ``"counter"``, ``"cover:split=true"``...; see ``quatro_env/quatro/bots.py``), built fresh per seat;
- an object with ``act(observation, mask) -> int`` (a built-in ``BotPolicy``, or a frozen trained
  policy such as ``quatro_env.integrations.rllib.load_rllib_policy(...)``); its ``reset(seed)``,
  if any, is called on every env reset. An object given for several seats is played by the first
  and deep-copied for each other (its memory is its seat's: one recurrent policy playing three seats
  carried each seat's hand into the others' decisions, Q26); one that cannot be copied is refused;
- a callable ``policy(obs_dict, agent) -> int`` (the AEC-tournament convention), e.g. a frozen
  SB3 model: ``lambda obs, agent: int(model.predict(obs, action_masks=obs["action_mask"])[0])``.

Observations are the learning seat's ``{"observation", "action_mask"}`` dict and
:meth:`QuatroSingleAgentEnv.action_masks` returns the mask (the method sb3-contrib's
``MaskablePPO`` looks for). The learning seat's illegal actions follow the table's
``illegal_action`` setting (``"raise"`` by default, or ``"noop"``); seat policies must play legal
actions (they are given the mask).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from quatro_env.common.strict import as_int, is_index
from quatro_env.quatro.bots import build_bot
from quatro_env.quatro.env import QuatroParallelEnv
from quatro_env.quatro_v0 import parallel_env
from quatro_env.registration import SINGLE_AGENT_ID as GYM_ID
from quatro_env.registration import register_envs

__all__ = ["GYM_ID", "QuatroSingleAgentEnv", "SeatPolicy", "make_seat_policy"]

SeatPolicy = str | Callable[..., int] | Any


class _Seat:
    """Uniform face over the three kinds of seat policy."""

    def __init__(self, spec: SeatPolicy, num_players: int) -> None:
        if isinstance(spec, str):
            spec = build_bot(spec, num_players)  # a bad name or option is refused by name
        self.spec = spec
        self._act = getattr(spec, "act", None)
        if self._act is None and not callable(spec):
            raise TypeError(f"a seat policy is a bot name, an object with act(), or a callable; got {spec!r}")

    def reset(self, seed: int) -> None:
        reset = getattr(self.spec, "reset", None)
        if callable(reset):
            reset(seed)

    def __call__(self, obs: Mapping[str, np.ndarray], agent: str) -> int:
        if self._act is not None:
            return int(self._act(obs["observation"], obs["action_mask"]))
        return int(self.spec(obs, agent))


def make_seat_policy(spec: SeatPolicy, num_players: int) -> _Seat:
    return _Seat(spec, num_players)


def _one_per_seat(specs: dict[int, SeatPolicy]) -> dict[int, SeatPolicy]:
    """Each policy object (``act``) for one seat only: the first seat given it plays it, each other
    seat a deep copy, so that no memory carries one seat's private view into another's play (Q26).
    Names build a fresh bot per seat anyway; a plain callable gets the agent's name with each call."""
    seen: set[int] = set()
    own = {}
    for s, spec in specs.items():
        if hasattr(spec, "act") and id(spec) in seen:
            try:
                spec = copy.deepcopy(spec)
            except Exception as exc:  # an object holding a lock, a socket, a device handle...
                raise ValueError(
                    f"others: a {type(spec).__name__} cannot be copied for seat {s} ({exc}); give one "
                    "object per seat: others={seat: policy, ...}"
                ) from None
        seen.add(id(spec))
        own[s] = spec
    return own


class QuatroSingleAgentEnv(gym.Env):
    """Quatro from one seat's point of view; keyword arguments are QuatroConfig fields.

    Args:
        seat: the learning seat.
        others: the seat policy of every other seat, or a mapping seat -> seat policy (seats left
            out of the mapping play ``"random"``).
        render_mode: ``"ansi"`` (text), ``"rgb_array"`` (a picture), ``"human"`` (a window or text), or None.
        **config: QuatroConfig fields. ``bot_seats`` must stay empty: this wrapper drives the other
            seats itself (use ``others="random"`` for the built-in bots).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        seat: int = 0,
        others: SeatPolicy | Mapping[int, SeatPolicy] = "random",
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        if config.get("bot_seats"):
            raise ValueError("bot_seats: leave empty; the wrapper plays the other seats (see `others`)")
        self.parallel: QuatroParallelEnv = parallel_env(render_mode=render_mode, **config)
        self.render_mode = render_mode
        n = self.parallel.n
        seat = as_int(seat, "seat", low=0, high=n - 1)  # True is not seat 1 (decision 16)
        self.seat = seat
        self.agent = f"player_{seat}"
        if isinstance(others, Mapping):
            unknown = [s for s in others if not is_index(s) or not 0 <= s < n or s == seat]
            if unknown:
                raise ValueError(f"others: seats {unknown!r} are not other seats of a {n}-player table")
            specs = {s: others.get(s, "random") for s in range(n) if s != seat}
        else:
            specs = {s: others for s in range(n) if s != seat}
        self.others = {f"player_{s}": make_seat_policy(spec, n) for s, spec in _one_per_seat(specs).items()}
        self.observation_space = self.parallel.observation_space(self.agent)
        self.action_space = self.parallel.action_space(self.agent)
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None):
        if seed is not None:
            as_int(seed, "seed", low=0)  # the ParallelEnv's rule: gymnasium would take True as 1
        before = (copy.deepcopy(self._np_random), self._np_random_seed)
        try:
            super().reset(seed=seed)
            table_seed, *seat_seeds = self.np_random.integers(2**63 - 1, size=1 + len(self.others)).tolist()
            self._obs, infos = self.parallel.reset(seed=table_seed, options=options)
        except Exception:
            # a refused reset changes nothing, as the table's own (its draws included)
            self._np_random, self._np_random_seed = before
            raise
        for policy, seat_seed in zip(self.others.values(), seat_seeds, strict=True):
            policy.reset(seat_seed)
        return self._obs[self.agent], infos[self.agent]

    def step(self, action):
        if not self.parallel.agents:
            raise RuntimeError("the episode is over: call reset() before step()")
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = action[()]  # a 0-d integer array, as some vector wrappers hand out
        # checked before the other seats decide (their bots would draw): 0.7, True or "0" is refused
        self.parallel.check_action(self.agent, action)
        actions = {agent: policy(self._obs[agent], agent) for agent, policy in self.others.items()}
        actions[self.agent] = action
        self._obs, rewards, terminations, truncations, infos = self.parallel.step(actions)
        return (
            self._obs[self.agent],
            float(rewards[self.agent]),
            bool(terminations[self.agent]),
            bool(truncations[self.agent]),
            infos[self.agent],
        )

    def action_masks(self) -> np.ndarray:
        """The learning seat's current legal-action mask, as booleans (for sb3-contrib)."""
        if not self._obs:
            raise RuntimeError("no table yet: call reset() before action_masks()")
        return self._obs[self.agent]["action_mask"].astype(bool)

    def render(self):
        return self.parallel.render()

    def close(self) -> None:
        self.parallel.close()


register_envs()  # also done by ``import quatro_env``; kept for imports of this module alone
