"""Headless Chromium (Debian's package, driven by Playwright) and a live-table server on loopback."""

from __future__ import annotations

import threading
import time

from tests.extras import need_chromium, need_module

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def launch_browser(playwright):
    return playwright.chromium.launch(executable_path=need_chromium(), args=CHROMIUM_ARGS)


def start_playwright():
    sync_api = need_module("playwright.sync_api", "browser-tests")
    return sync_api.sync_playwright().start()


class ServerThread:
    """uvicorn serving ``app`` on ``host`` (127.0.0.1; a free port) in a thread; :meth:`stop` ends it."""

    def __init__(self, app, host: str = "127.0.0.1") -> None:
        uvicorn = need_module("uvicorn", "play")
        self.host = host
        config = uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self, timeout: float = 20.0) -> str:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the live-table server did not start")
            time.sleep(0.05)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        assert host == self.host
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        assert not self.thread.is_alive(), "the server thread did not stop"
