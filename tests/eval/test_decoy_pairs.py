"""The decoy-pair experiment of ``scripts/decoy_pairs.py`` (issues 18, 19): its bot builds the public
pair it is meant to, and plays legal actions through whole rounds."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest

from quatro_env.quatro.engine import Phase
from tests.eval.helpers import Table

_spec = importlib.util.spec_from_file_location("decoy_pairs", "scripts/decoy_pairs.py")
decoy_pairs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(decoy_pairs)

VALUES = 5  # four players: five values of four copies


def _bot(hand: list[int], center: list[int], target: int, kept: dict[int, int], kind=None):
    """A DecoyCover (or ``kind``) whose view shows ``hand`` and ``center``, collecting ``target``, having
    kept ``kept`` (value: copies taken less placed in public) this round."""
    bot = (kind or decoy_pairs.DecoyCover)(4, seed=0)
    bot.view = SimpleNamespace(hand=lambda obs: hand, center=lambda obs: center, v=VALUES)
    bot.kept = np.zeros((4, VALUES), np.int64)
    for value, copies in kept.items():
        bot.kept[0, value] = copies
    bot.target = target
    bot._my_half = lambda obs: (0, 1, 2, 3)
    return bot


def test_a_neutral_swap_takes_the_second_public_copy_of_a_kept_value_and_keeps_both():
    # I collect 0, took a 1 in public before; the center shows one 1: take it, give the 2
    bot = _bot(hand=[0, 0, 1, 2], center=[3, 1, 4, 2], target=0, kept={1: 1})
    assert bot._neutral_exchange(None) == bot.exchange_action(3, 1)


def test_a_neutral_swap_starts_a_pair_the_center_does_not_rule_out():
    # nothing kept yet: not the 3 (the center shows two, an opponent rules it out), not the 2 I hold
    bot = _bot(hand=[0, 0, 1, 2], center=[3, 3, 4, 2], target=0, kept={})
    give, take = divmod(bot._neutral_exchange(None) - bot.A_EXCHANGE0, 4)
    assert take == 2 and give in (2, 3)


def test_the_guarded_variant_gives_another_card_than_a_kept_decoy_copy_when_it_can():
    bot = _bot(
        hand=[0, 0, 1, 2], center=[0, 3, 4, 2], target=0, kept={1: 1}, kind=decoy_pairs.GuardedDecoyCover
    )
    assert bot._spare_decoy(None, bot.exchange_action(2, 0)) == bot.exchange_action(3, 0)  # the 2, not the 1
    assert bot._spare_decoy(None, bot.exchange_action(3, 0)) == bot.exchange_action(3, 0)  # not a kept copy
    pair = _bot(
        hand=[0, 0, 1, 1], center=[0, 3, 4, 2], target=0, kept={1: 2}, kind=decoy_pairs.GuardedDecoyCover
    )
    assert pair._spare_decoy(None, pair.exchange_action(2, 0)) == pair.exchange_action(2, 0)  # nothing else


def test_the_tries_counter_counts_each_member_round_of_a_match():
    decoy_pairs.TRIES.clear()
    row = decoy_pairs.measure_code("decoy_cover", matches=2, seed=0, eve=False)
    assert row["member_rounds"] == 2 * row["rounds"] and row["tries_per_round"] > 0


def test_the_decoy_bounds_only_lower_the_card_counter_and_a_pair_everywhere_lowers_it_most():
    """The bounds raise non-holding rows' counts to 2, so each is at most the card counter on the same
    rows, and pairing every non-holder is at most pairing those with an unseen value; against idle,
    where only the code's own calls end a round."""
    row = decoy_pairs.measure_code("cover:split=true", matches=6, seed=0, eve=False, opponent="idle")
    assert row["opponent"] == "idle" and row["calls_idle"][0] == 0 < row["calls_code"][0]
    everywhere = row["card_counter_if_every_non_holder_paired"]
    unseen = row["card_counter_if_paired_where_unseen"]
    assert 0.5 <= everywhere < unseen <= row["all_card_counter"]
    assert 0 < row["share_not_holding_with_an_unseen_value"] < 1
    assert sum(row["collection_share_not_holding"]) == pytest.approx(1, abs=0.01)


def test_a_decoy_team_plays_whole_rounds_legally_and_keeps_its_beat():
    """Against collectors, under ``illegal_action='raise'``: an illegal action would stop the table."""
    bots = {s: decoy_pairs.DecoyCover(4, seed=s) for s in (0, 2)}
    bots.update({1: "collector", 3: "collector"})
    table = Table(bots, seed=0, points_to_win=3, round_seconds=60)
    exchanges = 0
    for _ in range(1500):
        if table.engine.match_over:
            break
        playing = table.engine.phase == Phase.PLAY
        events = table.step()
        exchanges += playing and sum(e.kind == "exchange" and e.seat in (0, 2) for e in events)
    assert table.engine.rounds_completed >= 2 and exchanges > 0
