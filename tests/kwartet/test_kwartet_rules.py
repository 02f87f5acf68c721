"""One test (or more) per rule of docs/rules/kwartet.md; the rule id is in each test name."""

from __future__ import annotations

import numpy as np
import pytest
from kwartet_helpers import ask, hand, make_env, play_random, position, scripted

from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.events import MISS
from quatro_env.kwartet.observation import ObservationLayout

# Families 7 8 9 in play, 10..A exposed by player_3. player_2 (C) holds nothing.
K3_TABLE = position(["7♠ 7♥ 8♠", "7♦ 9♠", "", "7♣ 8♥ 8♦ 8♣ 9♥ 9♦ 9♣"], rest_to=3)


def legal_requests(env) -> set[tuple[int, str]]:
    codec = env.unwrapped.codec
    mask = env.observe(env.agent_selection)["action_mask"]
    return {(o, codec.deck.name(c)) for o, c in map(codec.decode, np.flatnonzero(mask))}


def view(env, agent: str) -> dict[str, np.ndarray]:
    return env.unwrapped.observation_layout.split(env.observe(agent)["observation"])


# ------------------------------------------------------------------------------------------- K1
@pytest.mark.parametrize(("players", "families"), [(3, 2), (4, 8), (6, 13), (5, 8)])
def test_k1_deck_is_families_of_four_members_all_dealt(players, families):
    env = make_env(num_players=players, num_families=families)
    env.reset(seed=3)
    game = env.unwrapped.game
    assert game.hands.shape[1] == 4 * families
    assert (game.hands.sum(axis=0) <= 1).all(), "a card is in two hands"
    assert game.hands.sum() + 4 * (game.exposed_by >= 0).sum() == 4 * families, "K2: no stock, all dealt"
    assert game.deck.name(4 * families - 3) == "A♥"


def test_k1_player_count_limits():
    for players in (3, 4, 5, 6):
        KwartetConfig(num_players=players)
    with pytest.raises(ValueError, match="num_players"):
        KwartetConfig(num_players=2)
    with pytest.raises(ValueError, match="num_players"):
        KwartetConfig(num_players=7)
    with pytest.raises(ValueError, match="num_families"):
        KwartetConfig(num_families=14)
    assert KwartetConfig(num_players=2, stock=True).num_players == 2


# ------------------------------------------------------------------------------------------- K2
def test_k2_deal_is_seeded_and_the_dealer_is_drawn_at_random():
    env_a, env_b = make_env(), make_env()
    dealers = set()
    for seed in range(40):
        env_a.reset(seed=seed)
        env_b.reset(seed=seed)
        assert (env_a.unwrapped.game.hands == env_b.unwrapped.game.hands).all()
        assert env_a.unwrapped.game.dealer == env_b.unwrapped.game.dealer
        dealers.add(env_a.unwrapped.game.dealer)
    assert dealers == {0, 1, 2, 3}


def test_k2_dealing_starts_left_of_the_dealer_who_then_starts():
    env = make_env(num_players=3)  # 32 cards: 11, 11, 10
    for seed in range(20):
        env.reset(seed=seed)
        game = env.unwrapped.game
        dealt = game.hand_sizes + 4 * game.scores
        dealer = game.dealer
        assert dealt[(dealer + 1) % 3] == dealt[(dealer + 2) % 3] == 11 and dealt[dealer] == 10
        assert game.to_move == (dealer + 1) % 3 and env.agent_selection == f"player_{(dealer + 1) % 3}"


def test_k2_the_dealer_is_public_in_every_observation():
    """K2 [decision]: the dealer is public; every observer sees it, relative to its own seat (project
    decision "Dealer in the observation"); a scripted position has no dealer."""
    env = make_env(num_players=5)
    for seed in range(10):
        env.reset(seed=seed)
        dealer = env.unwrapped.game.dealer
        for seat in range(5):
            assert np.flatnonzero(view(env, f"player_{seat}")["dealer"]).tolist() == [(dealer - seat) % 5]
    scripted_env = scripted(position(["7♠", "7♥", "7♦ 7♣"], rest_to=0), num_players=3)
    assert not view(scripted_env, "player_0")["dealer"].any()


def test_k2_dealt_complete_family_is_exposed_at_once_and_scores_without_reward():
    env = make_env(num_players=3, num_families=3)  # 4 cards each: a dealt quartet happens often
    for seed in range(5000):
        env.reset(seed=seed)
        if env.unwrapped.game.scores.sum() > 0:
            break
    game = env.unwrapped.game
    family = int(np.flatnonzero(game.exposed_by >= 0)[0])
    seat = int(game.exposed_by[family])
    assert game.scores[seat] >= 1 and not game.hands[:, 4 * family : 4 * family + 4].any()
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents), f"seed {seed}: K9b no reward"
    assert view(env, f"player_{seat}")["scores"][0] >= 1


