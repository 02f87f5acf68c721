"""TorchRL: PettingZooWrapper(use_mask=True, return_state=True) specs and masked rollouts."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import MarlGroupMapType, check_env_specs  # noqa: E402

import quatro_env  # noqa: E402
from quatro_env.integrations.torchrl import TensorInfos, make_torchrl_env  # noqa: E402

from .conftest import SHORT_TABLE, run_doc  # noqa: E402


@pytest.mark.parametrize("num_players", [4, 6])
def test_check_env_specs(num_players):
    table = quatro_env.parallel_env(num_players=num_players, **SHORT_TABLE)
    env = PettingZooWrapper(
        env=TensorInfos(table),
        use_mask=True,
        return_state=True,
        seed=0,
    )
    check_env_specs(env, seed=0)
    assert env.observation_spec["state"].shape[-1] == num_players * table.encoder.obs_dim
    assert env.group_map == {"player": [f"player_{s}" for s in range(num_players)]}


def test_one_group_per_agent():
    env = make_torchrl_env(seed=1, group_map=MarlGroupMapType.ONE_GROUP_PER_AGENT, **SHORT_TABLE)
    check_env_specs(env, seed=1)
    assert set(env.group_map) == {f"player_{s}" for s in range(4)}


def test_random_rollout_respects_masks_across_episodes():
    env = make_torchrl_env(seed=2, **SHORT_TABLE)
    rollout = env.rollout(150, break_when_any_done=False)
    actions = rollout["player", "action"]
    assert rollout["player", "action_mask"].gather(-1, actions.unsqueeze(-1)).all()
    assert rollout["next", "player", "info", "illegal_action"].sum() == 0
    assert rollout["next", "done"].any()  # episodes ended and reset inside the rollout
    state = rollout["state"]
    assert state.dtype == torch.uint8 and state.shape == (150, 4 * 467)


def test_torchrl_doc_snippets():
    ns = run_doc("torchrl.md")
    assert bool(ns["legal"].all())
    assert int(ns["rollout"]["next", "player", "info", "illegal_action"].sum()) == 0
