"""The live table in headless Chromium: a person plays seat 0 — an exchange, bad messages, a call.

The page shows the seat's view; the test compares it with the engine's state at the tick the page
shows (the table keeps a short history of omniscient states for this; the page never sees them).
"""

from __future__ import annotations

import time

import pytest

from quatro_env.play.cli import LIVE_DEFAULTS
from quatro_env.play.server import create_app
from quatro_env.play.table import LiveTable
from quatro_env.quatro.cards import VALUE_LABELS
from quatro_env.quatro.config import QuatroConfig
from tests.web.browser import ServerThread

TICK = 0.25
TOKEN = "browser-tests-token-0123"  # the page reads it from its link and shows it to the socket


@pytest.fixture()
def live(browser):
    config = QuatroConfig(tick_seconds=TICK, sign_phase_seconds=2.0, **LIVE_DEFAULTS)
    table = LiveTable(config, human_seat=0, partner="honest", opponents="idle", seed=5)
    server = ServerThread(create_app(table, token=TOKEN))
    url = server.start() + f"?token={TOKEN}"
    page = browser.new_page(viewport={"width": 900, "height": 1300})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url)
        yield table, page, errors
    finally:
        page.close()
        server.stop()


def _tick(page) -> int:
    return int(page.locator("body").get_attribute("data-tick"))


def _my_hand(page) -> list[str]:
    return [t.strip() for t in page.locator('.seat[data-seat="0"] .hand .card').all_inner_texts()]


def _values(cards) -> list[str]:
    return [VALUE_LABELS[c // 4] for c in cards]


def _wait_tick_after(page, tick: int, timeout: float = 5.0) -> int:
    page.wait_for_function(f"Number(document.body.dataset.tick) > {tick}", timeout=timeout * 1000)
    return _tick(page)


def _stable_state(table, page):
    """The page's tick and the engine's state at that tick (read once the page has drawn it)."""
    tick = _tick(page)
    with table.lock:
        return tick, table.states[tick]


def test_play_an_exchange_a_bad_message_and_a_call(live, tmp_path):
    table, page, errors = live
    page.wait_for_selector("body[data-tick]")
    assert page.locator("#conn").inner_text() == "connected"
    page.click('button[data-kind="ready"]')  # Q8: ready; the idle opponents wait for the sign phase end
    page.wait_for_function("document.getElementById('phase').textContent === 'play'", timeout=10_000)

    # what the page shows is seat 0's hand and the center at the tick it shows
    tick, state = _stable_state(table, page)
    assert _my_hand(page) == _values(state["hands"][0])
    assert [t.strip() for t in page.locator("#center .card").all_inner_texts()] == _values(state["center"])
    for seat in (1, 2, 3):  # Q28: no other hand before the reveal
        assert page.locator(f'.seat[data-seat="{seat}"] .hand .card.back').count() == 4

    # an exchange: click my card in slot 1, then center slot 2 (Q12)
    page.click('.seat[data-seat="0"] .hand .card[data-hand-slot="1"]')
    page.click('#center .card[data-center-slot="2"]')
    page.wait_for_function(
        "document.getElementById('events').textContent.includes('seat 0 exchange slot 2')", timeout=5000
    )
    time.sleep(2 * TICK)
    tick, state = _stable_state(table, page)
    assert _my_hand(page) == _values(state["hands"][0])
    exchanges = [ev for ev in table.engine_events if ev.kind == "exchange" and ev.seat == 0]
    assert exchanges and exchanges[0].data["center_slot"] == 2

    # a malformed message and an illegal one: an error on the page, and the table plays on
    page.evaluate("window.quatroSendRaw('{not json')")
    page.wait_for_function("document.getElementById('error').textContent.includes('not valid JSON')")
    page.evaluate("window.quatroSend({type: 'action', kind: 'exchange', hand: 9, center: 0})")
    page.wait_for_function("document.getElementById('error').textContent.includes(\"field 'hand'\")")
    page.evaluate("window.quatroSendRaw(new Uint8Array([1, 2, 3]))")
    page.wait_for_function("document.getElementById('error').textContent.includes('not binary')")
    page.evaluate("window.quatroSendRaw('x'.repeat(5000))")
    page.wait_for_function("document.getElementById('error').textContent.includes('too long')")
    page.evaluate("window.quatroSend({type: 'action', kind: 'vote_yes'})")
    page.wait_for_function(
        "document.getElementById('error').textContent.includes('no reshuffle vote is open')"
    )
    before = _tick(page)
    assert _wait_tick_after(page, before + 2) > before + 2
    page.screenshot(path=str(tmp_path / "live_play.png"), full_page=True)

    # «Quatro!» (Q18): my partner's hand decides; the round ends and the page shows the call and scores
    page.click('button[data-kind="quatro"]')
    page.wait_for_function(
        "document.getElementById('call').textContent.includes('quatro by seat 0')", timeout=5000
    )
    with table.lock:
        scores = list(table.engine.scores)
        call = next(ev for ev in table.engine_events if ev.kind == "call")
    assert call.seat == 0 and call.data["kind"] == "quatro"
    assert page.locator("#scores").inner_text() == f"T0 {scores[0]} · T1 {scores[1]}"
    assert sum(scores) == 1
    assert page.locator('.seat[data-seat="2"] .hand .card.back').count() == 0  # the reveal (Q10)
    page.screenshot(path=str(tmp_path / "live_call.png"), full_page=True)
    assert not errors, errors


def test_a_dropped_connection_is_a_q23_disconnection(live, browser):
    table, page, _ = live
    page.wait_for_selector("body[data-tick]")
    assert table.engine.connected[0]
    url = page.url
    page.close()
    deadline = time.monotonic() + 5
    while table.engine.connected[0] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not table.engine.connected[0]
    time.sleep(3 * TICK)
    assert any(ev.kind == "disconnected" and ev.seat == 0 for ev in table.engine_events)
    ticks = table.engine.tick
    time.sleep(3 * TICK)
    assert table.engine.tick > ticks, "the table plays on without the person"
    again = browser.new_page()  # a new connection reconnects the seat (Q23)
    try:
        again.goto(url)
        again.wait_for_selector("body[data-tick]")
        deadline = time.monotonic() + 5
        while not table.engine.connected[0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table.engine.connected[0]
    finally:
        again.close()


def test_only_one_page_plays_a_seat(live, browser):
    table, page, _ = live
    page.wait_for_selector("body[data-tick]")
    second = browser.new_page()
    try:
        second.goto(page.url)
        second.wait_for_function(
            "document.getElementById('error').textContent.includes('already played')", timeout=5000
        )
    finally:
        second.close()
    assert table.engine.connected[0]
