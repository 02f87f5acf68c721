"""PettingZoo API conformance, configuration, reset options, codec, errors and rendering."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test
from pydantic import ValidationError

from quatro_env import cuatrola_v0
from quatro_env.cuatrola.actions import (
    NUM_ACTIONS,
    PASS,
    Action,
    ActionKind,
    declare,
    decode,
    describe,
    encode,
    play,
    sing,
)
from quatro_env.cuatrola.cards import CARD_CODES, NUM_CARDS, format_cards, parse_card
from quatro_env.cuatrola.config import CuatrolaConfig
from quatro_env.cuatrola.observation import LAYOUT, OBS_SIZE, SLICES
from quatro_env.cuatrola.state import Phase

from .helpers import hands, legal, random_steps, scripted

DOC = Path(__file__).resolve().parents[2] / "docs" / "cuatrola.md"


def test_pettingzoo_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(cuatrola_v0.env(), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(cuatrola_v0.env, num_cycles=300)


def test_raw_env_is_an_aec_env_and_env_wraps_it():
    env = cuatrola_v0.env()
    assert isinstance(env.unwrapped, cuatrola_v0.raw_env)
    assert isinstance(env.unwrapped, AECEnv)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]


def test_same_seed_same_match_and_different_seeds_differ():
    def trace(seed: int) -> list[tuple[str, int]]:
        env = cuatrola_v0.env()
        env.reset(seed=seed)
        return [(a, act) for a, act, _ in random_steps(env, seed=99)]

    assert trace(5) == trace(5)
    assert trace(5) != trace(6)


def test_declared_spaces_are_a_float32_observation_in_0_1_and_an_int8_mask():
    space = cuatrola_v0.env().observation_space("player_0")
    assert space["observation"] == spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
    assert space["action_mask"] == spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"target_score": 0}, "target_score"),
        ({"target_score": "11"}, "target_score"),
        ({"reward": "trick"}, "reward"),
        ({"cantes": "yes"}, "cantes"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"colour": True}, "colour"),
    ],
)
def test_bad_config_raises_a_value_error_naming_the_field(options, field):
    with pytest.raises(ValueError, match=field) as info:
        cuatrola_v0.env(**options)
    assert isinstance(info.value, ValidationError)


def test_config_is_frozen_and_accepted_as_an_object():
    config = CuatrolaConfig(target_score=7)
    with pytest.raises(ValidationError):
        config.target_score = 9
    assert cuatrola_v0.raw_env(config).config.target_score == 7
    with pytest.raises(ValueError, match="not both"):
        cuatrola_v0.raw_env(config, reward="match")


SPEC = hands("Ao 3o Ro Co So", "Ac 3c Rc Cc Sc", "Ae 3e Re Ce Se", "Ab 3b Rb Cb Sb")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": SPEC, "trump_card": "Ao", "dealer": 3}, "trump_card Ao must be in the dealer's hand"),
        ({"hands": SPEC, "dealer": 3}, "hands need dealer and trump_card"),
        (
            {"hands": [*SPEC[:3], ["Ab", "3b", "Rb", "Cb"]], "trump_card": "Ab", "dealer": 3},
            "hands\\[3\\] must hold 5",
        ),
        ({"hands": [*SPEC[:3], ["Ab", "3b", "Rb", "Cb", "Ao"]], "trump_card": "Ab", "dealer": 3}, "repeated"),
        (
            {"hands": [*SPEC[:3], ["Ab", "3b", "Rb", "Cb", "Xb"]], "trump_card": "Ab", "dealer": 3},
            "unknown card 'Xb'",
        ),
        ({"trump_card": "Ab"}, "trump_card needs hands"),
        ({"dealer": 4}, "dealer"),
        ({"scores": [11, 0]}, "scores must both be below the target 11"),
        ({"scores": [1]}, "scores"),
        ({"phase": "cante"}, "phase"),
        ({"phase": "play", "contract": "solo"}, "needs a declarer"),
        ({"contract": "solo", "declarer": 0}, "only with phase='play'"),
        ({"phase": "play", "contract": "cuatrola", "declarer": 1, "scores": [0, 8]}, "past 11 \\(C11\\)"),
    ],
)
def test_bad_reset_options_raise_clear_errors(options, message):
    env = cuatrola_v0.env()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_scripted_position_is_used():
    env, game = scripted(SPEC, "Sb", dealer=3, scores=[4, 6], phase="play", contract="solo", declarer=1)
    assert game.scores == [4, 6]
    assert [CARD_CODES[c] for c in game.hands[0]] == SPEC[0]
    assert game.trump == 3 and game.phase == Phase.PLAY and game.out_seat == 3
    assert env.agent_selection == "player_0"  # mano leads (C5)


def test_codec_round_trip_and_descriptions():
    for index in range(NUM_ACTIONS):
        assert encode(decode(index)) == index
    assert describe(play("Co")) == "play Caballo de oros [Co]"
    assert describe(PASS) == "pass"
    assert describe(declare("cuatrola")) == "declare cuatrola"
    assert describe(sing("bastos")) == "sing bastos (Caballo + Rey)"
    assert decode(play("3e")) == Action(ActionKind.PLAY, parse_card("3e"))
    assert [decode(i).kind for i in (0, 19, 20, 21, 23, 24, 27)] == [
        ActionKind.PLAY,
        ActionKind.PLAY,
        ActionKind.PASS,
        ActionKind.DECLARE,
        ActionKind.DECLARE,
        ActionKind.SING,
        ActionKind.SING,
    ]
    for bad in (-1, NUM_ACTIONS, 2.0, True, "3"):
        with pytest.raises(ValueError):
            describe(bad)
    with pytest.raises(ValueError):
        encode(Action(ActionKind.DECLARE, 0))


def test_illegal_action_error_names_agent_action_and_reason():
    env, _ = scripted(SPEC, "Sb", dealer=3)
    with pytest.raises(
        ValueError,
        match=r"player_0: play As de oros \[Ao\] \(action 0\): it is the declaration round .*"
        r"\. Legal now: pass, declare solo, declare cuatrola, declare quintola$",
    ):
        env.step(play("Ao"))
    with pytest.raises(ValueError, match=r"illegal action by player_0: an action must be an integer"):
        env.step(99)
    with pytest.raises(ValueError, match="integer"):
        env.step("pass")


def test_observation_space_contains_observations_and_never_all_zero_for_actor():
    env = cuatrola_v0.env()
    env.reset(seed=1)
    for agent, _, obs in random_steps(env, seed=1):
        assert env.observation_space(agent).contains(obs)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()


def test_layout_offsets_are_contiguous_and_documented():
    assert sum(size for _, size, _ in LAYOUT) == OBS_SIZE == 311
    table = DOC.read_text()
    for name, size, _ in LAYOUT:
        sl = SLICES[name]
        row = f"| `{name}` | {sl.start} | {size} |"
        assert row in table, f"docs/cuatrola.md lacks the layout row {row!r}"


def test_ansi_render():
    env, _ = scripted(SPEC, "Sb", dealer=3, config={"render_mode": "ansi"})
    text = env.render()
    assert "\033[" in text and "trumps" in text
    plain = re.sub(r"\033\[[0-9;]*m", "", text)
    assert "dealer player_3, mano player_0" in plain
    assert "Ao 3o Ro Co So" in plain
    env.step(PASS)
    assert "player_0: pass" in re.sub(r"\033\[[0-9;]*m", "", env.render())


def test_human_render_prints(capsys):
    env = cuatrola_v0.env(render_mode="human")
    env.reset(seed=0)
    env.step(legal(env)[0])
    assert "Cuatrola" in capsys.readouterr().out


def test_mask_is_zero_for_agents_not_to_act():
    env = cuatrola_v0.env()
    env.reset(seed=2)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_card_parse():
    assert [parse_card(c) for c in ("ao", "AO", " Sb ", 7, 0, 19, np.int64(3))] == [0, 0, 19, 7, 0, 19, 3]
    for bad, says in [
        (20, r"card id must lie in \[0, 20\), got 20"),
        (-1, r"card id must lie in \[0, 20\), got -1"),
        ("Zo", "unknown card 'Zo'"),
        (True, "a card is an id in"),
        (1.5, "unknown card 1.5"),
    ]:
        with pytest.raises(ValueError, match=says):
            parse_card(bad)
    assert NUM_CARDS == 20
    assert format_cards([0, 19]) == "Ao Sb" and format_cards([]) == "-"  # an error message's hand


def test_docs_usage_example_runs(capsys):
    text = DOC.read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, str(DOC), "exec"), {})
    assert "match over" in capsys.readouterr().out


def test_a_human_render_mode_comes_with_a_pace():
    """Gymnasium's convention (HumanRendering reads it): ``render_fps`` beside a "human" mode."""
    metadata = cuatrola_v0.env().metadata
    assert "human" in metadata["render_modes"] and metadata["render_fps"] == 1
