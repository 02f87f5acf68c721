"""TorchRL: PettingZooWrapper(use_mask=True, return_state=True) specs and masked rollouts."""

from __future__ import annotations

import pytest

from tests.extras import integration_module

integration_module("torchrl")
torch = integration_module("torch")

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


def test_masked_multi_agent_ppo_trains():
    """The complete PPO example: collector, GAE, clipped loss; weights move, no illegal action."""
    from quatro_env.integrations.torchrl_ppo import build_actor_critic, train_ppo

    torch.manual_seed(0)
    actor, critic = build_actor_critic(make_torchrl_env(seed=0, **SHORT_TABLE), hidden=32)
    before = [p.detach().clone() for p in actor.parameters()]
    trained, history = train_ppo(
        iterations=2,
        frames_per_batch=128,
        epochs=1,
        minibatch_size=64,
        actor_critic=(actor, critic),
        **SHORT_TABLE,
    )
    assert trained is actor and [row["iteration"] for row in history] == [1, 2]
    assert all(row["illegal_actions"] == 0 for row in history)
    assert all(
        torch.isfinite(torch.tensor([row["loss_objective"], row["loss_critic"]])).all() for row in history
    )
    assert any(not torch.equal(a, b) for a, b in zip(before, actor.parameters(), strict=True))
    env = make_torchrl_env(seed=5, **SHORT_TABLE)
    with torch.no_grad():
        rollout = env.rollout(60, policy=trained, break_when_any_done=False)
    assert rollout["player", "action_mask"].gather(-1, rollout["player", "action"].unsqueeze(-1)).all()
