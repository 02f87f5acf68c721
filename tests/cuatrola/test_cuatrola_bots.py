"""Behaviour of the baseline bots and the tournament harness."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import PASS, declare, play, sing
from quatro_env.cuatrola.bots import BOTS, GreedyBot, RandomBot, estimate_tricks
from quatro_env.cuatrola.cards import CARD_POINTS, CARD_SUIT, parse_card
from quatro_env.cuatrola.state import Phase
from quatro_env.cuatrola.tournament import format_table, main, run_matchup
from quatro_env.cuatrola.tricks import trick_winner

from .helpers import hands, play_cards, random_steps, scripted


def _observation(env):
    return env.observe(env.agent_selection)


def _trace(bot_cls, seed: int) -> list[int]:
    env = cuatrola_v0.env()
    env.reset(seed=seed)
    bots = {a: bot_cls(seed * 4 + i) for i, a in enumerate(env.possible_agents)}
    actions = []
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        action = None if term else bots[agent](obs, agent)
        if action is not None:
            assert obs["action_mask"][action] == 1
            actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("bot_cls", [RandomBot, GreedyBot])
def test_bots_play_only_legal_actions_and_are_deterministic_per_seed(bot_cls):
    assert _trace(bot_cls, 11) == _trace(bot_cls, 11)


def test_random_bot_differs_across_seeds():
    assert _trace(RandomBot, 1) != _trace(RandomBot, 2)


# Dealer 1 holds every trump (bastos); mano is seat 2.
ALL_TRUMPS_AT_1 = hands("Ao 3o Ro Co So", "Ab 3b Rb Cb Sb", "Ac 3c Rc Cc Sc", "Ae 3e Re Ce Se")


def test_greedy_declares_from_hand_strength_within_C11():
    bot = GreedyBot(0)
    env, _ = scripted(ALL_TRUMPS_AT_1, "Sb", dealer=1)
    for agent in ("player_2", "player_3", "player_0"):  # plain suits without trumps: pass
        assert env.agent_selection == agent and bot(_observation(env), agent) == PASS
        env.step(PASS)
    assert bot(_observation(env), "player_1") == declare("quintola")
    env, _ = scripted(ALL_TRUMPS_AT_1, "Sb", dealer=1, scores=[0, 8])
    for _ in range(3):
        env.step(PASS)
    assert bot(_observation(env), "player_1") == declare("solo")  # the most C11 still allows
    strong = [parse_card(c) for c in ("Ab", "3b", "Rb", "Cb", "So")]
    weak = [parse_card(c) for c in ("Sb", "Sc", "Se", "Cc", "Ce")]
    assert estimate_tricks(strong, 3) >= 3.9 > 1 > estimate_tricks(weak, 3)


def test_greedy_sings_trumps_first():
    spec = hands("Ab 3b Rb Cb Ao", "3o Ac 3c Rc Cc", "Ro Ae 3e Re Ce", "Co So Sb Sc Se")
    env, _ = scripted(spec, "Sb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "So")
    assert GreedyBot(0)(_observation(env), "player_0") == sing("bastos")
    env.step(PASS)
    assert GreedyBot(0)(_observation(env), "player_2") == sing("espadas")


@pytest.mark.parametrize("bot_cls", [RandomBot, GreedyBot])
def test_bots_pass_at_a_cante_turn_where_only_pass_is_legal(bot_cls):
    """D2: the window asks the winner's pair even when it cannot sing; the bots then pass."""
    spec = hands("Ao 3c Rc Ce Sb", "3o Ac Cc Ae 3e", "Ro Sc Re Se Ab", "Co So 3b Rb Cb")
    env, game = scripted(spec, "Cb", dealer=3, phase="play")
    play_cards(env, "Ao", "3o", "Ro", "Co")
    for agent in ("player_0", "player_2"):
        assert game.phase == Phase.CANTE and env.agent_selection == agent
        action = bot_cls(0)(_observation(env), agent)
        assert action == PASS
        env.step(action)
    assert game.phase == Phase.PLAY


def test_greedy_takes_a_trick_with_its_cheapest_winning_card_when_last():
    spec = hands("Ro Ac 3c Rc Cc", "So Sc Ae 3e Se", "Ao 3o Co Re Ce", "Ab 3b Rb Cb Sb")
    env, _ = scripted(spec, "Sb", dealer=3, phase="play", config={"cantes": False})
    play_cards(env, "Ro", "So", "3o")
    assert GreedyBot(0)(_observation(env), "player_3") == play("Sb")  # any trump wins: the Sota


def _points(card: int) -> int:
    return CARD_POINTS[card]


@pytest.mark.parametrize("seed", range(6))
def test_greedy_trick_play_rules_over_random_matches(seed):
    """Whenever greedy plays last: it loads the most points on a trick its partner holds, and
    takes a trick an opponent holds with its cheapest winning card if it has one."""
    env = cuatrola_v0.env(cantes=False)
    env.reset(seed=seed)
    game = env.unwrapped.game
    bots = {a: GreedyBot(seed) for a in env.possible_agents}
    checked = 0
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        if term:
            env.step(None)
            continue
        action = bots[agent](obs, agent)
        last = game.phase == Phase.PLAY and len(game.trick) + 1 == game.players_in_hand
        if last:
            seat = int(agent[-1])
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            best_seat = game.trick_seats[trick_winner(game.trick, game.trump)]
            winners = [c for c in legal if trick_winner([*game.trick, c], game.trump) == len(game.trick)]
            if best_seat == (seat + 2) % 4:
                plain = [c for c in legal if CARD_SUIT[c] != game.trump]
                pool = plain or legal
                assert _points(action) == max(_points(c) for c in pool)
                checked += 1
            elif winners:
                assert action in winners
                cheapest = min((CARD_SUIT[c] == game.trump, _points(c)) for c in winners)
                assert (CARD_SUIT[action] == game.trump, _points(action)) == cheapest
                checked += 1
        env.step(action)
    assert checked > 0


def test_greedy_beats_random():
    result = run_matchup("greedy", "random", matches=60, seed=123)
    assert result.wins_a >= 54  # the 1000-match tournament measures ~99.8%


def test_tournament_table_and_cli(capsys):
    result = run_matchup("random", "random", matches=4, seed=0)
    table = format_table([result])
    assert table.splitlines()[0].startswith("| pair A | pair B | matches")
    assert "| random | random | 4 |" in table
    main(["--matches", "3", "--matchups", "greedy:random"])
    out = capsys.readouterr().out
    assert "| greedy | random | 3 |" in out
    with pytest.raises(SystemExit):
        main(["--matches", "3", "--matchups", "greedy:nobody"])
    with pytest.raises(ValueError, match="unknown bot"):
        run_matchup("greedy", "nobody", 1)
    assert set(BOTS) == {"random", "greedy"}


def test_random_bot_picks_among_legal_actions_only():
    env = cuatrola_v0.env()
    env.reset(seed=4)
    bot = RandomBot(4)
    picks = set()
    for agent, _, obs in random_steps(env, seed=4):
        action = bot(obs, agent)
        assert obs["action_mask"][action] == 1
        picks.add(action)
    assert len(picks) > 5
