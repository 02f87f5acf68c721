"""The live table answers only its own link: a secret token drawn a run (``?token=``) guards the page and
the socket.

The origin and ``Host`` checks (``test_live_table_origin.py``) stop other *web pages*; a program on this
machine, or on the network with ``--host 0.0.0.0``, sends any ``Origin`` and ``Host`` it likes. Before the
token, such a program opened ``/ws`` and read the seat's hand and sign, or played the seat.
"""

from __future__ import annotations

import json
import re
import socket
import urllib.error
import urllib.request
from email.message import Message

import pytest

from quatro_env.play import cli
from quatro_env.play.cli import LIVE_DEFAULTS, main
from quatro_env.play.server import MIN_TOKEN_CHARS, check_token, create_app, new_token
from quatro_env.play.table import LiveTable
from quatro_env.quatro.config import QuatroConfig
from tests.extras import need_module
from tests.web.browser import ServerThread

TOKEN = "token-tests-secret-0123"


def _table() -> LiveTable:
    return LiveTable(QuatroConfig(sign_phase_seconds=30.0, **LIVE_DEFAULTS), 0, "honest", "idle", seed=3)


@pytest.fixture()
def served():
    """A table served with :data:`TOKEN`; yields its app and its address (no query)."""
    need_module("websockets", "play")
    app = create_app(_table(), token=TOKEN)
    server = ServerThread(app)
    url = server.start()
    try:
        yield app, url
    finally:
        server.stop()


def _get(url: str) -> tuple[int, Message, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read().decode()


def _socket_status(url: str, query: str) -> int | dict:
    """The first message the socket sends (a dict), or the HTTP status that refused it."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    try:
        with connect(url.replace("http://", "ws://") + "ws" + query, open_timeout=10) as ws:
            return json.loads(ws.recv(timeout=10))
    except InvalidStatus as refused:
        return refused.response.status_code


@pytest.mark.parametrize("query", ["", "?token=", "?token=wrong", f"?token={TOKEN}x", f"?token={TOKEN[:-1]}"])
def test_the_page_and_the_socket_refuse_a_request_without_the_token(served, query):
    app, url = served
    status, headers, body = _get(url + query)
    assert status == 403 and "open the URL quatro-play printed" in body
    assert "hand" not in body and "Quatro live table" not in body  # no page, no view
    assert headers["X-Frame-Options"] == "DENY"
    assert _socket_status(url, query) == 403  # refused before the handshake: it sees no frame
    assert app.state.server.client is None and app.state.server.ticks_played == 0


def test_the_link_s_token_gets_the_page_and_the_seat(served):
    app, url = served
    status, headers, body = _get(f"{url}?token={TOKEN}")
    assert status == 200 and "Quatro live table" in body
    assert headers["Referrer-Policy"] == "no-referrer"  # the link is never passed on
    assert TOKEN not in body  # the page reads it from its own address, and holds no copy to leak
    first = _socket_status(url, f"?token={TOKEN}")
    assert first["type"] == "frame" and first["frame"]["tick"] == 0


def test_a_token_too_short_or_not_url_safe_is_refused_by_name():
    short = "a" * (MIN_TOKEN_CHARS - 1)
    for bad, reason in (("", "at least"), (short, "at least"), ("a b&c=d" * 4, "letters")):
        with pytest.raises(ValueError, match=f"token: {reason}"):
            check_token(bad)
        with pytest.raises(ValueError, match="token"):
            create_app(_table(), token=bad)
    drawn = {new_token() for _ in range(50)}
    assert len(drawn) == 50 and all(check_token(t) == t and len(t) == 22 for t in drawn)


def test_create_app_makes_its_caller_say_whether_a_token_guards_it():
    with pytest.raises(TypeError, match="token"):
        create_app(_table())  # no silent open table


def _run_cli(monkeypatch, capsys, *args: str) -> tuple[int, str, str, list]:
    """``quatro-play ARGS`` with the serving replaced: exit code, stdout, stderr, [(app, port)]."""
    need_module("uvicorn", "play")
    served = []

    def serve(app, sock):
        served.append((app, sock.getsockname()[1]))
        sock.close()

    monkeypatch.setattr(cli, "serve", serve)
    code = main(["--partner", "idle", *args])
    out = capsys.readouterr()
    return code, out.out, out.err, served


def test_quatro_play_draws_a_fresh_token_each_run_and_prints_the_port_it_got(monkeypatch, capsys):
    links = []
    for _ in range(2):
        code, out, _, served = _run_cli(monkeypatch, capsys, "--port", "0")
        assert code == 0
        link = re.search(r"open http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{22})$", out.strip())
        assert link is not None, out
        port = served[0][1]
        assert int(link[1]) == port != 0  # --port 0: the free port it listens on, not 0
        assert served[0][0].state.server.token == link[2]
        links.append(link[2])
    assert links[0] != links[1]


def test_on_every_interface_two_links_are_printed_one_for_here_one_for_other_machines(monkeypatch, capsys):
    """``--host 0.0.0.0`` printed ``http://0.0.0.0:PORT``, where no browser goes: the others get this
    machine's name (a name the server answers), this machine loopback."""
    code, out, _, served = _run_cli(monkeypatch, capsys, "--host", "0.0.0.0", "--port", "0", "--token", TOKEN)
    port = served[0][1]
    assert code == 0 and "0.0.0.0" not in out
    other, here = out.strip().splitlines()
    assert other == f"quatro-play: from another machine: http://{socket.gethostname()}:{port}/?token={TOKEN}"
    assert here.endswith(f": open http://127.0.0.1:{port}/?token={TOKEN}")
    assert cli.links("::", 8000, TOKEN) == (
        f"http://[::1]:8000/?token={TOKEN}",
        f"http://{socket.gethostname()}:8000/?token={TOKEN}",
    )
    assert cli.links("192.168.1.20", 8000, TOKEN) == (f"http://192.168.1.20:8000/?token={TOKEN}", None)
    assert cli.links("fe80::1", 8000, TOKEN) == (f"http://[fe80::1]:8000/?token={TOKEN}", None)


def test_quatro_play_takes_a_chosen_token_and_refuses_a_weak_one(monkeypatch, capsys):
    code, out, _, served = _run_cli(monkeypatch, capsys, "--port", "0", "--token", TOKEN)
    assert code == 0 and out.strip().endswith(f"?token={TOKEN}")
    assert served[0][0].state.server.token == TOKEN
    code, out, err, served = _run_cli(monkeypatch, capsys, "--token", "short")
    assert code == 2 and not served and not out
    assert err.strip() == f"quatro-play: token: at least {MIN_TOKEN_CHARS} characters, got 5"


def test_quatro_play_says_so_when_its_port_is_taken(monkeypatch, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, out, err, served = _run_cli(monkeypatch, capsys, "--port", str(port))
    assert code == 2 and not served and not out
    assert err.startswith(f"quatro-play: cannot listen on 127.0.0.1 port {port}: ")
