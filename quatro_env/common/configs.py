"""Configs shipped with the package, found by name: ``quatro-train --config ppo_4p``.

The YAML files live in the repository's ``configs/`` folder; ``quatro_env/configs`` points at it, so
an editable install reads them in place and a built wheel carries them as package data (a checkout
that keeps the link as a text file, Windows' git by default, reads the repository's folder). A path to
a file of one's own works everywhere a name does.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from quatro_env.common.yaml_text import describe_error, load_yaml

SUFFIX = ".yaml"


def _shipped_dir() -> Path:
    packaged = Path(str(resources.files("quatro_env") / "configs"))
    if packaged.is_dir():
        return packaged
    # a checkout that keeps links as small text files (Windows without core.symlinks): the repository's
    return packaged.parent.parent / "configs"


def shipped_configs() -> list[str]:
    """Names of the shipped configs (``ppo_4p``, ``smoke``, ``rllib_ppo_4p``, ...), sorted."""
    folder = _shipped_dir()
    return sorted(p.name.removesuffix(SUFFIX) for p in folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []


def resolve_config(spec: str | Path) -> Path:
    """The YAML file ``spec`` names: an existing path, else a shipped config's name (``.yaml`` optional)."""
    path = Path(spec)
    if path.is_file():
        return path
    if path.is_dir():
        raise FileNotFoundError(f"config {str(spec)!r}: a directory, not a config file")
    if path.parent == Path(".") and path.suffix in ("", SUFFIX):
        shipped = _shipped_dir() / f"{path.name.removesuffix(SUFFIX)}{SUFFIX}"
        if shipped.is_file():
            return shipped
    raise FileNotFoundError(
        f"config {str(spec)!r}: no such file and no shipped config of that name; "
        f"shipped: {', '.join(shipped_configs()) or 'none'}"
    )


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """A YAML file's mapping of fields; ValueError naming the file for anything else (missing, a
    directory, binary, not YAML, not a mapping, an alias or a key given twice). A config never builds
    objects (:func:`~quatro_env.common.yaml_text.load_yaml`)."""
    try:
        text = resolve_config(path).read_bytes().decode("utf-8")
    except FileNotFoundError as exc:  # neither a file nor a shipped config's name
        raise ValueError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = (
            "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror or type(exc).__name__
        )
        raise ValueError(f"config {str(path)!r}: cannot read a YAML text file ({reason})") from None
    if "\x00" in text:
        raise ValueError(f"config {str(path)!r}: a binary file, not YAML text")
    try:
        data = load_yaml(text)  # data only; no alias, no repeated key, YAML 1.2 numbers
    except RecursionError:  # e.g. fifty thousand nested brackets: the parser recurses
        raise ValueError(f"config {str(path)!r}: not valid YAML here (nested too deeply)") from None
    except yaml.YAMLError as exc:
        where, problem = describe_error(exc, text)
        raise ValueError(f"config {str(path)!r}: not valid YAML{where} ({problem})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"config {str(path)!r}: a config is a mapping of fields, got {type(data).__name__}")
    named = [key for key in data if not isinstance(key, str)]
    if named:  # YAML allows ``1: 2``; a field's name is text
        raise ValueError(f"config {str(path)!r}: a field's name is text, got {named[0]!r}")
    return data
