"""render_mode="rgb_array" for Quatro, Kwartet and Cuatrola; "human" falls back to text without a display."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from pettingzoo.test import render_test

from quatro_env import cuatrola_v0, kwartet_v0, quatro_v0
from quatro_env.quatro.actions import ActionKind
from quatro_env.render.quatro import draw_frame
from tests.extras import need_module


@pytest.fixture(autouse=True)
def _pillow():
    need_module("PIL", "render")


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: quatro_v0.env(**kw),
        lambda **kw: kwartet_v0.env(**kw),
        lambda **kw: cuatrola_v0.env(**kw),
    ],
    ids=["quatro", "kwartet", "cuatrola"],
)
def test_pettingzoo_render_test_passes_every_mode(make, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # "human" prints text here
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert "rgb_array" in make().metadata["render_modes"]
    render_test(make)


def _quatro_picture_after(action_for_seat0: int) -> tuple[np.ndarray, np.ndarray]:
    env = quatro_v0.parallel_env(render_mode="rgb_array", sign_phase_seconds=0.5)
    env.reset(seed=4)
    env.step(dict.fromkeys(env.agents, 0))  # the sign phase ends: play starts
    before = env.render()
    env.step({**dict.fromkeys(env.agents, 0), "player_0": action_for_seat0})
    return before, env.render()


def test_quatro_picture_shows_the_floor_being_taken():
    """Q15: taking the floor lights the seat's box; nothing else of the table changes."""
    env = quatro_v0.parallel_env()
    take = env.codec.encode(ActionKind.TAKE_FLOOR)
    before, after = _quatro_picture_after(take)
    assert before.shape == (600, 800, 3) and before.dtype == np.uint8
    diff = np.argwhere((before != after).any(axis=2))
    assert diff.size, "the picture must change when a seat takes the floor"
    changed_below_header = diff[diff[:, 0] > 30]  # the header shows the tick: it changes every tick
    assert changed_below_header.size
    assert changed_below_header[:, 0].min() > 400  # only seat 0's box, at the bottom of the picture


def _bare_frame(hands=(["A", "K", "Q", "J"],) * 4, **extra) -> dict:
    """A 4-player display frame in play: every seat idle, ``hands[s]`` its hand (None: hidden)."""
    seat = dict(quartet=False, connected=True, ready=True, floor=False, emoji=None, pulse=None)
    seat.update(pulse_age=None, exchange_wait=0, floor_wait=0)
    frame = dict(tick=3, round=1, phase="play", phase_left=10, scores=[0, 0], signs=[None, None])
    frame.update(center=["A", "K", "Q", "J"], call=None, **extra)
    frame["seats"] = [{"seat": s, "team": s % 2, "hand": hands[s], **seat} for s in range(4)]
    return frame


def test_draw_frame_hides_what_a_seat_frame_hides():
    """A seat's frame draws hidden hands as card backs: no face label for a None card."""
    picture = draw_frame(_bare_frame(hands=[["A", "K", "Q", "J"], None, None, None]))
    backs = (picture == np.array([57, 73, 171], np.uint8)).all(axis=2).sum()
    assert backs > 3 * 4 * 500  # three hidden hands of four backs


def test_gymnasium_record_video_writes_a_video(tmp_path):
    need_module("moviepy", "video")
    from gymnasium.wrappers import RecordVideo

    from quatro_env.integrations.gym_single import QuatroSingleAgentEnv

    env = QuatroSingleAgentEnv(render_mode="rgb_array", others="random", round_seconds=5.0, points_to_win=1)
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda e: True, disable_logger=True)
    env.reset(seed=0)
    for _ in range(30):
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        if terminated or truncated:
            break
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 1000


def _played(game: str, render_mode: str):
    """A table of ``game`` one move (Quatro: the floor taken at the first tick of play) after its reset."""
    if game == "quatro":
        env = quatro_v0.parallel_env(render_mode=render_mode, sign_phase_seconds=0.5)
        env.reset(seed=4)
        env.step(dict.fromkeys(env.agents, 0))
        env.step({**dict.fromkeys(env.agents, 0), "player_0": env.codec.encode(ActionKind.TAKE_FLOOR)})
        return env
    env = (kwartet_v0 if game == "kwartet" else cuatrola_v0).env(render_mode=render_mode)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    return env


