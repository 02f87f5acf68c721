"""The batched engine's state schema (issue #16): each field declared once, and what it generates."""

from __future__ import annotations

import pytest
import torch

from quatro_env.batched import constants, schema
from quatro_env.batched.engine import BatchedQuatroEngine, numba_available
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.encoding import make_blocks
from quatro_env.quatro.phases import HOST_SEAT, Phase


@pytest.mark.parametrize("n", [4, 6, 8])
def test_engine_tensors_are_the_declared_fields(n):
    eng = BatchedQuatroEngine(3, num_players=n, seed=1)
    dims = schema.Dims(n=n, T=n // 2)
    for f in schema.STATE + schema.EVENTS + schema.RESULTS:
        t = getattr(eng, f.name)
        assert t.dtype == f.dtype, f.name
        assert tuple(t.shape) == (3, *dims.resolve(f.shape)), f.name
    by_hand = sum(getattr(eng, f.name).element_size() * getattr(eng, f.name)[0].numel() for f in schema.STATE)
    assert eng.state_bytes_per_table == by_hand == schema.bytes_per_table(schema.STATE, dims)
    assert set(eng.state_dict()) == {*schema.STATE_FIELDS, schema.CONFIG_KEY}


def test_every_field_is_declared_once_with_a_meaning():
    fields = schema.STATE + schema.EVENTS + schema.RESULTS  # the engine's attributes: one namespace
    names = [f.name for f in fields]
    assert len(names) == len(set(names))
    for group, bundle in (
        (schema.STATE, schema.State),
        (schema.EVENTS, schema.Events),
        (schema.RESULTS, schema.Results),
        (schema.DRAWS, schema.Draws),
        (schema.SCRATCH, schema.Scratch),
    ):
        assert bundle._fields == tuple(f.name for f in group)
        assert all(f.meaning for f in group), bundle.__name__


@pytest.mark.skipif(not numba_available(), reason="numba kernel")
def test_kernel_gets_the_engines_own_tensors_by_name():
    eng = BatchedQuatroEngine(2, num_players=4, seed=3, backend="numba")
    S, V, R = eng._S, eng._V, eng._R
    eng.hands[1, 2, 3] = 7
    assert S.hands[1, 2, 3] == 7  # a view, not a copy
    assert V.ev_pos.shape == (2, 4) and R.done.shape == (2,)
    eng.step(torch.zeros(2, 4, dtype=torch.long))
    assert R.rewards is not None and (R.rewards == eng.rewards.numpy()).all()


def test_constants_are_the_reference_enums():
    assert tuple(int(p) for p in Phase) == (constants.SIGN, constants.PLAY, constants.PAUSE, constants.OVER)
    assert constants.HOST_SEAT == HOST_SEAT
    assert len(ActionKind) == constants.NUM_KINDS
    kinds = {name: getattr(constants, name) for name in dir(constants) if name.startswith("K_")}
    assert sorted(kinds.values()) == [int(k) for k in ActionKind]


@pytest.mark.parametrize("n", [4, 6, 8])
def test_programs_get_the_encoders_offsets_and_the_configs_durations_by_name(n):
    """``Offsets`` are the encoder's field names with their offsets; ``Params`` holds every duration."""
    from quatro_env.batched.program import layout

    blocks = make_blocks(n)
    names = [name for block in blocks for name, _ in block.fields]
    offsets = layout.make_offsets(blocks)
    assert offsets._fields == tuple(names)
    assert offsets.revealed_hand == blocks[3].offset("revealed_hand") and offsets.last_call == blocks[
        1
    ].offset("last_call")
    eng = BatchedQuatroEngine(2, num_players=n, seed=0, round_seconds=7)
    assert {k: getattr(eng._prm, k) for k in vars(eng.durations)} == vars(eng.durations)
    assert (eng._prm.n, eng._prm.T, eng._prm.D, eng._prm.A) == (n, n // 2, eng.obs_dim, eng.num_actions)
