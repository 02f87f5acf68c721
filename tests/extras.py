"""Optional dependencies of some tests: missing ones FAIL (CI must run these tests), naming the fix.

A developer without them may opt out locally with ``QUATRO_SKIP_MISSING_EXTRAS=1`` (then the tests
skip); ``.ci/run`` installs every extra these tests need and never sets it.
"""

from __future__ import annotations

import importlib
import os
import shutil

import pytest

SKIP_SWITCH = "QUATRO_SKIP_MISSING_EXTRAS"


def _missing(what: str, fix: str) -> None:
    message = f"{what} is missing: {fix} (or set {SKIP_SWITCH}=1 to skip these tests locally)"
    if os.environ.get(SKIP_SWITCH) == "1":
        pytest.skip(message)
    pytest.fail(message, pytrace=False)


def need_module(name: str, extra: str):
    """Import ``name`` or fail naming the extra that provides it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        _missing(f"Python module {name!r}", f"pip install -e '.[{extra}]'")


def need_chromium() -> str:
    """The path of Debian's chromium (never downloaded by Playwright), or fail saying how to get it."""
    for path in (os.environ.get("QUATRO_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if path and os.path.isfile(path):
            return path
    _missing("the chromium browser", "apt-get install -y chromium (Debian)")
    return ""
