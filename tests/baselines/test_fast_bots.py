"""The batched bot ladder takes the numpy bots' decisions (issue #17 item 3): the differential test of
``bots_differential.py`` on fixed line-ups at 4, 6 and 8 players, and on a few fuzzed ones."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import KINDS, VARIANTS, BatchedBots
from quatro_env.eval.policies import as_policy
from quatro_env.quatro.bots import BOT_POLICIES
from tests.baselines.bots_differential import play_and_compare, random_lineup


@pytest.mark.parametrize(
    "lineup",
    [
        ["honest", "random", "honest", "collector"],
        ["decoy", "eavesdropper", "decoy", "counter"],
        ["counter", "honest", "listener", "decoy"],
        ["eavesdropper", "random_caller", "honest", "idle"],
        ["cover", "counter", "cover", "decoy"],
        ["shout", "counter", "shout", "honest"],
        ["cover:split=true", "counter", "cover:split=true", "eavesdropper"],
        ["cover:beat=false", "decoy", "cover:beat=false", "counter"],
    ],
)
def test_batched_bots_match_numpy_bots_on_4p_games(lineup):
    seen = play_and_compare(4, lineup, tables=6, ticks=700, seed=3, round_seconds=30, sign_phase_seconds=1)
    for name in set(lineup) - {"idle", "listener"}:
        assert len(seen[name]) > 3, f"{name} took too few distinct actions for the test to mean much"


def test_batched_bots_match_numpy_bots_on_6p_games():
    lineup = ["counter", "eavesdropper", "cover", "honest", "collector", "cover"]
    play_and_compare(6, lineup, tables=3, ticks=500, seed=5, round_seconds=30, sign_phase_seconds=1)


def test_batched_bots_match_numpy_bots_on_8p_games_with_disconnections():
    """The largest table (four teams, so three opposing teams to read) with random (dis)connections (Q23)
    and round episodes: every ladder bot but ``idle`` on one table."""
    lineup = [
        *("counter", "eavesdropper", "decoy", "honest"),
        *("collector", "random", "listener", "random_caller"),
    ]
    seen = play_and_compare(
        8,
        lineup,
        tables=2,
        ticks=600,
        seed=7,
        round_seconds=30,
        sign_phase_seconds=1,
        disconnect_prob=0.01,
        reconnect_prob=0.2,
        episode="round",
    )
    for name in ("counter", "eavesdropper", "decoy", "honest", "collector"):
        assert len(seen[name]) > 3, f"{name} took too few distinct actions for the test to mean much"


def test_fuzzed_lineups_agree_and_cover_every_player_count_and_bot():
    """The command line's line-ups (``random_lineup``): a few run here, and the generator reaches every
    player count, every batched bot and the configs' corners within the seeds a fuzz run walks."""
    for seed in (1, 2, 3):
        n, lineup, config = random_lineup(seed)
        play_and_compare(n, lineup, tables=2, ticks=200, seed=seed, **config)
    drawn = [random_lineup(seed) for seed in range(60)]
    assert {n for n, _, _ in drawn} == {4, 6, 8}
    assert set().union(*(lineup for _, lineup, _ in drawn)) == set(KINDS)
    assert any(c.get("disconnect_prob") for *_, c in drawn)
    assert any(c["episode"] == "round" for *_, c in drawn)
    assert any(c["pulse_seconds"] == c["tick_seconds"] for *_, c in drawn)  # a pulse every tick


def test_calls_are_made_and_matched():
    """The comparison covers calls («Quatro», «Contra»), not just collecting: they do happen."""
    seen = play_and_compare(
        4, ["counter", "eavesdropper", "honest", "decoy"], tables=8, ticks=900, seed=11, round_seconds=40
    )
    from quatro_env.quatro.actions import ActionCodec, ActionKind

    codec = ActionCodec(4)
    quatro, contra = codec.encode(ActionKind.QUATRO), codec.ranges[ActionKind.CONTRA].start
    assert any(quatro in seen[name] for name in ("honest", "decoy", "counter", "eavesdropper"))
    assert contra in seen["eavesdropper"] | seen["counter"]


