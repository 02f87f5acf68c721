"""#15 items 3, 4 and 6: bad input is refused with an error naming the problem, and changes nothing.

For each game (Quatro ParallelEnv and AEC, Kwartet, Cuatrola) and each family of bad input
(wrong-typed or out-of-range config fields, reset options, actions), the call raises a
``ValueError`` whose message names the field or agent, and the env is exactly as before: its
pickled state is byte-identical and it keeps playing exactly like an untouched copy.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0
from quatro_env.quatro import IllegalActionError
from tests.env_drivers import play_aec, play_parallel
from tests.quatro.helpers import neutral_position

EXAMPLES = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# ------------------------------------------------------------------ wrong-typed scalars
#: never an integer: a float (even 4.0), a bool, a string, None, NumPy floats and bools
NOT_AN_INT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.sampled_from([np.float64(1.0), np.bool_(True), np.float32(2.0)]),
)
#: never a flag: ints (0 and 1 included), floats, strings ("no", "False"), None
NOT_A_FLAG = st.one_of(
    st.integers(-2, 2),
    st.floats(allow_nan=False),
    st.sampled_from(["no", "yes", "False", "true", "", None, np.int64(1)]),
)
#: never a number: bools, strings, None, containers
NOT_A_NUMBER = st.one_of(st.booleans(), st.text(max_size=3), st.none(), st.lists(st.integers(), max_size=2))


def not_one_of(allowed: tuple) -> st.SearchStrategy:
    """Anything but the allowed literal values (strings that are not them, numbers, None)."""
    return st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none()).filter(
        lambda v: v not in allowed or isinstance(v, bool)
    )


def assert_names(err: BaseException, *words: str) -> None:
    text = str(err)
    assert any(w in text for w in words), f"error does not name {words}: {text}"


# ------------------------------------------------------------------ config fields (item 6)
QUATRO_FIELDS = {
    "num_players": st.one_of(NOT_AN_INT, st.sampled_from([4.0, 6.0, "4", 5, 2, 0])),
    "points_to_win": st.one_of(NOT_AN_INT, st.integers(max_value=0)),
    "max_rounds": st.one_of(NOT_AN_INT, st.integers(max_value=0)),
    "tick_seconds": st.one_of(NOT_A_NUMBER, st.sampled_from([0, -1.0, math.inf, math.nan])),
    "round_seconds": st.one_of(NOT_A_NUMBER, st.sampled_from([0.0, -5.0, math.inf])),
    "disconnect_prob": st.one_of(NOT_A_NUMBER, st.sampled_from([1.0, 1.5, -0.1, math.nan])),
    "reconnect_prob": st.one_of(NOT_A_NUMBER, st.sampled_from([1.01, -1.0])),
    "reveal_signs": NOT_A_FLAG,
    "bot_seats": st.one_of(
        st.tuples(NOT_AN_INT),
        st.sampled_from([("1",), (True,), (1.0,), (9,), (-1,), (1, 1), (0, 1, 2, 3), "1", 1]),
    ),
    "bot_policy": st.one_of(st.integers(), st.booleans(), st.none(), st.sampled_from(["genius", ""])),
    "disconnect_schedule": st.one_of(
        st.tuples(st.tuples(NOT_AN_INT, st.just(0), st.booleans())),
        st.tuples(st.tuples(st.just(5), NOT_AN_INT, st.booleans())),
        st.tuples(st.tuples(st.just(5), st.just(0), NOT_A_FLAG)),
        st.sampled_from([(("5", "0", False),), ((5, 0),), ((-1, 0, True),), ((5, 9, True),), 5]),
    ),
    "own_quartet_guard": not_one_of(("confirm", "off")),
    "episode": not_one_of(("match", "round")),
    "reward_mode": not_one_of(("zero_sum", "team_points")),
    "illegal_action": not_one_of(("raise", "noop")),
}
KWARTET_FIELDS = {
    "num_players": st.one_of(NOT_AN_INT, st.sampled_from(["4", 4.0, 7, 1])),
    "num_families": st.one_of(NOT_AN_INT, st.sampled_from([8.0, 1, 14])),
    "history_length": st.one_of(NOT_AN_INT, st.integers(max_value=0)),
    "max_requests": st.one_of(NOT_AN_INT, st.integers(max_value=0)),
    "stock": NOT_A_FLAG,
    "raw_history": NOT_A_FLAG,
    "turn_after_miss": not_one_of(("asked", "clockwise")),
    "reward_mode": not_one_of(("per_family", "families", "win_loss")),
}
CUATROLA_FIELDS = {
    "target_score": st.one_of(NOT_AN_INT, st.sampled_from([11.0, "11", 0, 101])),
    "cantes": NOT_A_FLAG,
    "reward": not_one_of(("hand", "match")),
}
CONSTRUCTORS = {
    "quatro": (quatro_v0.parallel_env, QUATRO_FIELDS),
    "quatro_aec": (quatro_v0.env, QUATRO_FIELDS),
    "kwartet": (kwartet_v0.env, KWARTET_FIELDS),
    "cuatrola": (cuatrola_v0.env, CUATROLA_FIELDS),
}


@pytest.mark.parametrize("game", sorted(CONSTRUCTORS))
@EXAMPLES
@given(data=st.data())
def test_wrong_typed_or_out_of_range_config_is_refused_naming_the_field(game, data):
    """Decision 16 (docs/quatro.md), K and C configs alike: no silent coercion, bool is not int."""
    make, fields = CONSTRUCTORS[game]
    name = data.draw(st.sampled_from(sorted(fields)), label="field")
    value = data.draw(fields[name], label="value")
    with pytest.raises(ValueError) as info:
        make(**{name: value})
    assert_names(info.value, name)


@pytest.mark.parametrize(
    ("make", "config", "name"),
    [
        (quatro_v0.parallel_env, {"num_players": 4.0}, "num_players"),
        (quatro_v0.parallel_env, {"reveal_signs": "no"}, "reveal_signs"),
        (quatro_v0.parallel_env, {"bot_seats": ("1",)}, "bot_seats"),
        (quatro_v0.parallel_env, {"disconnect_schedule": (("5", "0", False),)}, "disconnect_schedule"),
        (kwartet_v0.env, {"num_players": "4"}, "num_players"),
        (kwartet_v0.env, {"stock": "yes"}, "stock"),
    ],
)
def test_the_issue_s_lax_configs_are_refused(make, config, name):
    """The exact values #15 found silently coerced."""
    with pytest.raises(ValueError, match=name):
        make(**config)


