"""quatro-train's configs and checkpoints: bad input fails at start, in one line naming the field,
with exit code 2 and the state unchanged (issue #15 items 1 and 7)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.checkpoint_io import TRAINER_FORMAT, UnsafeCheckpointError
from baselines.config import TrainConfig, load_config, one_line_error, override_config
from baselines.convert import main as convert_main
from baselines.ppo import PPOTrainer
from baselines.train_cli import main
from baselines.trainer_state import load_trainer_checkpoint
from tests.baselines.test_resume import tiny

SMOKE = "configs/smoke.yaml"


def _train_fails(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("quatro-train: "), captured.err
    return lines[0]


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        ("learning_rate: .inf\n", "learning_rate: Input should be a finite number"),
        ("vf_coef: .inf\n", "vf_coef: Input should be a finite number"),
        ("gamma: .nan\n", "gamma: Input should be a finite number"),
        ("ent_coef_start: -.inf\n", "ent_coef_start"),
        ("eval_bots: [nonexistent]\n", "eval_bots: policy 'nonexistent': unknown bot"),
        ("eval_bots: ['counter:threshold=abc']\n", "eval_bots: policy 'counter:threshold=abc'"),
        ("eval_bots: []\n", "eval_bots: give at least one policy"),
        ("device: banana\n", "device: 'banana' is not a torch device"),
        ("env_device: cuda:7\n", "env_device: 'cuda:7'"),
        ("num_envs: 0\n", "num_envs: Input should be greater than 0"),
        ("a: [1, 2\nb: 3\n", "not valid YAML at line 2"),
        ("- a list\n", "a config is a mapping of fields, got list"),
        ("1: 2\n", "a field's name is text, got 1"),  # a keyword argument's name
        ("env: " + "[" * 5000 + "]" * 5000 + "\n", "not valid YAML here (nested too deeply)"),  # recursion
        # found by the audit of 2026-12-07: YAML 1.1's surprises and the trainer's lax types
        ("num_envs: 16\nnum_envs: 32\n", "key 'num_envs' is given twice (line 1 and here)"),
        ("seed: 1:00\n", "seed: Input should be a valid integer"),  # YAML 1.1: 60
        ("deterministic: yes\n", "deterministic: Input should be a valid boolean"),  # YAML 1.1: True
        ("learning_rate: true\n", "learning_rate: Input should be a valid number"),  # was 1.0
        ("num_envs: '16'\n", "num_envs: Input should be a valid integer"),
        ("num_envs: 8.0\n", "num_envs: Input should be a valid integer"),
        ("pool_size: false\n", "pool_size: Input should be a valid integer"),  # was 0
        ("curriculum: [{until_agent_steps: '1000'}]\n", "until_agent_steps: Input should be a valid integer"),
        ("run_name: ../../elsewhere\n", "run_name: a folder name (letters, digits, _ . -), not a path"),
    ],
)
def test_bad_configs_fail_at_start_in_one_line(yaml_text, named, tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text(yaml_text)
    assert named in _train_fails(["--config", str(config), f"out_dir={tmp_path}"], capsys)
    assert not (tmp_path / "ppo").exists(), "nothing was started"


def test_binary_and_missing_config_files_are_named(tmp_path, capsys):
    binary = tmp_path / "config.yaml"
    binary.write_bytes(bytes(range(256)) * 4)
    assert "cannot read a YAML text file (not UTF-8 text)" in _train_fails(["--config", str(binary)], capsys)
    binary.write_bytes(b"run_name: x\x00\x01\n")
    assert "a binary file, not YAML text" in _train_fails(["--config", str(binary)], capsys)
    assert "no such file" in _train_fails(["--config", str(tmp_path / "none.yaml")], capsys)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--updates", "0"], "argument --updates: expected a whole number >= 1, got 0"),
        (["--updates", "-3"], "argument --updates: expected a whole number >= 1, got -3"),
        (["--config", SMOKE, "num_envs"], "override 'num_envs': expected key=value"),
        (["--config", SMOKE, "=3"], "override '=3': expected key=value"),
        (
            ["--config", SMOKE, "num_envs=[1"],
            "override 'num_envs=[1': the value is not valid YAML",
        ),
        (["--config", SMOKE, "lerning_rate=0.1"], "lerning_rate: Extra inputs are not permitted"),
        (["--config", SMOKE, "seed=-1"], "seed: Input should be greater than or equal to 0 (got -1)"),
        (["--config", SMOKE, "env.num_players=5"], "env: num_players: must be one of (4, 6, 8) (Q1), got 5"),
        (
            ["--config", SMOKE, "curriculum=[{until_agent_steps: 9, env: {round_seconds: -2}}]"],
            "curriculum: round_seconds: Input should be greater than 0 (got -2)",
        ),
        (["--resume", "nowhere.pt"], "checkpoint 'nowhere.pt': no such file"),
        (["--resume", "x.pt", "--config", SMOKE], "--config: not with --resume"),
    ],
)
def test_bad_arguments_fail_in_one_line(argv, named, capsys):
    assert named in _train_fails(argv, capsys)


@settings(max_examples=40, deadline=None)
@given(
    field=st.sampled_from(
        ["learning_rate", "vf_coef", "clip_coef", "max_grad_norm", "gae_lambda", "pool_prob"]
    ),
    value=st.sampled_from([float("inf"), float("-inf"), float("nan")]) | st.floats(max_value=-1e-9),
)
def test_non_finite_or_negative_coefficients_are_refused_and_the_config_unchanged(field, value):
    cfg = load_config(SMOKE)
    with pytest.raises(ValueError) as refused:
        override_config(cfg, [f"{field}={value!r}".replace("inf", ".inf").replace("nan", ".nan")])
    assert one_line_error(refused.value).startswith(field)
    assert cfg == load_config(SMOKE)


def test_a_trainer_checkpoint_is_plain_data(tmp_path):
    """``torch.load(weights_only=True)`` reads it back whole (no allowlisted globals needed)."""
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=2)
    state = torch.load(trainer.run_dir / "latest.pt", weights_only=True)
    assert state["format"] == TRAINER_FORMAT
    assert all(isinstance(v, torch.Tensor) for v in state["bots"].values())


def test_an_old_trainer_checkpoint_converts_with_trusted_and_resumes_identically(tmp_path, capsys):
    """The layout of earlier quatro-train files: bots and numpy's RNG pickled as objects."""
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=2)
    state = trainer.state_dict()
    rng = state["numpy_rng"]
    old = {k: v for k, v in state.items() if k != "format"}
    old["bots"] = copy.deepcopy(trainer.bots)  # the object, pickled as earlier files did
    old["numpy_rng"] = (
        rng["kind"],
        rng["key"].numpy().astype(np.uint32),
        rng["pos"],
        rng["has_gauss"],
        rng["cached_gaussian"],
    )
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(UnsafeCheckpointError, match=r"quatro-convert .*old\.pt NEW\.pt --trusted"):
        load_trainer_checkpoint(tmp_path / "old.pt")
    assert convert_main([str(tmp_path / "old.pt"), str(tmp_path / "new.pt")]) == 2  # not without it
    assert convert_main([str(tmp_path / "old.pt"), str(tmp_path / "new.pt"), "--trusted"]) == 0
    new = load_trainer_checkpoint(tmp_path / "new.pt")
    assert all(torch.equal(new["bots"][k], state["bots"][k]) for k in state["bots"])
    assert all(torch.equal(new["model"][k], state["model"][k]) for k in state["model"])
    assert torch.equal(new["numpy_rng"]["key"], state["numpy_rng"]["key"])
    capsys.readouterr()


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        ("hidden_size: 1000000000\n", "hidden_size: Input should be less than or equal to 8192"),
        ("rnn_size: 8193\n", "rnn_size: Input should be less than or equal to 8192"),
        ("eavesdropper_hidden: 100000\n", "eavesdropper_hidden: Input should be less than or equal to 8192"),
        ("num_envs: 1000000000\n", "num_envs: Input should be less than or equal to 65536"),
        ("num_steps: 1000000\n", "num_steps: Input should be less than or equal to 4096"),
        ("pool_size: 1000000\n", "pool_size: Input should be less than or equal to 1024"),
        ("eval_matches: 1000000000\n", "eval_matches: Input should be less than or equal to 65536"),
        ("total_agent_steps: 1000000000000000000000\n", "total_agent_steps: Input should be less than"),
    ],
)
def test_absurd_sizes_in_a_config_are_refused_by_name(yaml_text, named, tmp_path):
    """Sizes have upper bounds (``baselines/limits.py``: MAX_WIDTH, the one a policy file's widths have too,
    MAX_ENVS, MAX_STEPS, MAX_POOL, MAX_COUNT): 10**9 tables or units ended in the allocator's RuntimeError.
    Checked on the config, not through ``quatro-train``: without the bound, that would start allocating."""
    config = tmp_path / "big.yaml"
    config.write_text(yaml_text)
    with pytest.raises(ValueError) as info:
        load_config(str(config))
    assert named in one_line_error(info.value)


