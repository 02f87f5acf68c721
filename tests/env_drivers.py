"""Every public environment of the three games behind one face, for the pickle and bad-input tests.

A driver plays ``ticks`` calls of deterministic legal play (the action is a function of the mask
and the call index, so two copies of an env in the same state play the same actions) and returns
everything the API showed, normalised so that two records compare with ``==``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0
from quatro_env.integrations.gym_single import GYM_ID, QuatroSingleAgentEnv


def pick(mask: np.ndarray, k: int) -> int:
    """A legal action chosen by the call index ``k`` alone (no RNG state to keep in step)."""
    legal = np.flatnonzero(mask)
    return int(legal[(k * 7919 + 13) % legal.size])


def normalise(value: Any) -> Any:
    """Arrays become (dtype, shape, bytes); containers are normalised item by item."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def play_parallel(env, start: int, ticks: int) -> list:
    record = []
    for k in range(start, start + ticks):
        if not env.agents:
            record.append(("reset", normalise(env.reset(seed=k))))
            continue
        obs = env._observations()  # the observations the last reset/step returned
        actions = {a: pick(obs[a]["action_mask"], k) for a in env.agents}
        record.append(("step", actions, normalise(env.step(actions))))
    return record


def play_aec(env, start: int, ticks: int) -> list:
    record = []
    for k in range(start, start + ticks):
        if not env.agents:
            env.reset(seed=k)
            record.append(("reset", k))
            continue
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else pick(obs["action_mask"], k)
        env.step(action)
        record.append((agent, action, normalise((obs, reward, terminated, truncated, info))))
    return record


def play_single(env, start: int, ticks: int) -> list:
    record = []
    for k in range(start, start + ticks):
        action = pick(env.unwrapped.action_masks(), k)
        out = env.step(action)
        record.append((action, normalise(out)))
        if out[2] or out[3]:
            record.append(("reset", normalise(env.reset(seed=k))))
    return record


@dataclass(frozen=True)
class Driver:
    name: str
    make: Callable[[], Any]
    play: Callable[[Any, int, int], list]

    def fresh(self, seed: int = 0):
        env = self.make()
        env.reset(seed=seed)
        return env


DRIVERS = (
    Driver("quatro_parallel", lambda: quatro_v0.parallel_env(), play_parallel),
    Driver(
        "quatro_parallel_6_bots",
        lambda: quatro_v0.parallel_env(num_players=6, bot_seats=(1, 4), bot_policy="random"),
        play_parallel,
    ),
    Driver("quatro_aec", lambda: quatro_v0.env(), play_aec),
    Driver("quatro_single", lambda: QuatroSingleAgentEnv(seat=1, others="random"), play_single),
    Driver("quatro_gym_make", lambda: gymnasium.make(GYM_ID, seat=2, others="random_caller"), play_single),
    Driver("kwartet_aec", lambda: kwartet_v0.env(), play_aec),
    Driver("kwartet_stock_aec", lambda: kwartet_v0.env(num_players=2, stock=True), play_aec),
    Driver("cuatrola_aec", lambda: cuatrola_v0.env(), play_aec),
)
DRIVER_IDS = [d.name for d in DRIVERS]
