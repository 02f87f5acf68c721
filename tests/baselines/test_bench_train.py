"""scripts/bench_train.py (issue #17's yardstick) keeps its command and JSON, and times the
data-parallel trainer: every process's CPU seconds, process 0's wall clock, every process's steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_bench_train_times_two_trainer_processes_into_its_json(tmp_path):
    out = tmp_path / "bench.json"
    command = [sys.executable, "scripts/bench_train.py", "--config", "configs/smoke.yaml", "--updates", "2"]
    command += ["--warmup", "1", "--engine-seconds", "0.2", "--json", str(out), "processes=2"]
    done = subprocess.run(command, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(Path(out).read_text())
    assert report["processes"] == 2 and report["config"] == "configs/smoke.yaml"
    assert report["agent_steps"] == 2 * 32 * 16 * 4  # updates x num_steps x every process's tables x seats
    for key in ("trainer_agent_steps_per_s", "trainer_agent_steps_per_s_wall", "engine_agent_steps_per_s"):
        assert report[key] > 0, key
    assert report["cpu_seconds"] > 0 and report["wall_seconds"] > 0
    assert abs(sum(report["split"].values()) - 1) < 1e-6
    assert "trainer:" in done.stdout and "agent-steps/s (CPU clock)" in done.stdout