def test_k2_complete_family_in_a_scripted_hand_is_exposed_at_once():
    env = scripted(position(["7♠ 7♥ 7♦", "7♣", "8♠ 8♥ 8♦ 8♣"], rest_to=2), num_players=3)
    assert env.unwrapped.game.scores.tolist() == [0, 0, 7] and hand(env, 2) == set()
    assert env.agent_selection == "player_0" and env._cumulative_rewards["player_2"] == 0


def test_k2_starter_without_cards_passes_clockwise():
    env = scripted(position(["", "", "7♠ 7♥", "7♦ 7♣"], to_move=0, rest_to=1))
    assert env.agent_selection == "player_2"


# ------------------------------------------------------------------------------------------- K3
def test_k3_mask_is_exactly_the_legal_requests():
    env = scripted(K3_TABLE)
    wanted = {"7♦", "7♣", "8♥", "8♦", "8♣"}  # held families 7, 8; not own cards; not 9 or exposed
    assert legal_requests(env) == {(o, c) for o in (1, 3) for c in wanted}  # C (offset 2) has no cards


@pytest.mark.parametrize(
    ("offset", "card", "reason"),
    [
        (1, "7♠", "you hold that card yourself"),
        (1, "9♥", "you hold no card of its family"),
        (1, "A♠", "already exposed"),
        (2, "7♦", "the target has no cards"),
    ],
)
def test_k3_illegal_request_raises_naming_agent_action_and_reason(offset, card, reason):
    env = scripted(K3_TABLE)
    with pytest.raises(ValueError, match=reason) as info:
        ask(env, offset, card)
    assert "player_0" in str(info.value) and card in str(info.value)
    assert env.agent_selection == "player_0" and hand(env, 0) == {"7♠", "7♥", "8♠"}, "state unchanged"


@pytest.mark.parametrize("action", [-1, 3 * 32, 1.0, "3", None, True])
def test_k3_malformed_actions_raise_value_error(action):
    env = make_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=env.agent_selection):
        env.step(action)


def test_k3_request_is_public_to_everyone():
    env = scripted(K3_TABLE, raw_history=True)
    ask(env, 1, "7♣")  # A asks B for 7♣: miss
    for observer in range(4):
        obs = view(env, f"player_{observer}")
        assert tuple(obs["history"][0]) == (MISS, (0 - observer) % 4, (1 - observer) % 4, 3)
        assert obs["known_lacks"][(1 - observer) % 4, 3] == 1  # B lacks 7♣
        assert obs["known_lacks"][(0 - observer) % 4, 3] == 1  # A lacks it too (K3: may not ask own card)
        assert obs["min_family_count"][(0 - observer) % 4, 0] >= 1  # A holds a 7


def test_k3_any_opponent_with_cards_may_be_asked_even_one_known_to_lack_the_card():
    env = scripted(K3_TABLE)
    ask(env, 1, "7♣")  # miss: the record now proves A lacks 7♣; B to move
    assert env.agent_selection == "player_1"
    assert (3, "7♣") in legal_requests(env)  # B may ask A (3 seats clockwise from B) for it anyway


# ------------------------------------------------------------------------------------------- K4
def test_k4_hit_moves_exactly_that_card_and_the_asker_asks_again():
    env = scripted(K3_TABLE)
    ask(env, 3, "8♥")  # A asks D for 8♥: hit
    assert hand(env, 0) == {"7♠", "7♥", "8♠", "8♥"}
    assert hand(env, 3) == {"7♣", "8♦", "8♣", "9♥", "9♦", "9♣"}
    assert env.agent_selection == "player_0"
    legal = legal_requests(env)
    assert (3, "8♦") in legal and (1, "7♦") in legal  # same or another player, same or another family


# ------------------------------------------------------------------------------------------- K5
def test_k5_miss_moves_nothing_and_the_asked_player_takes_the_turn():
    env = scripted(K3_TABLE)
    before = env.unwrapped.game.hands.copy()
    ask(env, 1, "7♣")  # B lacks it; D holds it and heard, but gives nothing
    assert (env.unwrapped.game.hands == before).all()
    assert env.agent_selection == "player_1"


