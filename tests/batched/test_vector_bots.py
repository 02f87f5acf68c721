"""The vector env's scripted bot seats (Q22) are played by the batched bot ladder: the numpy bots'
decisions, every bot seat of every table in one call (issue #17 item 3: bot tables at batch scale)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from quatro_env.batched import QuatroVectorEnv
from quatro_env.bots.batched import SlotRng
from quatro_env.quatro.bots import build_bot


def _numpy_bot(policy: str, n: int, rng: SlotRng):
    bot = build_bot(policy, n, seed=0)
    bot.rng = rng
    return bot


@pytest.mark.parametrize(
    ("policy", "num_players", "seats"),
    [
        ("counter", 4, (1, 3)),
        ("decoy", 6, (0, 4, 5)),
        ("cover", 4, (1, 3)),
        ("shout", 8, (1, 5)),
        ("cover:split=True", 4, (0, 2)),  # an option, spelled otherwise than KINDS spells it
        ("cover:beat=false", 6, (1, 4)),
    ],
)
def test_vector_env_bot_seats_take_the_numpy_bots_decisions(policy, num_players, seats):
    """Tick by tick, each bot seat plays what the numpy bot plays on that seat's observation, mask and
    draws (a wrong seat or a missed tick would differ), across episode ends, where both start afresh."""
    tables = 3
    env = QuatroVectorEnv(
        num_tables=tables,
        num_players=num_players,
        bot_seats=seats,
        bot_policy=policy,
        seed=4,
        episode="round",
        round_seconds=12,
        sign_phase_seconds=1,
        pause_seconds=0.5,
    )
    draws_seen: list[np.ndarray] = []
    draw = env._bot_draws
    env._bot_draws = lambda rows: draws_seen.append(draw(rows)) or draws_seen[-1]
    rngs = [[SlotRng() for _ in seats] for _ in range(tables)]
    bots = [[_numpy_bot(policy, num_players, rng) for rng in row] for row in rngs]
    obs, info = env.reset(seed=4)
    agent_gen = torch.Generator().manual_seed(0)
    episodes = 0
    for tick in range(160):
        seen_obs = env.engine.observations[:, list(seats)].numpy().copy()
        seen_masks = env.engine.masks[:, list(seats)].numpy().copy()
        act = torch.multinomial(info["action_mask"].float(), 1, generator=agent_gen).squeeze(1)
        obs, rew, term, trunc, info = env.step(act)
        draws = draws_seen[-1].reshape(tables, len(seats), -1)
        for b in range(tables):
            for j in range(len(seats)):
                rngs[b][j].set(draws[b, j])
                expected = bots[b][j].act(seen_obs[b, j], seen_masks[b, j])
                assert int(env.bot_actions[b, j]) == expected, f"tick {tick} table {b} seat {seats[j]}"
        for b in np.flatnonzero((term | trunc).numpy()[:: env.agents_per_table]):
            episodes += 1
            bots[b] = [_numpy_bot(policy, num_players, rng) for rng in rngs[b]]
    assert episodes >= tables  # resets were exercised
    assert len(draws_seen) == 160


def test_vector_env_batched_bots_follow_the_seed():
    """Q30: the same seed and agent actions give the same bot actions; another seed other ones."""

    def bot_actions(seed: int) -> list[list[int]]:
        env = QuatroVectorEnv(num_tables=4, num_players=4, bot_seats=(1, 3), bot_policy="decoy", seed=seed)
        env.reset(seed=seed)
        out = []
        for _ in range(80):
            env.step(torch.zeros(env.num_envs, dtype=torch.long))
            out.append(env.bot_actions.reshape(-1).tolist())
        return out

    assert bot_actions(7) == bot_actions(7)
    assert bot_actions(7) != bot_actions(8)


def test_a_bot_without_a_compiled_row_is_refused_by_name_not_played_as_another(monkeypatch):
    """Bot seats are played on the device (``idle``, ``random``, ``random_caller``) or by a compiled row;
    a registered bot that had neither must not fall through to the device's uniform play."""
    import quatro_env.bots.batched as rows

    monkeypatch.setattr(rows, "KINDS", tuple(k for k in rows.KINDS if k != "shout"))
    with pytest.raises(ValueError, match="no batched version of shout"):
        QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy="shout")


def test_bot_seats_take_a_bots_options_and_refuse_a_bad_one_by_name():
    """``bot_policy`` takes a bot's options after a colon (Q22), as a line-up does: the ParallelEnv's
    seats are that bot with those options, the vector env plays the option's compiled row, and an
    unknown bot, an unknown option, a value of the wrong type, or (vector env) an option without a
    compiled row is refused by name when the env is made, before any tick."""
    from quatro_env.bots.batched import COVER_SPLIT, KINDS
    from quatro_env.quatro.config import QuatroConfig
    from quatro_env.quatro.env import QuatroParallelEnv

    env = QuatroParallelEnv(num_players=4, bot_seats=(1, 3), bot_policy="cover:split=true,partner_delay=2")
    assert all(bot.split and bot.partner_delay == 2 for bot in env.bots.values())
    vec = QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy="cover:split=true")
    assert vec._bot_kind == COVER_SPLIT and KINDS[COVER_SPLIT] == "cover:split=true"
    with pytest.raises(ValueError, match="bot_policy: unknown policy 'nobody:split=true'"):
        QuatroConfig(bot_policy="nobody:split=true")
    for policy, named in (
        ("cover:hide=true", "cover has no parameter 'hide'"),
        ("cover:split=maybe", "split must be bool, got 'maybe'"),
        ("cover:split", "parameter 'split' is not key=value"),
        ("cover:partner_delay=-1", "partner_delay: a whole number of ticks >= 0"),  # the bot's own check
    ):
        with pytest.raises(ValueError, match=named):
            QuatroParallelEnv(num_players=4, bot_seats=(1, 3), bot_policy=policy)
        with pytest.raises(ValueError, match=named):
            QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy=policy)
    with pytest.raises(ValueError, match="no batched version of counter with {'threshold': 0.6}"):
        QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy="counter:threshold=0.6")


@pytest.mark.parametrize(
    ("policy", "row"),
    [
        ("cover:split=false", "cover"),  # an option at its default is no option
        ("cover:partner_delay=0,beat=true", "cover"),
        ("cover:split=True", "cover:split=true"),
        ("cover:beat=true,split=true", "cover:split=true"),
        ("cover:beat=False", "cover:beat=false"),
        ("random:", "random"),
    ],
)
def test_a_bots_options_find_their_row_however_spelled(policy, row):
    """``bot_policy`` names the same bot however its options are written, in the vector env as in the
    ParallelEnv: the compiled row of the options that differ from the bot's defaults."""
    from quatro_env.bots.batched import KINDS, BatchedBots
    from quatro_env.quatro.bots import batched_kind

    assert batched_kind(policy) == row
    vec = QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy=policy)
    if vec._bots is not None:  # idle, random and random_caller are played on the device
        assert KINDS[vec._bot_kind] == row
        assert vec._bot_kind == BatchedBots.kind_ids([row])[0]


def test_options_without_a_row_are_refused_naming_the_options_that_differ():
    from quatro_env.quatro.bots import batched_kind

    with pytest.raises(ValueError, match="no batched version of cover with {'partner_delay': 4}"):
        batched_kind("cover:split=false,partner_delay=4")
    with pytest.raises(ValueError, match="no batched version of cover with {'partner_delay': 4}"):
        QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1,), bot_policy="cover:partner_delay=4")