def test_a_frozen_config_is_never_changed_by_a_failed_override():
    cfg = TrainConfig()
    with pytest.raises(ValueError):
        override_config(cfg, ["num_envs=-1"])
    assert cfg == TrainConfig()


def test_a_checkpoint_of_another_network_is_refused_and_the_trainer_left_as_it_was(tmp_path):
    """``--resume latest.pt hidden_size=32``: the weights do not fit; refused by name, no half-load."""
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=1)
    other = PPOTrainer(tiny(tmp_path, hidden_size=24, seed=9))
    other.train(updates=2)
    before = trainer.state_dict()
    # the first weight that differs, named (it was torch's "Error(s) in loading state_dict for ...")
    named = r"model\['encoder\.0\.weight'\] is \[24, \d+\], expected \[16, \d+\]"
    with pytest.raises(ValueError, match=named):
        trainer.load_state_dict(other.state_dict())
    after = trainer.state_dict()
    assert after["update"] == before["update"] == 1
    assert all(torch.equal(before["bots"][k], after["bots"][k]) for k in before["bots"])
    for key in ("model", "opponent"):
        assert all(torch.equal(before[key][k], after[key][k]) for k in before[key])
    assert all(torch.equal(before["engine"][k], after["engine"][k]) for k in before["engine"])
    assert torch.equal(before["next_mask"], after["next_mask"])


