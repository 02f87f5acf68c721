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


# ---- found by the audit of 2026-12-07 (the engine shell and the vector env)


@pytest.mark.parametrize(
    "seed",
    [[1.5, 2.7], [True, False], [-5, -6], [[1], [2]], [2**63 - 1, 0], np.array([0.9, 1.9]), ["a", "b"]],
    ids=["floats", "bools", "negative", "2-D", "past MAX_SEED", "float array", "text"],
)
def test_one_seed_per_table_is_an_integer_in_range_never_rounded(seed):
    engine = BatchedQuatroEngine(2)
    before = engine.state_dict()
    with pytest.raises(ValueError, match="seed"):
        engine.reset(seed)
    assert all(torch.equal(before[k], v) for k, v in engine.state_dict().items())
    for one in (1.5, np.float64(3.9), torch.tensor(-7), torch.tensor(2.0)):  # one table: still one seed
        with pytest.raises(ValueError, match="seed"):
            BatchedQuatroEngine(1).reset(one)
    engine.reset(np.array([3, 4]))  # an integer array, a tensor, a list: taken
    assert engine.seeds.tolist() == [3, 4]
    engine.reset(torch.tensor(9))
    assert engine.seeds.tolist() == [9, 10]


def test_a_config_whose_scores_or_rounds_pass_the_int_fields_is_refused_by_name():
    """A team's 128th point wrapped to -128 in the int8 scores (the match could no longer end on
    points), and round 32,768 to -32,768 (the table never truncated): refused, as long durations are."""
    with pytest.raises(ValueError, match="points_to_win"):
        BatchedQuatroEngine(1, points_to_win=130, max_rounds=1000)
    with pytest.raises(ValueError, match="max_rounds"):
        BatchedQuatroEngine(1, max_rounds=40_000, points_to_win=5)
    with pytest.raises(ValueError, match="disconnect_schedule"):
        BatchedQuatroEngine(1, disconnect_schedule=((2**40, 0, False),))
    BatchedQuatroEngine(1, points_to_win=130, max_rounds=127)  # a score never passes 127 there


def test_flags_config_and_table_indices_are_strict():
    for bad in (dict(keep_final="no"), dict(record_draws="no"), dict(config={"num_players": 4})):
        with pytest.raises(ValueError, match=next(iter(bad))):
            BatchedQuatroEngine(1, **bad)
    with pytest.raises(ValueError, match="numpy"):
        QuatroVectorEnv(1, numpy="no")
    engine = BatchedQuatroEngine(2)
    for table, seat in ((-1, 0), (0, -1), (2, 0), (0, 4)):
        with pytest.raises(ValueError, match="table|seat"):
            engine.illegal_reason(table, seat, 1)
    with pytest.raises(ValueError, match="actions"):
        engine.step("x")


def test_the_backend_variable_is_named_when_it_is_wrong(monkeypatch):
    monkeypatch.setenv("QUATRO_BATCHED_BACKEND", "numbaa")
    with pytest.raises(ValueError, match="QUATRO_BATCHED_BACKEND"):
        BatchedQuatroEngine(1)


def test_a_load_clears_the_last_step_s_results():
    engine = BatchedQuatroEngine(2, seed=0)
    state = engine.state_dict()
    gen = torch.Generator().manual_seed(0)
    while not bool(engine.done.any()):
        engine.step(engine.sample_actions(gen))
    engine.load_state_dict(state)
    assert not bool(engine.done.any()) and not bool(engine.rewards.any())


def test_the_vector_env_s_masks_are_a_copy_writing_into_them_changes_no_rule():
    """Q29: ``info["action_mask"]`` was a view of the engine's own masks; writing 1s into it let
    forbidden actions through under illegal_action="raise"."""
    env = QuatroVectorEnv(2, num_players=4)
    _, info = env.reset(seed=0)
    own = info["action_mask"].clone()
    info["action_mask"].fill_(1)
    forbidden = int((own[0] == 0).nonzero()[0, 0])
    actions = torch.zeros(8, dtype=torch.long)
    actions[0] = forbidden
    with pytest.raises(ValueError, match="illegal action"):
        env.step(actions)


