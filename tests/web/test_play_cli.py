"""``quatro-play`` as a user starts it: a real process serving the page on loopback, then stopped."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

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


def test_quatro_play_serves_the_page_on_loopback_at_its_printed_link_only():
    need_module("uvicorn", "play")
    port = _free_port()
    cmd = [sys.executable, "-m", "quatro_env.play.cli", "--port", str(port), "--partner", "idle"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        printed = proc.stdout.readline()
        link = re.search(r"open (http://127\.0\.0\.1:(\d+)/\?token=[A-Za-z0-9_-]{22})$", printed.strip())
        assert link is not None and int(link[2]) == port, printed
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(link[1], timeout=2) as response:
                    page = response.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "quatro-play did not start serving"
                time.sleep(0.2)
        assert "Quatro live table" in page and '"seat": 0' in page
        assert "<script src" not in page  # nothing fetched from elsewhere
        with pytest.raises(urllib.error.HTTPError) as refused:  # the same page without the link's token
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        assert refused.value.code == 403
    finally:
        proc.terminate()
        proc.wait(15)