@pytest.mark.parametrize("game", ["quatro", "kwartet", "cuatrola"])
def test_human_mode_without_a_display_prints_the_text_table(game, monkeypatch, capsys):
    """Without a display, "human" prints what "ansi" returns (the last tick's events included), each frame
    followed by a blank line in every game (only Quatro's were, so the companions' tables ran together)."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    env = _played(game, "human")
    capsys.readouterr()
    assert env.render() is None
    text = _played(game, "ansi").render()
    assert capsys.readouterr().out == text + "\n\n"
    if game == "quatro":
        assert "seat 0 floor_taken" in text


def test_missing_pillow_names_the_extra(monkeypatch):
    from quatro_env.render import canvas

    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[render\]'"):
        canvas.require_pillow()


def test_kwartet_and_cuatrola_pictures_change_as_the_game_moves():
    for make in (kwartet_v0.env, cuatrola_v0.env):
        env = make(render_mode="rgb_array")
        env.reset(seed=1)
        first = env.render()
        for _ in range(3):
            obs, *_ = env.last()
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert first.shape[2] == 3 and not np.array_equal(first, env.render())


@pytest.mark.parametrize("game", ["quatro", "kwartet", "cuatrola"])
def test_human_mode_with_a_display_draws_into_a_window(game, monkeypatch):
    """Where a display exists, "human" shows the rgb_array picture in one window (a stand-in here), opened
    at the first render and reused after; ``close`` closes it."""
    from quatro_env.render import window

    opened, shown = [], []

    class FakeWindow:
        def __init__(self):
            opened.append(self)

        def show(self, picture):
            shown.append(picture)

        def close(self):
            shown.append("closed")

    monkeypatch.setattr(window, "display_available", lambda: True)
    monkeypatch.setattr(window, "TableWindow", FakeWindow)
    env = _played(game, "human")
    assert len(opened) == 1 and shown  # a step in "human" mode renders (PettingZoo's convention)
    shown.clear()
    env.render()
    env.render()
    picture = _played(game, "rgb_array").render()
    assert len(opened) == 1 and len(shown) == 2
    assert all(np.array_equal(p, picture) for p in shown)
    env.close()
    assert shown[-1] == "closed"


@pytest.mark.parametrize("make", [quatro_v0.parallel_env, kwartet_v0.env, cuatrola_v0.env])
def test_render_without_a_render_mode_warns_and_draws_nothing(make):
    """Gymnasium's convention, in every game (Quatro's returned None without a word)."""
    env = make()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert env.render() is None


def test_the_picture_writes_the_ticks_events_below_the_table():
    """A video of the table shows what happened in each tick (who exchanged, pulsed, called): the
    frame's event lines are written in a strip below the seats, and nowhere else."""
    plain = draw_frame(_bare_frame())
    with_events = draw_frame(_bare_frame(events=["seat 1 exchange center_slot=0 taken=J♥ placed=Q♥"]))
    rows = np.flatnonzero((plain != with_events).any(axis=(1, 2)))
    assert rows.size and rows.min() >= plain.shape[0] - 30


def test_event_lines_fit_two_lines_cut_what_is_too_wide_and_count_what_does_not_fit():
    from quatro_env.render.canvas import Canvas
    from quatro_env.render.quatro import _event_lines

    canvas = Canvas(800, 600)
    events = [f"seat {k % 4} exchange center_slot={k % 4} taken=10♥ placed=K♣" for k in range(12)]
    lines = _event_lines(canvas, events, 780)
    assert len(lines) == 2 and all(canvas.text_width(line, 11) <= 780 for line in lines)
    shown = sum(line.count("exchange") for line in lines)
    assert lines[-1].endswith(f"  (+{12 - shown} more)") and 0 < shown < 12
    assert _event_lines(canvas, events[:2], 780) == ["  ·  ".join(events[:2])]
    assert _event_lines(canvas, [], 780) == []
    wide = _event_lines(canvas, ["x" * 400, "seat 1 pulse emoji=🚀"], 780)  # cut, then the next line
    assert wide[0].startswith("xxx") and wide[0].endswith("…") and canvas.text_width(wide[0], 11) <= 780
    assert wide[1] == "seat 1 pulse emoji=🚀"
