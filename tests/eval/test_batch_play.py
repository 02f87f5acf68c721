"""The ladder at batch scale (quatro_env/eval/batch_play.py; issue 17, item 3): outcomes counted by
the rules, seats rotated as in the harness, the harness's win rates, seeded, bad input refused."""

from __future__ import annotations

import pytest

from quatro_env.eval import cross_play
from quatro_env.eval.batch_play import batch_cross_play, play_lineup

SHORT = {"num_players": 4, "points_to_win": 3, "round_seconds": 60}


def test_a_calling_bot_wins_every_match_against_one_that_never_calls_whichever_team_it_plays():
    """Q18/Q24: collector never calls, so only honest's team scores; the slots swap teams every match
    (the harness's rotation), so a wrong seat-to-slot mapping would credit collector with half."""
    out = play_lineup(["honest", "collector"], matches=40, config=SHORT, seed=1, max_rounds=10)
    assert out["wins"] == [40, 0] and out["draws"] == 0
    assert out["agent_steps"] == out["ticks"] * 40 * 4


def test_a_match_nobody_can_win_is_a_draw_at_the_round_limit():
    """Q10: neither random nor collector calls, every round is blank; max_rounds ends it as a draw."""
    out = play_lineup(["random", "collector"], matches=12, config=dict(SHORT, round_seconds=20), max_rounds=2)
    assert out["wins"] == [0, 0] and out["draws"] == 12


def test_six_players_credit_each_slot_and_shared_wins_at_most_once_a_match():
    out = play_lineup(["counter", "honest", "decoy"], matches=30, config=dict(SHORT, num_players=6), seed=2)
    assert sum(out["wins"]) + out["draws"] >= 30 and all(0 <= w <= 30 for w in out["wins"])
    assert out["wins"][0] > out["wins"][1]  # counter reads honest's sign (the ladder's order)


def test_batch_win_rates_agree_with_the_harness():
    """The same bots and rules as the harness's numpy bots: counter against honest on 200 harness
    matches and 2,000 batched ones; the 95 % intervals overlap (both seeded: no flakiness)."""
    harness = cross_play(
        ["counter", "honest"],
        matches=200,
        config=SHORT,
        seed=0,
        max_rounds=10,
        probe_matches=0,
        workers=1,
        progress=False,
    )["cross_play"]
    batch = batch_cross_play(["counter", "honest"], matches=2000, config=SHORT, seed=0, max_rounds=10)
    for side, other in ((0, 1), (1, 0)):
        (lo_h, hi_h), (lo_b, hi_b) = (
            harness["win_ci95"][side][other],
            batch["cross_play"]["win_ci95"][side][other],
        )
        assert lo_h <= hi_b and lo_b <= hi_h, (harness, batch["cross_play"])
    width = batch["cross_play"]["win_ci95"][0][1]
    assert width[1] - width[0] < 0.05  # ten times the matches: intervals about a third as wide
    assert batch["cross_play"]["win_rate"][0][0] is None


def test_the_same_seed_gives_the_same_matches_and_another_seed_others():
    def outcome(seed):
        out = play_lineup(["decoy", "eavesdropper"], matches=50, config=SHORT, seed=seed)
        return out["wins"], out["ticks"]  # the longest match's length: a fingerprint of every match

    assert outcome(3) == outcome(3)
    assert outcome(3) != outcome(4)


def test_a_line_up_names_a_bots_options_as_the_harness_does():
    """``cover:split=True`` is the split cover and ``cover:split=false`` the plain one, as the harness
    reads them (quatro.bots.batched_kind): the same matches as the row's own name."""

    def outcome(policy):
        out = play_lineup([policy, "counter"], matches=30, config=SHORT, seed=5)
        return out["wins"], out["ticks"]

    assert outcome("cover:split=True") == outcome("cover:split=true")
    assert outcome("cover:split=false") == outcome("cover")
    assert outcome("cover:split=true") != outcome("cover")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"policies": ["cover:partner_delay=4", "honest"], "matches": 4},
            "no batched version of \\['cover:partner_delay=4'\\]",
        ),
        ({"policies": ["honest", "decoy"], "matches": 0}, "matches: a whole number >= 1"),
        ({"policies": ["honest", "decoy"], "matches": True}, "matches: a whole number >= 1"),
        ({"policies": ["honest", "decoy"], "matches": 4, "max_rounds": 0}, "max_rounds"),
        ({"policies": ["honest"], "matches": 4}, "need one policy per team"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, message):
    kwargs = dict(kwargs)  # the parameter is shared: popping from it failed a second run in one process
    with pytest.raises(ValueError, match=message):
        play_lineup(kwargs.pop("policies"), **kwargs)


