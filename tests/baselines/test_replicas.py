"""Data-parallel PPO (``processes: N``, ``baselines/replicas.py``; issue #17): each process holds a share
of the tables, and the update is the one a single process holding every share would make.

* the shares' losses, normalised by the whole minibatch's advantage moments, add up to the whole
  minibatch's gradient (in one process, no collective needed to check the arithmetic);
* the moments the trainer sums across processes are the minibatches' own;
* two real processes (gloo) keep identical parameters, count every process's agent-steps, and resume
  exactly from their per-process checkpoints; Ctrl-C stops both after the same update;
* what does not fit is refused by name: a table count the processes cannot share, a secrecy cost, a
  trainer built outside ``launch``, a resume whose process files are missing or out of step.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
import yaml

from baselines.config import TrainConfig
from baselines.packing import learner_segments
from baselines.ppo import PPOTrainer
from baselines.ppo_update import advantage_moments, packed_minibatch, ppo_loss, table_moments
from baselines.train_cli import main
from baselines.trainer_state import load_trainer_checkpoint
from tests.baselines.helpers import interrupt_a_cli_run
from tests.baselines.test_resume import TINY

# 4 tables a process; --updates decides when a run stops
SHARED = {**TINY, "processes": 2, "num_envs": 8, "checkpoint_every": 1, "total_agent_steps": 10**6}


def _rollout_minibatch(tmp_path: Path):
    trainer = PPOTrainer(TrainConfig(**{**TINY, "num_envs": 8, "out_dir": str(tmp_path)}))
    trainer.train(updates=1)
    buf = trainer.rollout()
    segments = learner_segments(buf["done"], buf["learn"])
    return trainer, buf, segments


def test_shares_of_a_minibatch_add_up_to_its_gradient(tmp_path):
    """A minibatch of 8 tables split 4 + 4, each share's loss normalised by the whole's moments: the
    two gradients sum to the whole minibatch's (the all-reduce's job), and its loss parts too."""
    trainer, buf, segments = _rollout_minibatch(tmp_path)
    model, cfg = trainer.model, trainer.cfg
    tables = torch.arange(8)
    shares = [packed_minibatch(buf, part, segments, trainer.n, False) for part in tables.split(4)]
    whole = packed_minibatch(buf, tables, segments, trainer.n, False)
    assert all(share is not None for share in shares) and whole is not None
    moments = sum(advantage_moments(share) for share in shares)
    torch.testing.assert_close(moments, advantage_moments(whole))
    params = list(model.parameters())

    def gradient(mb, moments):
        loss, parts = ppo_loss(model, mb, cfg, 0.01, moments)
        return torch.autograd.grad(loss, params, allow_unused=True), parts

    summed = [gradient(share, moments) for share in shares]
    reference, parts = gradient(whole, None)  # the single-process loss, its own moments
    for i, ref in enumerate(reference):
        if ref is None:
            continue
        total = sum(g[0][i] for g in summed if g[0][i] is not None)
        torch.testing.assert_close(total, ref, rtol=1e-4, atol=1e-6)
    for key, value in parts.items():
        torch.testing.assert_close(sum(p[1][key] for p in summed), value, rtol=1e-4, atol=1e-6)


def test_the_moments_summed_across_processes_are_each_minibatchs_own(tmp_path):
    trainer, buf, segments = _rollout_minibatch(tmp_path)
    orders = [torch.randperm(8), torch.randperm(8)]
    moments = trainer._minibatch_moments(table_moments(buf, trainer.n), orders)  # one process: its own
    assert moments.shape == (2, trainer.cfg.num_minibatches, 3)
    for epoch, order in enumerate(orders):
        for index, tables in enumerate(order.split(8 // trainer.cfg.num_minibatches)):
            mb = packed_minibatch(buf, tables, segments, trainer.n, False)
            mine = advantage_moments(mb) if mb is not None else torch.zeros(3)
            torch.testing.assert_close(moments[epoch, index], mine, rtol=1e-5, atol=1e-4)


def _states(run: Path, name: str = "latest") -> list[dict]:
    return [load_trainer_checkpoint(run / f"{name}{suffix}.pt") for suffix in ("", ".rank1")]


def test_two_processes_keep_one_network_count_every_step_and_resume_exactly(tmp_path):
    config = tmp_path / "shared.yaml"
    config.write_text(yaml.safe_dump({**SHARED, "out_dir": str(tmp_path), "run_name": "straight"}))
    main(["--config", str(config), "--updates", "4"])
    main(["--config", str(config), "--updates", "2", "run_name=split"])
    main(["--resume", str(tmp_path / "split" / "latest.pt"), "--updates", "2"])
    straight, resumed = _states(tmp_path / "straight"), _states(tmp_path / "split")
    per_update = SHARED["num_envs"] * 4 * SHARED["num_steps"]
    for state in straight:
        assert state["update"] == 4 and state["agent_steps"] == 4 * per_update  # both processes' steps
    first, second = straight
    assert (first["replica"], second["replica"]) == ({"rank": 0, "world": 2}, {"rank": 1, "world": 2})
    for key in first["model"]:  # one network: every process stepped the same gradient
        assert torch.equal(first["model"][key], second["model"][key]), key
    assert not torch.equal(first["next_obs"], second["next_obs"])  # each its own tables
    for a, b in zip(straight, resumed, strict=True):  # exact resume, process by process
        for part in ("model", "engine", "bots"):
            for key in a[part]:
                assert torch.equal(a[part][key], b[part][key]), f"{part}.{key}"
        for key, field in a["optimizer"]["state"].items():
            for name in field:
                assert torch.equal(field[name], b["optimizer"]["state"][key][name]), f"optimizer {key}.{name}"
        assert torch.equal(a["torch_rng"], b["torch_rng"])


def test_ctrl_c_stops_every_process_after_the_same_update(tmp_path):
    config = tmp_path / "endless.yaml"
    endless = {**SHARED, "out_dir": str(tmp_path), "run_name": "endless", "total_agent_steps": 10**9}
    config.write_text(yaml.safe_dump(endless))
    run = tmp_path / "endless"
    interrupt_a_cli_run(
        ["baselines.ppo", "--config", str(config)], (run / "latest.rank1.pt").exists, 0.2, 240
    )
    first, second = _states(run)
    assert first["update"] == second["update"] >= 1
    assert (run / "policy.pt").exists()


def test_what_the_processes_cannot_share_is_refused_by_name(tmp_path):
    base = {**SHARED, "out_dir": str(tmp_path)}
    with pytest.raises(ValueError, match="processes: 2 processes x 2 minibatches must divide num_envs=6"):
        TrainConfig(**{**base, "num_envs": 6})
    with pytest.raises(ValueError, match="processes: secrecy_coef"):
        TrainConfig(**{**base, "secrecy_coef": 0.1})
    with pytest.raises(ValueError, match="quatro-train launches the processes"):
        PPOTrainer(TrainConfig(**base))


def test_a_resume_with_a_process_file_missing_or_out_of_step_is_refused(tmp_path, capsys):
    config = tmp_path / "shared.yaml"
    config.write_text(yaml.safe_dump({**SHARED, "out_dir": str(tmp_path), "run_name": "run"}))
    main(["--config", str(config), "--updates", "2"])
    run = tmp_path / "run"
    shutil.copy(run / "checkpoint_00001.rank1.pt", run / "latest.rank1.pt")
    with pytest.raises(SystemExit) as exit_:
        main(["--resume", str(run / "latest.pt")])
    assert exit_.value.code == 2
    assert "latest.rank1.pt: at update 1, process 0's at 2" in capsys.readouterr().err
    (run / "latest.rank1.pt").unlink()
    with pytest.raises(SystemExit):
        main(["--resume", str(run / "latest.pt")])
    assert "latest.rank1.pt" in capsys.readouterr().err


def test_rollout_statistics_combine_counts_summed_and_shares_averaged(monkeypatch):
    """What process 0 logs for two processes: points and episodes summed, a share averaged, a NaN share
    (nothing to count in that process) left out of its average. The all-reduce is stood in for by
    adding process 1's contribution, captured from its own call."""
    from baselines.replicas import Replicas

    second = Replicas(rank=1, world=2)
    captured = {}
    monkeypatch.setattr(second, "sum", lambda t: captured.setdefault("t", t.clone()))
    second.combine_stats({"points": 1.0, "share": 0.25, "rare": 0.4}, 5)
    first = Replicas(rank=0, world=2)
    monkeypatch.setattr(first, "sum", lambda t: t.add_(captured["t"]))
    stats, episodes = first.combine_stats({"points": 3.0, "share": 0.5, "rare": float("nan")}, 2)
    assert episodes == 7
    assert stats == pytest.approx({"points": 4.0, "share": 0.375, "rare": 0.4})
    alone = Replicas().combine_stats({"points": 3.0}, 2)  # one process: the identity
    assert alone == ({"points": 3.0}, 2)
