"""Shipped configs by name, the one ``key=value`` override syntax, the Gymnasium id registered by
``import quatro_env`` and the single version source (issue #21, items 2, 3 and 5)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import quatro_env
from baselines.config import load_config
from quatro_env.common.configs import resolve_config, shipped_configs
from quatro_env.common.overrides import is_override, merge, parse_overrides, split_overrides

ROOT = Path(__file__).resolve().parents[2]


def test_every_yaml_of_configs_is_shipped_by_name():
    names = {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    assert {"smoke", "ppo_4p", "rllib_ppo_4p"} <= names
    assert set(shipped_configs()) == names


@pytest.mark.parametrize("spec", ["smoke", "smoke.yaml"])
def test_a_config_by_name_is_the_shipped_file(spec):
    assert resolve_config(spec).read_bytes() == (ROOT / "configs" / "smoke.yaml").read_bytes()
    assert load_config(spec) == load_config(ROOT / "configs" / "smoke.yaml")


def test_a_path_still_works_and_wins_over_a_name(tmp_path, monkeypatch):
    own = tmp_path / "smoke.yaml"
    own.write_text("num_envs: 8\n")
    monkeypatch.chdir(tmp_path)
    assert resolve_config("smoke.yaml") == Path("smoke.yaml"), "a file in the working directory first"
    assert load_config("smoke.yaml").num_envs == 8
    assert resolve_config(own) == own


def test_configs_are_found_in_a_checkout_that_keeps_the_link_as_a_text_file(tmp_path, monkeypatch):
    """Git without symlinks (Windows' default) checks ``quatro_env/configs`` out as a file holding
    ``../configs``: an editable install found no config by name there. It reads the repository's folder."""
    import quatro_env.common.configs as configs

    (tmp_path / "quatro_env").mkdir()
    (tmp_path / "quatro_env" / "configs").write_text("../configs")  # what such a checkout leaves
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "mine.yaml").write_text("num_envs: 8\n")
    monkeypatch.setattr(configs.resources, "files", lambda package: tmp_path / package)
    assert shipped_configs() == ["mine"]
    assert resolve_config("mine") == tmp_path / "configs" / "mine.yaml"


def test_an_unknown_config_lists_the_shipped_ones():
    with pytest.raises(FileNotFoundError, match=r"no_such.*shipped: .*ppo_4p.*smoke"):
        resolve_config("no_such")
    with pytest.raises(FileNotFoundError, match="no such file"):
        resolve_config("some/dir/ppo_4p.yaml")  # a path is never reinterpreted as a name


def test_overrides_are_nested_typed_and_merge():
    assert parse_overrides(["a=1", "env.round_seconds=60.5", "x.y=true", "l=[1, 2]", "lr=1e-4", "s=abc"]) == {
        "a": 1,
        "lr": 1e-4,
        "s": "abc",
        "env": {"round_seconds": 60.5},
        "x": {"y": True},
        "l": [1, 2],
    }
    assert merge({"env": {"a": 1, "b": 2}}, {"env": {"b": 3}}) == {"env": {"a": 1, "b": 3}}


@pytest.mark.parametrize(
    ("item", "why"),
    [("nonsense", "key=value"), ("num-envs=3", "key=value"), ("a=1=", None), ("a.b=1", None)],
)
def test_override_keys_are_dotted_names(item, why):
    if why is None:
        parse_overrides([item])
    else:
        with pytest.raises(ValueError, match=why):
            parse_overrides([item])


