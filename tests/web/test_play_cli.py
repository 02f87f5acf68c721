"""``quatro-play`` as a user starts it: a real process serving the page on loopback, then stopped."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

from quatro_env.play.cli import main
from tests.extras import need_module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bad_arguments_exit_2_with_a_message(capsys):
    need_module("uvicorn", "play")
    assert main(["--seat", "9"]) == 2
    assert "seat: 9 is outside 0..3" in capsys.readouterr().err
    assert main(["--partner", "no_such_bot"]) == 2
    assert "unknown bot 'no_such_bot'" in capsys.readouterr().err


def test_quatro_play_serves_the_page_on_loopback():
    need_module("uvicorn", "play")
    port = _free_port()
    cmd = [sys.executable, "-m", "quatro_env.play.cli", "--port", str(port), "--partner", "idle"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    page = response.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "quatro-play did not start serving"
                time.sleep(0.2)
        assert "Quatro live table" in page and '"seat": 0' in page
        assert "<script src" not in page  # nothing fetched from elsewhere
    finally:
        proc.terminate()
        proc.wait(15)
