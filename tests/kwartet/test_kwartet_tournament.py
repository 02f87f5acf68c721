"""The memory-vs-random tournament harness and its CLI."""

from __future__ import annotations

from quatro_env.kwartet import KwartetConfig
from quatro_env.kwartet.tournament import MatchupResult, classify, main, markdown_table, play_matchup


def test_classify_handles_sole_shared_and_full_ties():
    assert classify({"a": 1.0, "b": -0.5, "c": -0.5}, "a") == (True, True)
    assert classify({"a": 0.5, "b": 0.5, "c": -1.0}, "a") == (False, True)
    assert classify({"a": 0.5, "b": 0.5, "c": -1.0}, "c") == (False, False)
    assert classify({"a": 0.0, "b": 0.0, "c": 0.0}, "b") == (False, True)


def test_matchup_is_reproducible_and_counts_are_consistent():
    config = KwartetConfig(num_players=3)
    first = play_matchup("random", "random", 12, config, seed=4)
    assert first == play_matchup("random", "random", 12, config, seed=4)
    assert 0 <= first.sole_wins <= first.shared_wins <= first.games == 12


def test_table_and_cli(capsys):
    table = markdown_table([MatchupResult("memory", "random", 10, 7, 8)], num_players=4)
    assert "| memory vs 3x random | 10 | 7 | 0.700 [" in table
    main(["--games", "6", "--players", "3"])
    out = capsys.readouterr().out
    assert out.count("\n| ") == 4 and "memory vs 2x random" in out and "random vs 2x memory" in out
