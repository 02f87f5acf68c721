"""Shared helpers for the Kwartet tests (uniquely named so other test folders cannot shadow it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from quatro_env import kwartet_v0
from quatro_env.kwartet.env import raw_env


def scripted(position: dict[str, Any], **config: Any) -> raw_env:
    """A raw env reset to a scripted position."""
    env = raw_env(**config)
    env.reset(seed=0, options={"position": position})
    return env


def ask(env: Any, offset: int, card: str | int) -> None:
    """The player to move asks the player ``offset`` seats clockwise for ``card``."""
    env.step(env.unwrapped.codec.encode(offset, card))


def hand(env: Any, seat: int) -> set[str]:
    game = env.unwrapped.game
    return {game.deck.name(int(c)) for c in np.flatnonzero(game.hands[seat])}


def play_random(
    env: Any, seed: int, on_turn: Callable[[Any, str, dict], None] | None = None
) -> dict[str, float]:
    """Play one game with uniformly random legal actions; return each agent's summed reward."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(100_000):
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if on_turn is not None:
            on_turn(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return returns


def make_env(**config: Any) -> Any:
    return kwartet_v0.env(**config)


def position(
    hands: list[str],
    to_move: int = 0,
    exposed: dict[str, int] | None = None,
    rest_to: int | None = None,
    stock: str = "",
    num_families: int = 8,
) -> dict[str, Any]:
    """A scripted position from space-separated card names; families that appear nowhere are
    exposed by seat ``rest_to`` (so a test only spells out the cards that matter)."""
    from quatro_env.kwartet.cards import Deck

    deck = Deck(num_families)
    exposed = dict(exposed or {})
    placed = {deck.card(c) // 4 for h in [*hands, stock] for c in h.split()}
    placed |= {deck.family(f) for f in exposed}
    for family in range(num_families):
        if family not in placed:
            assert rest_to is not None, f"family {deck.family_names[family]} placed nowhere"
            exposed[deck.family_names[family]] = rest_to
    hands_ = [h.split() for h in hands]
    return {"hands": hands_, "to_move": to_move, "exposed": exposed, "stock": stock.split()}
