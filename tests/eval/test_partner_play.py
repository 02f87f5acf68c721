"""Mixed teams (``"A+B"``) and partner play: independently trained partners at one team."""

from __future__ import annotations

import json

import pytest

from quatro_env.bots.basic import RandomBot
from quatro_env.bots.signalling import HonestBot
from quatro_env.eval import as_policy, evaluate, make_config, partner_play, to_markdown
from quatro_env.eval.cli import main
from quatro_env.eval.runner import MatchRunner

SHORT = {"points_to_win": 2, "round_seconds": 30}


def test_mixed_team_seats_each_member_at_its_own_seat():
    spec = as_policy("honest+random")
    assert spec.kind == "team" and spec.label == "honest+random"
    runner = MatchRunner(make_config(SHORT), [spec, as_policy("decoy")], max_rounds=2)
    # 4 players: team 0 holds seats 0 and 2; the first member sits at the lower seat
    assert type(runner.actor(0, 0)) is HonestBot
    assert type(runner.actor(0, 2)) is RandomBot
    assert as_policy(("honest", "random")).label == "honest+random"


def test_a_team_of_one_policy_twice_plays_as_that_policy():
    kw = dict(matches=6, config=SHORT, workers=1, progress=False, probe_matches=0, max_rounds=4)
    mixed = evaluate(["honest+honest", "decoy"], **kw)["lineups"][0]["teams"]
    plain = evaluate(["honest", "decoy"], **kw)["lineups"][0]["teams"]
    for m, p in zip(mixed, plain, strict=True):
        m.pop("policy"), p.pop("policy")
        assert m == p


@pytest.mark.parametrize(
    ("policy", "message"),
    [("honest+random+decoy", "two members"), (("honest+random", "decoy"), "cannot itself be a team")],
)
def test_bad_mixed_teams_are_named(policy, message):
    with pytest.raises(ValueError, match=message):
        as_policy(policy)


def test_partner_play_matrix(tmp_path):
    report = partner_play(
        ["honest", "collector"], "random", matches=6, config=SHORT, max_rounds=3, workers=1, progress=False
    )
    pp = report["partner_play"]
    assert report["kind"] == "partner_play" and report["opponent"] == "random"
    assert [lu["policies"][0] for lu in report["lineups"]] == [
        "honest+honest",
        "honest+collector",
        "collector+honest",
        "collector+collector",
    ]
    assert pp["win_rate"][0][0] == 1.0 and pp["listening_delta"][0][0] == 1.0
    # a collector never calls: with it as partner nobody calls on honest's sign, so no point is won
    assert pp["quatro_precision"][1][1] is None and pp["win_rate"][1][1] == 0.0
    assert pp["win_rate"][0][1] == 0.0 and pp["win_rate"][1][0] == 0.0
    text = to_markdown(report)
    assert "Mixed teams against `random`" in text and "| **honest** | 1.00 [" in text
    with pytest.raises(ValueError, match="single policies"):
        partner_play(["honest+random"], "random", matches=1, config=SHORT)


def test_cli_partners(tmp_path, capsys):
    out = tmp_path / "pp"
    argv = ["honest", "decoy", "--partners", "random", "--matches", "4", "--points-to-win", "2"]
    argv += [
        "--round-seconds",
        "30",
        "--max-rounds",
        "3",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert json.loads((out / "report.json").read_text())["kind"] == "partner_play"
    assert (out / "partner_play.png").stat().st_size > 0
    assert main(["honest", "decoy", "--partners", "random", "--cross-play"]) == 2
    assert "two different tournaments" in capsys.readouterr().err
