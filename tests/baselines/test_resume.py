"""Resume after Ctrl-C is bit for bit, wherever the interrupt lands (docs/ppo.md, issue #15 item 2).

Each test interrupts a run (a KeyboardInterrupt injected at a chosen instant: inside the rollout
after the engine stepped, inside the update after the optimiser stepped, inside a checkpoint
write, inside an evaluation; and one real SIGINT to a ``quatro-train`` process), resumes from the
``latest.pt`` it left, trains to the same update and compares parameters AND optimiser state with
an uninterrupted run. The config is tiny (seconds per run) but has every kind of state: bot
tables (partner bots too), pool snapshots, shaping, a curriculum stage.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
import yaml

from baselines import checkpoint_io
from baselines.config import TrainConfig
from baselines.ppo import PPOTrainer
from baselines.trainer_state import load_trainer_checkpoint
from tests.baselines.helpers import interrupt_a_cli_run

UPDATES = 4
TINY = {
    "run_name": "tiny",
    "seed": 3,
    "env": {"num_players": 4, "round_seconds": 6, "sign_phase_seconds": 1, "pause_seconds": 0.5},
    "curriculum": [{"until_agent_steps": 256, "env": {"round_seconds": 4}}],
    "num_envs": 4,
    "num_steps": 8,
    "total_agent_steps": 4 * 8 * 4 * 6,
    "num_minibatches": 2,
    "update_epochs": 2,
    "arch": "flat",
    "hidden_size": 16,
    "rnn_size": 8,
    "pool_size": 2,
    "snapshot_every": 1,
    "pool_prob": 0.4,
    "bot_prob": 0.4,
    "partner_bot_prob": 0.5,
    "quartet_bonus": 0.01,
    "collect_shaping": 0.2,
    "checkpoint_every": 1,
    "progress_bar": False,
    "tensorboard": False,
}


def tiny(tmp_path: Path, **extra) -> TrainConfig:
    return TrainConfig(**{**TINY, "out_dir": str(tmp_path), **extra})


def assert_same_training_state(a: PPOTrainer, b: PPOTrainer) -> None:
    """Parameters, optimiser state (moments, step counts, lr), counters and RNG all equal."""
    assert (a.update, a.agent_steps, a.episodes) == (b.update, b.agent_steps, b.episodes)
    for (name, x), (_, y) in zip(a.model.state_dict().items(), b.model.state_dict().items(), strict=True):
        assert torch.equal(x, y), f"parameter {name}"
    sa, sb = a.optimizer.state_dict(), b.optimizer.state_dict()
    assert sa["param_groups"] == sb["param_groups"]
    assert sa["state"].keys() == sb["state"].keys()
    for key in sa["state"]:
        for field in sa["state"][key]:
            assert torch.equal(sa["state"][key][field], sb["state"][key][field]), f"optimiser {key}.{field}"
    assert torch.equal(a.engine.masks, b.engine.masks) and torch.equal(a.next_mask, b.next_mask)
    keys = ("update", "agent_steps", "episode_return", "pg_loss", "v_loss", "entropy")
    rows = [repr([[r[k] for k in keys] for r in trainer.history]) for trainer in (a, b)]  # nan == nan
    assert rows[0] == rows[1]


def straight_run(tmp_path: Path, updates: int = UPDATES, **extra) -> PPOTrainer:
    trainer = PPOTrainer(tiny(tmp_path, **extra))
    trainer.train(updates=updates)
    return trainer


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> PPOTrainer:
    """The uninterrupted run every interrupted one must match."""
    return straight_run(tmp_path_factory.mktemp("straight"))


def resume_and_finish(run_dir: Path, out_dir: Path, updates: int = UPDATES) -> PPOTrainer:
    """What ``quatro-train --resume run_dir/latest.pt`` does, to update ``updates``."""
    state = load_trainer_checkpoint(run_dir / "latest.pt")
    resumed = PPOTrainer(TrainConfig(**{**state["config"], "out_dir": str(out_dir)}))
    resumed.load_state_dict(state)
    resumed.train(updates=updates - resumed.update)
    return resumed


def interrupt_on_call(obj, name: str, call: int, monkeypatch, before: bool = False) -> None:
    """Raise KeyboardInterrupt at the ``call``-th call of ``obj.name`` (after the real call ran,
    unless ``before``): e.g. the engine has stepped but the trainer has not read the result."""
    real, calls = getattr(obj, name), []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == call and before:
            raise KeyboardInterrupt
        out = real(*args, **kwargs)
        if len(calls) == call:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(obj, name, wrapped)


EVALUATING = {"eval_every": 2, "eval_matches": 1}


def _interrupted_run(tmp_path, monkeypatch, where: str) -> PPOTrainer:
    trainer = PPOTrainer(tiny(tmp_path, **(EVALUATING if where == "evaluation" else {})))
    ticks, engine = trainer.cfg.num_steps, type(trainer.engine)  # a curriculum stage makes new engines
    if where == "rollout":  # update 3, tick 5: the engine stepped, next_obs/next_mask not yet read
        interrupt_on_call(engine, "step", 2 * ticks + 5, monkeypatch)
    elif where == "first tick":  # the first tick of update 2, before the engine stepped
        interrupt_on_call(engine, "step", ticks + 1, monkeypatch, before=True)
    elif where == "update":  # update 2, after 3 optimiser steps: the weights are half-updated
        interrupt_on_call(trainer.optimizer, "step", 2 * 2 + 3, monkeypatch)
    elif where == "evaluation":  # update 2's evaluation, after the update itself completed
        interrupt_on_call(trainer, "evaluate", 1, monkeypatch, before=True)
    elif where == "saving":  # update 3's checkpoint: the interrupt lands inside torch.save
        real_save, saves = torch.save, []

        def save_then_interrupt(obj, f, *args, **kwargs):
            saves.append(1)
            if len(saves) == 5:  # checkpoint_00001, latest, checkpoint_00002, latest, checkpoint_00003
                f.write(b"half a file")
                raise KeyboardInterrupt
            return real_save(obj, f, *args, **kwargs)

        monkeypatch.setattr(checkpoint_io.torch, "save", save_then_interrupt)
    trainer.train(updates=UPDATES)
    monkeypatch.undo()
    return trainer


@pytest.mark.parametrize("where", ["rollout", "first tick", "update", "evaluation", "saving"])
def test_resume_after_an_interrupt_is_bit_for_bit(where, straight, tmp_path, monkeypatch):
    if where == "evaluation":  # its own reference: the harness runs between the updates
        straight = straight_run(tmp_path / "straight", **EVALUATING)
    interrupted = _interrupted_run(tmp_path, monkeypatch, where)
    assert interrupted.update < UPDATES, "the interrupt stopped the run"
    state = load_trainer_checkpoint(interrupted.run_dir / "latest.pt")
    assert state["update"] == interrupted.update, "the file holds the last completed update"
    assert not list(interrupted.run_dir.glob(".*.tmp")), "no half-written file is left behind"
    saved = tmp_path / "saved"
    saved.mkdir()
    shutil.copy(interrupted.run_dir / "latest.pt", saved / "latest.pt")
    # the interrupted trainer itself went back to that update: it continues exactly (first: the
    # trainers share the process's torch RNG, which the resumed one below sets for itself)
    interrupted.train(updates=UPDATES - interrupted.update)
    assert_same_training_state(straight, interrupted)
    resumed = resume_and_finish(saved, tmp_path / "resumed")
    assert_same_training_state(straight, resumed)


def test_a_checkpoint_whose_mask_does_not_match_its_tables_is_refused(tmp_path):
    """The crash of the issue (``illegal action for table 0 seat 2: 70``): a file written between the
    engine's step and the trainer reading its result. Refused by name, the trainer unchanged."""
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=1)
    state = trainer.state_dict()
    state["next_mask"] = 1 - state["next_mask"]
    before = trainer.state_dict()
    with pytest.raises(ValueError, match="next_obs/next_mask do not match"):
        trainer.load_state_dict(state)
    after = trainer.state_dict()
    assert all(torch.equal(before["model"][k], after["model"][k]) for k in before["model"])
    assert torch.equal(before["next_mask"], after["next_mask"]) and before["update"] == after["update"]


