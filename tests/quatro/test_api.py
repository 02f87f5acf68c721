"""PettingZoo API conformance and the environment's episode/reward options."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import quatro_env
from quatro_env import quatro_v0
from quatro_env.quatro import GameOverError

from .helpers import K, act, events, make_env, play, quartet_position, step

N = [4, 6, 8]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("n", N)
def test_parallel_api_test(n):
    parallel_api_test(quatro_env.parallel_env(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("n", N)
def test_aec_api_test(n):
    api_test(quatro_env.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", N)
def test_parallel_seed_test(n):
    # PettingZoo's parallel seed test samples without the mask: illegal actions must become no-ops
    parallel_seed_test(lambda: quatro_env.parallel_env(num_players=n, illegal_action="noop"))


@pytest.mark.parametrize("n", N)
def test_aec_seed_test(n):
    seed_test(lambda: quatro_env.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", N)
def test_spaces_are_the_same_object_every_call(n):
    env = make_env(n, bot_seats=(0,))
    env.reset(seed=0)
    for a in env.possible_agents:
        assert env.observation_space(a) is env.observation_space(a)
        assert env.action_space(a) is env.action_space(a)
        assert env.action_space(a).n == env.codec.num_actions
        obs = env._observations()[a]
        assert env.observation_space(a).contains(obs)
    # one space per agent (seeding one agent's sampler leaves the others'); no space for a bot seat
    first, second = env.possible_agents[:2]
    assert env.action_space(first) is not env.action_space(second)
    env.observation_space(second).seed(1)
    before = env.observation_space(second).sample()["observation"]
    env.observation_space(second).seed(1)
    env.observation_space(first).seed(2)  # reseeding another agent's space leaves this one's stream
    assert np.array_equal(env.observation_space(second).sample()["observation"], before)
    for name in ("player_0", "nobody"):  # seat 0 is a bot
        with pytest.raises(KeyError):
            env.action_space(name)
        with pytest.raises(KeyError):
            env.observation_space(name)


@pytest.mark.parametrize("n", N)
def test_declared_spaces_are_the_documented_boxes(n):
    """Learners size their inputs from the declared spaces: a uint8 observation, an int8 0/1 mask."""
    env = make_env(n)
    space = env.observation_space("player_0")
    assert space["observation"] == spaces.Box(0, 255, (env.encoder.obs_dim,), np.uint8)
    assert space["action_mask"] == spaces.Box(0, 1, (env.codec.num_actions,), np.int8)
    assert env.state_space == spaces.Box(0, 255, (n * env.encoder.obs_dim,), np.uint8)


def test_infos_name_the_seat_its_team_the_next_tick_and_no_illegal_action():
    """docs/quatro.md, "infos": ``seat``, ``team`` (absolute), ``tick`` (the next tick), ``events``,
    ``illegal_action``."""
    env = make_env(6)
    _, infos = env.reset(seed=0)
    for agent, seat in env.agent_seat.items():
        assert {k: v for k, v in infos[agent].items() if k != "events"} == {
            "seat": seat,
            "team": env.engine.team_of(seat),
            "tick": 0,
            "illegal_action": False,
        }
    _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
    assert {info["tick"] for info in infos.values()} == {1} and not any(
        i["illegal_action"] for i in infos.values()
    )


@pytest.mark.parametrize("n", N)
def test_state_matches_state_space(n):
    env = make_env(n)
    obs, _ = env.reset(seed=0)
    state = env.state()
    assert state.shape == env.state_space.shape
    assert state.dtype == env.state_space.dtype
    assert env.state_space.contains(state)
    expected = np.concatenate([obs[f"player_{s}"]["observation"] for s in range(n)])
    np.testing.assert_array_equal(state, expected)


def test_render_ansi_returns_a_string_with_card_faces():
    env = make_env(4, render_mode="ansi")
    play(
        env,
        hands=[["A", "K", "Q", "J"], ["10", "A", "K", "Q"], ["J", "10", "A", "K"], ["Q", "J", "10", "A"]],
        center=["K", "Q", "J", "10"],
    )
    step(env, {0: act(env, K.EXCHANGE, (0, 0))})
    text = env.render()
    assert isinstance(text, str)
    assert "A♠" in text and "K" in text and "10" in text
    assert any(s in text for s in "♥♦♣")
    assert "exchange" in text
    assert make_env(4).render() is None


def _random_match(env, seed, max_ticks=4000):
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(max_ticks):
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rewards, term, trunc, _ = env.step(actions)
        yield rewards, term, trunc
        if not env.agents:
            return


@pytest.mark.parametrize("n", N)
def test_zero_sum_rewards_sum_to_zero_over_all_seats(n):
    env = make_env(n)
    nonzero = 0
    for rewards, *_ in _random_match(env, seed=n):
        assert len(rewards) == n
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-9)
        nonzero += any(rewards.values())
    assert nonzero >= 5  # at least five scoring ticks in a match to 5
    assert env.agents == []


def test_team_points_rewards_are_each_teams_points():
    env = make_env(6, reward_mode="team_points")
    play(env)
    _, rewards, *_ = step(env, {0: act(env, K.QUATRO)})  # false: teams 1 and 2 score
    assert rewards == {f"player_{s}": (0.0 if s % 3 == 0 else 1.0) for s in range(6)}


def test_zero_sum_rewards_split_the_loss_among_non_scorers():
    env = make_env(6)
    play(env)
    _, rewards, *_ = step(env, {0: act(env, K.QUATRO)})
    assert rewards == {f"player_{s}": (-2.0 if s % 3 == 0 else 1.0) for s in range(6)}


@pytest.mark.parametrize("blank", [False, True])
def test_episode_round_ends_after_one_round(blank):
    env = make_env(4, episode="round")
    if blank:
        play(env, ticks_left=3)
        for _ in range(2):
            _, _, term, trunc, _ = step(env)
            assert not any(term.values())
        _, _, term, trunc, _ = step(env)
        assert events(env, "blank_round")
    else:
        hands, center = quartet_position(4, (2,))
        play(env, hands, center)
        _, _, term, trunc, _ = step(env, {0: act(env, K.QUATRO)})
    assert all(term.values()) and not any(trunc.values())
    assert env.agents == []
    with pytest.raises(GameOverError):
        env.step({})


def test_max_rounds_truncates_the_match():
    env = make_env(4, max_rounds=2)
    play(env)
    _, _, term, trunc, _ = step(env, {0: act(env, K.CONTRA, 1)})
    assert not any(term.values()) and not any(trunc.values())
    assert env.agents
    step(env, {0: act(env, K.START_ROUND)})
    step(env, {s: act(env, K.READY) for s in range(4)})
    _, _, term, trunc, _ = step(env, {1: act(env, K.CONTRA, 1)})
    assert all(trunc.values()) and not any(term.values())
    assert env.agents == []
    assert env.engine.scores == [1, 1]


def test_a_won_match_terminates_rather_than_truncates_on_the_last_round():
    env = make_env(4, max_rounds=1, points_to_win=1)
    play(env)
    _, _, term, trunc, _ = step(env, {0: act(env, K.CONTRA, 1)})
    assert all(term.values()) and not any(trunc.values())


def test_max_cycles_refuses_a_step_after_its_truncation_and_takes_numpy_integers():
    env = quatro_v0.parallel_env(max_cycles=np.int64(2))
    env.reset(seed=0)
    for _ in range(2):
        env.step({a: 0 for a in env.agents})
    tick = env.unwrapped.engine.tick
    with pytest.raises(RuntimeError, match="reset"):
        env.step({a: 0 for a in env.unwrapped.possible_agents})
    assert env.unwrapped.engine.tick == tick  # the table below did not play on


def test_q31_a_scripted_positions_suits_are_drawn_per_seed_not_numbered_in_order():
    """Q3 and Q31: suits are decoration, and a position names values. They were numbered in the order the
    position lists them, so the id of a card an opponent exposed (``infos`` events, renders) told how
    many copies of its value sat in earlier hands. They are drawn per seed (Q30), apart from the
    engine's stream: each copy of a value turns up."""
    from quatro_env import parallel_env

    position = {
        "phase": "play",
        "hands": [["A", "A", "K", "K"], ["A", "Q", "Q", "J"], ["K", "J", "10", "10"], ["Q", "J", "10", "A"]],
        "center": ["K", "Q", "J", "10"],
    }
    suits = set()
    for seed in range(40):
        env = parallel_env(num_players=4)
        env.reset(seed=seed, options={"position": position})
        hands = env.engine.hands
        assert [[c // 4 for c in h] for h in hands][1] == [0, 2, 2, 3]  # the values stay where they were put
        suits.add(hands[1][0] % 4)  # seat 1's ace: numbered third in order
    assert suits == {0, 1, 2, 3}
    again = parallel_env(num_players=4)
    again.reset(seed=39, options={"position": position})
    assert again.engine.hands == hands  # seeded
