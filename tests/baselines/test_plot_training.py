"""scripts/plot_training.py draws progress CSVs of any vintage (older runs lack newer columns)."""

from __future__ import annotations

import importlib.util

import pytest


def _script():
    spec = importlib.util.spec_from_file_location("plot_training", "scripts/plot_training.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plots_old_and_new_progress_files_side_by_side(tmp_path):
    pytest.importorskip("matplotlib")
    old = tmp_path / "old_run.csv"
    old.write_text("update,agent_steps,entropy\n1,1000,2.0\n2,2000,1.5\n")
    new = tmp_path / "new_run" / "progress.csv"
    new.parent.mkdir()
    new.write_text("update,agent_steps,entropy,sign_shown_share\n1,1000,2.0,0.1\n2,2000,1.0,0.4\n")
    out = tmp_path / "curves.png"
    _script().main([str(old), str(new), "--out", str(out), "--smooth", "1"])
    assert out.stat().st_size > 10_000


def test_an_empty_progress_file_is_refused_by_name(tmp_path):
    pytest.importorskip("matplotlib")
    empty = tmp_path / "empty.csv"
    empty.write_text("update,agent_steps\n")
    with pytest.raises(SystemExit, match="empty.csv: no rows"):
        _script().main([str(empty), "--out", str(tmp_path / "x.png")])
