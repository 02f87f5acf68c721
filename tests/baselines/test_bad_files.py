"""Shared files that are safe (plain data) but wrong: refused in one line naming the file and what is
wrong, before any work, and never half-loaded (the bad-input audit of 2026-12-07, findings F4-F7)."""

from __future__ import annotations

import copy
import re

import pytest
import torch

from baselines.checkpoint_io import load_checkpoint, save_checkpoint
from baselines.convert import main as convert_main
from baselines.exploit import main as exploit_main
from baselines.policy import load_model
from baselines.ppo import PPOTrainer
from baselines.train_cli import main as train_main
from baselines.trainer_state import load_trainer_checkpoint
from quatro_env.eval import as_policy
from tests.baselines.test_resume import tiny

SHIPPED = load_checkpoint("baselines/checkpoints/ppo_4p.pt")


def _policy(tmp_path, name: str, change) -> str:
    payload = copy.deepcopy(SHIPPED)
    change(payload)
    save_checkpoint(payload, tmp_path / f"{name}.pt")
    return str(tmp_path / f"{name}.pt")


def _first(payload) -> str:
    return next(iter(payload["model"]))


BAD_POLICIES = {
    "wrong_shape": (
        lambda p: p["model"].__setitem__(_first(p), torch.zeros(3, 3)),
        "model['encoder.0.weight'] is [3, 3], expected [128, 516]",
    ),
    "missing_weight": (
        lambda p: p["model"].pop(_first(p)),
        "model does not fit the network: missing ['encoder.0.weight']",
    ),
    "six_players": (lambda p: p.__setitem__("num_players", 6), "obs_dim is 467; a 6-player table has"),
    "players_bool": (lambda p: p.__setitem__("num_players", True), "num_players must be 4, 6 or 8"),
    "no_hidden": (lambda p: p.pop("hidden_size"), "missing ['hidden_size']"),
    "hidden_float": (lambda p: p.__setitem__("hidden_size", 256.0), "hidden_size: must be an integer"),
    "hidden_huge": (lambda p: p.__setitem__("hidden_size", 10**9), "hidden_size: 1000000000 is outside"),
    "model_list": (lambda p: p.__setitem__("model", [1, 2]), "model must map parameter names to tensors"),
    "nan": (lambda p: p["model"][_first(p)].fill_(float("nan")), "non-finite values"),
}


def _weight(key: str, value) -> object:
    return lambda p: p["model"].__setitem__(key, value(p["model"].get(key)))


# each crashed deep in torch (NotImplementedError, RuntimeError), tried to allocate 40 GB for a 600 KB
# file, or was cast by load_state_dict and played (an int64 or float16 copy of the weights)
BAD_WEIGHTS = {
    "sparse": (_weight("encoder.0.weight", lambda w: w.to_sparse()), "must be a dense tensor"),
    "meta": (_weight("actor.bias", lambda w: torch.empty(74, device="meta")), "has no values"),
    "stretched": (
        _weight("encoder.0.weight", lambda w: torch.zeros(1).expand(128, 516)),
        "model['encoder.0.weight'] is a view of 4 bytes standing for [128, 516] values",
    ),
    "state_dim_huge": (  # a central critic's state encoder as wide as the file says: 10**10 columns
        lambda p: p["model"].update(
            {
                "state_encoder.0.weight": torch.zeros(1).expand(128, 10**10),
                "state_encoder.0.bias": torch.zeros(128),
            }
        ),
        "model['state_encoder.0.weight'] is a view of 4 bytes standing for [128, 10000000000] values",
    ),
    "state_dim_wrong": (  # the state encoder reads the table: 4 x 467 inputs, whatever the file says
        lambda p: p["model"].update(
            {"state_encoder.0.weight": torch.zeros(128, 5), "state_encoder.0.bias": torch.zeros(128)}
        ),
        "model['state_encoder.0.weight'] is [128, 5], expected [128, 1868]",
    ),
    **{
        f"dtype_{kind}": (
            _weight("encoder.0.weight", lambda w, kind=kind: w.to(getattr(torch, kind))),
            f"model['encoder.0.weight'] must be torch.float32, got torch.{kind}",
        )
        for kind in ("int64", "bool", "float16", "float64", "complex64")
    },
    "junk_key": (
        lambda p: p["model"].__setitem__("junk", torch.zeros(1).expand(100000, 100000)),
        "model does not fit the network: unexpected ['junk']",
    ),
    "arch_unknown": (
        lambda p: p.__setitem__("arch", "transformer"),
        "arch must be one of ['flat', 'structured', 'ledger'], got 'transformer'",  # was "do not fit"
    ),
}
BAD_POLICIES |= BAD_WEIGHTS


