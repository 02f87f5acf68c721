"""The batched engine's public surface for learners (#16 item 5): the trainer and the evaluation
read these, never an underscore attribute of the engine."""

from __future__ import annotations

import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine, schema
from quatro_env.batched.engine import STATE_FIELDS
from quatro_env.quatro.cards import is_quartet
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.engine import Phase


def _played(steps: int = 60, seed: int = 0) -> BatchedQuatroEngine:
    engine = BatchedQuatroEngine(16, seed=seed, sign_phase_seconds=2.0, round_seconds=30.0)
    engine.reset(seed=seed)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        engine.step(engine.sample_actions(gen))
    return engine


def test_teams_signs_and_quartet_holders_follow_the_rules():
    engine = _played()
    assert engine.team_of.tolist() == [s % 2 for s in range(4)]  # Q1
    assert torch.equal(engine.in_play, engine.phase == int(Phase.PLAY))
    signs = engine.seat_signs()
    for s in range(4):
        assert torch.equal(signs[:, s], engine.team_sign[:, s % 2])
    holders = engine.quartet_holders()
    for b in range(16):
        for s in range(4):
            expected = bool(engine.in_play[b]) and is_quartet(engine.hands[b, s].tolist())
            assert bool(holders[b, s]) == expected


def test_state_dict_restores_a_table_set_exactly():
    engine = _played(seed=1)
    saved = engine.state_dict()
    assert set(saved) == {*STATE_FIELDS, "config"}
    recorded = bytes(saved["config"].tolist())  # the config that played it, as JSON bytes
    assert (
        saved["config"].dtype == torch.uint8 and QuatroConfig.model_validate_json(recorded) == engine.config
    )
    gen = torch.Generator().manual_seed(5)
    actions = [engine.sample_actions(gen) for _ in range(1)]
    after = engine.step(actions[0]).observations.clone()
    other = BatchedQuatroEngine(16, seed=99, sign_phase_seconds=2.0, round_seconds=30.0)
    other.load_state_dict(saved)
    assert torch.equal(other.step(actions[0]).observations, after)


def _json(**fields) -> torch.Tensor:
    """A config as ``state_dict`` records it: its JSON, a uint8 tensor."""
    return _bytes(QuatroConfig(**fields).model_dump_json())


def _bytes(text: str) -> torch.Tensor:
    return torch.tensor(list(text.encode()), dtype=torch.uint8)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda s: s.pop("hands"), r"missing \['hands'\]"),
        (lambda s: s.update(secret=torch.zeros(1)), r"unknown \['secret'\]"),
        (lambda s: s.update(tick=s["tick"].float()), r"tick must be torch.int32"),
        (lambda s: s.update(scores=s["scores"][:1]), r"scores must be torch.int8\[16, 2\]"),
        (
            lambda s: s.update(config=_json(sign_phase_seconds=2.0, round_seconds=60.0)),
            r"^engine state: played under another config: round_seconds 60.0 \(this engine: 30.0\)$",
        ),
        (
            lambda s: s.update(config=_json(round_seconds=30.0, bot_seats=[1])),
            r"sign_phase_seconds 30.0 \(this engine: 2.0\); bot_seats \(1,\) \(this engine: \(\)\)$",
        ),
        (
            lambda s: s.update(config=_bytes('{"num_players": 5}')),
            r"config is not a valid QuatroConfig \(num_players",
        ),
        (lambda s: s.update(config=_bytes("{")), r"config is not a valid QuatroConfig \(.*JSON"),
        (lambda s: s.update(config="{}"), r"config must be its JSON as a uint8 tensor \[bytes\], got str$"),
        (lambda s: s.update(config=torch.zeros(2, 2)), r"uint8 tensor \[bytes\], got torch.float32\[2, 2\]$"),
    ],
)
def test_a_state_that_does_not_fit_is_refused_by_name_and_changes_nothing(change, named):
    engine = _played(seed=2)
    state = engine.state_dict()
    before = engine.state_dict()
    change(state)
    with pytest.raises(ValueError, match=named):
        engine.load_state_dict(state)
    assert all(torch.equal(before[k], v) for k, v in engine.state_dict().items())


def test_a_state_saved_before_the_config_was_recorded_still_loads():
    """Resume files written before 0.2 hold no ``config`` (the trainer checks its ``env_config``)."""
    engine = _played(seed=3)
    state = engine.state_dict()
    del state["config"]
    other = BatchedQuatroEngine(16, seed=99, sign_phase_seconds=2.0, round_seconds=30.0)
    other.load_state_dict(state)
    assert all(torch.equal(state[k], other.state_dict()[k]) for k in STATE_FIELDS)


DIMS = schema.Dims(n=4, T=2, deck=20)  # the tables of ``_played``


def _out_of_bounds_cases() -> list:
    """Each bounded field with the value just below and just above its bounds, where its dtype can
    hold that value (an int8 score cannot be 128: there the dtype is the bound)."""
    cases = []
    for f in schema.STATE:
        if f.bounds is not None:
            lo, hi = f.bounds[0], DIMS.resolve((f.bounds[1],))[0]
            info = torch.iinfo(f.dtype)
            cases += [
                pytest.param(f, lo, hi, bad, id=f"{f.name}={bad}")
                for bad in (lo - 1, hi)
                if info.min <= bad <= info.max
            ]
    return cases


