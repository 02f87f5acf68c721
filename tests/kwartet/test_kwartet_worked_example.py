"""The source's worked example (section 06): A asks B for Q♥; the final tally A 3, B 2, C 2, D 1."""

from __future__ import annotations

from kwartet_helpers import ask, hand, position, scripted

# A already exposed 7 8, B 9 10, C J, D the aces (D's hand is empty: D "emptied first").
EXPOSED = {"7": 0, "8": 0, "9": 1, "10": 1, "J": 2, "A": 3}
TABLE = position(["Q♠ Q♦ Q♣ K♥", "Q♥ K♠", "K♦ K♣", ""], to_move=0, exposed=EXPOSED)


def test_k4_k6_worked_example_a_gets_the_queen_of_hearts_exposes_and_keeps_the_turn():
    env = scripted(TABLE)
    ask(env, 1, "Q♥")  # "B, ¿me das reina de corazones?"
    game = env.unwrapped.game
    assert hand(env, 1) == {"K♠"}, "B hands over exactly Q♥ and nothing else"
    assert game.exposed_by[game.deck.family("Q")] == 0 and env.rewards["player_0"] == 1
    assert hand(env, 0) == {"K♥"} and env.agent_selection == "player_0", "A still has cards: A goes on"


def test_k5_worked_example_b_without_the_queen_c_does_not_hand_it_over():
    table = position(["Q♠ Q♦ Q♣ K♥", "K♠", "Q♥ K♦ K♣", ""], to_move=0, exposed=EXPOSED)
    env = scripted(table)
    ask(env, 1, "Q♥")
    assert hand(env, 2) == {"Q♥", "K♦", "K♣"}, "C heard the request but keeps its queen"
    assert hand(env, 0) == {"Q♠", "Q♦", "Q♣", "K♥"} and env.agent_selection == "player_1"


def test_k8_worked_example_final_tally_a3_b2_c2_d1_sums_to_eight_and_a_wins():
    env = scripted(TABLE, reward_mode="win_loss")
    ask(env, 1, "Q♥")  # hit, A exposes queens (3) and keeps the turn with K♥
    ask(env, 1, "K♦")  # A asks B: miss, B moves
    ask(env, 1, "K♥")  # B asks C: miss, C moves
    ask(env, 2, "K♥")  # C asks A: hit
    ask(env, 3, "K♠")  # C asks B: hit, C exposes the kings: game over
    game = env.unwrapped.game
    assert game.scores.tolist() == [3, 2, 2, 1] and game.scores.sum() == 8
    assert game.over and not game.hands.any() and all(env.terminations.values())
    assert [env.infos[f"player_{s}"]["winner"] for s in range(4)] == [True, False, False, False]
    assert env._cumulative_rewards["player_0"] == 1.0, "A wins although D emptied its hand first"
    assert env._cumulative_rewards["player_3"] == -1 / 3
