"""Config files as shared data (``quatro_env/common/configs.py``, ``yaml_text.py``): every refusal
names the file and, for bad YAML, the line and column where it goes wrong (1-based, as an editor
counts); a name finds a shipped config only when it is a bare name. Called directly, beside the
command-line tests of the same messages (``tests/baselines/test_bad_input.py``); written against the
mutants that survived those (docs/testing.md, "files")."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from quatro_env.common import configs
from quatro_env.common.configs import read_yaml_mapping, resolve_config, shipped_configs
from quatro_env.common.overrides import merge, parse_overrides, scalar
from quatro_env.common.yaml_text import describe_error


def _refusal(path: Path) -> str:
    with pytest.raises(ValueError) as err:
        read_yaml_mapping(path)
    return str(err.value)


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        ("a: [1, 2\n", "line 2, column 1", "expected ',' or ']', but got '<stream end>'"),
        ("a: &x 1\nb: *x\n", "line 2, column 4", "alias *x: a config spells every value out"),
        ("a: 1\nb: 2\na: 3\n", "line 3, column 1", "key 'a' is given twice (line 1 and here)"),
        ("a:\n  b: 1\n  b: 2\n", "line 3, column 3", "key 'b' is given twice (line 2 and here)"),  # nested
        (
            "a: !!set {x}\n",
            "line 1, column 4",
            "!!set: a config holds text, numbers, true/false, null, lists",
        ),
        ("x: 1\n  y: 2\n", "line 2, column 4", "mapping values are not allowed here"),
        # PyYAML's reader gives an offset, not a line: it was "not valid YAML (ReaderError)"
        ("a: 1\nb: [2,\x07]\n", "line 2, column 7", "unacceptable character #x0007: special characters"),
        ("\na: 1\nb: [2,\x07]\nc: 3\nd: 4\n", "line 3, column 7", "unacceptable character #x0007: special"),
        ("\na: 1\x07\n", "line 2, column 5", "unacceptable character #x0007: special characters"),
    ],
)
def test_bad_yaml_is_refused_naming_the_file_the_line_and_the_column(text, where, problem, tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(text)
    assert _refusal(path).startswith(f"config {str(path)!r}: not valid YAML at {where} ({problem}")


def test_files_that_are_not_a_mapping_of_named_fields_are_refused_naming_the_file(tmp_path):
    cases = {
        "list.yaml": ("- a\n", "a config is a mapping of fields, got list"),
        "key.yaml": ("1: 2\n", "a field's name is text, got 1"),
        "deep.yaml": ("a: " + "[" * 5000 + "]" * 5000 + "\n", "not valid YAML here (nested too deeply)"),
        "nul.yaml": ("a: 1\x00\n", "a binary file, not YAML text"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert _refusal(path) == f"config {str(path)!r}: {message}"
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("a: caf\xe9\n".encode("latin-1"))
    assert _refusal(latin) == f"config {str(latin)!r}: cannot read a YAML text file (not UTF-8 text)"
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing set\n")
    assert read_yaml_mapping(empty) == {}


def test_an_unreadable_file_is_refused_with_the_systems_reason(tmp_path, monkeypatch):
    path = tmp_path / "locked.yaml"
    path.write_text("a: 1\n")
    errors = iter([PermissionError(errno.EACCES, "Permission denied"), OSError()])

    def refuse(self):
        raise next(errors)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert _refusal(path) == f"config {str(path)!r}: cannot read a YAML text file (Permission denied)"
    assert (
        _refusal(path) == f"config {str(path)!r}: cannot read a YAML text file (OSError)"
    )  # no reason given


def test_a_bare_name_finds_a_shipped_config_and_a_path_never_does(tmp_path, monkeypatch):
    shipped = resolve_config("smoke")
    assert shipped.name == "smoke.yaml" and shipped.is_file()
    assert resolve_config("smoke.yaml") == shipped
    monkeypatch.chdir(tmp_path)
    for spec in ("nowhere/smoke", "nowhere/smoke.yaml", "smoke.yml"):  # a folder, or another suffix
        with pytest.raises(FileNotFoundError) as err:
            resolve_config(spec)
        assert str(err.value).startswith(f"config {spec!r}: no such file and no shipped config of that name")
        assert ", ".join(shipped_configs()) in str(err.value)
    (tmp_path / "folder.yaml").mkdir()
    with pytest.raises(ValueError) as err:
        read_yaml_mapping("folder.yaml")
    assert str(err.value) == "config 'folder.yaml': a directory, not a config file"


def test_with_no_shipped_configs_the_refusal_says_none(tmp_path, monkeypatch):
    monkeypatch.setattr(configs, "_shipped_dir", lambda: tmp_path / "absent")
    assert shipped_configs() == []
    with pytest.raises(FileNotFoundError, match=r"shipped: none$"):
        resolve_config("smoke")
    (tmp_path / "absent").mkdir()
    (tmp_path / "absent" / "mine.yaml").write_text("a: 1\n")
    (tmp_path / "absent" / "notes.txt").write_text("not a config\n")
    assert shipped_configs() == ["mine"]


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ("num_envs=[1", "expected ',' or ']', but got '<stream end>'"),
        ("lr=1\x07", "unacceptable character #x0007: special characters are not allowed"),
        ("env={a: 1, a: 2}", "key 'a' is given twice (line 1 and here)"),
        ("env=*x", "alias *x: a config spells every value out"),
    ],
)
def test_an_override_that_is_not_yaml_says_what_is_wrong_with_it(item, problem):
    """It named PyYAML's class only (``ParserError``)."""
    with pytest.raises(ValueError) as err:
        parse_overrides([item])
    assert str(err.value) == f"override {item!r}: the value is not valid YAML ({problem})"


def test_an_override_splits_at_its_first_equals_sign_and_merges_section_by_section():
    assert parse_overrides(["run_name=a=b", "env.num_players=6"]) == {
        "run_name": "a=b",
        "env": {"num_players": 6},
    }
    base = {"env": {"num_players": 4, "round_seconds": 60}, "lr": 0.1, "bots": {"a": 1}}
    extra = {"env": {"num_players": 6}, "lr": {"start": 0.2}, "bots": "none"}
    assert merge(base, extra) == {
        "env": {"num_players": 6, "round_seconds": 60},  # merged key by key
        "lr": {"start": 0.2},  # a section where a value was: replaced
        "bots": "none",  # a value where a section was: replaced
    }
    assert base["env"] == {"num_players": 4, "round_seconds": 60}  # neither is modified


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        (" TRUE ", True),
        ("False", False),
        ("3", 3),
        ("-2", -2),
        ("0.5", 0.5),
        ("1e-4", 1e-4),
        ("yes", "yes"),  # not YAML 1.1: a flag is true or false
        ("counter", "counter"),
        ("", ""),
    ],
)
def test_a_bot_option_value_is_a_flag_an_int_a_float_or_its_text(text, value):
    got = scalar(text)
    assert got == value and type(got) is type(value)


def test_an_error_without_a_place_is_described_by_its_text_or_its_kind():
    """Every error the config loader raises has a place; one that has none gets no invented place."""
    import yaml

    assert describe_error(yaml.YAMLError("boom\nmore"), "a: 1\n") == ("", "boom")
    assert describe_error(yaml.YAMLError(), "a: 1\n") == ("", "YAMLError")
