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
    for f in schema.STATE + schema.EVENTS:
        t = getattr(eng, f.name)
        assert t.dtype == f.dtype, f.name
        assert tuple(t.shape) == (3, *dims.resolve(f.shape)), f.name
    by_hand = sum(getattr(eng, f.name).element_size() * getattr(eng, f.name)[0].numel() for f in schema.STATE)
    assert eng.state_bytes_per_table == by_hand == schema.bytes_per_table(schema.STATE, dims)
    assert set(eng.state_dict()) == set(schema.STATE_FIELDS)


def test_every_field_is_declared_once_with_a_meaning():
    fields = schema.STATE + schema.EVENTS + schema.RESULTS
    names = [f.name for f in fields]
    assert len(names) == len(set(names))
    assert all(f.meaning for f in fields)
    assert schema.State._fields == tuple(f.name for f in schema.STATE)
    assert schema.Events._fields == tuple(f.name for f in schema.EVENTS)
    assert schema.Results._fields == tuple(f.name for f in schema.RESULTS)


@pytest.mark.skipif(not numba_available(), reason="numba kernel")
def test_kernel_gets_the_engines_own_tensors_by_name():
    eng = BatchedQuatroEngine(2, num_players=4, seed=3, backend="numba")
    S, V, R = eng._nb_state()
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
    pytest.importorskip("numba")
    from quatro_env.batched.program import layout as nb

    names = [name for block in make_blocks(6) for name, _ in block.fields]
    assert tuple(names) == nb.OBS_FIELDS and len(names) == nb.NUM_OFFS
    assert names[nb.O_REVEALED_HAND] == "revealed_hand" and names[nb.O_LAST_CALL] == "last_call"
