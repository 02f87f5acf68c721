"""No code path of the project reads a file with a loader that can run code, except where the user says
they trust the file (``quatro-convert --trusted``) or names a program (``torchscript:PATH``, RLlib's own
checkpoint format, documented in docs/integrations/rllib.md).

The malicious-file tests check each loader they know of; this test finds the ones they do not know of:
``quatro-exploit`` once read checkpoints with ``torch.load(weights_only=False)`` and no test named it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for top in ("quatro_env", "baselines", "scripts") for p in (ROOT / top).rglob("*.py"))

#: (file, call): the loaders that may run code, each behind an explicit statement of trust
ALLOWED = {
    ("baselines/convert.py", "torch.load"),  # only under --trusted; the default path is safe_torch_load
    ("quatro_env/eval/policies.py", "torch.jit.load"),  # torchscript:PATH, a program by name
    ("quatro_env/integrations/rllib.py", "RLModule.from_checkpoint"),  # RLlib's format (pickle)
    ("quatro_env/common/yaml_text.py", "yaml.load"),  # a SafeLoader subclass (test below)
}
#: calls that unpickle or evaluate whatever the file holds
UNSAFE_CALLS = {
    "pickle.load", "pickle.loads", "cloudpickle.load", "cloudpickle.loads", "dill.load", "dill.loads",
    "marshal.load", "marshal.loads", "shelve.open", "yaml.load", "yaml.unsafe_load", "yaml.full_load",
    "torch.jit.load", "RLModule.from_checkpoint", "eval", "exec",
}  # fmt: skip


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return "?"


def _unsafe(call: ast.Call) -> str | None:
    """The call's name if it can run code from the file it reads."""
    name = _name(call.func)
    keywords = {k.arg: k.value for k in call.keywords}
    if name == "torch.load":
        safe = keywords.get("weights_only")
        return None if isinstance(safe, ast.Constant) and safe.value is True else name
    if name in ("np.load", "numpy.load"):
        allow = keywords.get("allow_pickle")
        return (
            name
            if allow is not None and not (isinstance(allow, ast.Constant) and allow.value is False)
            else None
        )
    return name if name in UNSAFE_CALLS else None


def _findings() -> list[tuple[str, str, int]]:
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (name := _unsafe(node)):
                found.append((path.relative_to(ROOT).as_posix(), name, node.lineno))
    return found


def test_only_the_trusted_paths_use_a_loader_that_can_run_code():
    unexpected = [f"{file}:{line} {name}" for file, name, line in _findings() if (file, name) not in ALLOWED]
    assert not unexpected, "a loader that can run code from a file: " + ", ".join(unexpected)


def test_every_allowed_path_still_exists():
    """An entry that no longer matches would silently allow a new call in its file."""
    assert {(file, name) for file, name, _ in _findings()} >= ALLOWED


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("torch.load(p, weights_only=False)", True),
        ("torch.load(p)", True),  # torch's default has changed across versions: say it
        ("torch.load(p, map_location='cpu', weights_only=True)", False),
        ("pickle.loads(b)", True),
        ("yaml.load(t, Loader=yaml.Loader)", True),
        ("yaml.safe_load(t)", False),
        ("np.load(p, allow_pickle=True)", True),
        ("np.load(p)", False),
    ],
)
def test_the_scan_flags_what_it_should(source, flagged):
    call = ast.parse(source).body[0].value
    assert (_unsafe(call) is not None) == flagged


def test_the_config_loader_is_a_safe_loader_that_builds_no_object():
    import yaml

    from quatro_env.common.yaml_text import _ConfigLoader, load_yaml

    assert issubclass(_ConfigLoader, yaml.SafeLoader)
    assert not [tag for tag in _ConfigLoader.yaml_constructors if tag and "python" in tag]
    assert not [tag for tag in _ConfigLoader.yaml_multi_constructors if tag and "python" in tag]
    with pytest.raises(yaml.YAMLError, match="python/object"):
        load_yaml("a: !!python/object/apply:os.system ['true']")


def test_the_config_loader_builds_json_data_only():
    """``!!set {counter, honest}`` became a tuple in hash order (a config that differs between runs);
    YAML 1.2 has no implicit timestamp, so a date is text (``run_name: 2026-12-07`` was a ``date``)."""
    import yaml

    from quatro_env.common.yaml_text import NOT_DATA, load_yaml

    assert load_yaml("run_name: 2026-12-07") == {"run_name": "2026-12-07"}
    spelled = {
        "set": "{x, y}",
        "omap": "[x: 1]",
        "pairs": "[x: 1]",
        "binary": "aGk=",
        "timestamp": "2001-12-14",
    }
    for kind in NOT_DATA:
        with pytest.raises(yaml.YAMLError, match=rf"!!{kind}: a config holds text, numbers"):
            load_yaml(f"a: !!{kind} {spelled[kind]}")
