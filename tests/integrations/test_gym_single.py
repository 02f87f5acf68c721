"""The single-agent Gymnasium view: core install only (no extra needed)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from quatro_env.integrations.gym_single import GYM_ID, QuatroSingleAgentEnv
from quatro_env.quatro import IllegalActionError
from quatro_env.quatro.bots import RandomBot

from .conftest import SHORT_TABLE, run_doc


def _play(env: gym.Env, seed: int, policy_seed: int = 0) -> tuple[list, float]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    trace, total, done = [], 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        assert not info["illegal_action"]
        trace.append((action, obs["observation"].tobytes(), reward))
        total += reward
        done = term or trunc
    return trace, total


@pytest.mark.parametrize("num_players", [4, 6])
def test_check_env_passes(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env reports problems as warnings
        check_env(gym.make(GYM_ID, illegal_action="noop", num_players=num_players, **SHORT_TABLE).unwrapped)
        check_env(
            gym.make(
                GYM_ID, illegal_action="noop", render_mode="ansi", num_players=num_players, **SHORT_TABLE
            ).unwrapped
        )


def test_default_raises_on_illegal_action():
    env = QuatroSingleAgentEnv(**SHORT_TABLE)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    env = QuatroSingleAgentEnv(illegal_action="noop", **SHORT_TABLE)
    obs, _ = env.reset(seed=0)
    *_, info = env.step(illegal)
    assert info["illegal_action"]


@pytest.mark.parametrize("bad", [0.7, True, np.float32(2.0), "0", np.array([0])])
def test_a_non_integer_action_is_refused_and_the_table_plays_on_unchanged(bad):
    """``int(action)`` played 0.7 as 0, True as 1 and "0" as 0. The action is now checked before the other
    seats decide, so a refused step leaves their bots' draws untouched: the match goes on as if it had
    not been tried."""
    env = QuatroSingleAgentEnv(others="random", **SHORT_TABLE)
    straight, _ = _play(env, seed=3)
    obs, _ = env.reset(seed=3)
    with pytest.raises(ValueError, match=r"player_0: an action is an int index"):
        env.step(bad)
    rng, trace, done = np.random.default_rng(0), [], False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, term, trunc, _ = env.step(np.array(action))  # a 0-d integer array is an index
        trace.append((action, obs["observation"].tobytes(), reward))
        done = term or trunc
    assert trace == straight


@pytest.mark.parametrize("seed", [-1, True, 1.5])
def test_seeds_follow_the_parallel_env_s_rule(seed):
    with pytest.raises(ValueError, match="seed"):
        QuatroSingleAgentEnv(**SHORT_TABLE).reset(seed=seed)


def test_reproducible_per_seed_and_episodes_end():
    env = QuatroSingleAgentEnv(seat=2, others="random", **SHORT_TABLE)
    a, _ = _play(env, seed=5)
    b, _ = _play(env, seed=5)
    c, _ = _play(env, seed=6)
    assert a == b
    assert a != c


def test_seat_policy_kinds():
    calls = []

    def callable_policy(obs, agent):
        calls.append(agent)
        return 0

    class Frozen:
        def __init__(self):
            self.seeds = []

        def reset(self, seed):
            self.seeds.append(seed)

        def act(self, observation, mask):
            assert observation.dtype == np.uint8 and mask[0] == 1
            return 0

    frozen = Frozen()
    env = QuatroSingleAgentEnv(
        seat=0, others={1: callable_policy, 2: frozen, 3: RandomBot(4)}, num_players=4, **SHORT_TABLE
    )
    _play(env, seed=0)
    assert calls and set(calls) == {"player_1"}
    assert len(frozen.seeds) == 1
    with pytest.raises(ValueError, match="bot_seats"):
        QuatroSingleAgentEnv(bot_seats=(1,))
    with pytest.raises(ValueError, match="others"):
        QuatroSingleAgentEnv(seat=0, others={0: "random"})
    with pytest.raises(ValueError, match="unknown bot"):
        QuatroSingleAgentEnv(others="nope")


def test_gymnasium_doc_snippets():
    ns = run_doc("gymnasium.md")
    assert isinstance(ns["episode_return"], float)


def test_a_seat_is_an_integer_and_others_name_seats_by_integers():
    """True is not seat 1 (decision 16), for the learning seat and for the keys of ``others``."""
    for seat in (True, 1.0, "1"):
        with pytest.raises(ValueError, match="seat"):
            QuatroSingleAgentEnv(seat=seat, **SHORT_TABLE)
    with pytest.raises(ValueError, match="others"):
        QuatroSingleAgentEnv(seat=0, others={True: "idle"}, **SHORT_TABLE)
    env = QuatroSingleAgentEnv(seat=np.int64(1), others={np.int64(0): "idle"}, **SHORT_TABLE)
    assert env.agent == "player_1" and type(env.others["player_0"].spec).__name__ == "IdleBot"


def test_a_bot_named_with_options_is_built_with_them():
    env = QuatroSingleAgentEnv(others="cover:split=true", **SHORT_TABLE)
    assert all(policy.spec.split for policy in env.others.values())
    with pytest.raises(ValueError, match="partner_delay"):
        QuatroSingleAgentEnv(others="cover:partner_delay=-1", **SHORT_TABLE)


def test_one_built_in_bot_given_for_every_seat_plays_as_one_bot_per_seat():
    """A scripted bot's memory (its target, its patience) is its seat's: the object given once is
    copied per seat, so the game is the one the bot's name gives (shared, it played otherwise)."""
    from quatro_env.quatro.bots import CollectorBot

    def trace(others):
        env = QuatroSingleAgentEnv(seat=0, others=others, illegal_action="noop", **SHORT_TABLE)
        obs, _ = env.reset(seed=3)
        rows = []
        for _ in range(60):
            obs, *_ = env.step(0)
            rows.append(obs["observation"].tobytes())
        return rows, env

    by_name, _ = trace("collector")
    by_object, env = trace(CollectorBot(4))
    assert by_object == by_name
    assert len({id(policy.spec) for policy in env.others.values()}) == 3


