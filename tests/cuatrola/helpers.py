"""Shared helpers for the Cuatrola tests: scripted deals and stepping by card code."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import play
from quatro_env.cuatrola.cards import card_code
from quatro_env.cuatrola.state import CuatrolaGame


def hands(*spec: str) -> list[list[str]]:
    """Four hands from four strings of card codes, e.g. ``hands("Ao 3o ...", ...)``."""
    assert len(spec) == 4
    return [s.split() for s in spec]


def scripted(spec: list[list[str]], trump_card: str, dealer: int, **options) -> tuple[object, CuatrolaGame]:
    """A wrapped env reset to a scripted deal, and its game state."""
    env = cuatrola_v0.env(**options.pop("config", {}))
    env.reset(seed=0, options={"hands": spec, "trump_card": trump_card, "dealer": dealer, **options})
    return env, env.unwrapped.game


def play_cards(env, *codes: str) -> None:
    for code in codes:
        env.step(play(code))


def legal(env) -> list[int]:
    mask = env.observe(env.agent_selection)["action_mask"]
    return np.flatnonzero(mask).tolist()


def legal_cards(env) -> list[str]:
    """Codes of the legal cards of the agent to act, sorted by card id."""
    return [card_code(a) for a in legal(env) if a < 20]


def seat_to_act(env) -> int:
    return int(env.agent_selection.split("_")[1])


def random_steps(env, seed: int) -> Iterator[tuple[str, int, dict]]:
    """Play a whole match with uniformly random legal actions, yielding (agent, action, obs)."""
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        choices = np.flatnonzero(obs["action_mask"])
        action = int(choices[rng.integers(len(choices))])
        yield agent, action, obs
        env.step(action)