# ------------------------------------------------------------------------------------------- K6
def test_k6_completed_family_is_exposed_scores_and_can_never_be_asked_again():
    env = scripted(position(["7♠ 7♥ 7♦ 8♠", "7♣ 8♥", "8♦ 8♣"], rest_to=2), num_players=3)
    ask(env, 1, "7♣")
    game = env.unwrapped.game
    assert game.exposed_by[0] == 0 and game.scores[0] == 1 and not game.hands[:, 0:4].any()
    assert env.rewards["player_0"] == 1 and env._cumulative_rewards["player_0"] == 1
    assert env.agent_selection == "player_0"  # still holds 8♠
    assert all(card.startswith("8") for _, card in legal_requests(env))
    assert view(env, "player_1")["exposed_by"][0].tolist() == [0, 0, 1]  # relative: 2 seats clockwise


# ------------------------------------------------------------------------------------------- K7
def test_k7_empty_hands_are_skipped_but_stay_in_agents():
    env = scripted(position(["7♠ 7♥ 7♦", "7♣", "8♠ 8♥", "8♦ 8♣"], rest_to=0))
    ask(env, 1, "7♣")  # A exposes and is empty; B gave its last card
    assert env.agent_selection == "player_2"
    assert legal_requests(env) == {(1, "8♦"), (1, "8♣")}  # only D still has cards
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]


def test_k7_after_a_miss_the_asked_player_keeps_the_turn_not_the_asker():
    env = scripted(position(["7♠ 8♠", "7♥ 8♥", "7♦ 7♣ 8♦ 8♣"], rest_to=0), num_players=3)
    ask(env, 1, "7♦")  # miss on B
    assert env.agent_selection == "player_1"
    ask(env, 2, "7♣")  # B asks A for 7♣: miss, A moves
    assert env.agent_selection == "player_0"


# ------------------------------------------------------------------------------------------- K8
def test_k8_game_ends_when_every_family_is_exposed():
    env = make_env(num_players=5)
    play_random(env, seed=11)
    game = env.unwrapped.game
    assert game.over and not game.hands.any() and game.scores.sum() == 8
    assert env.agents == []


def test_k8_tied_leaders_share_the_win():
    exposed = {"7": 0, "8": 0, "9": 0, "10": 1, "J": 1, "Q": 2, "K": 3}
    env = scripted(position(["", "A♠ A♥ A♦", "A♣", ""], 1, exposed), reward_mode="win_loss")
    ask(env, 1, "A♣")  # B completes aces: A 3, B 3, C 1, D 1
    assert env.unwrapped.game.scores.tolist() == [3, 3, 1, 1]
    assert [env._cumulative_rewards[f"player_{s}"] for s in range(4)] == [0.5, 0.5, -0.5, -0.5]
    assert [env.infos[f"player_{s}"]["winner"] for s in range(4)] == [True, True, False, False]
    assert all(env.terminations.values())


def test_k8_everyone_tied_gets_zero_in_win_loss():
    exposed = {"7": 0, "8": 0, "9": 1, "10": 2, "J": 2, "Q": 3, "K": 3}
    env = scripted(position(["", "A♠ A♥ A♦", "A♣", ""], 1, exposed), reward_mode="win_loss")
    ask(env, 1, "A♣")
    assert env.unwrapped.game.scores.tolist() == [2, 2, 2, 2]
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents)
    assert all(env.infos[a]["winner"] for a in env.agents)


def test_k8_max_requests_truncates_and_win_loss_pays_nothing():
    env = make_env(max_requests=3, reward_mode="win_loss")
    returns = play_random(env, seed=2)
    assert env.unwrapped.game.truncated and env.unwrapped.game.requests == 3
    assert returns == dict.fromkeys(env.possible_agents, 0.0)
    game = env.unwrapped.game  # cards are still held, yet no request is legal any more
    assert game.hand_sizes.sum() > 0 and not game.legal_mask().any()
    with pytest.raises(ValueError, match="the game is over"):
        game.request(1, 0)


def test_k3_the_rules_object_refuses_an_illegal_request_with_its_reason():
    """K3 at the rules object (the env checks the mask first): a request for one's own card is refused,
    nothing moves."""
    env = make_env()
    env.reset(seed=0)
    game = env.unwrapped.game
    own = int(np.flatnonzero(game.hands[game.to_move])[0])
    before = game.hands.copy()
    with pytest.raises(ValueError, match=r"you hold that card yourself \(K3\)"):
        game.request(1, own)
    n, cards = game.num_players, game.config.num_cards
    for offset, card, says in [
        (n, own, rf"target offset {n} is not in 1..{n - 1}"),
        (0, own, rf"target offset 0 is not in 1..{n - 1}"),
        (1, cards, rf"card id {cards} is not in 0..{cards - 1}"),
    ]:
        with pytest.raises(ValueError, match=says):
            game.request(offset, card)
    assert (game.hands == before).all() and game.requests == 0
    # a family exposed by seat 0 is exposed like any other (K6)
    env = scripted(position(["8♠ 8♥", "8♦ 8♣ 9♠", "9♥ 9♦ 9♣", ""], 1, {"7": 0}, rest_to=3))
    with pytest.raises(ValueError, match=r"its family is already exposed \(K3/K6\)"):
        env.unwrapped.game.request(1, env.unwrapped.game.deck.card("7♠"))


