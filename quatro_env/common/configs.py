"""Configs shipped with the package, found by name: ``quatro-train --config ppo_4p``.

The YAML files live in the repository's ``configs/`` folder; ``quatro_env/configs`` points at it, so
an editable install reads them in place and a built wheel carries them as package data. A path to
a file of one's own works everywhere a name does.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SUFFIX = ".yaml"


def _shipped_dir() -> Path:
    return Path(str(resources.files("quatro_env") / "configs"))


def shipped_configs() -> list[str]:
    """Names of the shipped configs (``ppo_4p``, ``smoke``, ``rllib_ppo_4p``, ...), sorted."""
    folder = _shipped_dir()
    return sorted(p.name.removesuffix(SUFFIX) for p in folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []


def resolve_config(spec: str | Path) -> Path:
    """The YAML file ``spec`` names: an existing path, else a shipped config's name (``.yaml`` optional)."""
    path = Path(spec)
    if path.is_file():
        return path
    if path.parent == Path(".") and path.suffix in ("", SUFFIX):
        shipped = _shipped_dir() / f"{path.name.removesuffix(SUFFIX)}{SUFFIX}"
        if shipped.is_file():
            return shipped
    raise FileNotFoundError(
        f"config {str(spec)!r}: no such file and no shipped config of that name; "
        f"shipped: {', '.join(shipped_configs()) or 'none'}"
    )
