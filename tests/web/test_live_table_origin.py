"""The live table's socket carries a seat's private view (its hand, its team's sign): only the page's own
origin may open it, and on loopback only loopback host names are answered (no DNS rebinding).

A browser lets any site open a WebSocket to 127.0.0.1; before this check a page in another tab could
read the person's hand and play their seat.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from quatro_env.play.cli import LIVE_DEFAULTS
from quatro_env.play.server import LOOPBACK_HOSTS, create_app
from quatro_env.play.table import LiveTable
from quatro_env.quatro.config import QuatroConfig
from tests.extras import need_module
from tests.web.browser import ServerThread


@pytest.fixture()
def served(request):
    need_module("websockets", "play")
    table = LiveTable(QuatroConfig(sign_phase_seconds=2.0, **LIVE_DEFAULTS), 0, "honest", "idle", seed=3)
    server = ServerThread(create_app(table, request.param))
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
