"""The GPU path (``backend="cuda"``): the table programs as CUDA kernels, proven like the CPU loops.

Without a GPU, numba's CUDA simulator runs the very kernels on the CPU (one Python thread per table),
in a child process because numba picks the simulator when it is first imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.batched.engine import numba_available
from tests.random_configs import random_config

ROOT = Path(__file__).resolve().parents[2]
needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed")


def _check(*args: str, simulator: bool) -> str:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1" if simulator else "0", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-m", "tests.batched.cuda_sim_check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@needs_numba
def test_cuda_kernels_match_reference_under_simulator():
    """Every configuration and player count against the reference engine, and step by step against the
    CPU loops (actions sampled, outputs, recorded draws, final views): identical. Two configs of
    ``tests/random_configs.py`` reach the corners (one-tick phases, bot seats, one-point matches)."""
    out = _check("--envs", "4", "--ticks", "60", "--random-configs", "2", simulator=True)
    for n in (4, 6, 8):
        assert f"{n} players: 720 table-ticks identical to the reference" in out
    for seed in (0, 1):
        n, _ = random_config(seed)
        assert f"random config {seed} ({n} players): 240 table-ticks identical to the reference" in out
    assert "cuda kernels: all identical" in out


@needs_numba
@pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no GPU here (the simulator test covers the kernels)"
)
def test_cuda_kernels_match_reference_on_gpu():
    args = ("--device", "cuda", "--envs", "64", "--ticks", "200", "--random-configs", "8")
    out = _check(*args, simulator=False)
    assert "cuda kernels: all identical" in out
    assert out.count("table-ticks identical to the reference") == 3 + 8


@needs_numba
@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_cuda_backend_needs_a_gpu():
    with pytest.raises(ValueError, match="backend: 'cuda'"):
        BatchedQuatroEngine(2, seed=0, backend="cuda")


@needs_numba
def test_a_numpy_that_numba_cuda_cannot_compile_with_is_named(monkeypatch):
    """numba-cuda 0.30 fails deep inside numba under numpy 2.5 (seen on a GPU machine, 2026-12-04):
    the engine names the cause and the fix before compiling anything."""
    from quatro_env.batched import cuda as gpu

    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delattr(gpu.np, "row_stack")
    with pytest.raises(ImportError, match=r"numba-cuda 0.30 cannot compile with numpy .*install numpy<2.5"):
        gpu.require_compatible_numpy()
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")  # the simulator compiles nothing: no need
    gpu.require_compatible_numpy()


@needs_numba
def test_the_launch_timer_times_every_kernel_of_a_tick_under_the_simulator(tmp_path):
    """``scripts/gpu_launch_times.py`` (for the next GPU session): every launch of a tick is timed, host
    time within time-until-done, and the engine's launchers are put back afterwards."""
    out = tmp_path / "times.json"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", OMP_NUM_THREADS="1")
    cmd = [sys.executable, "scripts/gpu_launch_times.py", "--device", "cpu", "--batches", "2", "--ticks", "2"]
    proc = subprocess.run([*cmd, "--json", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = json.loads(out.read_text())["rows"]
    kernels = row["kernels"]
    assert set(kernels) == {
        *("sample", "check_actions", "tick_all", "reset_rows"),
        *("encode_features", "spread_observations", "legal_kinds", "spread_masks"),
    }
    assert all(k["launches"] == 1 and 0 < k["host_ms"] <= k["done_ms"] for k in kernels.values())
    assert row["host_ms"] <= row["done_ms"] and row["tick_ms_untimed"] > 0
