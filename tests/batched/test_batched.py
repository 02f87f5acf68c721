"""Batched engine: equivalence with the reference ParallelEnv (differential), determinism, adapters."""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine, QuatroVectorEnv
from tests.batched import differential
from tests.random_configs import random_config

PLAYERS = (4, 6, 8)
CONFIGS = ("short", "odd", "default")
#: the table programs' CPU loops (the CUDA kernels: test_cuda.py, under the simulator without a GPU)
BACKENDS = ("numba",)


#: every kind of event and rule outcome the differential runs must reach (the CI run too: it did)
EVENT_KINDS = [
    "exchange", "exchange_rejected", "floor_taken", "emoji_chosen", "pulse", "sign_fixed", "sign_drawn",
    "ready", "start_requested", "quatro_held_back", "Q18/19 quatro right", "Q18/19 quatro wrong",
    "Q18/19 contra right", "Q18/19 contra wrong", "blank_round", "Q20 proposal", "Q20 vote answer yes",
    "Q20 vote answer no", "Q20 vote failed (deadline)", "Q20 vote failed (no)", "reshuffle",
    "hands_replaced", "disconnected", "reconnected", "Q15 floor released (disconnected)",
    "vote_cancelled", "Q24 match over", "Q11 next round: host start", "Q11 next round: pause ended",
]  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", PLAYERS)
def test_differential_ci(n, backend):
    """Small CI run: every config, identical observations/masks/rewards/terminations/scores, and every
    kind of event compared at least once (only the slow run checked the whole list)."""
    counts: Counter = Counter()
    for i, name in enumerate(CONFIGS):
        differential.run(n, name, num_envs=16, ticks=90, seed=11 * n + i, counts=counts, backend=backend)
    print(f"\n{n} players, {counts['ticks']} table-ticks identical\n" + differential.summarize(counts))
    assert counts["ticks"] == 3 * 16 * 90
    missing = [r for r in (*EVENT_KINDS, "round_started") if counts[r] == 0]
    assert not missing, missing


@pytest.mark.parametrize("seed", range(12))
def test_differential_on_random_configs(seed):
    """The engine matches the reference on configs drawn over every option (``tests/random_configs.py``:
    one-tick phases, one-point matches, any bot seats, Q23 (dis)connections), not only on the three above.
    A fuzz run walks more: ``python -m tests.batched.differential --random-configs 1000``."""
    n, cfg = random_config(seed)
    counts = differential.run(n, cfg, num_envs=8, ticks=150, seed=seed)
    assert counts["ticks"] == 8 * 150


def test_random_configs_reach_every_option():
    """The generator is worth its runs: within the seeds the test walks and a few more, every player
    count, switch and corner (one-tick durations, off-tick seconds, one point, bots) is drawn."""
    drawn = [random_config(seed) for seed in range(40)]
    cfgs = [c for _, c in drawn]
    assert {n for n, _ in drawn} == {4, 6, 8}
    for key in ("own_quartet_guard", "reveal_signs", "episode", "reward_mode"):
        assert len({c[key] for c in cfgs}) == 2, key
    assert {c["points_to_win"] for c in cfgs} == {1, 2, 3}
    assert any(c["sign_phase_seconds"] == c["tick_seconds"] for c in cfgs)  # a one-tick sign phase
    assert any(c["pulse_seconds"] == c["tick_seconds"] for c in cfgs)
    off_tick = [Fraction(str(c["round_seconds"])) % Fraction(str(c["tick_seconds"])) != 0 for c in cfgs]
    assert any(off_tick) and not all(off_tick)  # seconds between two ticks (Q6's rounding up), and on one
    assert any(c["bot_seats"] for c in cfgs) and any(not c["bot_seats"] for c in cfgs)
    assert any(c.get("disconnect_prob") for c in cfgs) and any(c.get("disconnect_schedule") for c in cfgs)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", PLAYERS)