def test_lists_from_yaml_still_validate_as_tuples():
    """Strict scalars, lax containers: a YAML list is a fine tuple of seats or schedule entries."""
    env = quatro_v0.parallel_env(bot_seats=[1], disconnect_schedule=[[5, 0, False]])
    assert env.config.bot_seats == (1,) and env.config.disconnect_schedule == ((5, 0, False),)


def test_round_seconds_beyond_the_observation_is_played_exactly_and_shown_clipped():
    """QuatroConfig's documented bound: the engine counts any duration, the observation shows 255."""
    from tests.quatro.helpers import field, play

    env = quatro_v0.parallel_env(round_seconds=2e9)
    assert env.engine.durations.round == 4 * 10**9
    obs, _ = play(env)
    assert env.engine.phase_end - env.engine.tick + 1 == 4 * 10**9
    assert field(env, obs["player_0"], "table.phase_left").tolist() == [255]


# ------------------------------------------------------------------ the env is unchanged
def quatro_in_play(aec: bool = False):
    """A Quatro table some ticks into a round: a half-done reset would show."""
    env = quatro_v0.env() if aec else quatro_v0.parallel_env()
    env.reset(seed=1)
    (play_aec if aec else play_parallel)(env, 0, 60 if aec else 15)
    return env


def assert_refused_and_unchanged(env, call, *words, error=ValueError):
    """``call(env)`` raises naming ``words``; the env pickles to the same bytes and plays on alike."""
    before = pickle.dumps(env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # foreign reset keys warn; not what is tested here
        with pytest.raises(error) as info:
            call(env)
    assert_names(info.value, *words)
    assert pickle.dumps(env) == before, "the refused call changed the env"
    return info.value


def assert_plays_on_like_an_untouched_copy(env, untouched: bytes, play) -> None:
    twin = pickle.loads(untouched)
    assert play(env, 100, 12) == play(twin, 100, 12)


# Quatro reset options: one valid scripted start, then one field replaced by a bad value.
HANDS, CENTER = neutral_position(4)
QUATRO_OPTIONS = {
    "position": {
        "phase": "play",
        "hands": HANDS,
        "center": CENTER,
        "signs": ["🍍", 3],
        "scores": [1, 2],
        "ready": [True, True, True, True],
        "connected": [True, True, True, False],
        "ticks_left": 10,
    },
    "order": [2, 0, 1, 3],
}


def with_item(items: list, index: int, value) -> list:
    items = list(items)
    items[index] = value
    return items


#: never a card of a 4-player deck: not a value label (A K Q J 10) nor a value index 0..4
BAD_QUATRO_CARD = st.one_of(
    st.floats(),
    st.booleans(),
    st.none(),
    st.integers().filter(lambda v: not 0 <= v < 5),
    st.text(alphabet="xyzB", min_size=1, max_size=3),
)


@st.composite
def bad_quatro_options(draw):
    """(options, words the error must contain): the valid start above with one field made bad."""
    position = dict(QUATRO_OPTIONS["position"])
    options = {"position": position, "order": list(QUATRO_OPTIONS["order"])}
    name = draw(
        st.sampled_from(
            [
                "scores",
                "ready",
                "connected",
                "signs",
                "ticks_left",
                "phase",
                "hands",
                "center",
                "order",
                "deal",
                "position",
                "options",
            ]
        )
    )
    if name == "scores":
        bad = draw(
            st.one_of(
                st.builds(
                    with_item,
                    st.just([1, 2]),
                    st.integers(0, 1),
                    st.one_of(NOT_AN_INT, st.integers(max_value=-1), st.integers(min_value=5)),
                ),
                st.sampled_from([[1], [1, 2, 3], 3, "12", [1.7, 0], [True, 0]]),
            )
        )
        position["scores"] = bad
    elif name in ("ready", "connected"):
        position[name] = draw(
            st.one_of(
                st.builds(with_item, st.just([True] * 4), st.integers(0, 3), NOT_A_FLAG),
                st.sampled_from([[True] * 3, [True] * 5, True, "TTTT"]),
            )
        )
    elif name == "signs":
        position["signs"] = draw(
            st.one_of(
                st.builds(
                    with_item,
                    st.just([0, 3]),
                    st.integers(0, 1),
                    st.one_of(
                        st.floats(),
                        st.booleans(),
                        st.integers(max_value=-1),
                        st.integers(min_value=24),
                        st.text(alphabet="abc", min_size=1, max_size=2),
                    ),
                ),
                st.sampled_from([[0], [0, 1, 2], 5, "🍍🍍"]),
            )
        )
    elif name == "ticks_left":
        position["ticks_left"] = draw(
            st.one_of(
                NOT_AN_INT.filter(lambda v: v is not None),
                st.integers(max_value=0),
                st.integers(min_value=361),
            )
        )
    elif name == "phase":
        position["phase"] = draw(
            not_one_of(("sign", "play", "pause")).filter(lambda v: v is not None) | st.just("over")
        )
    elif name in ("hands", "center"):
        if draw(st.booleans()):
            seat = draw(st.integers(0, 3))
            hands = [list(h) for h in HANDS]
            hands[seat] = with_item(hands[seat], draw(st.integers(0, 3)), draw(BAD_QUATRO_CARD))
            bad_center = list(CENTER)
            if name == "center":
                hands = HANDS
                bad_center = with_item(bad_center, draw(st.integers(0, 3)), draw(BAD_QUATRO_CARD))
            position["hands"], position["center"] = hands, bad_center
        else:
            position[name] = draw(st.sampled_from(["AKQJ", 7, [["A", "K", "Q", "J"]] * 3, None]))
    elif name == "order":
        options["order"] = draw(
            st.one_of(
                st.builds(
                    with_item,
                    st.just([2, 0, 1, 3]),
                    st.integers(0, 3),
                    st.one_of(NOT_AN_INT.filter(lambda v: v is not None), st.sampled_from([2, 4, -1])),
                ).filter(lambda order: order != [2, 0, 1, 3]),  # a 2 put back in its own place is valid
                st.sampled_from([[0, 1, 2], [0, 0, 1, 2], "0123", 3, [0, 1, 2, 3, 4]]),
            )
        )
    elif name == "deal":
        deal = list(range(20))
        options["deal"] = draw(
            st.one_of(
                st.builds(
                    with_item,
                    st.just(deal),
                    st.integers(0, 19),
                    st.one_of(NOT_AN_INT.filter(lambda v: v is not None), st.sampled_from([0, 20, -1])),
                ).filter(lambda cards: cards != deal),  # a 0 put back in its own place is valid
                st.sampled_from([deal[:-1], "0123", 7]),
            )
        )
    elif name == "position":
        options["position"] = draw(st.sampled_from([[], "play", 3, [("phase", "play")]]))
    else:
        return draw(st.sampled_from([[("position", {})], "position", 3])), ("reset options",)
    words = {"options": ("reset options",), "center": ("center", "hands")}.get(name, (name,))
    return options, words


@pytest.fixture(scope="module", params=[False, True], ids=["parallel", "aec"])
def quatro_env_in_play(request):
    return quatro_in_play(aec=request.param)


@EXAMPLES
@given(case=bad_quatro_options(), seed=st.one_of(st.none(), st.integers(0, 2**32)))
def test_quatro_refused_reset_leaves_the_env_exactly_as_it_was(quatro_env_in_play, case, seed):
    """#15 item 3: every field is validated before anything changes (Q31 scripted positions)."""
    options, words = case
    assert_refused_and_unchanged(quatro_env_in_play, lambda e: e.reset(seed=seed, options=options), *words)


def test_the_base_quatro_options_are_valid():
    """The bad-option cases differ from a valid start by one field only."""
    env = quatro_v0.parallel_env()
    env.reset(seed=0, options=QUATRO_OPTIONS)
    assert env.engine.scores == [1, 2] and env.engine.phase_end == 9 and not env.engine.connected[3]


@pytest.mark.parametrize("aec", [False, True], ids=["parallel", "aec"])
@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"position": QUATRO_OPTIONS["position"], "order": [0, 0, 1, 2]}, "order"),
        ({"position": {**QUATRO_OPTIONS["position"], "scores": [1.7, 0]}}, "scores"),
        ({"position": {**QUATRO_OPTIONS["position"], "scores": [True, 0]}}, "scores"),
        ({"position": {**QUATRO_OPTIONS["position"], "ticks_left": -5}}, "ticks_left"),
        ({"position": {"phase": "sign", "ticks_left": 61}}, "ticks_left"),
    ],
)
def test_quatro_the_issue_s_failed_resets_change_nothing_and_the_env_plays_on(aec, options, word):
    """The #15 reproductions: the env is not half-reset, and it plays on like an untouched copy."""
    env = quatro_in_play(aec)
    untouched = pickle.dumps(env)
    assert_refused_and_unchanged(env, lambda e: e.reset(seed=0, options=options), word)
    assert_plays_on_like_an_untouched_copy(env, untouched, play_aec if aec else play_parallel)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "0", np.float64(3)])
