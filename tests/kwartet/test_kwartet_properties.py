"""Property tests over random legal play (hypothesis draws configurations and seeds)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_helpers import make_env

from quatro_env.kwartet.cards import MEMBERS
from quatro_env.kwartet.knowledge import PublicKnowledge

CONFIGS = st.one_of(
    st.builds(
        dict,
        num_players=st.integers(3, 6),
        num_families=st.integers(2, 13),
        turn_after_miss=st.sampled_from(["asked", "clockwise"]),
        reward_mode=st.sampled_from(["per_family", "win_loss"]),
    ),
    st.builds(dict, num_players=st.integers(2, 4), num_families=st.integers(7, 13), stock=st.just(True)),
)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def legal_by_rules(game) -> np.ndarray:
    """K3 restated independently: (offset - 1, card) is legal iff the target has cards, the card's
    family is one the asker holds, and the asker lacks the card."""
    n, seat, cards = game.num_players, game.to_move, game.config.num_cards
    mask = np.zeros((n - 1, cards), dtype=bool)
    own = {c for c in range(cards) if game.hands[seat, c]}
    families = {c // MEMBERS for c in own}
    for offset in range(1, n):
        if game.hands[(seat + offset) % n].any():
            for card in range(cards):
                mask[offset - 1, card] = card // MEMBERS in families and card not in own
    return mask


def play(config: dict, seed: int, check) -> object:
    env = make_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    env.unwrapped.dealt_families = int(env.unwrapped.game.scores.sum())  # exposed before any request
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(50_000):
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        check(env, obs, rng)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return env, returns


@SETTINGS
@given(config=CONFIGS, seed=st.integers(0, 2**31 - 1))
def test_every_game_terminates_with_score_total_equal_to_the_families(config, seed):
    env, returns = play(config, seed, lambda *_: None)
    game = env.unwrapped.game
    assert game.over and not game.truncated, "K8: random legal play always ends"
    assert game.scores.sum() == config["num_families"] and not game.hands.any() and not game.stock
    if config.get("reward_mode") == "win_loss":
        assert sum(returns.values()) == pytest.approx(0.0)
    else:
        assert sum(returns.values()) == game.scores.sum() - env.unwrapped.dealt_families  # K9b


@SETTINGS
@given(config=CONFIGS, seed=st.integers(0, 2**31 - 1))
def test_mask_equals_legality_exactly(config, seed):
    def check(env, obs, rng):
        game = env.unwrapped.game
        mask = obs["action_mask"].astype(bool)
        assert (mask.reshape(game.num_players - 1, -1) == legal_by_rules(game)).all()
        # Masked-out actions raise and change nothing; masked-in ones are accepted.
        illegal = np.flatnonzero(~mask)
        before = game.hands.copy()
        for action in rng.choice(illegal, size=min(5, illegal.size), replace=False):
            with pytest.raises(ValueError, match="illegal action"):
                env.step(int(action))
        assert (game.hands == before).all() and env.agent_selection == f"player_{game.to_move}"
        if rng.random() < 0.05:
            for action in np.flatnonzero(mask):
                copy.deepcopy(env).step(int(action))

    play(config, seed, check)


@SETTINGS
@given(config=CONFIGS, seed=st.integers(0, 2**31 - 1))
def test_public_summary_never_claims_more_than_the_truth(config, seed):
    def check(env, obs, rng):
        game = env.unwrapped.game
        knowledge = game.knowledge
        assert not (knowledge.holds & ~game.hands).any(), "'known to hold' but does not"
        assert not (knowledge.lacks & game.hands).any(), "'known not to hold' but does"
        true_counts = game.hands.reshape(game.num_players, -1, MEMBERS).sum(axis=2)
        assert (knowledge.min_count <= true_counts).all(), "'holds at least m' overstated"
        assert knowledge.sizes == game.hand_sizes.tolist()
        # Same checks through the observer's egocentric observation.
        layout = env.unwrapped.observation_layout
        seat = game.to_move
        view = layout.split(obs["observation"])
        rotate = (seat + np.arange(game.num_players)) % game.num_players
        assert not (view["known_holds"].astype(bool) & ~game.hands[rotate]).any()
        assert not (view["known_lacks"].astype(bool) & game.hands[rotate]).any()
        assert env.observation_space(f"player_{seat}").contains(obs)

    env, _ = play(config, seed, check)
    game = env.unwrapped.game
    replayed = PublicKnowledge.replay(game.public_start, game.events.rows)
    assert (replayed.holds == game.knowledge.holds).all() and (replayed.lacks == game.knowledge.lacks).all()


def test_the_summary_learns_something():
    """Guards the soundness property against a summary that trivially claims nothing."""
    holds, partly_known = [], []
    for seed in range(5):

        def record(env, *_):
            knowledge = env.unwrapped.game.knowledge
            holds.append(int(knowledge.holds.sum()))
            partly_known.append(int((knowledge.lacks & ~knowledge.lacks.all(axis=0)).sum()))

        play({"num_players": 4}, seed, record)
    assert max(holds) > 0 and max(partly_known) > 0
