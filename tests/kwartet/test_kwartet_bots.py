"""Behaviour of the random and memory bots."""

from __future__ import annotations

import numpy as np
import pytest
from kwartet_helpers import make_env, position, scripted

from quatro_env.kwartet import KwartetConfig
from quatro_env.kwartet.bots import MemoryBot, RandomBot, make_bot
from quatro_env.kwartet.tournament import play_matchup


def observation_stream(seed: int, num_players: int = 4, turns: int = 200):
    """(env, observation, agent) at each turn of a random-play game."""
    env = make_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(turns):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return
        yield env, obs, agent
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("name", ["random", "memory"])
def test_bots_pick_legal_actions_deterministically_per_seed(name):
    stream = list(observation_stream(seed=3))
    first = [make_bot(name, 5)(obs, agent) for _, obs, agent in stream]
    again = [make_bot(name, 5)(obs, agent) for _, obs, agent in stream]
    assert first == again
    assert all(obs["action_mask"][a] == 1 for a, (_, obs, _) in zip(first, stream, strict=True))


def test_random_bot_is_uniform_over_legal_actions():
    mask = np.zeros(96, dtype=np.int8)
    mask[[3, 10, 50, 77]] = 1
    bot = RandomBot(0)
    counts = np.bincount([bot({"action_mask": mask}, "player_0") for _ in range(4000)], minlength=96)
    assert set(np.flatnonzero(counts)) == {3, 10, 50, 77}
    assert counts[[3, 10, 50, 77]].min() > 900  # expected 1000 each


def test_bots_refuse_an_empty_mask():
    with pytest.raises(ValueError, match="player_2"):
        RandomBot(0)({"action_mask": np.zeros(96, dtype=np.int8)}, "player_2")


def test_memory_bot_asks_for_a_card_the_record_proves_someone_holds():
    """When the public record proves an opponent holds a card the bot may ask for, the bot makes a
    request that is just as certain (that one, or one its own hand proves): it never misses."""
    seen = 0
    for seed in range(6):
        for env, obs, agent in observation_stream(seed):
            layout = env.unwrapped.observation_layout
            proven = layout.split(obs["observation"])["known_holds"][1:].ravel().astype(bool)
            if (proven & obs["action_mask"].astype(bool)).any():
                seen += 1
                game, codec = env.unwrapped.game, env.unwrapped.codec
                offset, card = codec.decode(MemoryBot(seed)(obs, agent))
                assert game.hands[(game.to_move + offset) % game.num_players, card], f"seed {seed}: missed"
    assert seen > 20


def test_memory_bot_uses_its_own_hand_to_eliminate():
    table = position(["7♠ 8♠", "7♥ 8♥", "7♦ 8♦", "7♣ 8♣"], to_move=1, rest_to=0)
    env = scripted(table)
    env.step(env.codec.encode(2, "7♦"))  # B asks D for 7♦: miss, so B and D lack it; D moves
    env.step(env.codec.encode(1, "8♥"))  # D asks A for 8♥: miss; A moves
    obs = env.observe("player_0")
    known_holds = env.observation_layout.split(obs["observation"])["known_holds"]
    assert not known_holds.any(), "the public record alone does not locate 7♦ (A or C may hold it)"
    action = MemoryBot(0)(obs, "player_0")
    assert env.codec.describe(action) == "ask (2 seats clockwise) for 7♦", "A knows it lacks 7♦: C has it"


def test_memory_bot_checks_the_observation_size():
    env = make_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="layout"):
        MemoryBot(0)(env.observe(env.agent_selection), env.agent_selection)  # default config: 4 players


def test_memory_bot_beats_random_bots():
    result = play_matchup("memory", "random", 80, KwartetConfig(num_players=4), seed=100)
    assert result.sole_wins / result.games > 0.6  # an equal seat wins about 0.2 outright
    assert make_bot("memory", 1).__class__ is MemoryBot
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever", 0)