def test_a_file_s_masks_are_not_trusted_the_rules_masks_of_its_tables_are_played(tmp_path):
    """Masks that agree with each other but not with the rules (every action legal) would have the
    policy sample illegal actions; the engine derives the masks of the loaded tables, the trainer plays
    those."""
    trainer = PPOTrainer(tiny(tmp_path))
    trainer.train(updates=1)
    state, rules = trainer.state_dict(), trainer.engine.masks.clone()
    state["next_mask"].fill_(1)
    state["engine"]["masks"].fill_(1)
    other = PPOTrainer(tiny(tmp_path))
    other.load_state_dict(state)
    assert torch.equal(other.engine.masks, rules) and torch.equal(other.next_mask, rules.to(other.device))
    other.train(updates=1)  # illegal_action="raise": an illegal sample would stop it


def test_a_trainer_checkpoint_with_a_missing_field_is_refused_by_name(tmp_path):
    trainer = PPOTrainer(tiny(tmp_path))
    state = trainer.state_dict()
    del state["optimizer"]
    with pytest.raises(ValueError, match=r"missing \['optimizer'\]"):
        trainer.load_state_dict(state)


def test_a_real_sigint_to_quatro_train_resumes_bit_for_bit(tmp_path):
    """SIGINT at an arbitrary instant of a real ``quatro-train`` process (once it is training);
    the reference is the same config trained straight to two updates past the interrupt."""
    endless = {"total_agent_steps": 10**9, "checkpoint_every": 2}
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "out_dir": str(tmp_path), **endless}))
    run = tmp_path / "tiny"
    training = (run / "checkpoint_00002.pt").exists  # past a save or two
    interrupt_a_cli_run(["baselines.ppo", "--config", str(config)], training, pause=0.013, wait=240)
    done = load_trainer_checkpoint(run / "latest.pt")["update"]
    assert done >= 2
    resumed = resume_and_finish(run, tmp_path / "resumed", updates=done + 2)
    assert_same_training_state(straight_run(tmp_path / "straight", done + 2, **endless), resumed)


def test_ctrl_c_inside_torch_save_reaches_the_trainer_as_ctrl_c(tmp_path, monkeypatch):
    """Ctrl-C while torch.save writes: its zip writer's cleanup then raises a RuntimeError ("unexpected
    pos") that hides the interrupt (seen once in fifty real SIGINTs); the save must still raise the
    KeyboardInterrupt the trainer handles, leave no temporary file, and keep the previous file whole."""
    path = tmp_path / "latest.pt"
    checkpoint_io.save_checkpoint({"update": 1}, path)

    def save_cut_short(payload, f):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0") from None

    monkeypatch.setattr(checkpoint_io.torch, "save", save_cut_short)
    with pytest.raises(KeyboardInterrupt):
        checkpoint_io.save_checkpoint({"update": 2}, path)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["latest.pt"]
    assert checkpoint_io.safe_torch_load(path)["update"] == 1
