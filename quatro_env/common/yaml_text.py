"""YAML as configs read it: data only, and one meaning for every spelling.

PyYAML's ``safe_load`` builds no objects, but it reads YAML 1.1, where ``020`` is 16, ``1:00`` is 60,
``yes`` is True and ``3e-4`` is text, and it takes a key given twice (the last wins) and aliases (a
few hundred bytes of ``&a [*b, *b, ...]`` expand to gigabytes when a value is printed or walked).
:func:`load_yaml` reads YAML 1.2's core schema instead (decimal ints, ``1e-4`` a float, ``true`` and
``false`` the only flags, ``2026-12-07`` text) and refuses duplicate keys and aliases by name: a config
needs neither. It builds JSON's kinds of data only: ``!!set`` (a tuple field took it in hash order),
``!!omap``, ``!!pairs``, ``!!binary`` and ``!!timestamp`` are refused by name.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_INT, _FLOAT, _BOOL = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
#: YAML 1.1's types beyond JSON's data, refused where a file spells them out
NOT_DATA = ("set", "omap", "pairs", "binary", "timestamp")


class _ConfigLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars, no aliases and no repeated keys."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor}: a config spells every value out", event.start_mark
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} is given twice (line {seen[key] + 1} and here)",
                    key_node.start_mark,
                )
            if isinstance(key, (str, int, float, bool)):
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_ConfigLoader.yaml_implicit_resolvers = {  # YAML 1.1's, less its numbers and flags and its timestamp
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT, _BOOL, _TIMESTAMP)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_ConfigLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_ConfigLoader.add_implicit_resolver(_INT, re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_ConfigLoader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)
_ConfigLoader.add_constructor(_INT, lambda loader, node: int(loader.construct_scalar(node), 10))


def _not_data(loader: Any, node: Any) -> Any:
    """A YAML 1.1 type beyond JSON's data, spelt out in a file (``!!set``...): refused where it stands."""
    kind = node.tag.rsplit(":", 1)[-1]
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"!!{kind}: a config holds text, numbers, true/false, null, lists and mappings only",
        node.start_mark,
    )


for _kind in NOT_DATA:
    _ConfigLoader.add_constructor(f"tag:yaml.org,2002:{_kind}", _not_data)


def load_yaml(text: str) -> Any:
    """``text`` as data (YAML 1.2 core scalars); a yaml.YAMLError for an alias or a repeated key."""
    return yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a SafeLoader subclass: data only


def describe_error(exc: yaml.YAMLError, text: str) -> tuple[str, str]:
    """(where, what) of a :func:`load_yaml` error in ``text``: `` at line L, column C`` (1-based, as an
    editor counts; empty where PyYAML gives no place) and the problem in a line. PyYAML's own text runs
    over several lines with its "<unicode string>" placeholder, and its reader's errors (a control
    character) carry a character offset, not a mark."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        line, column = mark.line + 1, mark.column + 1
    elif isinstance(exc, yaml.reader.ReaderError):  # the offset of the character it refused
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
    else:
        line = column = None
    where = "" if line is None else f" at line {line}, column {column}"
    problem = getattr(exc, "problem", None) or str(exc).strip().split("\n")[0] or type(exc).__name__
    return where, problem