def test_cross_play_needs_two_distinct_bots():
    with pytest.raises(ValueError, match="at least two distinct policies"):
        batch_cross_play(["honest", "honest"], matches=4)


def test_a_checkpoints_seats_act_as_the_harness_actor_does_seat_by_seat():
    """CheckpointSeats is PPOPolicy for many seats: at every tick each row's probabilities equal those
    of its own PPOPolicy fed the same observations, across match ends (``forget`` = ``reset``)."""
    import numpy as np
    import torch

    from baselines.policy import PPOPolicy
    from quatro_env.batched import BatchedQuatroEngine
    from quatro_env.eval.batch_play import CheckpointSeats
    from quatro_env.eval.harness import make_config

    tables, n = 3, 4
    cfg = make_config(dict(SHORT, round_seconds=10, points_to_win=1), episode="match", max_rounds=2)
    rows = np.array([0, 2, 5, 7, 8, 11])  # teams of different tables; the other seats play uniform
    seats = CheckpointSeats("ppo_4p", n, rows, torch.Generator().manual_seed(0))
    alone = [PPOPolicy(n, seed=0, path="ppo_4p") for _ in rows]
    engine = BatchedQuatroEngine(tables, config=cfg, seed=5)
    result, ends, uniform = engine.reset(5), 0, torch.Generator().manual_seed(1)
    for _ in range(150):
        obs, masks = result.observations.reshape(tables * n, -1), result.masks.reshape(tables * n, -1)
        batch = seats.probabilities(obs, masks)
        for i, row in enumerate(rows):
            one = alone[i].probabilities(obs[row].numpy(), masks[row].numpy())
            torch.testing.assert_close(batch[i : i + 1], one, rtol=1e-5, atol=1e-6)
        actions = engine.sample_actions(uniform)
        actions.view(-1)[torch.as_tensor(rows)] = torch.multinomial(batch, 1)[:, 0]
        result = engine.step(actions)
        done = result.info["done"].numpy()
        if done.any():
            ended = (np.flatnonzero(done)[:, None] * n + np.arange(n)).reshape(-1)
            seats.forget(ended)
            for i, row in enumerate(rows):
                if row in ended:
                    alone[i].reset(0)
            ends += int(done.sum())
    assert ends >= 2  # matches ended and the memories were cleared in between


def test_a_checkpoint_plays_in_a_batched_line_up_and_a_bad_name_is_refused():
    out = play_lineup(["ppo_4p", "idle"], matches=12, config=SHORT, seed=0, max_rounds=3)
    # idle never calls (Q18): only the checkpoint's team can win; the rest are draws at the round limit
    assert out["wins"][1] == 0 and out["wins"][0] >= 1 and out["wins"][0] + out["draws"] == 12
    with pytest.raises(ValueError, match="trained for 4 players, not 6"):
        play_lineup(["ppo_4p", "honest", "honest"], matches=2, config=dict(SHORT, num_players=6))


def test_quatro_eval_batched_reports_the_line_ups_outcomes(tmp_path, capsys):
    """``quatro-eval --batched``: the same outcomes as play_lineup on the same seed, under the harness's
    keys, with a markdown table; a checkpoint named as ``checkpoint:PATH`` plays as its file."""
    import json

    from baselines.policy import resolve_checkpoint
    from quatro_env.eval import cli

    path = str(resolve_checkpoint("ppo_4p"))
    argv = [f"checkpoint:{path}", "counter", "--batched", "--matches", "30", "--seed", "2"]
    rc = cli.main(
        argv + ["--round-seconds", "60", "--points-to-win", "3", "--max-rounds", "10", "--out", str(tmp_path)]
    )
    assert rc == 0
    report = json.loads((tmp_path / "report.json").read_text())
    direct = play_lineup([path, "counter"], matches=30, config=SHORT, seed=2, max_rounds=10)
    assert report["kind"] == "batch_evaluate" and [t["wins"] for t in report["teams"]] == direct["wins"]
    assert report["draws"] == direct["draws"] and report["config"]["max_rounds"] == 10
    assert report["teams"][1]["win_rate"] == round(direct["wins"][1] / 30, 4)
    out = capsys.readouterr().out
    assert "| 1: counter |" in out and "outcomes and calls only" in out


