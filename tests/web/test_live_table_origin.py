"""The live table's socket carries a seat's private view (its hand, its team's sign): only the page's own
origin may open it, only known host names are answered (no DNS rebinding), and no other site may frame
the page (no clickjacking).

A browser lets any site open a WebSocket to 127.0.0.1; before this check a page in another tab could
read the person's hand and play their seat.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from quatro_env.play import cli
from quatro_env.play.cli import LIVE_DEFAULTS, main
from quatro_env.play.server import LOOPBACK_HOSTS, allowed_hosts, create_app, host_allowed
from quatro_env.play.table import LiveTable
from quatro_env.quatro.config import QuatroConfig
from tests.extras import need_module
from tests.web.browser import ServerThread


@pytest.fixture()
def served(request):
    need_module("websockets", "play")
    table = LiveTable(QuatroConfig(sign_phase_seconds=2.0, **LIVE_DEFAULTS), 0, "honest", "idle", seed=3)
    server = ServerThread(create_app(table, request.param, token=None))  # the token: its own tests
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


def _first_message(url: str, origin: str | None) -> dict:
    from websockets.sync.client import connect

    ws_url = url.replace("http://", "ws://") + "ws"
    with connect(ws_url, origin=origin, open_timeout=10) as ws:
        return json.loads(ws.recv(timeout=10))


@pytest.mark.parametrize("served", [None, LOOPBACK_HOSTS], indirect=True)
def test_the_page_s_own_origin_and_a_client_without_one_get_the_seat_s_view(served):
    page_origin = served.rstrip("/")  # http://127.0.0.1:PORT
    assert _first_message(served, page_origin)["type"] == "frame"
    assert _first_message(served, None)["type"] == "frame"  # not a browser: no cross-site page behind it


@pytest.mark.parametrize("served", [None], indirect=True)
@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://127.0.0.1", "https://127.0.0.1:1", "null", "http://localhost:1"]
)
def test_another_origin_is_refused_before_it_sees_anything(served, origin):
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as refused:
        _first_message(served, origin)
    assert refused.value.response.status_code == 403


@pytest.mark.parametrize("served", [LOOPBACK_HOSTS], indirect=True)
def test_on_loopback_another_host_name_is_refused(served):
    """A DNS-rebinding page is served from its own name resolved to 127.0.0.1: same origin as its host,
    so the name is what tells it apart."""
    with urllib.request.urlopen(served, timeout=10) as ok:
        assert ok.status == 200
    request = urllib.request.Request(served, headers={"Host": "rebind.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400


def _status(url: str, host: str | None = None) -> int:
    """The HTTP status of ``GET url``, sent with the ``Host`` header ``host`` (with the url's port)."""
    port = urlsplit(url).port
    headers = {} if host is None else {"Host": f"{host}:{port}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


#: the token the CLI apps below are started with (``?token=`` of every request to them)
TOKEN = "origin-tests-token-0123"


def _cli_app(monkeypatch, *args: str):
    """The app ``quatro-play ARGS`` serves; its listening and serving are replaced, so nothing listens
    on ``--host`` (the tests serve the app on loopback and send the ``Host`` headers a browser would)."""
    need_module("uvicorn", "play")
    apps = []
    monkeypatch.setattr(cli, "listen", lambda host, port: socket.create_server(("127.0.0.1", 0)))
    monkeypatch.setattr(cli, "serve", lambda app, sock: (apps.append(app), sock.close()))
    assert main(["--partner", "idle", "--token", TOKEN, *args]) == 0
    return apps[0]


def _start(app) -> tuple[ServerThread, str]:
    """The CLI's app served on loopback, and its link (with the token)."""
    server = ServerThread(app)
    return server, server.start() + f"?token={TOKEN}"


@pytest.mark.parametrize("served", [None, LOOPBACK_HOSTS], indirect=True)
def test_the_page_forbids_every_site_to_frame_it(served):
    """A framing page could hide the table under its own (a transparent frame) and make the person's clicks
    land on their seat: clickjacking. ``frame-ancestors`` is a header only (ignored in a <meta> tag)."""
    with urllib.request.urlopen(served, timeout=10) as response:
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Content-Security-Policy"] == "frame-ancestors 'none'"


def test_a_framing_page_gets_neither_the_page_nor_the_seat(browser):
    table = LiveTable(QuatroConfig(sign_phase_seconds=30.0, **LIVE_DEFAULTS), 0, "honest", "idle", seed=3)
    app = create_app(table, LOOPBACK_HOSTS, token=None)
    server = ServerThread(app)
    url = server.start()
    framing = f'<iframe id="f" src="{url}" width="900" height="900" style="opacity: 0.01"></iframe>'.encode()

    class Framing(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(framing)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Framing)  # another port: another origin
    threading.Thread(target=other.serve_forever, daemon=True).start()
    page = browser.new_page()
    try:
        with page.expect_response(url) as framed:  # the frame asked for the table page and got it...
            page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        assert framed.value.status == 200
        page.wait_for_load_state("load")
        time.sleep(1.0)  # ...but the browser shows none of it: no script ran, no socket took the seat
        assert page.frame_locator("#f").locator("#me").count() == 0
        assert app.state.server.client is None and app.state.server.ticks_played == 0
    finally:
        page.close()
        other.shutdown()
        other.server_close()
        server.stop()


def test_off_loopback_a_rebinding_name_is_refused_an_address_or_a_known_name_answered(monkeypatch, capsys):
    """``--host 0.0.0.0``: other machines reach the table by an address or by this machine's names; a
    DNS-rebinding page (its domain resolved to this machine) sends its own domain and gets HTTP 400."""
    app = _cli_app(monkeypatch, "--host", "0.0.0.0", "--allow-host", "Quatro.LAN")
    warning = capsys.readouterr().err
    assert "reachable from other machines" in warning and "quatro.lan" in warning.lower()
    server, url = _start(app)
    try:
        for name in ("rebind.attacker.example", "quatro.lan.attacker.example", "localhost.example"):
            assert _status(url, name) == 400, name
        for name in ("192.168.1.20", "[fe80::1]", "127.0.0.1", "[::1]", "localhost", "quatro.lan"):
            assert _status(url, name) == 200, name
        assert _status(url, socket.gethostname()) == 200  # the machine's own name
        assert _status(url, "QUATRO.lan") == 200  # host names are case-insensitive
        from websockets.exceptions import InvalidStatus
        from websockets.sync.client import connect

        port = urlsplit(url).port
        rebound = f"rebind.attacker.example:{port}"  # the socket too (its Host and Origin agree)
        sock = socket.create_connection(("127.0.0.1", port))  # the name resolved to this machine
        with sock, pytest.raises(InvalidStatus) as refused:
            ws_url, origin = f"ws://{rebound}/ws?token={TOKEN}", f"http://{rebound}"
            connect(ws_url, sock=sock, origin=origin, open_timeout=10)
        assert refused.value.response.status_code == 400
        assert app.state.server.client is None
    finally:
        server.stop()


def test_on_loopback_an_address_other_than_loopback_is_refused_an_allowed_name_answered(monkeypatch):
    server, url = _start(_cli_app(monkeypatch, "--allow-host", "quatro.test"))
    try:
        assert [_status(url, name) for name in ("localhost", "[::1]", "quatro.test")] == [200] * 3
        assert [_status(url, name) for name in ("192.168.1.20", "rebind.example")] == [400] * 2
    finally:
        server.stop()


def test_a_bracketed_ipv6_loopback_host_is_read_as_loopback():
    """Starlette keeps the brackets of ``Host: [::1]:8000``; the check reads the address inside (and a
    malformed header, or another address, is still refused)."""
    names, ip_literals = allowed_hosts("::1")
    assert not ip_literals
    for header in ("[::1]:8000", "[::1]", "[0:0::1]:8000", "localhost:8000", "127.0.0.1"):
        assert host_allowed(header, names), header
    for header in ("[::2]:8000", "::1", "[::1", "[::1]x", "[localhost]:80", "", None, "rebind.example"):
        assert not host_allowed(header, names), header


def test_quatro_play_on_ipv6_loopback_answers_its_own_address(monkeypatch):
    """``--host ::1`` used to refuse every request. Where this machine has no IPv6 loopback the server
    cannot start: the test above still checks the host check itself."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as err:
        pytest.skip(f"no IPv6 loopback here ({err}); host_allowed is tested directly above")
    server = ServerThread(_cli_app(monkeypatch, "--host", "::1"), host="::1")
    url = server.start() + f"?token={TOKEN}"
    try:
        assert url.startswith("http://[::1]:")
        assert _status(url) == 200  # Host: [::1]:PORT, as a browser sends it
        assert _status(url, "rebind.example") == 400
    finally:
        server.stop()
