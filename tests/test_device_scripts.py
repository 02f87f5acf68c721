"""The prepared GPU checks (scripts/device_check.sh, docs/batched.md "On a GPU") fail clearly where they
cannot run, instead of crashing on the way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def test_device_check_is_valid_bash_and_refuses_an_unknown_part():
    script = ROOT / "scripts" / "device_check.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    proc = subprocess.run(["bash", str(script), "gpu"], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_bench_refuses_cuda_by_name_without_a_gpu():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench.py"), "--devices", "cuda", "--players", "4"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "--devices cuda: no CUDA device here" in proc.stderr
