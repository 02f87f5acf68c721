"""PettingZoo's versioned-module convention, alike in every game: ``raw_env(**config)`` is the AEC env
without wrappers and ``env(**config)`` is that env inside ``OrderEnforcingWrapper``. (Quatro's
``raw_env`` had been its ``parallel_env``, so code written for the companions, or for PettingZoo's
parallel-first environments, got a ParallelEnv where it expected an AEC env.)"""

from __future__ import annotations

import pytest
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0
from quatro_env.quatro.engine import IllegalActionError

MODULES = {"quatro": quatro_v0, "kwartet": kwartet_v0, "cuatrola": cuatrola_v0}


@pytest.mark.parametrize("game", MODULES)
def test_raw_env_is_the_unwrapped_aec_env_and_env_wraps_it_in_order_enforcing(game):
    module = MODULES[game]
    raw, wrapped = module.raw_env(), module.env()
    assert isinstance(raw, AECEnv) and not isinstance(raw, BaseWrapper)
    assert isinstance(wrapped, OrderEnforcingWrapper)
    assert type(wrapped.env) is type(raw)


def test_quatros_raw_env_takes_the_config_and_plays_the_same_ticks_as_env():
    """The same keywords reach the table (``max_cycles`` included), and both views play alike."""
    raw = quatro_v0.raw_env(num_players=6, max_cycles=3)
    wrapped = quatro_v0.env(num_players=6, max_cycles=3)
    for table in (raw, wrapped):
        table.reset(seed=5)
    assert raw.num_agents == 6
    steps = 0
    while raw.agents:
        agent = raw.agent_selection
        assert agent == wrapped.agent_selection
        assert (raw.observe(agent)["observation"] == wrapped.observe(agent)["observation"]).all()
        action = None if raw.terminations[agent] or raw.truncations[agent] else 0
        raw.step(action)
        wrapped.step(action)
        steps += 1
    assert not wrapped.agents
    assert steps == 6 * 3 + 6  # three ticks of six agents, then each truncated agent steps out (max_cycles)


def test_quatros_raw_env_refuses_an_illegal_action_by_the_agent_that_made_it():
    raw = quatro_v0.raw_env(num_players=4)
    raw.reset(seed=0)
    agent = raw.agent_selection
    mask = raw.observe(agent)["action_mask"]
    illegal = int(mask.argmin())
    assert mask[illegal] == 0
    with pytest.raises(IllegalActionError, match=agent):
        raw.step(illegal)