# ------------------------------------------------------------------------------------------- K9
def test_k9_clockwise_variant_passes_the_turn_left_of_the_asker_after_a_miss():
    table = position(["7♠ 8♠", "7♥ 8♥", "7♦ 8♦", "7♣ 8♣"], rest_to=0)
    env = scripted(table, turn_after_miss="clockwise")
    ask(env, 2, "7♥")  # A asks C, C lacks it: the turn goes to B (A's left), not C
    assert env.agent_selection == "player_1"
    ask(env, 2, "7♣")  # B asks D, hit: B keeps the turn
    assert env.agent_selection == "player_1"


def test_k9_stock_variant_deals_seven_each_and_the_asker_draws_after_a_miss():
    env = make_env(num_players=2, stock=True)
    env.reset(seed=1)
    game = env.unwrapped.game
    assert (game.hand_sizes + 4 * game.scores).tolist() == [7, 7] and len(game.stock) == 18
    seat = game.to_move
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    misses = [a for a in legal if not game.hands[1 - seat, env.unwrapped.codec.decode(a)[1]]]
    size, stock, asked = game.hand_sizes[seat], len(game.stock), f"player_{1 - seat}"
    env.step(int(misses[0]))
    assert len(game.stock) == stock - 1
    assert game.hand_sizes[seat] + 4 * game.scores[seat] == size + 1  # the draw (maybe exposed)
    assert env.agent_selection == asked


def test_k9_stock_variant_empty_hand_draws_while_the_stock_lasts():
    pos = position(["7♠ 7♥ 7♦", "7♣"], stock="8♠ 8♥ 8♦ 8♣", rest_to=0)
    env = scripted(pos, num_players=2, stock=True)
    ask(env, 1, "7♣")  # A exposes 7s; B (empty) draws 8♠, then A (empty) draws 8♥
    assert hand(env, 0) == {"8♥"} and hand(env, 1) == {"8♠"} and env.unwrapped.game.stock == [6, 7]
    assert env.agent_selection == "player_0" and env.rewards["player_0"] == 1
    ask(env, 1, "8♦")  # miss: A draws 8♦ privately, B moves
    assert hand(env, 0) == {"8♥", "8♦"} and env.agent_selection == "player_1"
    assert view(env, "player_1")["known_holds"][1].sum() == 0  # B cannot know what A drew


@pytest.mark.parametrize(("starter", "drawer"), [(0, 1), (1, 1), (2, 3)])
def test_k9_stock_variant_hands_emptied_at_the_start_draw_clockwise_from_the_starter(starter, drawer):
    """Project decision (docs/kwartet.md, "Stock variant"): seats 1 and 3 expose their dealt families (K2)
    and are left empty; the one stock card goes to whichever of them comes first clockwise from the
    starter, the starter included."""
    pos = position(["9♠ 9♥", "7♠ 7♥ 7♦ 7♣", "9♣", "8♠ 8♥ 8♦ 8♣"], to_move=starter, stock="9♦", rest_to=0)
    env = scripted(pos, num_players=4, stock=True)
    assert hand(env, drawer) == {"9♦"} and hand(env, 4 - drawer) == set() and env.unwrapped.game.stock == []


@pytest.mark.parametrize(
    ("turn_after_miss", "next_to_move"), [("asked", "player_2"), ("clockwise", "player_1")]
)
def test_k9_stock_variant_with_three_players_keeps_the_turn_after_miss_setting(turn_after_miss, next_to_move):
    """Project decision (docs/kwartet.md, "Stock variant"): with more than two players the stock's draw
    after a miss does not override ``turn_after_miss``; the turn goes to the asked player by default,
    left of the asker with "clockwise" (with two players both are the asked player)."""
    pos = position(["7♠ 8♠", "7♥ 8♥", "7♦ 8♦"], stock="7♣ 8♣", rest_to=0)
    env = scripted(pos, num_players=3, stock=True, turn_after_miss=turn_after_miss)
    ask(env, 2, "7♥")  # A asks C for 7♥, which B holds: a miss; A draws 7♣ privately
    game = env.unwrapped.game
    assert hand(env, 0) == {"7♠", "8♠", "7♣"} and [game.deck.name(c) for c in game.stock] == ["8♣"]
    assert env.agent_selection == next_to_move


