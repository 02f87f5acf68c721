"""The replay viewer in headless Chromium: what the page shows is the engine's recorded state."""

from __future__ import annotations

import time

import pytest

from quatro_env.quatro.cards import VALUE_LABELS
from quatro_env.replay import load
from quatro_env.replay.html import write_html
from tests.replay.helpers import write_replays


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer_browser")
    (path, *_) = write_replays(folder, matches=1)
    replay = load(path)
    omni = write_html(replay, folder / "match.html")
    seat1 = write_html(replay, folder / "seat1.html", seat=1)
    return replay, omni, seat1


def _hand(page, seat):
    return page.locator(f'.seat[data-seat="{seat}"] .hand .card').all_inner_texts()


def _open(browser, path):
    page = browser.new_page(viewport={"width": 900, "height": 1100})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append(f"request {r.url}") if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    return page, errors


def test_viewer_shows_the_recorded_table_and_steps(browser, pages, tmp_path):
    replay, omni, _ = pages
    page, errors = _open(browser, omni)
    k = next(i for i, f in enumerate(replay.frames) if f.state["phase"] == "play")
    page.evaluate(f"window.quatroViewer.show({k})")
    state = replay.frames[k].state
    assert page.locator("#tick").inner_text() == str(state["tick"])
    assert page.locator("#phase").inner_text() == "play"
    for seat in range(4):
        shown = [t.strip() for t in _hand(page, seat)]
        assert [t[:-1] for t in shown] == [VALUE_LABELS[c // 4] for c in state["hands"][seat]]
    center = [t.strip()[:-1] for t in page.locator("#center .card").all_inner_texts()]
    assert center == [VALUE_LABELS[c // 4] for c in state["center"]]
    page.click("#step")
    assert page.locator("#tick").inner_text() == str(replay.frames[k + 1].state["tick"])
    page.click("#back")
    page.fill("#scrub", str(len(replay.frames) - 1))
    page.dispatch_event("#scrub", "input")
    last = replay.frames[-1].state
    assert page.locator("#scores").inner_text() == " · ".join(
        f"T{t} {s}" for t, s in enumerate(last["scores"])
    )
    assert page.locator(".marker.call, .marker.contra, .marker.blank").count() >= 1
    assert page.locator(".timeline .pulse").count() >= 1
    page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
    assert not errors, errors


def test_viewer_play_button_advances_the_clock(browser, pages):
    replay, omni, _ = pages
    page, errors = _open(browser, omni)
    page.select_option("#speed", "16")
    page.click("#play")
    deadline = time.monotonic() + 10  # polled from here: the page's CSP forbids eval-based waits
    while int(page.locator("#tick").inner_text()) < 5:
        assert time.monotonic() < deadline, "the viewer did not advance"
        time.sleep(0.05)
    page.click("#play")  # pause
    paused = page.locator("#tick").inner_text()
    page.wait_for_timeout(300)
    assert page.locator("#tick").inner_text() == paused
    assert not errors, errors


def test_switching_to_a_seat_view_hides_the_other_hands(browser, pages):
    replay, omni, _ = pages
    page, errors = _open(browser, omni)
    k = next(i for i, f in enumerate(replay.frames) if f.state["phase"] == "play")
    page.select_option("#view", "seat 3")
    page.evaluate(f"window.quatroViewer.show({k})")
    state = replay.frames[k].state
    assert [t.strip() for t in _hand(page, 3)] == [VALUE_LABELS[c // 4] for c in state["hands"][3]]
    for seat in (0, 1, 2):
        assert page.locator(f'.seat[data-seat="{seat}"] .hand .card.back').count() == 4
        assert [t.strip() for t in _hand(page, seat)] == [""] * 4
    assert not errors, errors


def test_seat_file_page_knows_only_that_seat(browser, pages, tmp_path):
    replay, _, seat1 = pages
    page, errors = _open(browser, seat1)
    assert page.locator("#view option").all_inner_texts() == ["seat 1"]
    frames = len(replay.frames)
    for k in range(0, frames, max(1, frames // 12)):
        page.evaluate(f"window.quatroViewer.show({k})")
        if not replay.frames[k].state["revealed"]:
            for seat in (0, 2, 3):
                assert page.locator(f'.seat[data-seat="{seat}"] .hand .card.back').count() in (0, 4)
                assert [t.strip() for t in _hand(page, seat)] in ([], [""] * 4)
    page.screenshot(path=str(tmp_path / "seat1.png"), full_page=True)
    assert not errors, errors
