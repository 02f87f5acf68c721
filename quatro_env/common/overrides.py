"""The one override syntax of every command-line tool: ``key=value`` (``env.num_players=6``).

Values are read as YAML scalars (:func:`~quatro_env.common.yaml_text.load_yaml`, as config files are:
``3`` is an int, ``0.5`` and ``1e-4`` floats, ``true`` a bool, ``[1, 2]`` a list),
so a command line and a config file spell a value the same way; nothing is ever evaluated as
code. Dotted keys address nested sections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import yaml

from quatro_env.common.yaml_text import describe_error, load_yaml

# A key is a dotted identifier path; policy specs such as ``counter:threshold=0.6`` are not keys.
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def is_override(item: str) -> bool:
    """True for ``key=value`` (``key`` a dotted identifier path), the command-line override form."""
    key, eq, _ = item.partition("=")
    return bool(eq) and bool(_KEY.match(key.strip()))


def split_overrides(items: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separate positional arguments into (other arguments, ``key=value`` overrides), order kept."""
    others = [item for item in items if not is_override(item)]
    return others, [item for item in items if is_override(item)]


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``["lr=1e-3", "env.num_players=6"]`` → nested dict; values are parsed as YAML scalars."""
    result: dict[str, Any] = {}
    for item in items:
        if not is_override(item):
            raise ValueError(
                f"override {item!r}: expected key=value (key: a dotted name such as env.num_players)"
            )
        key, raw = item.split("=", 1)
        node = result
        *parents, leaf = key.strip().split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"override {item!r}: {part!r} was already given a value")
            node = child
        try:
            node[leaf] = load_yaml(raw)  # YAML 1.2 scalars (1e-4 a float), no alias
        except yaml.YAMLError as err:
            _, problem = describe_error(err, raw)
            raise ValueError(f"override {item!r}: the value is not valid YAML ({problem})") from None
    return result


def scalar(text: str) -> Any:
    """A bot option's or a ``--set`` value: ``true``/``false`` (any case), an int, a float, else the
    text itself (a bot name's options are not YAML: ``cover:split=true,partner_delay=4``)."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` laid over it, nested sections merged key by key (neither is modified)."""
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = (
            merge(merged[key], value)
            if isinstance(value, dict) and isinstance(merged.get(key), dict)
            else value
        )
    return merged
