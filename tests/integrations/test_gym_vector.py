"""QuatroVectorEnv is a real ``gymnasium.vector.VectorEnv``: Gymnasium's vector wrappers accept it and
read its autoreset mode as the ``AutoresetMode`` enum (issue #21, item 3)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from tests.extras import integration_module

integration_module("torch")

from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from quatro_env.batched import QuatroVectorEnv  # noqa: E402

from .conftest import SHORT_TABLE  # noqa: E402


def _masked(info, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])


def test_is_a_gymnasium_vector_env_with_the_enum():
    env = QuatroVectorEnv(num_tables=2, seed=0, **SHORT_TABLE)
    assert isinstance(env, gym.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.single_action_space.n == env.engine.num_actions and env.num_envs == 8
    env.close()
    assert env.closed


#: Gymnasium counts a same-step autoreset env's episodes right from 1.4 (its PR #1624); before, every
#: episode after a slot's first was one step short (docs/integrations/supersuit_cleanrl.md)
SAME_STEP_STATISTICS = tuple(int(x) for x in gym.__version__.split(".")[:2]) >= (1, 4)


def test_record_episode_statistics_counts_each_finished_episode():
    """The wrapper's episode returns equal the rewards summed per slot up to each same-step reset, and
    its lengths the steps (one short after a slot's first episode before Gymnasium 1.4, as documented)."""
    env = RecordEpisodeStatistics(
        QuatroVectorEnv(num_tables=2, seed=3, numpy=True, keep_final=True, **SHORT_TABLE)
    )
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    running = np.zeros(env.num_envs)
    steps, episodes = np.zeros(env.num_envs, dtype=int), np.zeros(env.num_envs, dtype=int)
    finished = 0
    for _ in range(600):
        obs, rew, term, trunc, info = env.step(_masked(info, rng))
        running += rew
        steps += 1
        done = term | trunc
        if done.any():
            assert np.array_equal(info["_final_obs"], done)
            assert info["final_obs"].shape == obs.shape
            assert np.array_equal(info["_episode"], done)
            np.testing.assert_allclose(info["episode"]["r"][done], running[done], rtol=1e-5)
            short = 0 if SAME_STEP_STATISTICS else (episodes[done] > 0).astype(int)
            np.testing.assert_array_equal(info["episode"]["l"][done], steps[done] - short)
            running[done], steps[done] = 0.0, 0
            episodes[done] += 1
            finished += int(done.sum())
        if finished >= 8:
            break
    assert finished >= 8, "short tables end episodes within a few hundred ticks"
