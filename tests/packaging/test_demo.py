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
