"""The live table's web server: a Starlette app, one page and one WebSocket, ticking in real time.

``GET /`` is the page (inline CSS and JS, nothing fetched); ``/ws`` carries the person's messages
in and their view out (one ``frame`` message a tick). The socket carries the seat's private view
(its hand, its team's sign), so it takes only the page's own origin: a browser lets any site open a
WebSocket to ``127.0.0.1``, and without the check another tab's page could read the hand and play the
seat. ``allowed_hosts`` refuses other ``Host`` names too (a DNS-rebinding page has the same origin as
its host, so only the host name tells it apart), and the page may not be framed by another site (a
framing page could make a person's clicks land on it: clickjacking). None of that stops a program on
this machine (any local user's, or a page's helper) or, off loopback, on the network: it sends whatever
``Origin`` and ``Host`` it likes. So ``quatro-play`` draws a secret token a run and prints it in the
page's link (as Jupyter does); the page and the socket answer only a request that carries it (HTTP 403
otherwise). A malformed or illegal message
gets an ``error`` message back and the table plays on; a dropped connection disconnects the seat (Q23)
and a new connection reconnects it. The clock starts when the page first connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
import secrets
import socket
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from quatro_env.play.table import LiveTable, MessageError
from quatro_env.replay.html import static_text


def _play_asset(name: str) -> str:
    from importlib import resources

    return (resources.files("quatro_env.play") / "static" / name).read_text(encoding="utf-8")


def page_html(table: LiveTable) -> str:
    config = json.dumps(table.page_config(), ensure_ascii=False).replace("<", "\\u003c")
    page = _play_asset("play.html")
    for marker, text in (
        ("/*__CSS__*/", static_text("table.css")),
        ("/*__TABLE_JS__*/", static_text("table.js")),
        ("/*__PLAY_JS__*/", _play_asset("play.js")),
        ("/*__CONFIG__*/", config),
    ):
        page = page.replace(marker, text, 1)
    return page


#: sent with the page: no site may show it in a frame (the CSP for today's browsers, X-Frame-Options for
#: older ones; ``frame-ancestors`` is ignored in a ``<meta>`` tag, so it has to be a header)
NO_FRAMING = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}

#: the page's link carries the token: no browser may pass it on in a ``Referer`` (the page fetches nothing,
#: but a link a person follows from it would)
PAGE_HEADERS = {**NO_FRAMING, "Referrer-Policy": "no-referrer"}

#: the fewest characters ``--token`` takes: 16 random url-safe characters are 96 bits
MIN_TOKEN_CHARS = 16


def new_token() -> str:
    """A fresh secret for one run's link: 22 url-safe characters (128 random bits)."""
    return secrets.token_urlsafe(16)


def check_token(token: str) -> str:
    """``token`` if it can guard a seat, else a ValueError saying why (too short, or not url-safe)."""
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"token: at least {MIN_TOKEN_CHARS} characters, got {len(token)}")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", token):
        raise ValueError("token: letters, digits, '-' and '_' only (it goes into the link as it is)")
    return token


MAX_MESSAGE_CHARS = 2000  # an action message is a few dozen characters


class TableServer:
    """Holds the table, the one connected page and the clock task."""

    def __init__(self, table: LiveTable, token: str | None = None) -> None:
        self.table = table
        self.token = token
        self.client: WebSocket | None = None
        self.clock: asyncio.Task | None = None
        self.ticks_played = 0

    async def send(self, message: dict[str, Any]) -> None:
        client = self.client
        if client is None:
            return
        with contextlib.suppress(Exception):  # a closing socket: the receive loop handles the drop
            await client.send_text(json.dumps(message, ensure_ascii=False))

    async def run_clock(self) -> None:
        loop = asyncio.get_running_loop()
        dt = self.table.config.tick_seconds
        deadline = loop.time()
        while not self.table.engine.match_over:
            deadline += dt
            await asyncio.sleep(max(0.0, deadline - loop.time()))
            try:
                self.table.step()
            except Exception as err:  # a policy failed: say so on the page rather than freeze silently
                await self.send(
                    {"type": "error", "message": f"the table stopped: {type(err).__name__}: {err}"}
                )
                raise
            self.ticks_played += 1
            await self.send({"type": "frame", "frame": self.table.frame()})
            if self.table.last_error:
                await self.send({"type": "error", "message": self.table.last_error})

    def has_token(self, query: str | None) -> bool:
        """Whether a request's ``token`` query parameter is this server's (any request passes a server
        made without a token)."""
        if self.token is None:
            return True
        given = (query or "").encode()
        return secrets.compare_digest(given, self.token.encode())  # in constant time: no guessing by timing

    async def page(self, request) -> HTMLResponse | PlainTextResponse:
        if not self.has_token(request.query_params.get("token")):
            return PlainTextResponse(
                "This table answers only its own link: open the URL quatro-play printed (it ends in"
                " ?token=...).",
                status_code=403,
                headers=PAGE_HEADERS,
            )
        return HTMLResponse(page_html(self.table), headers=PAGE_HEADERS)

    async def socket(self, ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        cross_site = origin is not None and urlsplit(origin).netloc != ws.headers.get("host")
        if cross_site or not self.has_token(ws.query_params.get("token")):
            await ws.close(code=4003)  # before the handshake completes: refused (HTTP 403)
            return
        await ws.accept()
        if self.client is not None:
            await ws.send_text(
                json.dumps({"type": "error", "message": "this seat is already played in another tab"})
            )
            await ws.close(code=4000)
            return
        self.client = ws
        self.table.set_connected(True)
        await self.send({"type": "frame", "frame": self.table.frame()})
        if self.clock is None:
            self.clock = asyncio.create_task(self.run_clock())
        try:
            while True:
                received = await ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                reply = self.handle(received.get("text"))  # None for a binary frame
                await self.send(reply)
        except WebSocketDisconnect:
            pass
        finally:
            if self.client is ws:
                self.client = None
                self.table.set_connected(False)  # Q23: the seat is disconnected from the next tick on

    def handle(self, text: str | None) -> dict[str, Any]:
        """One message from the page: queued (the reply names the action) or an error saying why not."""
        if text is None:
            return {"type": "error", "message": "messages are JSON text, not binary frames"}
        if len(text) > MAX_MESSAGE_CHARS:
            return {
                "type": "error",
                "message": f"message too long ({len(text)} > {MAX_MESSAGE_CHARS} characters)",
            }
        try:
            message = json.loads(text)
        except json.JSONDecodeError as err:
            return {"type": "error", "message": f"not valid JSON: {err.msg}"}
        except RecursionError:  # e.g. a thousand nested brackets: within the length limit
            return {"type": "error", "message": "not valid JSON here: nested too deeply"}
        try:
            described = self.table.submit(message)
        except MessageError as err:
            return {"type": "error", "message": str(err)}
        return {"type": "queued", "action": described}

    async def shutdown(self) -> None:
        if self.clock is not None:
            self.clock.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.clock


#: the names of this machine's loopback interface, as :func:`host_name` reads them from ``Host``
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

#: a ``Host`` header: a name or IPv4 address, or an IPv6 address in brackets; then an optional port
_HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[^\]]+)\]|(?P<name>[^:\[\]]+))(?::[0-9]*)?")


