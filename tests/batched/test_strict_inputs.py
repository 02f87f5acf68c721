"""The batched engine's own inputs (#15 items 5 and 6): legality is judged on the engine's state,
never on the buffer handed to the caller (Q29), and wrong types are refused naming the field."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.batched.engine import MAX_TICKS
from quatro_env.batched.vector import QuatroVectorEnv
from tests.batched.test_batched import BACKENDS


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_caller_writing_into_the_returned_masks_changes_no_rule(backend):
    """Q29: after ``res.masks.fill_(1)`` an action the rules forbid is still refused."""
    engine = BatchedQuatroEngine(4, seed=0, backend=backend)
    res = engine.reset(seed=0)
    own = res.masks.clone()
    res.masks.fill_(1)  # the caller scribbles over its copy
    forbidden = (own[0, 0] == 0).nonzero()[:, 0]
    assert len(forbidden) > 0
    actions = torch.zeros(4, 4, dtype=torch.long)
    actions[0, 0] = int(forbidden[0])
    with pytest.raises(ValueError, match="illegal action for table 0 seat 0"):
        engine.step(actions)
    res = engine.step(torch.zeros(4, 4, dtype=torch.long))  # still usable; its masks are the rules'
    assert torch.equal(res.masks, engine.masks)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_masks_stay_the_rules_through_play(backend):
    """Played with the sampler, the published masks equal the engine's own after every tick."""
    engine = BatchedQuatroEngine(8, seed=1, backend=backend)
    res = engine.reset(seed=1)
    gen = torch.Generator().manual_seed(0)
    for _ in range(40):
        res.masks.zero_()
        res = engine.step(engine.sample_actions(gen))
        assert torch.equal(res.masks, engine.masks)


@pytest.mark.parametrize("num_envs", ["4", 4.0, True, None])
def test_num_envs_must_be_an_integer(num_envs):
    with pytest.raises(ValueError, match="num_envs: an integer number of tables"):
        BatchedQuatroEngine(num_envs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bool])
@pytest.mark.parametrize("backend", BACKENDS)
def test_float_or_bool_actions_are_refused(dtype, backend):
    engine = BatchedQuatroEngine(2, seed=0, backend=backend)
    engine.reset(seed=0)
    before = engine.observations.clone()
    with pytest.raises(ValueError, match=f"actions: integer action indices, got dtype {dtype}"):
        engine.step(torch.zeros(2, 4, dtype=dtype))
    assert torch.equal(engine.observations, before) and int(engine.tick[0]) == 0


def test_a_duration_beyond_the_int32_clocks_is_refused_naming_it():
    """``round_seconds=2e9`` used to wrap the int32 clock (a blank round after one tick)."""
    with pytest.raises(ValueError, match=r"round_seconds: 4000000000 ticks is beyond"):
        BatchedQuatroEngine(2, round_seconds=2e9)
    BatchedQuatroEngine(2, round_seconds=MAX_TICKS * 0.5)  # the longest it holds: accepted


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_action_error_gives_the_reference_rule_s_reason(backend):
    """Q29: like the reference engine, the error names table, seat, action and the rule's reason."""
    engine = BatchedQuatroEngine(2, seed=0, backend=backend)
    engine.reset(seed=0)
    actions = torch.zeros(2, 4, dtype=torch.long)
    actions[1, 2] = 1  # an exchange in the sign phase
    with pytest.raises(
        ValueError, match=r"table 1 seat 2: 1 \(.*\): exchanges happen only while a round is played"
    ):
        engine.step(actions)


def test_the_reasons_agree_with_the_masks_through_play():
    """Every action kind of every seat, tick after tick: a reason exactly where the mask forbids."""
    engine = BatchedQuatroEngine(
        3, seed=2, sign_phase_seconds=2.0, round_seconds=20.0, pause_seconds=2.0, points_to_win=2
    )
    res = engine.reset(seed=2)
    gen = torch.Generator().manual_seed(3)
    firsts = [r.start for r in engine.codec.ranges.values() if len(r)]
    checked = 0
    for tick in range(120):
        if tick % 3 == 0:
            for b in range(3):
                for s in range(4):
                    for a in firsts:
                        reason = engine.illegal_reason(b, s, a)
                        assert (reason is None) == bool(res.masks[b, s, a]), (tick, b, s, a, reason)
                        checked += 1
        res = engine.step(engine.sample_actions(gen))
    assert checked > 1000


def test_a_supplied_draw_samples_what_the_generator_would():
    """``sample_actions(uniforms=u)`` is the generator's path with the draw handed in: the same actions
    from the same numbers (this is how a CPU and a GPU engine are compared on one draw)."""
    a, b = BatchedQuatroEngine(16, seed=3), BatchedQuatroEngine(16, seed=3)
    g, h = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    for _ in range(30):
        act = a.sample_actions(g)
        assert torch.equal(act, b.sample_actions(uniforms=torch.rand(16, 4, 2, generator=h)))
        a.step(act)
        b.step(act)


@pytest.mark.parametrize(
    ("uniforms", "match"),
    [
        (torch.rand(3, 4, 2), r"float32 \[2, 4, 2\] on cpu, got torch.float32 \[3, 4, 2\]"),
        (torch.rand(2, 4, 2, dtype=torch.float64), r"got torch.float64"),
        (torch.full((2, 4, 2), 1.0), r"in \[0, 1\)"),
        (torch.full((2, 4, 2), -0.5), r"in \[0, 1\)"),
    ],
)
def test_a_bad_supplied_draw_is_refused_naming_it(uniforms, match):
    engine = BatchedQuatroEngine(2, seed=0)
    with pytest.raises(ValueError, match=f"sample_actions: uniforms must .*{match}|{match}"):
        engine.sample_actions(uniforms=uniforms)
    with pytest.raises(ValueError, match="a generator or uniforms, not both"):
        engine.sample_actions(torch.Generator(), uniforms=torch.rand(2, 4, 2))


@pytest.mark.parametrize(
    ("actions", "named"),
    [
        (np.full(8, 0.7), r"integer action indices, got dtype torch.float64"),  # was rounded down to 0
        (np.zeros((4, 2), np.int64), r"need shape \[8\] .* or \[2, 4\], got \[4, 2\]"),  # was reshaped
        (np.zeros(9, np.int64), r"need shape \[8\]"),
        (np.ones(8, bool), r"got dtype torch.bool"),
        ("x", r"an integer array of 8 action indices, got 'x'"),
    ],
)
def test_the_vector_env_refuses_actions_it_would_have_coerced(actions, named):
    env = QuatroVectorEnv(2, num_players=4)
    env.reset(seed=0)
    before = env.engine.state_dict()
    with pytest.raises(ValueError, match=named):
        env.step(actions)
    assert all(torch.equal(before[k], v) for k, v in env.engine.state_dict().items())
    env.step(np.zeros((2, 4), np.int64))  # the table shape is also taken
    env.step(np.zeros(8, np.int64))


@pytest.mark.parametrize("seed", [-1, True, 1.5, "0", 2**70])
def test_the_vector_env_and_the_engine_refuse_seeds_as_the_parallel_env_does(seed):
    with pytest.raises(ValueError, match="seed"):
        QuatroVectorEnv(2, num_players=4).reset(seed=seed)
    if isinstance(seed, int):  # bool included: an int subclass
        with pytest.raises(ValueError, match="seed"):
            BatchedQuatroEngine(2).reset(seed)
