"""The live table's web server: a Starlette app, one page and one WebSocket, ticking in real time.

``GET /`` is the page (inline CSS and JS, nothing fetched); ``/ws`` carries the person's messages
in and their view out (one ``frame`` message a tick). The socket carries the seat's private view
(its hand, its team's sign), so it takes only the page's own origin: a browser lets any site open a
WebSocket to ``127.0.0.1``, and without the check another tab's page could read the hand and play the
seat. On loopback, ``allowed_hosts`` refuses other ``Host`` names too (a DNS-rebinding page has the
same origin as its host, so only the host name tells it apart). A malformed or illegal message gets an
``error`` message back and the table plays on; a dropped connection disconnects the seat (Q23)
and a new connection reconnects it. The clock starts when the page first connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import HTMLResponse
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


MAX_MESSAGE_CHARS = 2000  # an action message is a few dozen characters


class TableServer:
    """Holds the table, the one connected page and the clock task."""

    def __init__(self, table: LiveTable) -> None:
        self.table = table
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

    async def page(self, request) -> HTMLResponse:
        return HTMLResponse(page_html(self.table))

    async def socket(self, ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != ws.headers.get("host"):
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


#: the names of this machine's loopback interface, as a browser sends them in ``Host``
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def create_app(table: LiveTable, allowed_hosts: Sequence[str] | None = None) -> Starlette:
    """The app; ``allowed_hosts`` (e.g. :data:`LOOPBACK_HOSTS`): the ``Host`` names it answers, or any."""
    server = TableServer(table)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await server.shutdown()

    app = Starlette(
        routes=[Route("/", server.page), WebSocketRoute("/ws", server.socket)],
        middleware=[]
        if allowed_hosts is None
        else [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)],
        lifespan=lifespan,
    )
    app.state.server = server
    return app