def test_quatro_bad_seed_is_refused_before_anything_changes(quatro_env_in_play, seed):
    assert_refused_and_unchanged(quatro_env_in_play, lambda e: e.reset(seed=seed), "seed")


# ------------------------------------------------------------------ Quatro actions (item 4)
@pytest.mark.parametrize("bad", [0.0, 1.0, True, False, np.float32(0), np.bool_(False), "0", None, [0]])
def test_quatro_parallel_non_integer_action_is_refused_naming_the_agent(bad):
    env = quatro_in_play()
    actions = dict.fromkeys(env.agents, 0) | {"player_2": bad}
    assert_refused_and_unchanged(env, lambda e: e.step(actions), "player_2")


@pytest.mark.parametrize("bad", [0.0, True, np.bool_(True), "0", None, 10_000, -1])
def test_quatro_aec_bad_action_is_refused_in_the_call_that_made_it(bad):
    env = quatro_v0.env()
    env.reset(seed=0)
    env.step(0)  # player_0 has acted; player_1 now makes the bad call
    err = assert_refused_and_unchanged(env, lambda e: e.step(bad), "player_1", error=ValueError)
    assert "player_0" not in str(err)


def test_quatro_aec_illegal_action_is_refused_at_once_naming_agent_and_reason_and_the_env_stays_usable():
    """#15 item 4: ``e.step(68)`` (a Quatro call in the sign phase) fails in that call, Q29 style."""
    env = quatro_v0.env()
    env.reset(seed=0)
    untouched = pickle.dumps(env)
    err = assert_refused_and_unchanged(env, lambda e: e.step(68), "player_0", error=IllegalActionError)
    assert err.seat == 0 and err.action == 68 and "(Q18, Q19)" in err.reason
    assert env.agent_selection == "player_0"
    assert_plays_on_like_an_untouched_copy(env, untouched, play_aec)  # no wedge: whole ticks go on


