"""scripts/bench_update.py (issue #17's update-only timing) runs and times real minibatches."""

from __future__ import annotations

import importlib.util

import pytest


def _script():
    spec = importlib.util.spec_from_file_location("bench_update", "scripts/bench_update.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_eager_update_is_timed_on_the_rollouts_packed_minibatches():
    bench = _script()
    report = bench.time_variant("configs/smoke.yaml", "eager", updates=1, at_agent_steps=0)
    assert report["minibatches"] > 0
    assert 0 < report["best"] <= report["worst"]
    assert report["first"] > 0


@pytest.mark.slow
def test_compiled_variants_run_and_restore_the_recurrence():
    bench = _script()
    from baselines import networks

    recur = networks.recur
    for variant in ("recur", "loss"):
        report = bench.time_variant("configs/smoke.yaml", variant, updates=1, at_agent_steps=0)
        assert report["minibatches"] > 0 and report["best"] > 0
    assert networks.recur is recur
