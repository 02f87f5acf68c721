"""The flat observation option (``quatro_env.common.wrappers.flat_observation``) under each SuperSuit
observation wrapper, for the three games (issue #21, item 3): a ``Box`` observation, the action
mask in ``infos[agent]["action_mask"]``, and PettingZoo's own API test passing on every stack."""

from __future__ import annotations

import contextlib
import io
import types

import numpy as np
import pytest

from tests.extras import integration_module

ss = integration_module("supersuit")

from pettingzoo.test import api_test, max_cycles_test, parallel_api_test  # noqa: E402

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0  # noqa: E402
from quatro_env.common.wrappers import flat_observation  # noqa: E402

from .conftest import SHORT_TABLE  # noqa: E402

GAMES = {
    "quatro": lambda: quatro_v0.env(**SHORT_TABLE),
    "kwartet": lambda: kwartet_v0.env(),
    "cuatrola": lambda: cuatrola_v0.env(),
}


def _float01(env):
    return ss.normalize_obs_v0(ss.dtype_v0(env, np.float32), env_min=0.0, env_max=1.0)


WRAPPERS = {
    "pad_observations_v0": ss.pad_observations_v0,
    "agent_indicator_v0": lambda env: ss.agent_indicator_v0(env, type_only=False),
    "frame_stack_v1": lambda env: ss.frame_stack_v1(env, 3),
    "dtype_v0": lambda env: ss.dtype_v0(env, np.float32),
    "flatten_v0": ss.flatten_v0,
    "normalize_obs_v0": _float01,
}


def _quiet(test, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()):
        test(*args, **kwargs)


def _indicator_env(game: str, env):
    # SuperSuit 3.11's agent_indicator declares the indicator's bound as min(high) but writes max(high):
    # Kwartet's per-field bounds (1..32) need the uniform [0, 1] of normalize_obs_v0 first.
    return _float01(env) if game == "kwartet" else env


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_supersuit_wrapper_on_the_flat_option(game, wrapper):
    flat = flat_observation(GAMES[game]())
    base = _indicator_env(game, flat) if wrapper == "agent_indicator_v0" else flat
    env = WRAPPERS[wrapper](base)
    agent = env.possible_agents[0]
    space = env.observation_space(agent)
    assert space.__class__.__name__ == "Box"
    _quiet(api_test, env, num_cycles=60)  # reads the mask from the info, checks obs in space
    env.reset(seed=1)
    obs, _, _, _, info = env.last()
    assert space.contains(obs)
    mask = info["action_mask"]
    assert mask.shape == (env.action_space(env.agent_selection).n,) and mask.any()


def test_the_flat_option_keeps_observation_and_mask_of_the_dict():
    for game, make in GAMES.items():
        plain, flat = make(), flat_observation(make())
        plain.reset(seed=3)
        flat.reset(seed=3)
        agent = plain.agent_selection
        assert np.array_equal(flat.observe(agent), plain.observe(agent)["observation"]), game
        assert np.array_equal(flat.infos[agent]["action_mask"], plain.observe(agent)["action_mask"]), game
        assert flat.observation_space(agent) == plain.observation_space(agent)["observation"]


@pytest.mark.parametrize("wrapper", ["black_death_v3", *sorted(WRAPPERS)])
def test_parallel_quatro_under_each_wrapper(wrapper):
    """black_death_v3 wraps ParallelEnvs only: Quatro is the one parallel game."""
    flat = flat_observation(quatro_v0.parallel_env(**SHORT_TABLE))
    env = ss.black_death_v3(flat) if wrapper == "black_death_v3" else WRAPPERS[wrapper](flat)
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):  # masked actions from the infos; one episode (see the black_death note below)
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
        for a, o in obs.items():
            assert env.observation_space(a).contains(o)
        if not flat.agents:
            break
    if wrapper != "black_death_v3":
        # SuperSuit 3.11's black_death ends an episode only when every agent is terminated AND
        # truncated (fixed upstream, SuperSuit PR #265), so only the others run PettingZoo's test.
        _quiet(
            parallel_api_test,
            WRAPPERS[wrapper](flat_observation(quatro_v0.parallel_env(illegal_action="noop", **SHORT_TABLE))),
            num_cycles=60,
        )


def test_max_cycles_test_passes():
    """PettingZoo's max_cycles_test steps unmasked random actions, so the tables play them as no-ops."""
    module = types.SimpleNamespace(
        parallel_env=lambda **kw: quatro_v0.parallel_env(illegal_action="noop", **kw),
        env=lambda **kw: quatro_v0.env(illegal_action="noop", **kw),
    )
    max_cycles_test(module)
    env = quatro_v0.parallel_env(max_cycles=3)
    env.reset(seed=0)
    for tick in range(3):
        _, _, terms, truncs, _ = env.step({a: 0 for a in env.agents})
        assert all(truncs.values()) == (tick == 2) and not any(terms.values())
    assert env.agents == []
    with pytest.raises(ValueError, match="max_cycles: 0 is outside 1.."):
        quatro_v0.parallel_env(max_cycles=0)