def test_differential_long(n, backend):
    """Long mode (``pytest -m slow tests/batched -s``): >= QUATRO_DIFF_TICKS table-ticks per player count."""
    total = int(os.environ.get("QUATRO_DIFF_TICKS", "12000"))
    counts: Counter = Counter()
    envs, seeds = 16, 2
    per_run = -(-total // (len(CONFIGS) * envs * seeds))
    for i, name in enumerate(CONFIGS):
        for seed in range(seeds):
            differential.run(
                n,
                name,
                num_envs=envs,
                ticks=per_run,
                seed=1000 + 10 * i + seed,
                counts=counts,
                backend=backend,
            )
    print(f"\n{n} players, {counts['ticks']} table-ticks identical\n" + differential.summarize(counts))
    assert counts["ticks"] >= total
    missing = [r for r in EVENT_KINDS if counts[r] == 0]
    assert not missing, missing


def _trajectory(engine: BatchedQuatroEngine, steps: int, seed: int) -> list[np.ndarray]:
    gen = torch.Generator(device=engine.device).manual_seed(seed)
    out = []
    for _ in range(steps):
        res = engine.step(engine.sample_actions(gen))
        out.append(res.observations[0].cpu().numpy().copy())
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_table_trajectory_independent_of_batch(backend):
    """Q30: a table's draws depend on its seed only (counter-based RNG), not on the batch."""
    a = BatchedQuatroEngine(1, seed=[123], backend=backend)
    b = BatchedQuatroEngine(5, seed=[123, 1, 2, 3, 4], backend=backend)
    ga, gb = torch.Generator().manual_seed(0), torch.Generator().manual_seed(0)
    for _ in range(200):
        act = b.sample_actions(gb)
        a.step(act[:1])
        b.step(act)
        assert torch.equal(a.observations[0], b.observations[0])
        assert torch.equal(a.masks[0], b.masks[0])
    del ga


def test_backend_choice():
    assert BatchedQuatroEngine(2, seed=0).backend == "numba"
    with pytest.raises(ValueError, match="backend: 'torch' .* was removed"):
        BatchedQuatroEngine(2, seed=0, backend="torch")
    with pytest.raises(ValueError, match="backend"):
        BatchedQuatroEngine(2, seed=0, backend="jax")
    with pytest.raises(ValueError, match="backend: 'numba' runs on the CPU only"):
        BatchedQuatroEngine(2, seed=0, backend="numba", device="meta")


def test_state_memory_and_shapes():
    for n in PLAYERS:
        e = BatchedQuatroEngine(8, num_players=n, seed=0)
        assert e.state_bytes_per_table <= 2048
        res = e.step(torch.zeros(8, n, dtype=torch.long))
        assert res.observations.shape == (8, n, e.obs_dim) and res.observations.dtype == torch.uint8
        assert res.masks.shape == (8, n, e.num_actions)
        assert e.state().shape == (8, n * e.obs_dim)


@pytest.mark.parametrize("backend", BACKENDS)
def test_illegal_actions_raise_or_noop(backend):
    e = BatchedQuatroEngine(2, seed=0, backend=backend)
    bad = torch.zeros(2, 4, dtype=torch.long)
    bad[1, 2] = 1  # an exchange in the sign phase
    before = e.observations.clone()
    with pytest.raises(ValueError, match="table 1 seat 2"):
        e.step(bad)
    assert torch.equal(e.observations, before) and int(e.tick[0]) == 0  # nothing played
    e2 = BatchedQuatroEngine(2, seed=0, illegal_action="noop", backend=backend)
    res = e2.step(bad)
    assert bool(res.info["illegal"][1, 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_sampler_is_legal(backend):
    e = BatchedQuatroEngine(64, num_players=6, seed=3, illegal_action="raise", backend=backend)
    g = torch.Generator().manual_seed(1)
    for _ in range(150):
        e.step(e.sample_actions(g))  # raises on any illegal action


def test_vector_env_slots_and_bots():
    env = QuatroVectorEnv(num_tables=3, num_players=4, bot_seats=(1,), bot_policy="random", seed=5)
    obs, info = env.reset(seed=5)
    assert env.num_envs == 9 and obs.shape == (9, env.engine.obs_dim)
    assert info["action_mask"].shape == (9, env.engine.num_actions)
    for _ in range(100):
        mask = info["action_mask"].float()
        act = torch.multinomial(mask, 1).squeeze(1)
        obs, rew, term, trunc, info = env.step(act)
        assert rew.shape == (9,) and term.shape == (9,) and trunc.shape == (9,)
    scripted = QuatroVectorEnv(num_tables=2, num_players=4, bot_seats=(1, 3), bot_policy="honest", seed=2)
    obs, info = scripted.reset(seed=2)
    for _ in range(120):
        obs, rew, term, trunc, info = scripted.step(
            torch.multinomial(info["action_mask"].float(), 1).squeeze(1)
        )
    assert obs.shape == (4, scripted.engine.obs_dim)
    np_env = QuatroVectorEnv(num_tables=2, num_players=6, numpy=True, keep_final=True, seed=1)
    obs, info = np_env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (12, np_env.engine.obs_dim)
    obs, rew, term, trunc, info = np_env.step(np_env.sample_legal_actions())
    assert isinstance(rew, np.ndarray)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu_and_reference():
    """The CUDA code paths: identical to the CPU engine (same seeds, same actions) and to the reference."""
    cpu = BatchedQuatroEngine(256, num_players=6, seed=7, disconnect_prob=0.01)
    gpu = BatchedQuatroEngine(256, num_players=6, seed=7, disconnect_prob=0.01, device="cuda")
    g = torch.Generator().manual_seed(2)
    for _ in range(300):
        act = cpu.sample_actions(g)
        cpu.step(act)
        gpu.step(act.cuda())
        assert torch.equal(cpu.observations, gpu.observations.cpu())
        assert torch.equal(cpu.masks, gpu.masks.cpu())
        assert torch.equal(cpu.rewards, gpu.rewards.cpu())
    counts: Counter = Counter()
    for n in PLAYERS:
        differential.run(n, "short", num_envs=8, ticks=60, seed=n, device="cuda", counts=counts)
    assert counts["ticks"] == 3 * 8 * 60
