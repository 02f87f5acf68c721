"""Shared steps of the PPO tests: a run resumed half-way, and a run interrupted in its second update."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from baselines.config import TrainConfig
from baselines.ppo import PPOTrainer
from baselines.trainer_state import load_trainer_checkpoint


def straight_and_resumed(cfg: TrainConfig, tmp_path: Path) -> tuple[PPOTrainer, PPOTrainer]:
    """4 updates in one go, and 2 + 2 updates through a checkpoint: a resume is exact when they agree."""
    straight = PPOTrainer(cfg)
    straight.train(updates=4)
    first = PPOTrainer(cfg)
    first.train(updates=2)
    first.save(tmp_path / "mid.pt")
    resumed = PPOTrainer(cfg)
    resumed.load_state_dict(load_trainer_checkpoint(tmp_path / "mid.pt"))
    resumed.train(updates=2)
    return straight, resumed


def assert_same_weights(a: torch.nn.Module, b: torch.nn.Module) -> None:
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(x, y), name


def interrupt_the_second_update(trainer: PPOTrainer, monkeypatch) -> None:
    """Ctrl-C (a KeyboardInterrupt) inside the optimisation of the trainer's second update."""
    real, calls = trainer.optimise, []

    def optimise_then_interrupt(buf):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(buf)

    monkeypatch.setattr(trainer, "optimise", optimise_then_interrupt)


def interrupt_a_cli_run(module_args: list[str], ready: Callable[[], bool], pause: float, wait: float) -> str:
    """``python -m <module_args>`` in its own process, sent SIGINT ``pause`` s after ``ready()`` holds
    (within ``wait`` s); it must stop cleanly (exit 0, "interrupted", no traceback). Returns its stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", *module_args],
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C's default even when the suite itself was started with SIGINT ignored (``nohup``, a
        # shell's background job): Python turns SIGINT into KeyboardInterrupt only if it is not ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + wait
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        time.sleep(pause)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "interrupted" in err and "Traceback" not in err
    return err