def test_overrides_never_run_code():
    with pytest.raises(ValueError, match="not valid YAML"):
        parse_overrides(["x=!!python/object/apply:os.system ['echo pwned']"])
    with pytest.raises(ValueError, match="already given a value"):
        parse_overrides(["env=1", "env.num_players=4"])


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("env: [1, 2]\n", "env section: a mapping of keys to values, got list"),
        ("training: 3\n", "training section: a mapping of keys to values, got int"),
        ("env: {1: 2}\n", "env section: a key is a name (text), got 1"),
        ("1: 2\n", "a field's name is text, got 1"),
        ("a: [1, 2\n", "not valid YAML at line 2"),
        ("env: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("- env\n", "a config is a mapping of fields, got list"),
    ],
)
def test_the_rllib_trainer_names_what_is_wrong_with_its_config(text, named, tmp_path):
    """``quatro-train-rllib`` reads its YAML with the same safe reader as ``quatro-train`` (one source);
    its sections become keyword arguments, so each must be a mapping with names for keys."""
    from quatro_env.integrations.train_rllib import load_config as load_rllib_config  # no Ray needed

    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(named)):
        load_rllib_config(path)
    with pytest.raises(ValueError, match="no such file and no shipped config"):
        load_rllib_config(tmp_path / "missing.yaml")


def test_policy_specs_are_not_overrides():
    """quatro-eval mixes policies (``counter:threshold=0.6``) and overrides on one command line."""
    assert not is_override("counter:threshold=0.6") and not is_override("honest+ppo_4p")
    assert split_overrides(["honest", "points_to_win=3", "counter:threshold=0.6"]) == (
        ["honest", "counter:threshold=0.6"],
        ["points_to_win=3"],
    )


def test_gym_id_works_after_import_quatro_env_alone():
    code = (
        "import gymnasium as gym, quatro_env; "
        "env = gym.make('quatro_env/QuatroSingleAgent-v0', round_seconds=10); "
        "obs, _ = env.reset(seed=0); print(obs['observation'].shape[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["467"]


def test_one_version_source():
    assert version("quatro-env") == quatro_env.__version__
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text()


def test_quatro_eval_takes_key_value_overrides(monkeypatch, capsys):
    from quatro_env.eval import cli

    seen = {}

    def fake_evaluate(policies, **kwargs):
        seen.update(policies=policies, config=kwargs["config"])
        raise ValueError("stop here")  # the CLI turns it into exit code 2

    monkeypatch.setattr(cli, "evaluate", fake_evaluate)
    argv = [
        "honest",
        "points_to_win=3",
        "counter:threshold=0.6",
        "round_seconds=60.5",
        "--set",
        "pause_seconds=2",
    ]
    assert cli.main(argv) == 2
    assert seen["policies"] == ["honest", "counter:threshold=0.6"]
    assert seen["config"] == {"num_players": 4, "pause_seconds": 2, "points_to_win": 3, "round_seconds": 60.5}
    assert cli.main(["honest", "decoy", "x=!!python/name:os.system"]) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_a_missing_extra_is_named_in_one_line_before_any_work(monkeypatch, capsys):
    from quatro_env.common import extras
    from quatro_env.eval import cli

    real = extras._installed
    monkeypatch.setattr(extras, "_installed", lambda m: m not in ("sklearn", "torch") and real(m))
    monkeypatch.setattr(cli, "evaluate", lambda *a, **k: pytest.fail("matches ran before the check"))
    with pytest.raises(SystemExit) as stop:
        cli.main(["ppo_4p", "honest", "--no-progress"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [
        "quatro-eval: needs the [eval,train] extra (missing: scikit-learn, torch): "
        "pip install -e '.[eval,train]' in the project's clone, or pip install '<the wheel file>[eval,train]'"
    ]
    from baselines.cli import convert_main, exploit_main
    from baselines.cli import main as train_main

    # torch is imported only after the check: a core install gets the hint, even for --help
    for command, main in (("quatro-train", train_main), ("quatro-convert", convert_main)):
        with pytest.raises(SystemExit):
            main(["--help"])
        assert f"{command}: needs the [train] extra (missing: torch)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        exploit_main(["ppo_4p", "--steps", "10"])
    assert "quatro-exploit: needs the [train] extra (missing: torch)" in capsys.readouterr().err
