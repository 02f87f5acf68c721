"""The GPU's way to write observations and masks (a table's features into a work row per table, then a
warp per output row), run as CPU loops and compared with the CPU's way (one pass per table, a work row
reused) on the same tables; and the rows' byte strides (a warp's lanes) checked on the CPU. The CUDA
simulator test then proves the kernels themselves."""

from __future__ import annotations

import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine, schema
from quatro_env.batched.engine import numba_available

pytestmark = pytest.mark.skipif(not numba_available(), reason="numba not installed")


@pytest.mark.parametrize("players", [4, 6, 8])
def test_spreading_bytes_writes_what_the_table_copies_write(players):
    from quatro_env.batched.program import loops

    engine = BatchedQuatroEngine(16, num_players=players, seed=players, illegal_action="noop",
                                 reveal_signs=True, disconnect_prob=0.05, reconnect_prob=0.3)  # fmt: skip
    gen = torch.Generator().manual_seed(players)
    work = schema.allocate(schema.SCRATCH, engine.num_envs, engine._dims, engine.device)  # a row per table
    W = schema.Scratch(**{name: t.numpy() for name, t in work.items()})
    rows = torch.zeros(engine.num_envs, dtype=torch.bool)
    rows[::3] = True
    phases = set()
    for tick in range(400):
        engine.step(engine.sample_actions(gen))
        phases.add(int(engine.phase[0]))
        if tick % 7:
            continue
        for all_rows in (True, False):
            obs = torch.full_like(engine.observations, 255)
            masks = torch.full_like(engine.masks, 7)
            legal = torch.zeros_like(engine.kind_legal)
            work["encode"].zero_()
            S, prm = engine._S, engine._prm
            loops.encode_features(rows.numpy(), all_rows, prm, engine._offs, S, engine._V, W)
            loops.spread_observations(obs.numpy(), rows.numpy(), all_rows, prm, W)
            loops.legal_kinds(rows.numpy(), all_rows, legal.numpy(), prm, S)
            loops.spread_masks(masks.numpy(), rows.numpy(), all_rows, legal.numpy(), engine._tables)
            written = slice(None) if all_rows else rows
            assert torch.equal(obs[written], engine.observations[written]), tick
            assert torch.equal(masks[written], engine.masks[written]), tick
            assert torch.equal(legal[written], engine.kind_legal[written]), tick
            if not all_rows:  # the other tables' bytes are left alone
                assert bool((obs[~rows] == 255).all()) and bool((masks[~rows] == 7).all())
    assert len(phases) >= 3  # sign, play and pause were all encoded


@pytest.mark.parametrize("players", [4, 8])
def test_lanes_striding_over_a_row_write_exactly_the_row(players):
    """``spread_row`` and ``spread_mask`` with ``step`` lanes, each lane writing bytes ``lane, lane +
    step, ...`` (a GPU warp when step is 32), together write the row one thread writes, every byte once."""
    import numpy as np

    from quatro_env.batched.program.view import spread_mask, spread_row

    engine = BatchedQuatroEngine(4, num_players=players, seed=1, illegal_action="noop")
    gen = torch.Generator().manual_seed(1)
    for _ in range(40):
        engine.step(engine.sample_actions(gen))
    rng = np.random.default_rng(players)
    w = rng.integers(0, 256, engine._work["encode"].shape[1], dtype=np.uint8)  # any feature row
    legal = rng.integers(0, 2, engine.kind_legal.shape[2]).astype(np.bool_)
    for step in (1, 3, 32):
        for seat in range(players):
            one = np.zeros(engine.obs_dim, np.uint8)
            spread_row(one, w, engine._prm, seat, 0, 1)
            lanes = np.zeros(engine.obs_dim, np.int64)
            for lane in range(step):
                row = np.full(engine.obs_dim, 255, np.uint8)
                spread_row(row, w, engine._prm, seat, lane, step)
                mine = np.arange(lane, engine.obs_dim, step)
                assert np.array_equal(row[mine], one[mine]), (step, seat, lane)
                lanes[mine] += 1
                assert (np.delete(row, mine) == 255).all(), (step, seat, lane)  # no other byte touched
            assert (lanes == 1).all()
        mask = np.zeros(engine.num_actions, np.int8)
        spread_mask(mask, legal, engine._tables, 0, 1)
        assert np.array_equal(mask, legal[engine._tables.kind_of].astype(np.int8))  # a kind's flag
        for lane in range(step):
            row = np.full(engine.num_actions, 7, np.int8)
            spread_mask(row, legal, engine._tables, lane, step)
            mine = np.arange(lane, engine.num_actions, step)
            assert np.array_equal(row[mine], mask[mine]) and (np.delete(row, mine) == 7).all()
