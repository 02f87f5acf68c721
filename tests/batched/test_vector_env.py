"""The Gymnasium vector view of the batched engine (``quatro_env/batched/vector.py``) as a user drives
it: its declared spaces, the final-step keys it adds only when asked, the bot seats the engine's device
plays (``idle``, ``random``, ``random_caller``), its seeded streams, fresh bots for a table that
finishes, and a refused step named by slot. Written against the mutants that survived the vector env's
other tests (docs/testing.md, "vector")."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces

from quatro_env.batched import QuatroVectorEnv
from quatro_env.batched.engine import MAX_SEED
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.engine import IllegalActionError

#: rounds of a few seconds, so tables finish matches within a few hundred ticks
SHORT = dict(round_seconds=4, sign_phase_seconds=1, pause_seconds=0.5, points_to_win=1)


def _play(env: QuatroVectorEnv, ticks: int, seed: int = 0):
    """``ticks`` steps of uniformly random legal actions (a seeded stream of its own); yields each step."""
    gen = torch.Generator().manual_seed(seed)
    obs, info = env.reset(seed=seed)
    for _ in range(ticks):
        action = torch.multinomial(torch.as_tensor(info["action_mask"]).float(), 1, generator=gen).squeeze(1)
        obs, rew, term, trunc, info = env.step(action)
        yield obs, rew, term, trunc, info


def test_the_declared_spaces_are_the_slots_observations_and_actions():
    env = QuatroVectorEnv(num_tables=3, num_players=6, bot_seats=(2,), seed=1)
    dim, actions = env.engine.obs_dim, env.engine.num_actions
    assert env.num_envs == 15
    assert env.single_observation_space == spaces.Box(0, 255, (dim,), np.uint8)
    assert env.observation_space == spaces.Box(0, 255, (15, dim), np.uint8)
    assert env.single_action_space == spaces.Discrete(actions)
    assert env.action_space == spaces.MultiDiscrete(np.full(15, actions))
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs.numpy())


def test_final_step_keys_appear_only_when_asked_and_hold_the_finished_episodes_last_view():
    plain = QuatroVectorEnv(num_tables=4, num_players=4, seed=2, **SHORT)
    assert not any("final" in key for _, _, _, _, info in _play(plain, 150) for key in info)
    kept = QuatroVectorEnv(num_tables=4, num_players=4, seed=2, keep_final=True, numpy=True, **SHORT)
    finished = 0
    for _, _, term, trunc, info in _play(kept, 150):
        done = term | trunc
        if "final_obs" not in info:  # on the CPU the keys come on steps where a table finished only
            assert not done.any()
            continue
        finished += 1
        assert (info["_final_obs"] == done).all() and done.any()
        assert info["final_observation"] is info["final_obs"]
        assert info["final_action_mask"].shape == info["action_mask"].shape
        assert not (info["final_observation"][done] == 0).all()
    assert finished > 0, "short matches should finish within 150 ticks"


@pytest.mark.parametrize("policy", ["idle", "random", "random_caller"])
def test_the_device_bots_play_their_policy(policy):
    """``idle`` always plays the no-op; ``random`` a uniformly drawn legal action other than a call
    (Quatro, Contra); ``random_caller`` any legal action, calls included."""
    env = QuatroVectorEnv(num_tables=32, num_players=4, bot_seats=(1, 3), bot_policy=policy, seed=3, **SHORT)
    codec = env.engine.codec
    calls = set(codec.ranges[ActionKind.QUATRO]) | set(codec.ranges[ActionKind.CONTRA])
    played, masks = [], []
    gen = torch.Generator().manual_seed(3)
    obs, info = env.reset(seed=3)
    for _ in range(200):
        masks.append(env.engine.masks[:, env.bot_seats].clone())  # the bots choose on these masks
        action = torch.multinomial(info["action_mask"].float(), 1, generator=gen).squeeze(1)
        obs, rew, term, trunc, info = env.step(action)
        played.append(env.bot_actions.clone())
    acts, legal = torch.stack(played), torch.stack(masks)
    assert bool(legal.gather(-1, acts.unsqueeze(-1)).all()), "every bot action is legal"
    kinds = {codec.decode(int(a)).kind for a in acts.unique()}
    if policy == "idle":
        assert kinds == {ActionKind.NOOP}
    elif policy == "random":
        assert not set(acts.unique().tolist()) & calls and len(kinds) >= 4
    else:
        assert set(acts.unique().tolist()) & calls, "a random caller calls sometimes"


def test_the_envs_streams_follow_its_seed():
    """Same seed, same sampled actions, same device bots and the same unseeded next resets (Q30)."""

    def run(seed: int):
        env = QuatroVectorEnv(num_tables=8, num_players=4, bot_seats=(1,), bot_policy="random", seed=seed)
        env.reset(seed=seed)
        trace = []
        for _ in range(30):
            action = env.sample_legal_actions()
            env.step(action)
            trace += [action.clone(), env.bot_actions.clone()]
        for table in (env, QuatroVectorEnv(num_tables=8, num_players=4, seed=seed)):
            table.reset()  # unseeded: the env's own stream (after a seeded construction, for the second)
            for _ in range(5):
                table.step(table.sample_legal_actions())
            trace.append(table.engine.observations.clone())
        return trace

    first, again, other = run(11), run(11), run(12)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))
    assert not torch.equal(first[-1], other[-1]) and not torch.equal(first[-2], other[-2])


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, True, 1.0])
def test_a_construction_seed_is_checked_as_resets_are(seed):
    with pytest.raises(ValueError) as err:
        QuatroVectorEnv(num_tables=1, num_players=4, seed=seed)
    assert str(err.value).startswith("seed: ")
    with pytest.raises(ValueError) as again:
        QuatroVectorEnv(num_tables=1, num_players=4, seed=0).reset(seed=seed)
    assert str(again.value) == str(err.value)


def test_a_table_that_finishes_gets_fresh_bots_and_only_that_table(monkeypatch):
    env = QuatroVectorEnv(
        num_tables=6, num_players=4, bot_seats=(1, 3), bot_policy="counter", seed=4, **SHORT
    )
    steps = _play(env, 250, seed=4)
    first = next(steps)  # after the reset, which gave every row a fresh bot
    fresh: list[np.ndarray] = []
    real_reset = env._bots.reset_rows
    monkeypatch.setattr(
        env._bots, "reset_rows", lambda rows, kinds: (fresh.append(rows), real_reset(rows, kinds))
    )
    checked = 0
    for _, _, term, trunc, _ in steps:
        done = (term | trunc).reshape(env.num_tables, -1)[:, 0].numpy()
        # row b * 2 + j is bot seat j of table b: those of each table that finished, no other, once
        expected = [b * 2 + j for b in np.flatnonzero(done) for j in (0, 1)]
        assert [sorted(rows.tolist()) for rows in fresh] == ([expected] if expected else [])
        fresh.clear()
        checked += int(done.any())
    assert not first[2].any()
    assert checked > 0, "short matches should finish within 250 ticks"


def test_a_refused_step_names_the_slot_and_the_action():
    env = QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1,), seed=5)
    _, info = env.reset(seed=5)
    mask = info["action_mask"]
    slot = 4  # table 1, its second agent seat (seat 2)
    actions = mask.float().argmax(1)
    actions[slot] = int(mask[slot].argmin())
    with pytest.raises(IllegalActionError) as err:
        env.step(actions)
    assert (err.value.table, err.value.slot, err.value.seat) == (1, 4, 2)
    assert err.value.description == env.engine.codec.describe(int(actions[slot]))
    assert err.value.description in str(err.value)


@pytest.mark.parametrize(("option", "value"), [("keep_final", 1), ("numpy", "yes")])
def test_a_flag_that_is_not_a_bool_is_refused_by_its_name(option, value):
    with pytest.raises(ValueError) as err:
        QuatroVectorEnv(num_tables=1, num_players=4, **{option: value})
    assert str(err.value) == f"{option}: must be True or False, got {value!r} ({type(value).__name__})"


def test_the_global_state_is_every_seats_observation_of_each_table():
    """For centralised critics: ``[num_tables, n * obs_dim]``, bot seats included, as a numpy copy with
    ``numpy=True``."""
    env = QuatroVectorEnv(num_tables=3, num_players=4, bot_seats=(1,), numpy=True, seed=6)
    env.reset(seed=6)
    env.step(env.sample_legal_actions().numpy())
    state = env.state()
    assert isinstance(state, np.ndarray) and state.shape == (3, 4 * env.engine.obs_dim)
    assert (state == env.engine.observations.reshape(3, -1).numpy()).all()