def test_quatro_aec_illegal_action_of_the_last_agent_is_refused_under_its_own_name():
    env = quatro_v0.env()
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    with pytest.raises(IllegalActionError, match="player_3"):
        env.step(68)
    env.step(0)  # the tick completes with the corrected action
    assert env.unwrapped.engine.tick == 1


def test_quatro_aec_noop_mode_plays_an_illegal_action_as_the_no_op_and_flags_it():
    """With ``illegal_action="noop"`` (Q29) the AEC view still accepts it, as the parallel env does."""
    env = quatro_v0.env(illegal_action="noop")
    env.reset(seed=0)
    for action in (68, 0, 0, 0):
        env.step(action)
    assert env.unwrapped.engine.tick == 1
    assert env.infos["player_0"]["illegal_action"] and not env.infos["player_1"]["illegal_action"]
    env.step(0)
    with pytest.raises(ValueError, match="player_1"):  # a non-integer is still refused
        env.step(1.0)


# ------------------------------------------------------------------ Kwartet (items 3, 6)
KWARTET_POSITION = {
    "hands": [[c for c in range(28) if c % 4 == s] for s in range(4)],
    "exposed": {7: 2},
    "to_move": 1,
}


def kwartet_in_play():
    env = kwartet_v0.env()
    env.reset(seed=2)
    play_aec(env, 0, 12)
    return env


