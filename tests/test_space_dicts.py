"""PettingZoo's env API for every game: ``observation_spaces`` and ``action_spaces`` are dicts over
``possible_agents`` holding the very objects ``observation_space(a)`` and ``action_space(a)`` return
(Quatro's were private, so ``env.observation_spaces``, which PettingZoo's base classes declare and
some wrappers read, raised AttributeError there while the companions had it)."""

from __future__ import annotations

import pytest

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0

MAKERS = {
    "quatro": lambda: quatro_v0.parallel_env(num_players=6, bot_seats=(1,)),
    "kwartet": kwartet_v0.env,
    "cuatrola": cuatrola_v0.env,
}


@pytest.mark.parametrize("game", MAKERS)
def test_the_space_dicts_hold_each_agents_space_objects(game):
    env = MAKERS[game]()
    raw = env.unwrapped
    pairs = ((raw.observation_spaces, env.observation_space), (raw.action_spaces, env.action_space))
    for table, lookup in pairs:
        assert list(table) == env.possible_agents  # a bot seat is no agent, so it has no space
        for agent in env.possible_agents:
            assert table[agent] is lookup(agent)
