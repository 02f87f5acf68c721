"""SB3's make_vec_env with render_mode="rgb_array": the vectorised env renders the table's picture."""

from __future__ import annotations

import numpy as np

from tests.extras import integration_module

integration_module("stable_baselines3")  # the integrations venv; the core suite runs without SB3

from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

from quatro_env.integrations.gym_single import GYM_ID  # noqa: E402

from .conftest import SHORT_TABLE  # noqa: E402


def test_make_vec_env_renders_rgb_frames():
    env_kwargs = dict(render_mode="rgb_array", others="random", **SHORT_TABLE)
    vec = make_vec_env(GYM_ID, n_envs=2, seed=0, env_kwargs=env_kwargs)
    vec.reset()
    assert vec.render_mode == "rgb_array"
    frames = vec.get_images()
    assert len(frames) == 2 and all(f.shape == (600, 800, 3) and f.dtype == np.uint8 for f in frames)
    tiled = vec.render()
    assert tiled.ndim == 3 and tiled.shape[2] == 3
    vec.close()