@pytest.mark.parametrize("name", sorted(BAD_POLICIES))
def test_a_wrong_policy_file_is_refused_by_name_before_any_match(name, tmp_path):
    """Each ended in a 25-50 line traceback mid-run (a NaN weight mid-match, a 10**9 width at
    allocation); now every loader refuses it at once: the model, the harness's name, the trainer's
    evaluation opponents."""
    change, named = BAD_POLICIES[name]
    path = _policy(tmp_path, name, change)
    for load in (load_model, as_policy):
        with pytest.raises(ValueError, match=rf"{name}\.pt': .*{re.escape(named)}"):
            load(path)


def test_a_policy_for_another_table_size_is_refused_in_the_training_config(tmp_path):
    """quatro-train took a 6-player policy as a 4-player run's evaluation opponent and died at the
    first evaluation, hours in."""
    from baselines.config import load_config

    with pytest.raises(ValueError, match="eval_bots: checkpoint 'ppo_6p' was trained for 6 players, not 4"):
        load_config("smoke", ["eval_bots=[ppo_6p]"])
    assert load_config("smoke", ["env.num_players=6", "eval_bots=[ppo_6p]"]).eval_bots == ("ppo_6p",)


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        (
            "mode",
            0,
            "mode must be a tensor",
        ),  # an AttributeError skipped the rollback: 24 of 24 weights changed
        ("update", 2.5, "update: must be an integer"),
        ("agent_steps", -5, "agent_steps: -5 is outside 0.."),
        ("wall_seconds", float("nan"), "wall_seconds: must be a finite number"),
        ("history", "abc", "history must be a list"),
        ("config", [1], "config must be a mapping"),
        ("h", torch.tensor([0.5]), "h is \\[1\\]"),  # copy_ broadcast one value into every table's memory
    ],
)
def test_a_malformed_trainer_checkpoint_is_refused_and_the_trainer_left_as_it_was(
    field, value, named, tmp_path
):
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=1)
    state = trainer.state_dict()
    before = copy.deepcopy(state)
    state[field] = value
    with pytest.raises(ValueError, match=named):
        trainer.load_state_dict(state)
    after = trainer.state_dict()
    assert after["update"] == before["update"]
    assert all(torch.equal(before["model"][k], after["model"][k]) for k in before["model"])
    assert torch.equal(before["h"], after["h"])


def _nan_floats(tensors) -> None:
    for value in tensors:
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            value.fill_(float("nan"))


def _first_key(state, key: str) -> str:
    return next(iter(state[key]))


