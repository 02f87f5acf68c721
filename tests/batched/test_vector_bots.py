"""The vector env's scripted bot seats (Q22) are played by the batched bot ladder: the numpy bots'
decisions, every bot seat of every table in one call (issue #17 item 3: bot tables at batch scale)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from quatro_env.batched import QuatroVectorEnv
from quatro_env.bots.batched import SlotRng
from quatro_env.quatro.bots import BOT_POLICIES


def _numpy_bot(policy: str, n: int, rng: SlotRng):
    bot = BOT_POLICIES[policy](n, seed=0)
    bot.rng = rng
    return bot


@pytest.mark.parametrize(
    ("policy", "num_players", "seats"),
    [("counter", 4, (1, 3)), ("decoy", 6, (0, 4, 5)), ("cover", 4, (1, 3)), ("shout", 8, (1, 5))],
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
    with pytest.raises(ValueError, match=r"no batched version of \['shout'\]"):
        QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy="shout")