def test_every_bot_of_the_registry_has_a_batched_version():
    """The ladder (#17) and both reference codes of the secrecy scale (#18) play in the trainer's bot
    tables, so ``quatro-exploit`` can train a best response to any registered bot; so do the two
    options of ``cover`` that the secrecy frontier measures."""
    assert set(KINDS) - set(VARIANTS) == set(BOT_POLICIES)
    assert set(VARIANTS) == {"cover:beat=false", "cover:split=true"}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_variant_is_named_as_the_harness_parses_it(name):
    """A line-up's ``cover:split=true`` is one bot for the harness and for the compiled rows."""
    bot, options = VARIANTS[name]
    spec = as_policy(name)
    assert (spec.kind, spec.target, dict(spec.kwargs)) == ("bot", bot, options)


def test_a_bot_option_without_a_row_is_refused_as_a_training_opponent_by_name():
    """The compiled rows play each bot in its defaults and the variants above; any other option is a
    numpy bot only."""
    with pytest.raises(ValueError, match=r"no batched version of \['cover:partner_delay=4'\]"):
        BatchedBots.kind_ids(["honest", "cover:partner_delay=4"])


def test_the_batched_cover_keeps_its_code_through_whole_rounds():
    """The compiled cover takes the numpy cover's decisions on tables where quartets form, so its beats,
    sign pulses and the partner's «Quatro» are all compared (a cover pair against two counters)."""
    from quatro_env.quatro.actions import ActionCodec, ActionKind

    seen = play_and_compare(4, ["cover", "counter"], tables=8, ticks=1200, seed=13, round_seconds=40)
    codec = ActionCodec(4)
    show = codec.ranges[ActionKind.SHOW_EMOJI]
    exchanges = codec.ranges[ActionKind.EXCHANGE]
    assert codec.encode(ActionKind.QUATRO) in seen["cover"]
    assert len(seen["cover"] & set(show)) > 10 and len(seen["cover"] & set(exchanges)) > 8


@pytest.mark.parametrize(
    ("variant", "seed", "kind", "at_least"),
    [("cover:split=true", 19, "EXCHANGE", 8), ("cover:beat=false", 23, "SHOW_EMOJI", 10)],
)
def test_the_batched_cover_options_call_on_their_sign_through_whole_rounds(variant, seed, kind, at_least):
    """The rows of the cover's options take the numpy bot's decisions where quartets form and the partner
    calls «Quatro» on the sign: the split cover (halves keyed by the team sign, neutral swaps ranked by
    the values each seat has been taking) and the channel-only cover (``beat=false``: exchanges whenever
    it collects, the sign at the holder's next pulse), each pair against two counters."""
    from quatro_env.quatro.actions import ActionCodec, ActionKind

    seen = play_and_compare(4, [variant, "counter"], tables=8, ticks=1200, seed=seed, round_seconds=40)
    codec = ActionCodec(4)
    assert codec.encode(ActionKind.QUATRO) in seen[variant]
    assert len(seen[variant] & set(codec.ranges[ActionKind[kind]])) > at_least


def test_the_batched_shout_calls_on_its_sign_through_whole_rounds():
    """The compiled shout takes the numpy shout's decisions where quartets form: the floor held armed,
    the sign at once, and the partner's «Quatro» on it (a shout pair against two counters)."""
    from quatro_env.quatro.actions import ActionCodec, ActionKind

    seen = play_and_compare(4, ["shout", "counter"], tables=8, ticks=1200, seed=17, round_seconds=40)
    codec = ActionCodec(4)
    assert codec.encode(ActionKind.QUATRO) in seen["shout"]
    assert codec.encode(ActionKind.TAKE_FLOOR) in seen["shout"]
    assert seen["shout"] & set(codec.ranges[ActionKind.SHOW_EMOJI])
    assert len(seen["shout"] & set(codec.ranges[ActionKind.EXCHANGE])) > 8


def test_a_bots_state_written_before_the_cover_row_still_loads():
    """A checkpoint without the ``cover`` entry (the trainer's, before the cover row existed) loads: no
    row of it can play the cover (its id came last), whose memory starts as at a match start."""
    bots = BatchedBots(4, 3)
    bots.reset_rows(np.arange(3), BatchedBots.kind_ids(["honest", "counter", "decoy"]))
    state = bots.state_dict()
    old = {k: v for k, v in state.items() if k != "cover"}
    other = BatchedBots(4, 3)
    other.cover[:] = 7
    other.load_state_dict(old)
    assert all(torch.equal(v, other.state_dict()[k]) for k, v in state.items())