def test_a_refused_reset_changes_nothing_and_masks_need_a_table():
    env = QuatroSingleAgentEnv(**SHORT_TABLE)
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()
    env.reset(seed=4)
    first, _ = env.reset()
    env.reset(seed=4)
    with pytest.raises(ValueError):
        env.reset(options={"position": "not a position"})
    again, _ = env.reset()  # the stream continues as if the refused reset had not been asked
    assert np.array_equal(first["observation"], again["observation"])


class _Memory:
    """A seat policy with memory: it keeps every observation it is shown (as a recurrent network does)."""

    def __init__(self):
        self.seen: list[bytes] = []

    def reset(self, seed):
        self.seen.clear()

    def act(self, observation, mask):
        self.seen.append(observation.tobytes())
        return 0


def test_one_policy_object_given_for_several_seats_plays_each_with_its_own_copy():
    """Q26: one object played seats 1, 2 and 3 and kept all three hands in its memory (an audit found the
    project's own ``PPOPolicy`` carrying one GRU state across seats). Each seat now plays its own copy,
    the first the object given; the copies' memories hold their own seat's observations only."""
    import threading

    spy = _Memory()
    env = QuatroSingleAgentEnv(seat=0, others=spy, **SHORT_TABLE)
    played = [env.others[f"player_{s}"].spec for s in (1, 2, 3)]
    assert played[0] is spy and len({id(p) for p in played}) == 3
    env.reset(seed=0)
    for _ in range(6):
        shown = {s: env._obs[f"player_{s}"]["observation"].tobytes() for s in (1, 2, 3)}
        env.step(0)
        for s in (1, 2, 3):  # what each copy was shown is its own seat's view, and only that
            assert played[s - 1].seen[-1] == shown[s]
    assert all(len(p.seen) == 6 for p in played)
    shared = {1: spy, 2: spy, 3: "random"}  # the same object twice in a mapping: copied too
    env = QuatroSingleAgentEnv(seat=0, others=shared, **SHORT_TABLE)
    assert env.others["player_1"].spec is spy and env.others["player_2"].spec is not spy

    class Locked(_Memory):
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

    with pytest.raises(
        ValueError, match=r"others: a Locked cannot be copied for seat 2 .*one object per seat"
    ):
        QuatroSingleAgentEnv(seat=0, others=Locked(), **SHORT_TABLE)