@pytest.fixture(scope="module")
def kwartet_env():
    return kwartet_in_play()


@st.composite
def bad_kwartet_position(draw):
    position = {k: v for k, v in KWARTET_POSITION.items()}
    name = draw(st.sampled_from(["to_move", "hands", "exposed", "stock", "position"]))
    if name == "to_move":
        position["to_move"] = draw(
            st.one_of(
                NOT_AN_INT.filter(lambda v: not isinstance(v, str)), st.sampled_from([4, -1, "player_9", "1"])
            )
        )
    elif name == "hands":
        hands = [list(h) for h in position["hands"]]
        seat = draw(st.integers(0, 3))
        hands[seat] = with_item(
            hands[seat],
            draw(st.integers(0, 6)),
            draw(
                st.one_of(
                    st.floats(),
                    st.booleans(),
                    st.none(),
                    st.integers(min_value=32),
                    st.integers(max_value=-1),
                    st.sampled_from(["Z♥", "Q", "QX", hands[(seat + 1) % 4][0]]),
                )
            ),
        )
        position["hands"] = draw(st.sampled_from([hands, hands[:3]]))
    elif name == "exposed":
        position["exposed"] = draw(
            st.sampled_from([{7: True}, {7: 2.0}, {7.0: 2}, {7: 9}, {"Z": 2}, {}, {7: 2, 6: 1}])
        )
    elif name == "stock":
        position["stock"] = [0]
    else:
        return {"position": draw(st.sampled_from([[], "x", 3, None]))}, ("position",)
    return {"position": position}, (name, "hands/stock/exposed")


def test_the_base_kwartet_position_is_valid():
    env = kwartet_v0.env()
    env.reset(seed=0, options={"position": KWARTET_POSITION})
    assert env.agent_selection == "player_1" and env.unwrapped.game.scores[2] == 1


@EXAMPLES
@given(case=bad_kwartet_position(), seed=st.one_of(st.none(), st.integers(0, 2**32)))
def test_kwartet_refused_reset_leaves_the_env_exactly_as_it_was(kwartet_env, case, seed):
    options, words = case
    assert_refused_and_unchanged(kwartet_env, lambda e: e.reset(seed=seed, options=options), *words)


# ------------------------------------------------------------------ Cuatrola (items 3, 6)
CUATROLA_OPTIONS = {
    "dealer": 1,
    "scores": [3, 4],
    "hands": [list(range(5 * s, 5 * s + 5)) for s in range(4)],
    "trump_card": 7,
}


