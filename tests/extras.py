"""Optional dependencies of some tests, named with their fix when missing.

Python packages come with the ``dev`` extra (it pulls in ``play``, ``video`` and
``browser-tests``): a missing one FAILS, naming the extra (``QUATRO_SKIP_MISSING_EXTRAS=1`` skips
instead, for a developer who chose a smaller install). The browser is a system package (Debian's
``chromium``), not a pip one: without it the browser tests skip, naming the install command, on a
developer's machine, and FAIL where a browser is required: under CI (``CI`` set, as ``.ci/run``
runs) or with ``QUATRO_REQUIRE_BROWSER=1``. ``.ci/run`` installs chromium, so CI always runs them.
The integration tests need the ``integrations`` extra, which the core suite's venv lacks: they skip
there, and FAIL where ``QUATRO_REQUIRE_INTEGRATIONS=1``, which ``.ci/run``'s integrations venv sets
(a broken import of RLlib or TorchRL was a skip, and CI stayed green).
"""

from __future__ import annotations

import importlib
import os
import shutil

import pytest

SKIP_SWITCH = "QUATRO_SKIP_MISSING_EXTRAS"
REQUIRE_BROWSER = "QUATRO_REQUIRE_BROWSER"
REQUIRE_INTEGRATIONS = "QUATRO_REQUIRE_INTEGRATIONS"


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
    message = "the chromium browser is missing: apt-get install -y chromium (Debian)"
    if os.environ.get("CI") or os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{message} (a browser is required here: CI or {REQUIRE_BROWSER}=1)", pytrace=False)
    pytest.skip(f"{message}; set {REQUIRE_BROWSER}=1 to make this a failure")
    return ""


def integration_module(name: str):
    """Import ``name`` (a package of the ``integrations`` extra): skip without it, or fail where
    ``QUATRO_REQUIRE_INTEGRATIONS=1`` (CI's integrations venv, where every one must import)."""
    if os.environ.get(REQUIRE_INTEGRATIONS) != "1":
        return pytest.importorskip(name)
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"{name} does not import ({err}) where {REQUIRE_INTEGRATIONS}=1", pytrace=False)
