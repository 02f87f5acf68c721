"""The batched bot ladder takes the numpy bots' decisions (issue #17 item 3: a differential test).

Games are played on the batched engine by the numpy bots (the reference, one object per seat, the
rules of ``quatro_env/bots``); at every tick each seat's observation, mask and draws go to both the
numpy bot (its ``rng`` a :class:`SlotRng` over the same draws) and its batched row, and the actions
must agree on every seat and every tick.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import KINDS, BatchedBots, SlotRng, num_draws
from quatro_env.quatro.bots import BOT_POLICIES


def _play_and_compare(num_players: int, lineup: list[str], tables: int, ticks: int, seed: int, **env) -> dict:
    engine = BatchedQuatroEngine(tables, seed=seed, num_players=num_players, **env)
    result = engine.reset(seed)
    n = engine.n
    rows = tables * n
    names = [lineup[(b * n + s) % len(lineup)] for b in range(tables) for s in range(n)]
    rngs = [SlotRng() for _ in range(rows)]
    numpy_bots = []
    for name, rng in zip(names, rngs, strict=True):
        bot = BOT_POLICIES[name](n, seed=0)
        bot.rng = rng
        numpy_bots.append(bot)
    batched = BatchedBots(n, rows)
    batched.reset_rows(np.arange(rows), BatchedBots.kind_ids(names))
    draws_rng = np.random.default_rng(seed)
    seen: dict[str, set[int]] = {name: set() for name in names}
    for tick in range(ticks):
        obs = result.observations.reshape(rows, -1).numpy()
        masks = result.masks.reshape(rows, -1).numpy()
        draws = draws_rng.random((rows, num_draws(n))).astype(np.float32).astype(np.float64)
        fast = batched.act(obs, masks, draws)
        slow = []
        for i, bot in enumerate(numpy_bots):
            rngs[i].set(draws[i])
            slow.append(bot.act(obs[i], masks[i]))
        slow = np.array(slow)
        bad = np.flatnonzero(fast != slow)
        assert bad.size == 0, (
            f"tick {tick}: row {bad[0]} ({names[bad[0]]}) batched {fast[bad[0]]} vs numpy {slow[bad[0]]}"
        )
        for name, a in zip(names, slow, strict=True):
            seen[name].add(int(a))
        result = engine.step(torch.from_numpy(slow).view(tables, n))
        done = (result.terminations | result.truncations).numpy()
        for b in np.flatnonzero(done):  # a table that ends restarts with fresh bots, as a match does
            for s in range(n):
                i = b * n + s
                numpy_bots[i] = BOT_POLICIES[names[i]](n, seed=0)
                numpy_bots[i].rng = rngs[i]
            batched.reset_rows(
                np.arange(b * n, (b + 1) * n), BatchedBots.kind_ids(names[b * n : (b + 1) * n])
            )
    return seen


@pytest.mark.parametrize(
    "lineup",
    [
        ["honest", "random", "honest", "collector"],
        ["decoy", "eavesdropper", "decoy", "counter"],
        ["counter", "honest", "listener", "decoy"],
        ["eavesdropper", "random_caller", "honest", "idle"],
    ],
)
def test_batched_bots_match_numpy_bots_on_4p_games(lineup):
    seen = _play_and_compare(4, lineup, tables=6, ticks=700, seed=3, round_seconds=30, sign_phase_seconds=1)
    for name in set(lineup) - {"idle", "listener"}:
        assert len(seen[name]) > 3, f"{name} took too few distinct actions for the test to mean much"


def test_batched_bots_match_numpy_bots_on_6p_games():
    lineup = ["counter", "eavesdropper", "decoy", "honest", "collector", "random"]
    _play_and_compare(6, lineup, tables=3, ticks=500, seed=5, round_seconds=30, sign_phase_seconds=1)


def test_batched_bots_match_numpy_bots_on_8p_games_with_disconnections():
    """The largest table (four teams, so three opposing teams to read) with random (dis)connections (Q23)
    and round episodes: every ladder bot but ``idle`` on one table."""
    lineup = [
        *("counter", "eavesdropper", "decoy", "honest"),
        *("collector", "random", "listener", "random_caller"),
    ]
    seen = _play_and_compare(
        8,
        lineup,
        tables=2,
        ticks=600,
        seed=7,
        round_seconds=30,
        sign_phase_seconds=1,
        disconnect_prob=0.01,
        reconnect_prob=0.2,
        episode="round",
    )
    for name in ("counter", "eavesdropper", "decoy", "honest", "collector"):
        assert len(seen[name]) > 3, f"{name} took too few distinct actions for the test to mean much"


def test_calls_are_made_and_matched():
    """The comparison covers calls («Quatro», «Contra»), not just collecting: they do happen."""
    seen = _play_and_compare(
        4, ["counter", "eavesdropper", "honest", "decoy"], tables=8, ticks=900, seed=11, round_seconds=40
    )
    from quatro_env.quatro.actions import ActionCodec, ActionKind

    codec = ActionCodec(4)
    quatro, contra = codec.encode(ActionKind.QUATRO), codec.ranges[ActionKind.CONTRA].start
    assert any(quatro in seen[name] for name in ("honest", "decoy", "counter", "eavesdropper"))
    assert contra in seen["eavesdropper"] | seen["counter"]


#: the reference codes of the secrecy yardstick (#18) are evaluation bots, not training partners
EVALUATION_ONLY = {"cover", "shout"}


def test_every_training_bot_of_the_registry_has_a_batched_version():
    """The ladder (#17) plays in the trainer's bot tables; the secrecy reference codes do not."""
    assert set(KINDS) == set(BOT_POLICIES) - EVALUATION_ONLY


def test_an_evaluation_only_bot_is_refused_as_a_training_opponent_by_name():
    with pytest.raises(ValueError, match=r"no batched version of \['cover'\]"):
        BatchedBots.kind_ids(["honest", "cover"])


def test_unknown_bot_name_is_refused():
    with pytest.raises(ValueError, match="no batched version"):
        BatchedBots.kind_ids(["honest", "oracle"])


def test_state_round_trips_and_refuses_wrong_shapes():
    bots = BatchedBots(4, 3)
    bots.reset_rows(np.arange(3), BatchedBots.kind_ids(["honest", "counter", "decoy"]))
    state = bots.state_dict()
    other = BatchedBots(4, 3)
    other.load_state_dict(state)
    assert all(torch.equal(v, other.state_dict()[k]) for k, v in state.items())
    with pytest.raises(ValueError, match="bots.kinds"):
        BatchedBots(4, 2).load_state_dict(state)