@pytest.mark.parametrize(("field", "lo", "hi", "bad"), _out_of_bounds_cases())
def test_a_value_the_rules_never_hold_is_refused_by_name_and_changes_nothing(field, lo, hi, bad):
    """The compiled programs index with these fields and check no bound: a team sign of 99 would write
    past its one-hot block (seen under NUMBA_BOUNDSCHECK=1), so a checkpoint holding one is refused."""
    engine = _played(seed=3)
    assert engine._dims.resolve((field.bounds[1],))[0] == hi
    state, before = engine.state_dict(), engine.state_dict()
    state[field.name].view(-1)[-1] = bad
    named = rf"values the rules never hold: {field.name}: {lo}\.\.{hi - 1}, got {bad}"
    with pytest.raises(ValueError, match=named):
        engine.load_state_dict(state)
    assert all(torch.equal(before[k], v) for k, v in engine.state_dict().items())


def test_loaded_masks_are_derived_from_the_state_and_sampling_follows_them():
    """``sample_actions`` drew from the legal kinds of the state before the load (189 illegal actions of
    256 in the case that found it); the masks of the file are not trusted either."""
    source = _played(seed=4)
    state = source.state_dict()
    state["masks"].fill_(1)  # a file's masks say nothing: the rules decide
    engine = BatchedQuatroEngine(16, seed=77, sign_phase_seconds=2.0, round_seconds=30.0)
    engine.load_state_dict(state)
    assert torch.equal(engine.masks, source.masks)
    assert torch.equal(engine.kind_legal, source.kind_legal)
    actions = engine.sample_actions(torch.Generator().manual_seed(1))
    assert bool(engine.masks.gather(2, actions.unsqueeze(-1)).all())
    engine.step(actions)  # illegal_action="raise": every sampled action is legal


def _swap_seed(state: dict) -> None:
    state["seeds"][0] += 1  # the key stays the old seed's


def _in_sign_phase_with_cards(state: dict) -> None:
    state["phase"][0] = int(Phase.SIGN)
    state["hands"][0, 0, 0] = 0


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            lambda s: s["hands"][5, 1].copy_(s["hands"][5, 0]),
            r"hands: with the center, each of the 20 cards once",
        ),
        (
            lambda s: s["center"][7].fill_(-1),
            r"hands: with the center, each of the 20 cards once \(Q3, Q4\) \(table 7\)",
        ),
        (_in_sign_phase_with_cards, r"hands: no card dealt in the sign phase \(Q8\) \(table 0\)"),
        (lambda s: s["tick"][5].fill_(-1), r"tick: 0\.\.1073741824 \(table 5\)"),
        (lambda s: s["tick"].fill_(2**31 - 1), r"tick: 0\.\.1073741824 \(table 0\)"),
        (lambda s: s["phase"][2].fill_(int(Phase.OVER)), r"phase: not over .* \(table 2\)"),
        (lambda s: s["rounds_completed"][1].fill_(-7), r"rounds_completed: 0\.\.round_index \(table 1\)"),
        (lambda s: s["rounds_completed"][1].fill_(9), r"rounds_completed: 0\.\.round_index \(table 1\)"),
        (lambda s: s["scores"][4, 1].fill_(5), r"scores: below points_to_win, 5, and at most the rounds"),
        (
            lambda s: s["scores"][0, 0].fill_(1),
            r"scores: .* at most the rounds completed \(Q24\) \(table 0\)",
        ),
        (lambda s: s["seeds"][6].fill_(-1), r"seeds: 0\.\.4611686018427387904, got -1 \(table 6\)"),
        (lambda s: s["episode"][7].fill_(-2), r"episode: 0 or more, got -2 \(table 7\)"),
        (_swap_seed, r"key: the hash of the table's seed and episode \(table 0\)"),
        (
            lambda s: s.update(tick=torch.empty(16, dtype=torch.int32, device="meta")),
            r"tick must hold its values",
        ),
        (
            lambda s: s.update(hands=s["hands"].to_sparse()),
            r"hands must hold its values, got a torch.sparse_coo",
        ),
    ],
)
def test_a_state_no_play_reaches_is_refused_by_name_and_changes_nothing(change, named):
    """Within every field's bounds, yet never played: a card twice, a clock past its int32 headroom, a
    score no round gave, a key of another seed. The programs would play on from it (the audit's
    duplicated hand played five ticks); a meta tensor was refused only after three fields were copied."""
    engine = _played(seed=3)  # tables 0-4 in the sign phase, 5-7 in play
    assert engine.phase[:8].tolist() == [0] * 5 + [1] * 3 and engine.round_index[1] == 3
    state, before = engine.state_dict(), engine.state_dict()
    change(state)
    with pytest.raises(ValueError, match=named):
        engine.load_state_dict(state)
    assert all(torch.equal(before[k], v) for k, v in engine.state_dict().items())


@pytest.mark.parametrize("num_players", [4, 6, 8])
def test_every_state_the_rules_reach_is_within_the_bounds(num_players):
    """The bounds refuse only what play never produces: every tick of random play (reshuffles, Q5
    re-splits, calls, (dis)connections, match ends and resets) passes, so no honest checkpoint is refused."""
    engine = BatchedQuatroEngine(
        32,
        num_players=num_players,
        seed=num_players,
        sign_phase_seconds=1.0,
        round_seconds=15.0,
        pause_seconds=1.0,
        points_to_win=2,
        disconnect_prob=0.02,
        reconnect_prob=0.3,
    )
    gen = torch.Generator().manual_seed(num_players)
    dims = schema.Dims(n=num_players, T=num_players // 2, deck=engine.deck)
    finished = 0
    for _ in range(400):
        finished += int(engine.step(engine.sample_actions(gen)).info["done"].sum())
        state = engine.state_dict()
        assert schema.out_of_bounds(state, dims) == []
        assert schema.never_reached(state, dims, engine.config.points_to_win) == []
    engine.load_state_dict(state)  # the seeds, episodes and keys of played tables pass too
    assert finished > 0  # match ends and resets were reached