def test_quatro_eval_batched_cross_play_and_what_it_refuses(capsys, tmp_path):
    from quatro_env.eval import cli

    assert (
        cli.main(
            ["honest", "counter", "--cross-play", "--batched", "--matches", "20", "--points-to-win", "1"]
        )
        == 0
    )
    assert "| **counter** |" in capsys.readouterr().out
    for extra, named in (
        (["--decoders"], "cannot take --decoders"),
        (["--partners", "counter"], "cannot take --partners"),
        (["--replays", str(tmp_path / "replays")], "cannot take --replays"),
    ):
        assert cli.main(["honest", "counter", "--batched", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and named in err
    assert not (tmp_path / "replays").exists()  # refused before any folder is made
    assert cli.main(["honest+decoy", "counter", "--batched"]) == 2
    assert "no batched version of ['honest+decoy']" in capsys.readouterr().err


def test_points_per_round_count_each_slots_points_over_its_rounds():
    """The harness's points per round (a team's points over the rounds it played), per slot: a team
    that never calls scores nothing against one that never accuses, and a match won on points has its
    winner at the target."""
    from quatro_env.eval.batch_play import _play
    from quatro_env.eval.harness import make_config

    out = play_lineup(["honest", "idle"], matches=12, config=SHORT, seed=5)
    honest, idle = out["teams"]
    assert idle["points"] == 0 and idle["points_per_round"] == 0.0
    assert honest["points"] > 0 and 0 < honest["points_per_round"] <= 1.0
    cfg = make_config(SHORT, episode="match", max_rounds=20)
    played = _play(["honest", "counter"], 12, cfg, 5)
    rounds = played.team_rounds.sum(1)
    assert (rounds > 0).all() and (played.points.sum(1) <= rounds).all()  # at most a point a round
    assert (played.points[played.won] >= cfg.points_to_win).all()


@pytest.mark.parametrize("lineup", [["honest", "counter"], ["random_caller", "decoy"]])
def test_every_point_is_a_counted_call_right_or_an_opponents_call_wrong(lineup):
    """At 4 players a call scores one point: the caller's team's if right, the other team's if wrong
    (Q18, Q19). So each match's score of a team equals its right calls plus the other team's wrong ones:
    the calls read back from the tables (``readers.ending_calls``) account for every point, match by
    match, the match-ending call included."""
    from quatro_env.eval.batch_play import _play
    from quatro_env.eval.harness import make_config

    played = _play(lineup, 40, make_config(SHORT, episode="match", max_rounds=20), 9)
    calls = played.calls  # [matches, slots, (quatro, right, contra, right)]
    right = calls[..., 1] + calls[..., 3]
    wrong = calls[..., 0] + calls[..., 2] - right
    assert (played.points == right + wrong[:, ::-1]).all()
    assert calls[..., 0].sum() and calls[..., 2].sum() and wrong.sum() and right.sum()


def test_cross_play_points_and_pooled_calls_add_up_the_pairs_line_ups():
    """The batched cross-play reports the harness's points-per-round matrix and, per policy, its
    outcomes and calls pooled over its opponents: each is the sum of the pairs' line-ups played alone
    (same seed, same matches), so the ladder's batched report says how each bot scores, not only who wins."""
    bots = ["honest", "counter", "decoy"]
    cp = batch_cross_play(bots, matches=30, config=SHORT, seed=4, max_rounds=10)
    pooled = {b: {} for b in bots}
    for i, a in enumerate(bots):
        for j, b in enumerate(bots[i + 1 :], i + 1):
            pair = play_lineup([a, b], matches=30, config=SHORT, seed=4, max_rounds=10)["teams"]
            for side, other, team in ((i, j, pair[0]), (j, i, pair[1])):
                assert cp["cross_play"]["points_per_round"][side][other] == team["points_per_round"]
                assert round(cp["cross_play"]["win_rate"][side][other], 4) == team["win_rate"]
                for key in ("wins", "matches", "points", "quatro_calls", "contra_calls"):
                    pooled[bots[side]][key] = pooled[bots[side]].get(key, 0) + team[key]
    for row in cp["summary"]:
        assert {k: row[k] for k in pooled[row["policy"]]} == pooled[row["policy"]]
    counter = cp["summary"][1]
    assert counter["contra_calls"] > 0 and 0 < counter["contra_precision"] <= 1  # counter accuses
    assert cp["summary"][0]["contra_calls"] == 0  # honest never does
    from quatro_env.eval.report import to_markdown

    text = to_markdown(cp)
    assert "Points per round of the row policy" in text and "| counter |" in text


def test_six_player_cross_play_pools_both_teams_of_a_policy():
    """At 6 players the first policy holds two teams of each match: its points per round are both
    teams' points over both teams' rounds, as the harness counts a slot's teams."""
    six = dict(SHORT, num_players=6)
    cp = batch_cross_play(["counter", "honest"], matches=20, config=six, seed=3, max_rounds=8)
    lineup = play_lineup(["counter", "honest", "counter"], matches=20, config=six, seed=3, max_rounds=8)
    first, _, third = lineup["teams"]
    assert cp["summary"][0]["points"] == first["points"] + third["points"]
    assert cp["summary"][0]["quatro_calls"] == first["quatro_calls"] + third["quatro_calls"]
    assert cp["summary"][1]["points"] == lineup["teams"][1]["points"]
