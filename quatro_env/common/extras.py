"""Check up front that a command's optional dependencies are installed, and name the extra if not.

A command that needs an extra (``pip install -e '.[eval]'``) says so in one line before it
does any work, instead of a ``ModuleNotFoundError`` traceback after the matches were played.
``importlib.util.find_spec`` only looks the modules up; nothing is imported.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable

# import name -> (distribution name, the project's extra that installs it)
PROVIDERS: dict[str, tuple[str, str]] = {
    "sklearn": ("scikit-learn", "eval"),
    "matplotlib": ("matplotlib", "eval"),
    "tqdm": ("tqdm", "eval"),
    "torch": ("torch", "train"),
    "numba": ("numba", "train"),
    "tensorboard": ("tensorboard", "train"),
    "ray": ("ray[rllib]", "rllib"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def install_extra(spec: str) -> str:
    """How to add the extra(s) ``spec`` (``"eval"``, ``"eval,train"``): from the project's clone, as the
    README installs it, or beside a wheel (the project is not on a package index)."""
    return f"pip install -e '.[{spec}]' in the project's clone, or pip install '<the wheel file>[{spec}]'"


def missing_hint(command: str, modules: Iterable[str]) -> str | None:
    """One line naming the extra(s) to install for the ``modules`` that are missing, or None."""
    lacking = [m for m in dict.fromkeys(modules) if not _installed(m)]
    if not lacking:
        return None
    extras = sorted({PROVIDERS[m][1] for m in lacking})
    names = ", ".join(PROVIDERS[m][0] for m in lacking)
    spec = ",".join(extras)
    return f"{command}: needs the [{spec}] extra (missing: {names}): {install_extra(spec)}"


def require(command: str, modules: Iterable[str]) -> None:
    """Exit with status 2 and the one-line hint when any of ``modules`` is missing."""
    hint = missing_hint(command, modules)
    if hint is not None:
        print(hint, file=sys.stderr)
        raise SystemExit(2)