def cuatrola_in_play():
    env = cuatrola_v0.env()
    env.reset(seed=4)
    play_aec(env, 0, 9)
    return env


@pytest.fixture(scope="module")
def cuatrola_env():
    return cuatrola_in_play()


@st.composite
def bad_cuatrola_options(draw):
    options = {k: v for k, v in CUATROLA_OPTIONS.items()}
    name = draw(st.sampled_from(["dealer", "scores", "hands", "trump_card", "phase", "contract", "declarer"]))
    if name == "dealer":
        options["dealer"] = draw(
            st.one_of(NOT_AN_INT.filter(lambda v: v is not None), st.sampled_from([4, -1]))
        )
    elif name == "scores":
        options["scores"] = draw(
            st.one_of(
                st.builds(
                    with_item,
                    st.just([3, 4]),
                    st.integers(0, 1),
                    st.one_of(NOT_AN_INT, st.integers(max_value=-1), st.integers(min_value=11)),
                ),
                st.sampled_from([[1], [1, 2, 3], [1.7, 0], [True, 0], 3]),
            )
        )
    elif name == "hands":
        hands = [list(h) for h in options["hands"]]
        hands[0] = with_item(
            hands[0],
            draw(st.integers(0, 4)),
            draw(
                st.one_of(
                    st.floats(),
                    st.booleans(),
                    st.integers(min_value=40),
                    st.integers(max_value=-1),
                    st.sampled_from(["zz", "", hands[2][0]]),
                )
            ),
        )
        options["hands"] = draw(st.sampled_from([hands, hands[:3], [h[:4] for h in hands]]))
    elif name == "trump_card":
        options["trump_card"] = draw(st.sampled_from([0, 39, 7.0, True, "zz", None]))
        if options["trump_card"] is None:
            name = "hands"  # hands without a shown card
    elif name == "phase":
        options["phase"] = draw(not_one_of(("declare", "play")))
    elif name == "contract":
        options["phase"], options["contract"] = (
            "play",
            draw(not_one_of(("none", "solo", "cuatrola", "quintola"))),
        )
    else:
        options["phase"], options["contract"] = "play", "solo"
        options["declarer"] = draw(
            st.one_of(NOT_AN_INT.filter(lambda v: v is not None), st.sampled_from([4, -1]))
        )
    return options, (name,)


def test_the_base_cuatrola_options_are_valid():
    env = cuatrola_v0.env()
    env.reset(seed=0, options=CUATROLA_OPTIONS)
    assert env.unwrapped.game.scores == [3, 4] and env.unwrapped.game.dealer == 1


@EXAMPLES
@given(case=bad_cuatrola_options(), seed=st.one_of(st.none(), st.integers(0, 2**32)))
def test_cuatrola_refused_reset_leaves_the_env_exactly_as_it_was(cuatrola_env, case, seed):
    options, words = case
    assert_refused_and_unchanged(cuatrola_env, lambda e: e.reset(seed=seed, options=options), *words)


# ------------------------------------------------------------------ Kwartet and Cuatrola: actions and seeds
AEC_GAMES_IN_PLAY = {"kwartet": kwartet_in_play, "cuatrola": cuatrola_in_play}


@pytest.mark.parametrize("game", AEC_GAMES_IN_PLAY)
@pytest.mark.parametrize("bad", [0.0, True, np.bool_(True), "0", 10_000, -1])
def test_aec_bad_or_illegal_action_is_refused_naming_the_agent_and_changes_nothing(game, bad):
    env = AEC_GAMES_IN_PLAY[game]()
    untouched = pickle.dumps(env)
    agent = env.agent_selection
    assert_refused_and_unchanged(env, lambda e: e.step(bad), agent)
    assert_plays_on_like_an_untouched_copy(env, untouched, play_aec)


@pytest.mark.parametrize("game", AEC_GAMES_IN_PLAY)
@pytest.mark.parametrize("seed", [-1, 1.5, True, "0"])
def test_aec_bad_seed_is_refused(game, seed):
    assert_refused_and_unchanged(AEC_GAMES_IN_PLAY[game](), lambda e: e.reset(seed=seed), "seed")
