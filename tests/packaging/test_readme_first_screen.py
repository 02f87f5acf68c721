"""The README's first screen keeps exactly two set-up commands: run the main job, run the tests (the
test command is the one .ci/run runs)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_first_screen_has_exactly_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    first_screen = readme.split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", first_screen, re.S)
    commands = [
        [line for line in block.splitlines() if line.strip() and not line.startswith("#")] for block in blocks
    ]
    assert [len(c) for c in commands] == [1, 1], commands
    setup, tests = commands[0][0], commands[1][0]
    # a virtual environment first (PEP 668: Debian's and Ubuntu's system Python refuse pip install), then
    # torch's pinned wheel before the project (a bare torch would pull a CUDA build)
    venv = "python3 -m venv .venv && . .venv/bin/activate && "
    assert setup.startswith(venv + "pip install torch==2.13.0 && pip install -e"), setup
    assert setup.endswith("quatro-demo")
    assert tests == "OMP_NUM_THREADS=1 python -m pytest -q"
    assert tests in (ROOT / ".ci" / "run").read_text()
