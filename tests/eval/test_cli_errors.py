"""quatro-eval and quatro-train: bad input is ONE line naming the field and what is allowed, exit
code 2, no traceback, checked before any work (issue #15 item 7)."""

from __future__ import annotations

import pytest

from quatro_env.eval import cli
from quatro_env.eval.runner import MAX_WORKERS

QUICK = ["--matches", "1", "--round-seconds", "5", "--points-to-win", "1", "--probe-matches", "0"]


def _one_error_line(capsys, prog: str) -> str:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"{prog}: ") and "Traceback" not in captured.err
    return lines[0]


@pytest.fixture
def no_matches(monkeypatch):
    """Fails the test if any evaluation starts: the errors must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("the evaluation ran before the bad input was refused")

    for name in ("evaluate", "cross_play", "partner_play"):
        monkeypatch.setattr(cli, name, refuse)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--workers", "0"], rf"--workers: expected a whole number from 1 to {MAX_WORKERS}, got 0"),
        (["--workers", str(MAX_WORKERS + 1)], rf"--workers: expected a whole number from 1 to {MAX_WORKERS}"),
        (["--probe-matches", "-1"], r"--probe-matches: expected a whole number >= 0, got -1"),
        (["--matches", "0"], r"--matches: expected a whole number >= 1, got 0"),
        (["--matches", "many"], r"--matches: expected a whole number >= 1, got 'many'"),
        (["--max-rounds", "-2"], r"--max-rounds: expected a whole number >= 1"),
        (["--points-to-win", "0"], r"--points-to-win: expected a whole number >= 1"),
        (["--players", "5"], r"--players: invalid choice"),
    ],
)
def test_bad_numbers_are_refused_by_name(args, named, capsys, no_matches):
    with pytest.raises(SystemExit) as stop:
        cli.main(["honest", "random", *args])
    assert stop.value.code == 2
    assert named in _one_error_line(capsys, "quatro-eval")


def test_out_pointing_at_a_file_is_refused_before_the_evaluation(tmp_path, capsys, no_matches):
    target = tmp_path / "report.txt"
    target.write_text("keep me")
    assert cli.main(["honest", "random", "--out", str(target)]) == 2
    assert "--out" in _one_error_line(capsys, "quatro-eval") and target.read_text() == "keep me"
    assert cli.main(["honest", "random", "--out", str(target / "sub")]) == 2
    assert "--out: cannot create the directory" in _one_error_line(capsys, "quatro-eval")
    (tmp_path / "out" / "report.json").mkdir(parents=True)  # every match played, then a traceback
    assert cli.main(["honest", "random", "--out", str(tmp_path / "out")]) == 2
    assert "report.json' is a directory" in _one_error_line(capsys, "quatro-eval")


@pytest.mark.parametrize(
    ("policy", "named"),
    [
        ("counter:threshold=abc", "threshold must be float, got 'abc'"),
        ("counter:thresold=0.5", "counter has no parameter 'thresold'; its parameters: "),
        ("counter:threshold", "parameter 'threshold' is not key=value"),
        ("honest:cover_rate=true", "honest has no parameter 'cover_rate'"),
        ("decoy:cover_rate=yes", "cover_rate must be float, got 'yes'"),
        ("decoy:cover_rate=2", "cover_rate: must lie in (0, 1], got 2"),
        ("nonexistent", "unknown bot 'nonexistent'"),
        ("missing.pt", "checkpoint file 'missing.pt' not found"),
        ("honest+decoy+random", "a team has two members, got 3"),
    ],
)
def test_bad_policies_are_refused_in_one_line(policy, named, capsys):
    assert cli.main([policy, "random", *QUICK, "--no-progress"]) == 2
    assert named in _one_error_line(capsys, "quatro-eval")


def test_bad_rule_settings_name_the_field(capsys):
    assert cli.main(["honest", "random", "--set", "round_seconds=-3", *QUICK[:2]]) == 2
    assert "round_seconds" in _one_error_line(capsys, "quatro-eval")
    assert cli.main(["honest", "random", "--set", "no_equals_sign"]) == 2
    assert "--set 'no_equals_sign': expected FIELD=VALUE" in _one_error_line(capsys, "quatro-eval")


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_the_library_refuses_a_worker_count_that_is_not_a_whole_number_above_zero(workers):
    """``evaluate(workers=0)`` was silently played with one worker, ``workers=8`` with two."""
    from quatro_env.eval.harness import evaluate

    with pytest.raises(ValueError, match=r"workers: a whole number >= 1, got"):
        evaluate(["honest", "random"], matches=1, workers=workers, progress=False)


def test_the_command_lines_allow_every_cpu():
    assert MAX_WORKERS >= 1
    args = cli.build_parser().parse_args(["honest", "random", "--workers", str(MAX_WORKERS)])
    assert args.workers == MAX_WORKERS


@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_the_library_names_a_bad_seed(seed):
    from quatro_env.eval.harness import evaluate

    with pytest.raises(ValueError, match=r"^seed: "):
        evaluate(["honest", "random"], matches=1, seed=seed, progress=False)
