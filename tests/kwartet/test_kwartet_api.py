"""PettingZoo conformance (api_test, seed_test), construction, reset options and rendering."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from kwartet_helpers import make_env, play_random, position, scripted
from pettingzoo.test import api_test, seed_test

from quatro_env import kwartet_v0
from quatro_env.kwartet import KwartetConfig
from quatro_env.kwartet.env import raw_env

VARIANTS = [
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 4, "turn_after_miss": "clockwise", "raw_history": True, "reward_mode": "win_loss"},
    {"num_players": 2, "stock": True},
    {"num_players": 6, "num_families": 13, "raw_history": True, "history_length": 16},
]


@pytest.mark.parametrize("config", VARIANTS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_pettingzoo_api_test(config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's own style warnings and our unknown-option warning
        api_test(kwartet_v0.env(**config), num_cycles=1000)


@pytest.mark.parametrize("config", VARIANTS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_pettingzoo_seed_test(config):
    seed_test(lambda: kwartet_v0.env(**config), num_cycles=300)


def test_parallel_env_is_not_offered_because_the_game_is_turn_based():
    assert not hasattr(kwartet_v0, "parallel_env")
    assert raw_env.metadata["is_parallelizable"] is False


def test_a_human_render_mode_comes_with_a_pace():
    """Gymnasium's convention (HumanRendering reads it): ``render_fps`` beside a "human" mode."""
    assert "human" in raw_env.metadata["render_modes"] and raw_env.metadata["render_fps"] == 1


def test_env_accepts_a_config_object_or_keywords_but_not_both():
    config = KwartetConfig(num_players=5)
    assert raw_env(config=config).possible_agents[-1] == "player_4"
    with pytest.raises(ValueError, match="either"):
        raw_env(config=config, num_players=3)
    with pytest.raises(ValueError, match="num_players"):
        kwartet_v0.env(num_players=9)
    with pytest.raises(ValueError, match="colour"):
        kwartet_v0.env(colour="red")


def test_reset_without_seed_continues_the_rng_and_with_seed_repeats():
    """(tests/test_unseeded_reset.py: the continued stream, for every game.) Every reward starts at 0."""
    env = make_env()
    env.reset(seed=7)
    first = env.unwrapped.game.hands.copy()
    env.reset()
    assert (env.unwrapped.game.hands != first).any()
    assert set(env.rewards.values()) == {0.0} and set(env._cumulative_rewards.values()) == {0.0}
    env.reset(seed=7)
    assert (env.unwrapped.game.hands == first).all()


def test_declared_spaces_are_an_int8_mask_and_the_layouts_observation():
    env = make_env(num_players=4)
    space = env.observation_space("player_0")
    assert space["action_mask"] == spaces.Box(0, 1, (env.unwrapped.codec.num_actions,), np.int8)
    assert space["observation"] == env.unwrapped._encoder.layout.space()


def test_finished_game_refuses_actions_but_accepts_none_for_dead_agents():
    env = make_env()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    with pytest.raises(ValueError, match="over"):
        env.step(0)
    for agent in env.possible_agents:  # docs/kwartet.md, "Infos": the score and the result
        seat = env.unwrapped.agent_name_mapping[agent]
        assert env.infos[agent] == {
            "score": int(env.unwrapped.game.scores[seat]),
            "winner": seat in env.unwrapped.game.winners(),
        }
    while env.agents:
        env.step(None)
    with pytest.raises(ValueError, match="reset"):
        env.unwrapped.step(None)


def test_bad_actions_and_options_are_refused_in_one_line_naming_them():
    """The mover, the action and why: not an integer, outside the action space, or illegal (with the card
    asked for and whom, by name and place: K3)."""
    env = make_env(num_players=4)
    env.reset(seed=3)
    for bad in ("x", 1.5, True):
        with pytest.raises(ValueError, match=rf"^player_1: action {bad!r} is not an integer in 0\.\.95$"):
            env.step(bad)
    with pytest.raises(ValueError, match=r"^player_1: action 96 is not in 0\.\.95$"):
        env.step(96)
    with pytest.raises(
        ValueError,
        match=r"^player_1: illegal action 1 \(ask \(player_2, 1 seat clockwise\) for 7♥\): "
        r"you hold that card yourself \(K3\)$",
    ):
        env.step(1)
    with pytest.raises(ValueError, match=r"^reset options: must be a dict or None, got int$"):
        env.reset(seed=1, options=5)


def test_step_before_reset_is_refused():
    with pytest.raises(Exception, match="reset"):
        kwartet_v0.env().step(0)
    for call in (lambda env: env.observe("player_0"), lambda env: env.render()):
        with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
            call(raw_env(render_mode="ansi"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hands": [["7♠"], ["7♠"], []]}, "more than once"),
        ({"hands": [["7♠"], []]}, "hands"),
        ({"to_move": 5}, "to_move"),
        ({"to_move": "player_9"}, "to_move"),
        ({"hands": [["Z♠"], [], []]}, "unknown card"),
        ({"exposed": {"X": 0}}, "unknown family"),
        ({"hands": [["7♠"], [], []], "exposed": {}}, "missing"),
        ({"seats": 3}, "seats"),
    ],
)
def test_scripted_position_is_validated_with_a_clear_error(change, field):
    table = position(["7♠ 7♥", "7♦", "7♣"], rest_to=0) | change
    with pytest.raises(ValueError, match=field):
        scripted(table, num_players=3)


def test_scripted_position_accepts_names_ids_and_agent_names():
    table = position(["7♠ 7h", "7D", "7♣"], rest_to=0)
    table["hands"][0] = [0, "7h"]
    table["to_move"] = "player_1"
    env = scripted(table, num_players=3)
    assert env.agent_selection == "player_1" and env.unwrapped.game.hands[0, :2].all()


def test_unknown_reset_options_warn_but_do_not_fail():
    env = make_env()
    with pytest.warns(UserWarning, match="unknown options"):
        env.reset(seed=0, options={"postion": {}})


def test_ansi_and_human_rendering(capsys):
    env = scripted(position(["7♠ 7♥", "7♦", "7♣"], rest_to=0), num_players=3, render_mode="ansi")
    text = env.render()
    assert "> player_0" in text and "7♠ 7♥" in text and "9:player_0" in text
    env.step(env.codec.encode(1, "7♣"))
    assert "player_0 asked player_1 for 7♣: miss" in env.render()
    human = make_env(render_mode="human")
    play_random(human, seed=0)
    assert "over" in capsys.readouterr().out
    with pytest.warns(UserWarning, match="render_mode"):
        assert make_env().unwrapped.render() is None
