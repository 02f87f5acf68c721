"""Q30 for every game: ``reset()`` without a seed works on a fresh env, and after ``reset(seed=s)`` it
continues ``s``'s stream, so a run of resets is reproduced from its first seed (mutation testing found
no test of either: a Quatro env that crashed on a fresh unseeded reset, and a Kwartet env that re-seeded
from the OS at every unseeded reset, passed)."""

from __future__ import annotations

import pytest

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0

#: each game's env, and what a reset dealt (Quatro deals at round start: the engine's stream stands in)
GAMES = {
    "quatro": (quatro_v0.parallel_env, lambda env: int(env.engine.rng.integers(2**62))),
    "kwartet": (kwartet_v0.env, lambda env: env.unwrapped.game.hands.tobytes()),
    "cuatrola": (cuatrola_v0.env, lambda env: [list(h) for h in env.unwrapped.game.hands]),
}


@pytest.mark.parametrize("game", GAMES)
def test_q30_an_unseeded_reset_draws_from_the_envs_own_stream(game):
    make, dealt = GAMES[game]
    fresh = make()
    assert fresh.unwrapped.agents == []  # no agent lives before the first reset
    fresh.reset()
    assert fresh.agents == fresh.possible_agents
    runs = []
    for _ in range(2):
        env = make()
        env.reset(seed=7)
        seeded = dealt(env)
        runs.append([(env.reset(), dealt(env))[1] for _ in range(3)])
        assert seeded != runs[-1][0] != runs[-1][1]  # the stream moves on
    assert runs[0] == runs[1]