def test_k9_variants_are_validated_before_the_game():
    with pytest.raises(ValueError, match="stock"):
        KwartetConfig(num_players=6, stock=True)  # 42 cards needed, 32 in the deck
    with pytest.raises(ValueError, match="turn_after_miss"):
        KwartetConfig(turn_after_miss="left")
    with pytest.raises(ValueError, match="stock"):
        scripted(position(["7♠", "7♥", "7♦"], stock="7♣", rest_to=0), num_players=3)


# ------------------------------------------------------------------------------------------ K9b
def test_k9b_reward_modes():
    assert KwartetConfig(reward_mode="families").reward_mode == "per_family"  # the rules file's name
    for seed in range(20):
        env = make_env(num_players=4)
        env.reset(seed=seed)
        dealt = env.unwrapped.game.scores.sum()
        assert sum(play_random(env, seed=seed).values()) == 8 - dealt  # +1 per family exposed in play
    returns = play_random(make_env(num_players=4, reward_mode="win_loss"), seed=5)
    assert sum(returns.values()) == pytest.approx(0.0) and max(returns.values()) > 0


# ------------------------------------------------------------------------------------------ K10
def test_k10_observation_holds_own_hand_sizes_turn_scores_and_exposures_egocentrically():
    table = position(["7♠ 7♥", "7♦ 8♠", "7♣ 8♥ 8♦ 8♣"], to_move=1, exposed={"9": 2}, rest_to=0)
    env = scripted(table, num_players=3)
    game = env.unwrapped.game
    obs = view(env, "player_1")
    assert [game.deck.name(c) for c in np.flatnonzero(obs["hand"])] == ["7♦", "8♠"]
    assert obs["hand_sizes"].tolist() == [2, 4, 2]  # me (B), C, A
    assert obs["to_move"].tolist() == [1, 0, 0]
    assert obs["scores"].tolist() == [0, 1, 5]  # C exposed 9; A the five families placed nowhere
    assert obs["exposed_by"][2].tolist() == [0, 1, 0]
    assert obs["stock_size"][0] == 0


def test_k10_observation_never_reveals_another_players_hand():
    # B and C swap hidden cards (same hand sizes): A's observations must not change.
    first = position(["7♠ 8♠", "7♥ 8♥ 9♠", "7♦ 7♣ 8♦ 8♣ 9♥ 9♦ 9♣"], rest_to=0)
    second = position(["7♠ 8♠", "7♦ 8♦ 9♥", "7♥ 7♣ 8♥ 8♣ 9♠ 9♦ 9♣"], rest_to=0)
    envs = [scripted(table, num_players=3, raw_history=True) for table in (first, second)]
    assert (envs[0].unwrapped.game.hands != envs[1].unwrapped.game.hands).any()
    a, b = (env.observe("player_0")["observation"] for env in envs)
    assert (a == b).all()
    for env in envs:
        ask(env, 1, "7♣")  # a miss in both tables: B holds no 7♣ in either
    a, b = (env.observe("player_0")["observation"] for env in envs)
    assert (a == b).all()


def test_k10_summary_is_the_same_for_every_observer_rotated_to_each():
    env = make_env(num_players=4)

    def check(env, agent, obs):
        knowledge = env.unwrapped.game.knowledge
        for observer in range(4):
            v = view(env, f"player_{observer}")
            rotate = (observer + np.arange(4)) % 4
            assert (v["known_holds"] == knowledge.holds[rotate]).all()
            assert (v["known_lacks"] == knowledge.lacks[rotate]).all()
            assert (v["min_family_count"] == knowledge.min_count[rotate]).all()

    play_random(env, seed=4, on_turn=check)


def test_k10_raw_history_is_optional_most_recent_first_and_padded():
    short = ObservationLayout(KwartetConfig())
    long = ObservationLayout(KwartetConfig(raw_history=True, history_length=5))
    assert long.size == short.size + 5 * 4 and "history" not in short.sections
    env = scripted(K3_TABLE, raw_history=True, history_length=5)
    ask(env, 3, "8♥")
    ask(env, 3, "8♦")
    hist = view(env, "player_2")["history"]
    assert hist[:2, 3].tolist() == [6, 5] and (hist[2:] == 0).all()