def host_name(header: str | None) -> str | None:
    """The host in a ``Host`` header, lowercased, without its port or IPv6 brackets (``[::1]:8000`` is
    ``::1``, as :data:`LOOPBACK_HOSTS` writes it); None if the header is missing or malformed."""
    match = _HOST_HEADER.fullmatch(header or "")
    if match is None:
        return None
    if match["ipv6"] is None:
        return match["name"].lower()
    try:
        return str(ipaddress.IPv6Address(match["ipv6"]))  # canonical form: [0:0::1] is ::1 too
    except ValueError:
        return None


def host_allowed(header: str | None, names: Sequence[str], ip_literals: bool = False) -> bool:
    """Whether to answer a request with this ``Host`` header: one of ``names``, or with ``ip_literals``
    any IP address. A DNS-rebinding page always sends its own domain name: an address is never rebound."""
    host = host_name(header)
    if host is None:
        return False
    if host in (name.lower() for name in names):
        return True
    if not ip_literals:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def allowed_hosts(bind_host: str, extra: Sequence[str] = ()) -> tuple[list[str], bool]:
    """The ``Host`` names to answer when listening on ``bind_host``, and whether any IP address too
    (``ip_literals`` of :func:`create_app`).

    On loopback only a browser on this machine reaches the server: the loopback names, ``bind_host`` and
    ``extra`` (``--allow-host``). Listening further, other machines reach it by an address or by this
    machine's own names; any other name is refused, since a DNS-rebinding page sends its own domain.
    """
    names = [*LOOPBACK_HOSTS, bind_host, *extra]
    try:
        loopback = ipaddress.ip_address(bind_host).is_loopback
    except ValueError:
        loopback = bind_host == "localhost"
    if loopback:
        return names, False
    return [*names, socket.gethostname(), socket.getfqdn()], True


class HostCheck:
    """ASGI middleware: HTTP 400 for a request (page or socket) whose ``Host`` is not allowed."""

    def __init__(self, app, names: Sequence[str], ip_literals: bool) -> None:
        self.app, self.names, self.ip_literals = app, tuple(names), ip_literals

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket") and not host_allowed(
            Headers(scope=scope).get("host"), self.names, self.ip_literals
        ):
            await PlainTextResponse("Invalid host header", status_code=400)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(
    table: LiveTable,
    allowed_hosts: Sequence[str] | None = None,
    ip_literals: bool = False,
    *,
    token: str | None,
) -> Starlette:
    """The app; ``allowed_hosts`` (e.g. :data:`LOOPBACK_HOSTS`): the ``Host`` names it answers, or any
    (None); with ``ip_literals``, a ``Host`` that is an IP address too (see :func:`host_allowed`).

    ``token``: the secret the page's link and its socket must carry (``?token=...``; see
    :func:`new_token`), or None for none. Every caller says which: ``quatro-play`` always draws one."""
    server = TableServer(table, None if token is None else check_token(token))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await server.shutdown()

    app = Starlette(
        routes=[Route("/", server.page), WebSocketRoute("/ws", server.socket)],
        middleware=[]
        if allowed_hosts is None
        else [Middleware(HostCheck, names=allowed_hosts, ip_literals=ip_literals)],
        lifespan=lifespan,
    )
    app.state.server = server
    return app
