"""sb3-contrib's MaskablePPO on the single-agent view."""

from __future__ import annotations

import numpy as np

from tests.extras import integration_module

integration_module("sb3_contrib")

import gymnasium as gym  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

from quatro_env.integrations.gym_single import GYM_ID, QuatroSingleAgentEnv  # noqa: E402

from .conftest import SHORT_TABLE, run_doc  # noqa: E402


def test_maskable_ppo_trains_a_few_thousand_steps_without_illegal_actions():
    env = QuatroSingleAgentEnv(seat=1, others="random", **SHORT_TABLE)  # default: illegal raises
    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0)
    model.learn(total_timesteps=3000)
    assert model.num_timesteps >= 3000
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=False)
            assert mask[int(action)]
            obs, _, term, trunc, info = env.step(action)
            assert not info["illegal_action"]
            done = term or trunc


def test_masks_reach_sb3_through_gym_make_wrappers():
    env = gym.make(GYM_ID, **SHORT_TABLE)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64, seed=0)
    vec = model.get_env()
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (1, 74) and masks.dtype == bool and masks[0, 0]
    model.learn(total_timesteps=128)


def test_sb3_doc_snippets():
    ns = run_doc("sb3.md")
    assert ns["model"].num_timesteps >= 3072
    assert np.isscalar(ns["reward"])