def test_a_bots_state_written_before_the_split_cover_row_still_loads():
    """A checkpoint whose cover memory has the four columns of the default cover's row loads: the split's
    two columns start as at a match start (no split seen yet)."""
    bots = BatchedBots(4, 2)
    bots.reset_rows(np.arange(2), BatchedBots.kind_ids(["cover", "honest"]))
    state = bots.state_dict()
    old = {**state, "cover": state["cover"][:, :4].clone()}
    other = BatchedBots(4, 2)
    other.cover[:] = 7
    other.load_state_dict(old)
    assert all(torch.equal(v, other.state_dict()[k]) for k, v in state.items())


def test_unknown_bot_name_is_refused():
    with pytest.raises(ValueError, match="no batched version"):
        BatchedBots.kind_ids(["honest", "oracle"])


def test_state_round_trips_and_refuses_wrong_shapes():
    bots = BatchedBots(4, 3)
    bots.reset_rows(np.arange(3), BatchedBots.kind_ids(["honest", "counter", "decoy"]))
    state = bots.state_dict()
    other = BatchedBots(4, 3)
    other.load_state_dict(state)
    assert all(torch.equal(v, other.state_dict()[k]) for k, v in state.items())
    with pytest.raises(ValueError, match="bots.kinds"):
        BatchedBots(4, 2).load_state_dict(state)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda s: s.update(_fields=torch.zeros(3, dtype=torch.int64)), r"unknown \['_fields'\]"),
        (lambda s: s.update(params=torch.zeros(5)), r"unknown \['params'\]"),
        (lambda s: s.pop("known"), r"missing \['known'\]"),
        (
            lambda s: s["kinds"].__setitem__(0, 99),
            rf"bots.kinds: bot ids lie in \[-1, {len(KINDS) - 1}\], got .*99",
        ),
        (lambda s: s.update(erratic=s["erratic"].numpy()), r"bots.erratic: a tensor, got ndarray"),
        (lambda s: s.update(order=s["order"][:1]), r"bots.order: expected int64\[3, 5\]"),
    ],
)
def test_a_state_that_does_not_fit_is_refused_by_name_and_changes_nothing(change, named):
    """A file names only the bots' memory: not their layout tables (``_fields``: the observation offsets
    the compiled rows read at) or parameters, which it could overwrite before; and a bad entry late in
    the dict no longer leaves the earlier ones copied."""
    bots = BatchedBots(4, 3)
    bots.reset_rows(np.arange(3), BatchedBots.kind_ids(["honest", "counter", "decoy"]))
    before = bots.state_dict()
    state = {k: v.clone() for k, v in before.items()}
    state["known"].fill_(2)  # would be copied first if the check came after
    change(state)
    with pytest.raises(ValueError, match=named):
        bots.load_state_dict(state)
    assert all(torch.equal(v, bots.state_dict()[k]) for k, v in before.items())


@pytest.mark.parametrize(
    ("bad", "message"),
    [(1.0, r"\[0, 1\)"), (-0.25, r"\[0, 1\)"), (np.nan, r"\[0, 1\)"), (None, "need shape")],
)
def test_act_refuses_draws_outside_the_unit_interval_or_of_the_wrong_shape(bad, message):
    """A draw of 1.0 would pick one past the end (``int(u * k) == k``): the numpy bot raises an IndexError,
    the compiled row read it as a silent no-op (the bots' fuzz found it, from float64 draws rounded to
    float32). Such draws, and a wrong shape, are refused by name and leave the bots' state as it was."""
    n, rows = 4, 3
    bots = BatchedBots(n, rows)
    bots.reset_rows(np.arange(rows), BatchedBots.kind_ids(["random", "honest", "counter"]))
    engine = BatchedQuatroEngine(1, num_players=n, seed=0)
    obs = engine.observations.reshape(n, -1).numpy()[:rows]
    masks = engine.masks.reshape(n, -1).numpy()[:rows]
    draws = np.full((rows, bots.num_draws), 0.5)
    before = bots.state_dict()
    if bad is None:
        draws = draws[:, :-1]
    else:
        draws[0, 0] = bad
    with pytest.raises(ValueError, match=message):
        bots.act(obs, masks, draws)
    assert all(torch.equal(v, bots.state_dict()[k]) for k, v in before.items())
    assert bots.act(obs, masks, np.full((rows, bots.num_draws), 0.5)).shape == (rows,)
