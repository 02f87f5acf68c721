"""``readers.ending_calls``: the call that ended a round, read back from what every seat observes after
it, equals the reference engine's own record (kind, caller, right or wrong), at 4, 6 and 8 players."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.eval.readers import ending_calls
from quatro_env.quatro.encoding import CALL_KINDS
from tests.eval.helpers import Table

#: per player count, two line-ups (a seat's team is its seat mod n/2) that between them end rounds in
#: every way: a right and a wrong «Quatro», a right and a wrong «Contra», and no call (a blank round)
LINEUPS = {
    4: (
        ["honest", "eavesdropper", "collector", "counter"],
        ["decoy", "counter", "random_caller", "eavesdropper"],
    ),
    6: (
        ["counter", "collector", "honest", "eavesdropper", "collector", "decoy"],
        ["counter", "collector", "random_caller", "eavesdropper", "collector", "decoy"],
    ),
    8: (
        ["counter", "collector", "eavesdropper", "decoy"] * 2,
        [
            "counter",
            "collector",
            "honest",
            "random_caller",
            "eavesdropper",
            "collector",
            "decoy",
            "random_caller",
        ],
    ),
}


@pytest.mark.parametrize("n", [4, 6, 8])
def test_every_seat_reads_the_ending_call_the_engine_recorded(n):
    seen = {"quatro": [0, 0], "contra": [0, 0], "blank": [0, 0]}  # [wrong, right]
    for lineup in LINEUPS[n]:
        table = Table(dict(enumerate(lineup)), n=n, seed=n, round_seconds=20, points_to_win=99)
        engine, rounds = table.engine, table.engine.rounds_completed
        for _ in range(6000):
            if engine.match_over:
                break
            table.step()
            if engine.rounds_completed == rounds:
                continue
            rounds = engine.rounds_completed
            call = engine.last_call
            kind, caller, right = ending_calls(table.obs, n)
            assert (kind == CALL_KINDS[call.kind]).all()
            if call.caller is None:  # a blank round
                assert (caller == -1).all() and not right.any()
                seen["blank"][0] += 1
                continue
            assert ((np.arange(n) + caller) % n == call.caller).all()  # each observer's own frame
            correct = call.caller % (n // 2) in call.scoring_teams
            assert (right == correct).all()
            seen[call.kind][int(correct)] += 1
    assert all(seen["quatro"]) and all(seen["contra"]) and seen["blank"][0], seen


def test_no_call_is_read_where_none_is_shown():
    table = Table({}, n=4, seed=1)
    kind, caller, right = ending_calls(table.obs, 4)
    assert (kind == -1).all() and (caller == -1).all() and not right.any()


def test_each_row_is_read_alone_a_call_in_one_row_says_nothing_of_the_next():
    """Rows of several tables at once (the batched matches read them so): a row showing nothing, one
    showing a right «Contra» by seat 2, and one where a team scored without a call shown."""
    from quatro_env.quatro.encoding import ObservationEncoder

    enc = ObservationEncoder(4)
    off, rows = enc.offsets, np.zeros((3, enc.obs_dim), np.uint8)
    rows[1, off["table.last_call"] + CALL_KINDS["contra"]] = 1
    rows[1, off["seat[2].caller"]] = 1
    rows[1, off["team[0].scored"]] = 1  # seat 2's team (2 mod 2)
    rows[2, off["team[1].scored"]] = 1
    kind, caller, right = ending_calls(rows, 4)
    assert kind.tolist() == [-1, CALL_KINDS["contra"], -1]
    assert caller.tolist() == [-1, 2, -1]
    assert right.tolist() == [False, True, False]
