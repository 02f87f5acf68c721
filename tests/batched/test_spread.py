"""The GPU's way to write observations and masks (a table's features, then a warp per output row), run
as CPU loops and compared with the CPU's way (per-table copies) on the same tables: the byte mapping is
proven here in a second, the CUDA simulator test then proves the kernels themselves."""

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
