"""The optional extras: every one that brings torch also brings numba (the batched engine's compiler)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (CI's)
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _resolved(extras: dict[str, list[str]], name: str) -> set[str]:
    """The distribution names an extra installs, its quatro-env[...] references followed."""
    out: set[str] = set()
    for req in extras[name]:
        inner = re.fullmatch(r"quatro-env\[(.+)\]", req)
        if inner:
            for sub in inner.group(1).split(","):
                out |= _resolved(extras, sub.strip())
        else:
            out.add(re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0].lower())
    return out


def test_every_extra_with_torch_has_numba():
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    with_torch = {name for name in extras if "torch" in _resolved(extras, name)}
    assert {"torch", "train", "integrations", "supersuit"} <= with_torch
    missing = sorted(name for name in with_torch if "numba" not in _resolved(extras, name))
    assert not missing, f"extras with torch but without numba (QuatroVectorEnv needs it): {missing}"
