"""Play many games of any PettingZoo AEC environment between per-seat policies.

Kwartet and Cuatrola reuse this runner; a game module only supplies how to turn the final
returns into a winner. A policy is any callable ``policy(observation, agent) -> action``; policies
that hold randomness take their seed at construction so that a tournament is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pettingzoo import AECEnv


class AECPolicy(Protocol):
    def __call__(self, observation: Mapping[str, Any], agent: str) -> int: ...


def play_aec_game(env: AECEnv, policies: Mapping[str, AECPolicy], seed: int) -> dict[str, float]:
    """Play one game to the end and return each agent's summed reward."""
    env.reset(seed=seed)
    returns = {agent: 0.0 for agent in env.possible_agents}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        returns[agent] += float(reward)
        action = None if terminated or truncated else policies[agent](observation, agent)
        env.step(action)
    return returns


def play_aec_games(
    make_env: Callable[[], AECEnv],
    make_policies: Callable[[int], Mapping[str, AECPolicy]],
    num_games: int,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Play ``num_games`` games; game ``g`` uses env seed ``seed + g`` and ``make_policies(seed + g)``."""
    if num_games <= 0:
        raise ValueError(f"num_games must be positive, got {num_games}")
    env = make_env()
    try:
        return [play_aec_game(env, make_policies(seed + g), seed + g) for g in range(num_games)]
    finally:
        env.close()