def test_a_yaml_bomb_is_refused_at_once_and_a_bad_value_is_shown_short(tmp_path, capsys):
    """324 bytes of aliases expanded to gigabytes when the error printed the value (a run hung
    past 120 s over 1 GB); a config spells every value out, and an error shows a value cut short."""
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    levels += [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(levels) + "\n")
    assert "alias *a: a config spells every value out" in _train_fails(["--config", str(bomb)], capsys)
    huge = "[" + ", ".join(["[" + ", ".join(["x"] * 50) + "]"] * 50) + "]"
    line = _train_fails(["--config", SMOKE, f"bot_opponents={huge}"], capsys)
    assert len(line) < 400 and "bot_opponents" in line


def test_a_config_reads_numbers_as_yaml_1_2_does():
    from quatro_env.common.yaml_text import load_yaml

    assert load_yaml("a: 020\nb: 3e-4\nc: true\nd: '1:00'") == {"a": 20, "b": 3e-4, "c": True, "d": "1:00"}
    assert load_yaml("a: yes\nb: 0x10\nc: 1_000") == {"a": "yes", "b": "0x10", "c": "1_000"}


def test_outputs_and_inputs_that_are_directories_are_named(tmp_path, capsys):
    (tmp_path / "runs" / "x" / "config.json").mkdir(parents=True)
    line = _train_fails(["--config", SMOKE, f"out_dir={tmp_path / 'runs'}", "run_name=x"], capsys)
    assert "config.json' is a directory" in line  # was a traceback after the trainer was built
    (tmp_path / "conf.yaml").mkdir()
    assert "a directory, not a config file" in _train_fails(["--config", str(tmp_path / "conf.yaml")], capsys)
    policy = "baselines/checkpoints/ppo_4p.pt"  # a policy cannot resume training: no convert hint
    line = _train_fails(["--resume", policy], capsys)
    assert "format 'quatro-policy/1'; expected quatro-trainer/1" in line and "quatro-convert" not in line
