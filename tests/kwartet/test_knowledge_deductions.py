"""K10: the deduction rules of the public-knowledge summary (``PublicKnowledge._propagate``).

One scripted position per rule, each failing when that rule alone is removed; then a brute-force
check on tiny games: every deal consistent with the public record is enumerated, every fact the
summary claims must hold in all of them (soundness) and the summary must be closed under its own
rules (nothing a single rule derives from its claims is missing). Also pins the project decision
"Order of dealt exposures" (K2).

Seats: A = 0, B = 1, C = 2, D = 3 (clockwise). ``rest_to`` exposes the families a position does not
spell out, so only the cards that matter are in play.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from kwartet_helpers import ask, position, scripted

from quatro_env.kwartet.cards import MEMBERS
from quatro_env.kwartet.env import raw_env
from quatro_env.kwartet.events import DRAW, EXPOSE, HIT, MISS
from quatro_env.kwartet.knowledge import PublicKnowledge

A, B, C, D = range(4)


def knowledge(env) -> PublicKnowledge:
    return env.unwrapped.game.knowledge


def holds(env, seat: int, *names: str) -> bool:
    """The summary proves ``seat`` holds every card in ``names``."""
    deck = env.unwrapped.game.deck
    return all(knowledge(env).holds[seat, deck.card(name)] for name in names)


def lacks(env, seat: int, *names: str) -> bool:
    """The summary proves ``seat`` holds none of the cards in ``names``."""
    deck = env.unwrapped.game.deck
    return all(knowledge(env).lacks[seat, deck.card(name)] for name in names)


def min_count(env, seat: int, family: str) -> int:
    game = env.unwrapped.game
    return int(knowledge(env).min_count[seat, game.deck.family(family)])


# ------------------------------------------------------------------------ one test per rule (K10)
def test_k10_a_card_only_one_player_may_hold_is_held_by_that_player():
    """K10, no stock: every card in play is in some hand, so once the record rules out every other
    player the last candidate holds it. A asks B for 7♣ and misses: A lacks it (it asked), B lacks it
    (the miss), so C, who took no part, holds it (the audit's case)."""
    env = scripted(position(["7♠ 7♥", "7♦", "7♣"], rest_to=A), num_players=3)
    ask(env, 1, "7♣")
    assert lacks(env, A, "7♣") and lacks(env, B, "7♣")  # what the event says directly
    assert holds(env, C, "7♣")


def test_k10_a_hand_whose_cards_are_all_known_holds_nothing_else():
    """K10: a hand whose known cards fill its size lacks every other card, an empty hand lacks all."""
    # C's one card is located by the single-holder rule (a later round of the same deduction loop),
    # so C holds neither 7♠, 7♥ nor 7♦, although no event concerned them.
    env = scripted(position(["7♠ 7♥", "7♦", "7♣"], rest_to=A), num_players=3)
    ask(env, 1, "7♣")
    assert lacks(env, C, "7♠", "7♥", "7♦")
    # B gives away its only card: the hit proves only that B lacks 7♦ now; B lacks everything.
    env = scripted(position(["7♠ 7♥", "7♦", "7♣"], rest_to=A), num_players=3)
    ask(env, 1, "7♦")
    assert knowledge(env).lacks[B].all()
    # A player dealt no card lacks everything from the start, before any event.
    env = scripted(position(["7♠ 7♥", "", "7♦ 7♣"], rest_to=A), num_players=3)
    assert len(env.unwrapped.game.events) == 0 and knowledge(env).lacks[B].all()


def test_k10_a_hand_with_exactly_as_many_candidates_as_cards_holds_them_all():
    """K10: C (5 cards) asked for 7♥ and 8♠ and missed when D asked it for 8♥; 7♠ 7♦ 7♣ 8♦ 8♣ are
    the only 5 cards C may hold, so it holds them all. No family-level bound decides it (C proved
    only one 7 and one 8) and every other player may still hold each of them."""
    hands = ["8♥", "7♥", "7♠ 7♦ 7♣ 8♦ 8♣", "8♠"]
    env = scripted(position(hands, to_move=C, rest_to=A), num_players=4)
    ask(env, 1, "7♥")  # C asks D: miss, D moves
    ask(env, 3, "8♥")  # D asks C: miss, C moves
    ask(env, 3, "8♠")  # C asks B: miss
    assert holds(env, C, "7♠", "7♦", "7♣", "8♦", "8♣")


# A asks C for 7♣ (hit) and B for 7♦ (hit): it now holds at least three 7s; then it misses 7♥.
PER_FAMILY = (["7♠", "7♦ 8♦", "7♣ 7♥ 8♠ 8♥ 8♣"], [(2, "7♣"), (1, "7♦"), (1, "7♥")])


def test_k10_holds_at_least_m_of_a_family_with_exactly_m_candidates_holds_them():
    """K10 ("holds at least m" per family): A proved three 7s (it asked for one, then received two)
    and lacks 7♥ (it asked for it), so its three possible 7s are 7♠, 7♦ and 7♣: it holds 7♠ too,
    although its hand (3 cards) could as well hold 8s by count alone."""
    hands, requests = PER_FAMILY
    env = scripted(position(hands, rest_to=A), num_players=3)
    for offset, card in requests:
        ask(env, offset, card)
    assert min_count(env, A, "7") == 3 and lacks(env, A, "7♥")
    assert holds(env, A, "7♠")


def test_k10_a_card_located_by_deduction_is_lacked_by_everyone_else():
    """K10: once a card is located (here 7♠ with A, by the per-family rule above), every other
    player lacks it, although no event named 7♠."""
    hands, requests = PER_FAMILY
    env = scripted(position(hands, rest_to=A), num_players=3)
    for offset, card in requests:
        ask(env, offset, card)
    assert holds(env, A, "7♠")
    assert lacks(env, B, "7♠") and lacks(env, C, "7♠")


def test_k10_a_hit_lowers_the_givers_proven_family_count_by_exactly_one():
    """K10: B proved two 7s (it asked for 7♣ and received it); when A takes 7♣ back, B still holds
    at least one 7 (the one that let it ask), not two: it really holds just 7♦."""
    env = scripted(position(["7♠ 8♠", "7♦ 8♥", "7♥ 7♣ 8♦ 8♣"], to_move=B, rest_to=A), num_players=3)
    ask(env, 1, "7♣")  # B asks C: hit
    assert min_count(env, B, "7") == 2
    ask(env, 2, "8♦")  # B asks A: miss, A moves
    ask(env, 1, "7♣")  # A asks B: hit
    assert min_count(env, B, "7") == 1
    game = env.unwrapped.game
    assert game.family_counts[B, game.deck.family("7")] == 1  # the truth the bound must not exceed


# -------------------------------------------------------------- K2 decision: dealt exposure order
def test_k2_dealt_exposures_go_clockwise_from_the_starter_in_rank_order():
    """K2, project decision "Order of dealt exposures": complete starting families are exposed
    clockwise from the starter (here B), each hand's families in rank order."""
    hands = ["7♠ 7♥ 7♦ 7♣ A♠", "8♠ 8♥ 8♦ 8♣ A♥", "Q♣ Q♦ Q♥ Q♠ J♠ J♥ J♦ J♣ A♦ A♣"]
    env = scripted(position(hands, to_move=B, rest_to=A), num_players=3)
    game = env.unwrapped.game
    exposures = [(int(seat), game.deck.family_names[value]) for kind, seat, _, value in game.events.rows]
    assert exposures == [(B, "8"), (C, "J"), (C, "Q"), (A, "7")]
    # Same in dealt games: the starter is left of the (random) dealer.
    env, discriminating = raw_env(num_players=3, num_families=4), 0
    for seed in range(3000):
        env.reset(seed=seed)
        game = env.game
        order = [(int(seat), int(family)) for kind, seat, _, family in game.events.rows if kind == EXPOSE]
        starter = (game.dealer + 1) % 3
        assert order == sorted(order, key=lambda e: ((e[0] - starter) % 3, e[1])), f"seed {seed}"
        discriminating += order != sorted(order)
    assert discriminating > 0  # some deal where seat order and starter order differ


# ----------------------------------------------------- brute force: every deal the record allows
def _deals(cards: list[int], counts: list[tuple[int, int]]):
    """Every way to give ``k`` of ``cards`` to each ``(label, k)`` in ``counts`` (dict card -> label)."""
    if not counts:
        yield {}
        return
    (label, k), rest = counts[0], counts[1:]
    for chosen in combinations(cards, k):
        left = [card for card in cards if card not in chosen]
        for tail in _deals(left, rest):
            yield {**tail, **dict.fromkeys(chosen, label)}


class ConsistentDeals:
    """Every table that a starting deal consistent with the public record up to now leads to.

    ``owner[d, card]`` is the seat holding ``card`` in table ``d``, ``-1`` once exposed, ``n + i``
    while it is the i-th card of the stock. Starts from every deal matching the public start (hand
    sizes, stock size, exposed families) and is filtered by each event (:meth:`apply`).
    """

    def __init__(self, game) -> None:
        start, n = game.public_start, game.num_players
        self.n, self.num_families = n, game.config.num_families
        out = set(start["exposed_families"])
        cards = [c for c in range(game.config.num_cards) if c // MEMBERS not in out]
        counts = [(seat, int(size)) for seat, size in enumerate(start["hand_sizes"])]
        counts += [(n + i, 1) for i in range(start["stock_size"])]  # the stock is ordered
        rows = []
        for deal in _deals(cards, counts):
            row = np.full(game.config.num_cards, -1, dtype=np.int8)
            row[list(deal)] = list(deal.values())
            rows.append(row)
        self.owner = np.array(rows)
        self.draws = 0

    def _no_complete_family(self) -> None:
        """K6: after an event not followed by an exposure, no hand holds a whole family."""
        for family in range(self.num_families):
            block = self.owner[:, MEMBERS * family : MEMBERS * family + MEMBERS]
            first = block[:, 0]
            complete = (block == first[:, None]).all(axis=1) & (first >= 0) & (first < self.n)
            self.owner = self.owner[~complete]

    def apply(self, kind: int, actor: int, target: int, value: int) -> None:
        if kind != EXPOSE:  # the table before this event had no complete family
            self._no_complete_family()
        owner = self.owner
        if kind in (HIT, MISS):
            members = owner[:, MEMBERS * (value // MEMBERS) : MEMBERS * (value // MEMBERS) + MEMBERS]
            valid = (members == actor).any(axis=1) & (owner[:, value] != actor)  # K3
            valid &= (owner[:, value] == target) if kind == HIT else (owner[:, value] != target)
            owner = owner[valid]
            if kind == HIT:
                owner[:, value] = actor  # K4
        elif kind == EXPOSE:
            members = slice(MEMBERS * value, MEMBERS * value + MEMBERS)
            owner = owner[(owner[:, members] == actor).all(axis=1)]
            owner[:, members] = -1
        else:
            assert kind == DRAW
            owner[owner == self.n + self.draws] = actor
            self.draws += 1
        self.owner = owner

    def facts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What every consistent table agrees on: holds, lacks (n, cards) and min family counts."""
        seats = self.owner[None, :, :] == np.arange(self.n)[:, None, None]  # (n, tables, cards)
        counts = seats.reshape(self.n, len(self.owner), self.num_families, MEMBERS).sum(axis=3)
        return seats.all(axis=1), ~seats.any(axis=1), counts.min(axis=1)


def missing_by_rule(k: PublicKnowledge) -> list[str]:
    """Facts that one deduction rule of K10 derives from the summary's own claims but that the summary
    does not claim (it must be closed under its rules), restated from docs/kwartet.md."""
    holds_, lacks_, bounds, sizes = k.holds, k.lacks, k.min_count, k.sizes
    missing = []
    for seat in range(k.num_players):
        others = [s for s in range(k.num_players) if s != seat]
        if (holds_[seat] & ~lacks_[others].all(axis=0)).any():
            missing.append(f"a card located with seat {seat} is not lacked by everyone else")
        if holds_[seat].sum() == sizes[seat] and (lacks_[seat] != ~holds_[seat]).any():
            missing.append(f"seat {seat}'s known cards fill its hand but it may hold others")
        candidates = ~lacks_[seat]
        if candidates.sum() == sizes[seat] and not holds_[seat][candidates].all():
            missing.append(f"seat {seat} has exactly {sizes[seat]} candidate cards but not all held")
        for family in range(k.num_families):
            members = slice(MEMBERS * family, MEMBERS * family + MEMBERS)
            m = bounds[seat, family]
            if (
                m > 0
                and candidates[members].sum() == m
                and not holds_[seat, members][candidates[members]].all()
            ):
                missing.append(
                    f"seat {seat} holds >= {m} of family {family} with {m} candidates, not all held"
                )
    if k.stock_size == 0:
        candidates = ~lacks_
        for card in np.flatnonzero(candidates.sum(axis=0) == 1):
            if not holds_[candidates[:, card], card].all():
                missing.append(f"card {card} has one possible holder, who is not known to hold it")
    return missing


def direct_facts_missing(k: PublicKnowledge, kind: int, actor: int, target: int, value: int) -> list[str]:
    """What the event itself states (K3-K6) but the summary does not claim."""
    missing = []
    if kind in (HIT, MISS) and k.min_count[actor, value // MEMBERS] < 1:
        missing.append("the asker holds a card of the family it asked for")
    if kind == MISS and not (k.lacks[actor, value] and k.lacks[target, value]):
        missing.append("after a miss neither the asker nor the asked player holds the card")
    if kind == HIT and not (k.holds[actor, value] and np.delete(k.lacks[:, value], actor).all()):
        missing.append("after a hit the asker holds the card and nobody else does")
    if kind == EXPOSE and not k.lacks[:, MEMBERS * value : MEMBERS * value + MEMBERS].all():
        missing.append("an exposed family is in nobody's hand")
    return missing


def random_position(rng: np.random.Generator, num_players: int, num_families: int, stock: bool) -> dict:
    """Two families in play dealt at random (empty hands allowed), the others exposed at random."""
    in_play = rng.choice(num_families, size=2, replace=False)
    cards = rng.permutation([MEMBERS * f + m for f in in_play for m in range(MEMBERS)]).tolist()
    stock_cards = [cards.pop() for _ in range(rng.integers(1, 3))] if stock else []
    hands: list[list[int]] = [[] for _ in range(num_players)]
    for card in cards:
        hands[rng.integers(num_players)].append(card)
    exposed = {int(f): int(rng.integers(num_players)) for f in range(num_families) if f not in in_play}
    return {
        "hands": hands,
        "to_move": int(rng.integers(num_players)),
        "exposed": exposed,
        "stock": stock_cards,
    }


def true_table(game) -> np.ndarray:
    """The real table in :class:`ConsistentDeals`' encoding (stock cards labelled by draw order)."""
    table = np.where(game.hands.any(axis=0), game.hands.argmax(axis=0), -1).astype(np.int8)
    drawn = game.public_start["stock_size"] - len(game.stock)
    for i, card in enumerate(game.stock):
        table[card] = game.num_players + drawn + i
    return table


def check_against_every_deal(summary, deals, table, event=None) -> int:
    """Soundness and rule-closure of ``summary`` against ``deals`` (``table``: the true table, when
    known at this point); returns how many cards the summary locates."""
    assert len(deals.owner) > 0, "the true deal must be consistent with its own record"
    if table is not None:
        assert (deals.owner == table).all(axis=1).any(), "the true table must be consistent"
    always_holds, always_lacks, min_counts = deals.facts()
    assert not (summary.holds & ~always_holds).any(), f"unsound 'holds' after {event}"
    assert not (summary.lacks & ~always_lacks).any(), f"unsound 'lacks' after {event}"
    assert (summary.min_count <= min_counts).all(), f"unsound 'holds at least m' after {event}"
    missing = missing_by_rule(summary)
    assert not missing, (event, missing)
    return int(summary.holds.sum())


GAMES = [  # (config, scripted positions?, games): deals of 8 cards (12 for 3x3) and scripted tables
    ({"num_players": 3, "num_families": 2}, False, 60),
    ({"num_players": 3, "num_families": 2, "turn_after_miss": "clockwise"}, False, 40),
    ({"num_players": 4, "num_families": 2}, False, 50),
    ({"num_players": 5, "num_families": 2}, False, 15),
    ({"num_players": 6, "num_families": 2, "turn_after_miss": "clockwise"}, False, 15),
    ({"num_players": 3, "num_families": 3}, False, 6),
    ({"num_players": 3, "num_families": 8}, True, 40),
    ({"num_players": 4, "num_families": 8}, True, 80),
    ({"num_players": 2, "num_families": 4, "stock": True}, True, 50),
    ({"num_players": 3, "num_families": 6, "stock": True, "turn_after_miss": "clockwise"}, True, 30),
]


GAME_IDS = [
    f"{c['num_players']}p-{c['num_families']}f{'-stock' if c.get('stock') else ''}"
    f"{'-clockwise' if c.get('turn_after_miss') else ''}{'-scripted' if s else ''}"
    for c, s, _ in GAMES
]


@pytest.mark.parametrize(("config", "scripted_start", "games"), GAMES, ids=GAME_IDS)
def test_k10_summary_is_sound_and_closed_against_every_consistent_deal(config, scripted_start, games):
    """K10, by brute force on tiny games: after every event, every fact the summary claims (holds,
    lacks, holds at least m) is true in every deal consistent with the public record so far (the
    true one among them), the event's own facts are claimed, and no single deduction rule applied
    to the claims yields a fact the summary misses. Incompleteness beyond that is allowed (the
    summary does not count cards across players, nor use "no family was exposed, so nobody holds
    all four"); on these games it claims about 90-100% of the facts true in every consistent deal."""
    rng = np.random.default_rng(sum(map(ord, str(config))))
    env = raw_env(**config)
    learned = 0
    for _ in range(games):
        if scripted_start:
            options = {
                "position": random_position(
                    rng, config["num_players"], config["num_families"], config.get("stock", False)
                )
            }
            env.reset(seed=0, options=options)
        else:
            env.reset(seed=int(rng.integers(2**31)))
        game = env.game
        tables = {len(game.events): true_table(game)}  # the true table after each step
        while not game.over:
            legal = np.flatnonzero(game.legal_mask().ravel())
            env.step(int(rng.choice(legal)))
            tables[len(game.events)] = true_table(game)
        deals = ConsistentDeals(game)
        summary = PublicKnowledge(**game.public_start)
        learned += check_against_every_deal(summary, deals, tables.get(0))
        for done, event in enumerate(game.events.rows.tolist(), start=1):
            deals.apply(*event)
            summary.apply(*event)
            assert not direct_facts_missing(summary, *event), event
            learned += check_against_every_deal(summary, deals, tables.get(done), event)
        assert (summary.holds == game.knowledge.holds).all() and (summary.lacks == game.knowledge.lacks).all()
    assert learned > 0
