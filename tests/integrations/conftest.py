"""Shared pieces of the integration tests.

Every ```python block of a page under docs/integrations/ is executed by the page's test, in order,
in one namespace, so the docs show exactly the code that is tested (``bash``/``text`` blocks are
not run). Each test module skips itself when its library is not installed, so the core suite
passes without the extras.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "integrations"
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)

# Short rounds so that episodes end within a few dozen ticks.
SHORT_TABLE: dict[str, Any] = dict(round_seconds=10, sign_phase_seconds=2, pause_seconds=1, points_to_win=2)


def python_blocks(page: str) -> list[str]:
    blocks = _BLOCK.findall((DOCS / page).read_text())
    if not blocks:
        raise AssertionError(f"docs/integrations/{page} has no ```python block")
    return blocks


def run_doc(page: str) -> dict[str, Any]:
    """Execute the page's python blocks in order in one fresh namespace; return the namespace."""
    namespace: dict[str, Any] = {"__name__": f"docs_{Path(page).stem}"}
    for i, block in enumerate(python_blocks(page)):
        exec(compile(block, f"docs/integrations/{page} [python block {i + 1}]", "exec"), namespace)
    return namespace


@pytest.fixture(autouse=True)
def sb3_log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SB3 makes a log folder for every model; without this it leaves ``/tmp/SB3-<date>`` behind on
    each run (84 of them had piled up on the CI machine)."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


@pytest.fixture
def short_table() -> dict[str, Any]:
    return dict(SHORT_TABLE)


@pytest.fixture
def doc_runner():
    return run_doc
