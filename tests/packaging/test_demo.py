"""``quatro-demo``, a user's first minute (issue #21, item 6): what the game is, which seat is the
API seat, what happened (quartet, sign, call) and where to go next."""

from __future__ import annotations

import re

import pytest

from quatro_env.demo import main


@pytest.mark.parametrize(("argv", "teams"), [([], 2), (["--players", "6", "--opponents", "counter"], 3)])
def test_demo_explains_the_game_and_what_happened(capsys, argv, teams):
    main(argv)
    out = capsys.readouterr().out
    assert out.startswith("Quatro: a real-time team card game of secret signals.")
    assert "Seat 0 (player_0) is the API seat" in out and "[API seat]" in out
    assert len(re.findall(r"team \d picks its secret sign", out)) == teams
    assert re.search(r"now holds a quartet \(four \w+s\)", out)
    assert re.search(
        r"shows \S+ on its channel \((its team's sign: a real signal|not its team's sign: a decoy)\)", out
    )
    call = re.search(r"calls «(Quatro|Contra)!».*: (right|wrong)", out)
    assert call or "a blank round" in out
    assert out.rstrip().splitlines()[-6] == "Where to go next:"
    assert "docs/rules/quatro.md" in out and "quatro-train --config smoke" in out


def test_the_narrated_call_matches_the_scores(capsys):
    main([])
    out = capsys.readouterr().out
    scored = re.findall(r"; team (\d) scores", out)
    final = re.search(r"team scores \[(\d+), (\d+)\]", out)
    assert scored and final
    points = [0, 0]
    for team in scored:
        points[int(team)] += 1
    assert points == [int(final.group(1)), int(final.group(2))]


def test_the_eval_progress_bar_moves_from_the_first_match(monkeypatch):
    tqdm = pytest.importorskip("tqdm")
    from quatro_env.eval.policies import as_policy
    from quatro_env.eval.runner import run_lineups
    from quatro_env.quatro.config import QuatroConfig

    updates: list[int] = []

    class Bar:
        def __init__(self, **kwargs):
            self.total = kwargs["total"]

        def update(self, n):
            updates.append(n)

        def close(self):
            pass

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    cfg = QuatroConfig(round_seconds=10, sign_phase_seconds=2, pause_seconds=1, points_to_win=1)
    recs = run_lineups(cfg, [[as_policy("honest"), as_policy("decoy")]], 4, max_rounds=1, chunk=2)
    assert updates == [1, 2, 1]
    assert [r["match"] for r in recs[0]] == list(range(4))
