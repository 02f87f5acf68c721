"""The training loop on a GPU (issue #17 item 4): network, buffers and tables on ``cuda``.

Skipped only where no CUDA device is present; the bot seats still run on the CPU kernel (their rows
are copied over each tick), everything else stays on the device."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from baselines.config import load_config
from baselines.ppo import PPOTrainer

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_training_runs_end_to_end_on_cuda(tmp_path):
    overrides = [f"out_dir={tmp_path}", "device=cuda", "env_device=cuda", "bot_prob=0.5", "eval_every=0"]
    trainer = PPOTrainer(load_config(SMOKE, overrides))
    assert trainer.engine.device.type == "cuda"
    history = trainer.train(updates=3)
    assert len(history) == 3
    assert all(p.device.type == "cuda" for p in trainer.model.parameters())
    assert all(math.isfinite(row[k]) for row in history for k in ("pg_loss", "v_loss", "entropy"))
    assert (tmp_path / "smoke" / "latest.pt").exists()