@pytest.mark.parametrize("bot_seats", [(), (1,)])
def test_a_refused_vector_step_names_the_slot_the_caller_indexes(bot_seats):
    """Q29: the vector env's caller indexes slots, not (table, seat); the error named only the engine's
    table and seat. It is the reference engine's ``IllegalActionError`` (a ValueError), with both."""
    from quatro_env.quatro.engine import IllegalActionError

    env = QuatroVectorEnv(3, num_players=4, bot_seats=bot_seats, bot_policy="idle")
    _, info = env.reset(seed=0)
    m = env.agents_per_table
    slot = 2 * m + m - 1  # table 2, its last agent seat (seat 3)
    actions = torch.zeros(env.num_envs, dtype=torch.long)
    actions[slot] = int((info["action_mask"][slot] == 0).nonzero()[0, 0])
    with pytest.raises(
        IllegalActionError, match=rf"illegal action for slot {slot} \(table 2 seat 3\)"
    ) as err:
        env.step(actions)
    assert (err.value.slot, err.value.table, err.value.seat) == (slot, 2, 3)
    assert err.value.action == int(actions[slot]) and "(Q29)" in err.value.reason


def test_an_illegal_action_error_pickles_with_its_fields():
    """A worker process's error (RLlib's env runners) reaches the driver whole: pickling kept only the
    message, and unpickling then failed for want of the other arguments."""
    import pickle

    from quatro_env.quatro.engine import IllegalActionError

    engine = BatchedQuatroEngine(2, seed=0)
    res = engine.reset(seed=0)
    actions = torch.zeros(2, 4, dtype=torch.long)
    actions[1, 2] = int((res.masks[1, 2] == 0).nonzero()[0, 0])
    with pytest.raises(IllegalActionError) as err:
        engine.step(actions)
    back = pickle.loads(pickle.dumps(err.value))
    assert type(back) is IllegalActionError and str(back) == str(err.value)
    assert (back.table, back.seat, back.action, back.slot) == (1, 2, int(actions[1, 2]), None)


def test_the_vector_env_with_numpy_returns_arrays_of_its_own():
    env = QuatroVectorEnv(2, num_players=4, numpy=True)
    obs, info = env.reset(seed=0)
    kept_obs, kept_mask = obs.copy(), info["action_mask"].copy()
    env.step(np.zeros(8, np.int64))
    assert np.array_equal(obs, kept_obs) and np.array_equal(info["action_mask"], kept_mask)


def test_the_vector_env_s_unseeded_reset_continues_its_own_stream():
    """Q30: ``reset()`` draws from the env's seeded stream (it took torch's global generator)."""

    calls = iter(range(100))

    def seeds_after(first):
        env = QuatroVectorEnv(2, num_players=4, seed=1)
        env.reset(seed=first)
        torch.manual_seed(next(calls))  # the global generator differs at every call: it must not decide
        env.reset()
        return env.engine.seeds.tolist()

    assert seeds_after(5) == seeds_after(5) != seeds_after(6)
    with pytest.raises(ValueError, match="options"):
        QuatroVectorEnv(1).reset(seed=0, options={"position": "x"})


def test_a_refused_vector_step_leaves_the_bots_as_they_were():
    """Decision 18: with bot seats, an illegal agent action was refused by the engine after the
    bots had drawn and moved on, so a retry played another game."""

    def trajectory(refuse_at):
        env = QuatroVectorEnv(3, num_players=4, bot_seats=(1, 3), bot_policy="counter", seed=0)
        obs, info = env.reset(seed=0)
        gen, rows = torch.Generator().manual_seed(1), []
        for tick in range(60):
            if tick == refuse_at:
                mask = info["action_mask"]
                bad = torch.zeros(6, dtype=torch.long)
                bad[0] = int((mask[0] == 0).nonzero()[0, 0])
                with pytest.raises(ValueError, match="illegal action"):
                    env.step(bad)
            legal = info["action_mask"].float()
            obs, _, _, _, info = env.step(torch.multinomial(legal, 1, generator=gen).squeeze(1))
            rows.append(obs.clone())
        return torch.stack(rows), env.bot_actions.clone()

    assert all(torch.equal(a, b) for a, b in zip(trajectory(None), trajectory(20), strict=True))


def test_the_vector_env_reports_illegal_slots_and_takes_reversed_arrays():
    env = QuatroVectorEnv(2, num_players=4, illegal_action="noop")
    _, info = env.reset(seed=0)
    actions = np.zeros(8, np.int64)
    actions[3] = int((info["action_mask"][3] == 0).nonzero()[0, 0])
    *_, info = env.step(actions[::-1].copy()[::-1])  # a reversed view: negative strides
    assert info["illegal"].tolist() == [False, False, False, True, False, False, False, False]


def test_the_engine_s_unseeded_reset_continues_the_last_seeded_one():
    """Q30: ``reset()`` drew the tables' seeds from torch's global generator."""

    calls = iter(range(100))

    def seeds(first):
        engine = BatchedQuatroEngine(3, seed=first)
        torch.manual_seed(next(calls))  # the global generator differs at every call: it must not decide
        engine.reset()
        return engine.seeds.tolist()

    assert seeds(5) == seeds(5) != seeds(6)