# each was loaded and then broke training: NaN Adam moments resumed at rc 0 and wrote a NaN policy, a
# NaN memory or junk returns ended in a traceback in sampling or run_log.py, a list engine entry in an
# AttributeError, a float mode was cast to long, a stretched or sparse tensor crashed torch.isfinite
BAD_TRAINER_STATES = {
    "engine_masks_list": (
        lambda q: q["engine"].__setitem__("masks", [0]),
        r"engine\['masks'\] must be a tensor, got list",
    ),
    "optimizer_nan": (
        lambda q: _nan_floats(v for st in q["optimizer"]["state"].values() for v in st.values()),
        r"optimizer\['state'\]\[\d+\]\['exp_avg(_sq)?'\] holds non-finite values",
    ),
    "optimizer_lr_nan": (
        lambda q: q["optimizer"]["param_groups"][0].__setitem__("eps", float("nan")),
        r"optimizer: param_groups\[0\]\['eps'\]: must be a finite number, got nan",
    ),
    "h_nan": (lambda q: q["h"].fill_(float("nan")), "h holds non-finite values"),
    "running_return_nan": (
        lambda q: q["running_return"].fill_(float("inf")),
        "running_return holds non-finite",
    ),
    "opponent_nan": (lambda q: _nan_floats(q["opponent"].values()), r"opponent\['[\w.]+'\] holds non-finite"),
    "finished_returns_junk": (
        lambda q: q.__setitem__("finished_returns", ["x", None]),
        r"finished_returns\[0\]: must be a finite number, got 'x'",
    ),
    "pool_returns_junk": (
        lambda q: q.__setitem__("pool_returns", [{"a": 1}]),
        r"pool_returns\[0\]: must be a finite number",
    ),
    "bot_returns_nan": (lambda q: q.__setitem__("bot_returns", [1.0, float("nan")]), r"bot_returns\[1\]"),
    "history_junk": (lambda q: q.__setitem__("history", [1, "a"]), r"history\[0\] must be a mapping"),
    "agent_steps_huge": (
        lambda q: q.__setitem__("agent_steps", 10**30),
        r"agent_steps: 10{30} is outside 0\.\.9007199254740992",  # 10**30 agent-steps
    ),
    "model_sparse": (
        lambda q: q["model"].__setitem__(
            _first_key(q, "model"), q["model"][_first_key(q, "model")].to_sparse()
        ),
        "must be a dense tensor",
    ),
    "model_stretched": (
        lambda q: q["model"].__setitem__("junk", torch.zeros(1).expand(100000, 100000)),
        r"model\['junk'\] is a view of 4 bytes standing for \[100000, 100000\] values",
    ),
    "pool_meta": (
        lambda q: q["pool"][0].__setitem__("actor.bias", torch.empty(3, device="meta")),
        r"pool\[0\]\['actor.bias'\] has no values",
    ),
}
# checked against the trainer that loads the state (the file alone does not say its network)
BAD_FOR_THE_TRAINER = {
    "mode_float": (
        lambda q: q.__setitem__("mode", q["mode"].float()),
        "mode must be torch.int64, got torch.float32",
    ),
    "model_int64": (
        lambda q: q["model"].__setitem__(_first_key(q, "model"), q["model"][_first_key(q, "model")].long()),
        r"model\['[\w.]+'\] must be torch.float32, got torch.int64",
    ),
    "pool_unexpected": (
        lambda q: q["pool"][0].__setitem__("junk", torch.zeros(2)),
        r"pool\[0\] does not fit the network: unexpected \['junk'\]",
    ),
    "adam_moment_shape": (
        lambda q: q["optimizer"]["state"][0].__setitem__("exp_avg", torch.zeros(3)),
        r"optimizer\['state'\]\[0\]\['exp_avg'\] is \[3\], expected",
    ),
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny trainer after one update, and its state (snapshots, optimizer moments: every kind)."""
    trainer = PPOTrainer(tiny(tmp_path_factory.mktemp("trained")))
    trainer.train(updates=1)
    return trainer, trainer.state_dict()


def _refused_and_untouched(trainer: PPOTrainer, state, named: str) -> None:
    before = trainer.state_dict()
    with pytest.raises(ValueError, match=named):
        trainer.load_state_dict(state)
    after = trainer.state_dict()
    assert after["update"] == before["update"]
    for key in ("model", "opponent"):
        assert all(torch.equal(before[key][k], after[key][k]) for k in before[key])
    assert all(torch.equal(before["engine"][k], after["engine"][k]) for k in before["engine"])
    assert torch.equal(before["h"], after["h"]) and torch.equal(before["mode"], after["mode"])


@pytest.mark.parametrize("name", sorted(BAD_TRAINER_STATES))
def test_a_trainer_file_with_bad_data_is_refused_on_load_by_name(name, trained, tmp_path):
    trainer, state = trained
    change, named = BAD_TRAINER_STATES[name]
    bad = copy.deepcopy(state)
    change(bad)
    save_checkpoint(bad, tmp_path / f"{name}.pt")
    with pytest.raises(ValueError, match=rf"{name}\.pt: trainer checkpoint: .*{named}"):
        load_trainer_checkpoint(tmp_path / f"{name}.pt")
    _refused_and_untouched(trainer, bad, named)


@pytest.mark.parametrize("name", sorted(BAD_FOR_THE_TRAINER))
def test_a_trainer_state_of_other_dtypes_or_shapes_is_refused_by_the_trainer(name, trained):
    trainer, state = trained
    change, named = BAD_FOR_THE_TRAINER[name]
    bad = copy.deepcopy(state)
    change(bad)
    _refused_and_untouched(trainer, bad, named)


def test_quatro_train_resume_refuses_a_bad_trainer_file_in_one_line(trained, tmp_path, capsys):
    """``engine.masks`` as a list was an AttributeError traceback; the CLI catches ValueError only."""
    _, state = trained
    bad = copy.deepcopy(state)
    bad["engine"]["masks"] = [0]
    save_checkpoint(bad, tmp_path / "latest.pt")
    with pytest.raises(SystemExit) as stop:
        train_main(["--resume", str(tmp_path / "latest.pt")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith("quatro-train: ") and "engine['masks'] must be a tensor, got list" in err


@pytest.mark.parametrize("tool", ["quatro-train", "quatro-league", "quatro-exploit"])
def test_a_saved_config_with_a_key_that_is_not_a_name_is_refused_in_one_line(tool, trained, tmp_path, capsys):
    """``config[1] = 2`` in a file: ``TypeError: keywords must be strings`` (a traceback) from
    ``TrainConfig(**config)`` in all three; now each file format's check names it."""
    from baselines.league import LEAGUE_FORMAT, REQUIRED_KEYS
    from baselines.league import main as league_main

    path = tmp_path / "bad.pt"
    if tool == "quatro-train":
        state = copy.deepcopy(trained[1])
        state["config"][1] = 2
        save_checkpoint(state, path)
        argv, run, named = ["--resume", str(path)], train_main, "trainer checkpoint: config: 1 (int)"
    elif tool == "quatro-league":
        state = {key: None for key in REQUIRED_KEYS} | {"format": LEAGUE_FORMAT, "config": {3: 4}}
        save_checkpoint(state, path)
        argv, run, named = ["--resume", str(path)], league_main, "league file: config: 3 (int)"
    else:
        save_checkpoint({**SHIPPED, "config": {**SHIPPED["config"], 5: 0}}, path)
        argv, run, named = [str(path), "--steps", "9"], exploit_main, "config: 5 (int) is not a field name"
    with pytest.raises(SystemExit) as stop:
        code = run(argv)
        raise SystemExit(code)  # quatro-exploit returns its code
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"{tool}: ") and named in err and "is not a field name" in err, err


def test_convert_refuses_junk_a_directory_and_a_missing_file(tmp_path, capsys):
    junk = copy.deepcopy(SHIPPED)
    del junk["format"]
    junk.update(obs_dim="x", num_actions=None, rnn_size=-1)
    torch.save(junk, tmp_path / "junk.pt")
    (tmp_path / "outdir").mkdir()
    good = copy.deepcopy(SHIPPED)
    del good["format"]
    torch.save(good, tmp_path / "old.pt")
    for argv, named in (
        ([tmp_path / "junk.pt", tmp_path / "junk_new.pt"], "obs_dim is 'x'"),  # was stamped a valid policy
        ([tmp_path / "old.pt", tmp_path / "outdir"], "is a directory"),  # was a traceback
        ([tmp_path / "missing.pt", tmp_path / "new.pt"], "no such file"),  # said "not a torch checkpoint"
    ):
        assert convert_main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and named in err[0], err
    assert not (tmp_path / "junk_new.pt").exists()


def test_exploit_needs_its_plot_library_before_it_trains(tmp_path, monkeypatch, capsys):
    from quatro_env.common import extras

    real = extras._installed
    monkeypatch.setattr(extras, "_installed", lambda m: m != "matplotlib" and real(m))
    monkeypatch.setattr("baselines.exploit.run", lambda args: pytest.fail("trained before the check"))
    with pytest.raises(SystemExit) as stop:
        exploit_main(["honest", "--steps", "1", "--out", str(tmp_path / "out")])
    assert stop.value.code == 2 and "matplotlib" in capsys.readouterr().err


def test_a_checkpoint_is_written_readable_as_the_umask_allows(tmp_path):
    import os

    save_checkpoint({"format": "quatro-policy/1"}, tmp_path / "p.pt")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "p.pt").stat().st_mode & 0o777 == 0o666 & ~mask  # mkstemp made it 0600
