"""The scripts in scripts/ take bad input as the console scripts do (one line naming the argument, exit
code 2, no traceback), write their results where ``--out`` says (never into the committed
docs/results when told otherwise), and their shell wrappers fail loudly instead of reporting success."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
SECRECY = ROOT / "docs" / "results" / "secrecy"
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}

#: scripts that only forward to a console script (which has its own tests)
FORWARDERS = {"train_rllib.py"}


def _run(script: str, *args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, f"scripts/{script}", *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _bad_cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    """(script, arguments, what the one-line error must say). Every case also points its outputs at
    ``tmp``, so that a regression that accepts the argument cannot write into the repository."""
    out = str(tmp)
    return [
        ("bench.py", ["--players", "5", "--no-peers", "--batches", "1", "--seconds", "0.01"], "--players"),
        ("bench_env.py", ["--seconds", "-1", "--repeats", "1", "--only", "quatro"], "--seconds"),
        ("bench_train.py", ["--config", "nosuch", "--updates", "1"], "--config"),
        ("bench_update.py", ["--config", "smoke", "--updates", "0"], "--updates"),
        (
            "bench_vector_bots.py",
            ["--policies", "nosuch", "--tables", "1", "--seconds", "0.01"],
            "--policies",
        ),
        ("card_count.py", ["nosuch", "--matches", "1", "--out", out], "argument policies: policy 'nosuch'"),
        ("card_count_rows.py", ["honest", "--matches", "0"], "--matches"),
        ("code_behaviour.py", ["honest", "--opponent", "nosuch", "--matches", "1"], "--opponent"),
        ("cover_beats.py", ["nosuch", "--matches", "1"], "argument policies"),
        ("cuda_ptx.py", ["--players", "5"], "--players"),
        ("decoy_pairs.py", ["--opponent", "nosuch", "--matches", "1", "--out", out], "--opponent"),
        ("exploit_spread.py", ["ppo_4p", "--seeds", "x", "--out", out], "--seeds"),
        ("gpu_launch_times.py", ["--ticks", "0", "--device", "cpu"], "--ticks"),
        ("ladder.py", ["--matches", "0", "--out", out, "--no-doc"], "--matches"),
        ("mutation_test.py", ["nosuch", "--out", out], "argument target: invalid choice: 'nosuch'"),
        ("league_curves.py", ["/missing/league.pt", "--matches", "1", "--out", out], "argument league"),
        ("plot_training.py", ["/missing.csv", "--out", f"{out}/curves.png"], "argument progress"),
        ("secrecy_ablation.py", ["honest", "--matches", "0", "--out", f"{out}/a.json"], "--matches"),
        ("secrecy_data_size.py", ["honest", "--fit-seeds", "-1", "--out", f"{out}/d.json"], "--fit-seeds"),
        ("secrecy_epochs.py", ["honest", "--epochs", "0", "--out", f"{out}/e.json"], "--epochs"),
        ("secrecy_frontier.py", ["--only", "nosuch", "--matches", "1", "--out", out], "--only"),
        ("ship_checkpoint.py", ["/missing.pt", "tiny", "--dest", out], "argument policy"),
        ("key_control.py", ["ppo_6p", "nosuch", "--matches", "4", "--out", out], "argument policies"),
        ("sign_reuse.py", ["ppo_6p", "--matches", "1"], "trained for 6 players, not 4"),
        ("sign_probability.py", ["/missing.pt", "--rollouts", "1"], "argument checkpoint"),
        ("watch_and_play_media.py", ["--policies", "nosuch", "counter", "--out", out], "--policies"),
    ]


def test_every_python_script_has_a_bad_input_case(tmp_path):
    """A new script joins the sweep below (or is a forwarder to a console script)."""
    covered = {script for script, _, _ in _bad_cases(tmp_path)}
    assert covered | FORWARDERS == {p.name for p in SCRIPTS.glob("*.py")}


@pytest.mark.parametrize("case", range(len(_bad_cases(Path("/tmp")))))
def test_a_bad_argument_is_one_line_naming_it_and_exit_code_2(case, tmp_path):
    script, args, says = _bad_cases(tmp_path)[case]
    proc = _run(script, *args)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{script}: "), proc.stderr
    assert says in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seconds", "nan"], "--seconds: expected a finite number > 0, got nan"),
        (["--seconds", "0"], "--seconds: expected a finite number > 0, got 0"),
        (["--players", "4,8,7"], "--players: expected items from 4, 6, 8, got '7'"),
        (["--batches", "1,0"], "--batches: expected a whole number >= 1, got 0"),
        (["--devices", "tpu"], "--devices: expected items from cpu, cuda, cuda:N, got 'tpu'"),
        (["--backends", "gpu"], "--backends: expected items from auto, numba, cuda, got 'gpu'"),
    ],
)
def test_bench_checks_each_list_item_and_duration(args, says):
    proc = _run("bench.py", *args, "--no-peers")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"bench.py: argument {says}"


def test_bench_prints_and_records_its_machine_and_command(tmp_path):
    """The README says each benchmark prints the machine, the command and a table: bench.py left out the
    command, on screen and in its json."""
    out = tmp_path / "bench.json"
    args = ("--players", "4", "--batches", "2", "--seconds", "0.05", "--no-peers", "--json", str(out))
    proc = _run("bench.py", *args, timeout=600)
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads(out.read_text())
    assert recorded["command"].endswith("scripts/bench.py " + " ".join(args))
    assert (
        f"command: {recorded['command']}" in proc.stdout and f"machine: {recorded['machine']}" in proc.stdout
    )
    assert "| batched" in proc.stdout


def test_configs_are_taken_by_name_and_checked_before_any_work():
    proc = _run("bench_train.py", "--config", "smoke", "--updates", "1", "num_envs=0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert (
        proc.stderr.strip()
        == "bench_train.py: argument overrides: num_envs: Input should be greater than 0 (got 0)"
    )


# ---------------------------------------------------------------- --out of the secrecy scripts


def _fingerprint(*paths: Path) -> dict[str, tuple[int, int] | None]:
    """Size and mtime of each path (None: missing): a committed file the test must leave alone."""
    out = {}
    for path in paths:
        out[str(path)] = (path.stat().st_size, path.stat().st_mtime_ns) if path.exists() else None
    return out


def test_card_count_writes_where_out_says_and_rows_keep_their_settings(tmp_path):
    committed = _fingerprint(SECRECY / "card_count.json", SECRECY / "card_count.md")
    proc = _run("card_count.py", "honest", "--matches", "2", "--seed", "1", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _fingerprint(SECRECY / "card_count.json", SECRECY / "card_count.md") == committed
    done = json.loads((tmp_path / "card_count.json").read_text())
    (row,) = done["rows"]
    assert (row["policy"], row["matches"], row["seed"]) == ("honest", 2, 1)
    assert "--matches 2 --seed 1" in row["command"] and row["command"].endswith(f"--out {tmp_path} honest")
    assert "(rows differ" in done["command"]  # seed 1: the file's command does not claim the default
    assert (tmp_path / "card_count.md").read_text().startswith("| policy |")


def test_card_count_never_relabels_rows_it_did_not_measure(tmp_path):
    """A rerun with other settings keeps the other rows' own settings, and the file's command stops
    claiming one setting for all (the bug: the 200-match rows said --matches 4)."""
    path = tmp_path / "card_count.json"
    old = {"policy": "cover", "players": 4, "matches": 200, "held_out_quartet_rows": 1, "all_quartet_rows": 2}
    path.write_text(json.dumps({"command": "OMP_NUM_THREADS=1 python scripts/card_count.py --matches 200",
                                "rows": [old]}))  # fmt: skip
    proc = _run("card_count.py", "honest", "--matches", "2", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    done = json.loads(path.read_text())
    rows = {r["policy"]: r for r in done["rows"]}
    assert rows["cover"] == old and rows["honest"]["matches"] == 2
    assert "--matches 200" not in done["command"] and "--matches N" in done["command"]
    table = (tmp_path / "card_count.md").read_text()
    assert "| cover (200 matches) |" in table and "| honest (2 matches) |" in table


def test_decoy_pairs_writes_where_out_says(tmp_path):
    committed = _fingerprint(SECRECY / "decoy_pairs.json")
    proc = _run("decoy_pairs.py", "decoy_cover", "--matches", "2", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _fingerprint(SECRECY / "decoy_pairs.json") == committed
    (row,) = json.loads((tmp_path / "decoy_pairs.json").read_text())["rows"]
    assert (row["code"], row["matches"], row["seed"]) == ("decoy_cover", 2, 0)
    assert row["command"].startswith(
        "OMP_NUM_THREADS=1 python scripts/decoy_pairs.py decoy_cover --matches 2"
    )


def _scripts_module(name: str) -> ModuleType:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # as when the script runs: its sibling modules import
    return importlib.import_module(name)


def test_secrecy_frontier_writes_where_out_says_and_leaves_the_docs(tmp_path, monkeypatch):
    """The measurement itself is stood in for (a recorded row), so this checks the bookkeeping: the
    rows, the table and the plot go to --out, docs/evaluation.md and the committed files stay."""
    pytest.importorskip("matplotlib")
    frontier = _scripts_module("secrecy_frontier")
    recorded = next(
        r for r in json.loads((SECRECY / "secrecy.json").read_text())["rows"] if r["policy"] == "honest"
    )
    measured = []

    def measure(policy: str, matches: int, seed: int, workers: int = 2) -> dict:
        measured.append((policy, matches, seed))
        return {**recorded, "policy": policy, "matches": matches}

    monkeypatch.setattr(frontier, "measure", measure)
    docs = ROOT / "docs" / "evaluation.md"
    committed = _fingerprint(docs, SECRECY / "secrecy.json", SECRECY / "secrecy.md", SECRECY / "frontier.png")
    frontier.main(["--only", "honest", "--matches", "200", "--out", str(tmp_path)])
    frontier.main(["--only", "cover", "--matches", "7", "--seed", "3", "--out", str(tmp_path)])
    assert measured == [("honest", 200, 0), ("cover", 7, 3)]
    assert (
        _fingerprint(docs, SECRECY / "secrecy.json", SECRECY / "secrecy.md", SECRECY / "frontier.png")
        == committed
    )
    done = json.loads((tmp_path / "secrecy.json").read_text())
    honest, cover = done["rows"]
    command = "OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py"
    assert honest["command"] == f"{command} --matches 200 --out {tmp_path} --only honest"
    assert cover["command"].startswith(
        "OMP_NUM_THREADS=1 python scripts/secrecy_frontier.py --matches 7 --seed 3"
    )
    assert (cover["matches"], cover["seed"]) == (7, 3)
    assert "--matches N" in done["command"]  # the rows differ: no single command claims them all
    assert (tmp_path / "secrecy.md").stat().st_size > 0 and (tmp_path / "frontier.png").stat().st_size > 0


def test_key_control_adds_a_row_to_a_file_an_earlier_version_wrote(tmp_path, monkeypatch):
    """A key_control.json from before the hand counter (no ``nokey_view``, no ``hand_count_*``) takes a
    new row: the table shows — where the old row has no figure, instead of ending the run in a KeyError
    after its first measurement."""
    control = _scripts_module("key_control")
    old = {k: v for k, v in _key_control_row("cover").items() if k in control.KEYS[:14] + ("policy",)}
    old["bob_view"] = "all + partner"
    (tmp_path / "key_control.json").write_text(json.dumps([old]))
    monkeypatch.setattr(control, "measure", lambda policy, *args: _key_control_row(policy))
    control.main(["ppo_4p", "--out", str(tmp_path)])
    rows = json.loads((tmp_path / "key_control.json").read_text())
    assert [r["policy"] for r in rows] == ["cover", "ppo_4p"]
    old_line, new_line = (tmp_path / "key_control.md").read_text().splitlines()[2:]
    assert old_line.endswith("| — / — | — | all + partner / — |")
    assert "| 0.99 / 0.84 | +0.13 [+0.01, +0.24] | no channel + partner / Eve's decoder |" in new_line


def _key_control_row(policy: str) -> dict:
    """A row as key_control.py writes it (the figures of its cover row)."""
    figures = dict(eve_tm_auc=0.98, bob_tm_auc=1.0, gap=0.02, gap_ci95=[0.01, 0.03], eve_cm_auc=0.73)
    figures |= dict(bob_cm_auc=0.97, cm_gap=0.24, cm_gap_ci95=[0.12, 0.36], nokey_tm_auc=0.98)
    figures |= dict(key_gap=0.02, key_gap_ci95=[0.01, 0.03], nokey_cm_auc=0.73, key_cm_gap=0.24)
    figures |= dict(key_cm_gap_ci95=[0.12, 0.36], hand_count_tm_auc=0.99, hand_count_cm_auc=0.84)
    figures |= dict(
        key_floor=0.01, key_floor_ci95=[0.0, 0.02], key_cm_floor=0.13, key_cm_floor_ci95=[0.01, 0.24]
    )
    figures |= dict(bob_view="no channel + partner", nokey_view="Eve's decoder", train_matches=140)
    return {"policy": policy, "players": 4, "matches": 200, "seed": 0, **figures, "test_matches": 60}


def test_the_file_command_is_the_rows_own_where_they_agree():
    frontier = _scripts_module("secrecy_frontier")
    same = [{"matches": 200}, {"matches": 200, "seed": 0}]
    assert (
        frontier.file_command("x.py", same, frontier.OUT)
        == "OMP_NUM_THREADS=1 python scripts/x.py --matches 200"
    )
    mixed = [{"matches": 200}, {"matches": 4}]
    assert frontier.file_command("x.py", mixed, frontier.OUT).startswith(
        "OMP_NUM_THREADS=1 python scripts/x.py --matches N"
    )


def test_exploit_spread_table_goes_where_out_says(tmp_path):
    """The recorded runs are read from --recorded; the table and plot go to --out, and the docs stay."""
    pytest.importorskip("matplotlib")
    proc = _run("exploit_spread.py", "--table", "--out", str(tmp_path))
    assert proc.returncode == 2 and proc.stderr.strip().startswith(
        "exploit_spread.py: --table: no runs under"
    )
    for run in (SECRECY / "spread").glob("seed*"):
        shutil.copytree(run, tmp_path / "spread" / run.name)
    docs = ROOT / "docs" / "evaluation.md"
    committed = _fingerprint(docs, SECRECY / "spread" / "spread.md", SECRECY / "spread" / "spread.png")
    proc = _run("exploit_spread.py", "--table", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (
        _fingerprint(docs, SECRECY / "spread" / "spread.md", SECRECY / "spread" / "spread.png") == committed
    )
    assert (tmp_path / "spread" / "spread.md").read_text() == (SECRECY / "spread" / "spread.md").read_text()
    assert (tmp_path / "spread" / "spread.png").stat().st_size > 0


# ---------------------------------------------------------------- ship_checkpoint


@pytest.fixture
def ship() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ship_checkpoint", SCRIPTS / "ship_checkpoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refused(ship: ModuleType, capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        ship.main(list(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


POLICY = str(ROOT / "baselines" / "checkpoints" / "ppo_4p.pt")


@pytest.mark.parametrize("name", ["../x", "x/../../y", "Ppo", "ppo-4p", "", "a.pt"])
def test_ship_checkpoint_refuses_a_name_that_is_no_plain_file_name(name, ship, capsys, tmp_path):
    dest = tmp_path / "checkpoints"
    err = _refused(ship, capsys, POLICY, name, "--dest", str(dest))
    assert err.startswith("ship_checkpoint.py: argument name: expected lower-case letters, digits and _")
    assert list(tmp_path.rglob("*")) == []  # nothing written, inside the folder or beside it


@pytest.mark.parametrize("name", ["honest", "counter", "idle"])
def test_ship_checkpoint_refuses_a_bots_name(name, ship, capsys, tmp_path):
    err = _refused(ship, capsys, POLICY, name, "--dest", str(tmp_path))
    assert f"argument name: {name!r} is a bot's name" in err
    assert list(tmp_path.iterdir()) == []


def test_ship_checkpoint_replaces_a_shipped_name_only_with_force(ship, capsys, tmp_path):
    ship.main([POLICY, "tiny", "--dest", str(tmp_path), "--stopped", "first"])
    capsys.readouterr()
    err = _refused(ship, capsys, POLICY, "tiny", "--dest", str(tmp_path), "--stopped", "second")
    assert "argument name: 'tiny' is shipped already (tiny.pt, tiny.json); --force replaces it" in err
    assert json.loads((tmp_path / "tiny.json").read_text())["stopped"] == "first"
    ship.main([POLICY, "tiny", "--dest", str(tmp_path), "--stopped", "second", "--force"])
    assert json.loads((tmp_path / "tiny.json").read_text())["stopped"] == "second"


# ---------------------------------------------------------------- shell scripts


def _bash(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args], cwd=cwd, env=env or ENV, capture_output=True, text=True, timeout=120
    )


def test_train_seeds_without_arguments_prints_its_usage():
    proc = _bash("scripts/train_seeds.sh")
    assert proc.returncode != 0 and "unbound variable" not in proc.stderr
    assert (
        proc.stderr.strip()
        == "usage: scripts/train_seeds.sh CONFIG SECONDS SEED [SEED ...] [-- key=value ...]"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["smoke", "0", "1"], "train_seeds.sh: SECONDS: a duration > 0"),
        (["smoke", "10", "x"], "train_seeds.sh: SEED: a whole number >= 0, got 'x'"),
        (["nosuch", "10", "1"], "train_seeds.sh: config 'nosuch': no such file and no shipped config"),
        (
            ["smoke", "10", "1", "--", "num_envs=0"],
            "train_seeds.sh: num_envs: Input should be greater than 0",
        ),
        # a shipped config's name resolves (else the config error above): then the seeds are checked
        (["smoke", "10", "1", "1"], "train_seeds.sh: SEED: each seed once"),
    ],
)
def test_train_seeds_refuses_bad_input_before_any_run(args, says, tmp_path):
    proc = _bash(str(SCRIPTS / "train_seeds.sh"), *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().startswith(says) and proc.stderr.count("\n") == 1, proc.stderr
    assert list(tmp_path.iterdir()) == []  # no run started: no log


#: a stand-in for ``python``: runs the real one, except ``-m baselines.ppo``, a trainer that waits for the
#: SIGINT and then, as $MODE says, saves (exit 0), crashes (exit 1) or exits 0 without saving
FAKE_PYTHON = """#!/bin/bash
if [ "$1 $2" != "-m baselines.ppo" ]; then exec {python} "$@"; fi
for a in "$@"; do case $a in run_name=*) run=${{a#run_name=}};; out_dir=*) out=${{a#out_dir=}};; esac; done
on_int() {{
  kill "$sleeper" 2>/dev/null
  case $MODE in
    save) mkdir -p "$out/$run" && touch "$out/$run/latest.pt" "$out/$run/policy.pt"; exit 0;;
    crash) echo "error while saving" >&2; exit 1;;
    *) exit 0;;
  esac
}}
trap on_int INT
sleep 60 & sleeper=$!
wait "$sleeper"
exit 5
"""


@pytest.mark.parametrize(
    ("mode", "stale", "rc", "says"),
    [
        ("save", False, 0, "seed 1: {runs}/smoke_seed1/latest.pt, {runs}/smoke_seed1/policy.pt"),
        ("crash", False, 1, "train_seeds.sh: seed 1 failed: the trainer exited with 1"),
        ("quiet", False, 1, "train_seeds.sh: seed 1 failed: no latest.pt and policy.pt written"),
        ("quiet", True, 1, "train_seeds.sh: seed 1 failed: no latest.pt and policy.pt written"),
    ],
)
def test_train_seeds_trusts_the_trainers_status_and_this_runs_checkpoints(mode, stale, rc, says, tmp_path):
    """--preserve-status: the trainer's own status after the SIGINT decides, not timeout's 124 (which a
    crash while saving also got); and a seed counts only with latest.pt and policy.pt from this run."""
    bin_dir, runs = tmp_path / "bin", tmp_path / "runs"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(FAKE_PYTHON.format(python=sys.executable))
    (bin_dir / "python").chmod(0o755)
    if stale:  # an earlier run's files must not pass for this run's
        (runs / "smoke_seed1").mkdir(parents=True)
        for name in ("latest.pt", "policy.pt"):
            (runs / "smoke_seed1" / name).touch()
            os.utime(runs / "smoke_seed1" / name, (1e9, 1e9))
    env = {**ENV, "PATH": f"{bin_dir}:{ENV['PATH']}", "MODE": mode}
    proc = _bash(
        str(SCRIPTS / "train_seeds.sh"), "smoke", "1", "1", "--", f"out_dir={runs}", env=env, cwd=tmp_path
    )
    assert proc.returncode == rc, (proc.stdout, proc.stderr)
    assert says.format(runs=runs) in (proc.stdout if rc == 0 else proc.stderr), (proc.stdout, proc.stderr)
    assert (tmp_path / "train_smoke_seed1.log").exists()


def _dry_device_check(tmp_path: Path, fail_on: str, part: str, out: Path) -> subprocess.CompletedProcess[str]:
    """device_check.sh in a copy of the tree whose python3 and nvidia-smi are stand-ins: each step
    succeeds unless its command line holds ``fail_on``."""
    tree, bin_dir = tmp_path / "tree", tmp_path / "bin"
    (tree / "scripts").mkdir(parents=True, exist_ok=True)
    (tree / ".whl").mkdir(exist_ok=True)
    (tree / ".whl" / "stand_in-0-py3-none-any.whl").touch()
    shutil.copy(SCRIPTS / "device_check.sh", tree / "scripts")
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").write_text(
        '#!/bin/bash\n[ "$1 $2" = "-m pip" ] && exit 0\necho "python3 $*"\n'
        'case " $* " in *"$FAIL_ON"*) [ -n "$FAIL_ON" ] && exit 3;; esac\nexit 0\n'
    )
    (bin_dir / "nvidia-smi").write_text("#!/bin/bash\necho stand-in GPU\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = {**ENV, "PATH": f"{bin_dir}:{ENV['PATH']}", "OUT": str(out), "FAIL_ON": fail_on}
    return _bash(str(tree / "scripts" / "device_check.sh"), part, env=env)


@pytest.mark.skipif(Path("/tmp/site").exists(), reason="the script writes /tmp/site/sitecustomize.py")
def test_device_check_fails_when_a_step_fails_and_starts_a_fresh_summary(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.txt").write_text("=== engine_bench: rc=0 in 1 s (an earlier run's)\n")
    proc = _dry_device_check(tmp_path, "", "engine", out)
    assert proc.returncode == 0, proc.stderr
    summary = (out / "summary.txt").read_text()
    assert "earlier run" not in summary
    assert [line.split(":")[0] for line in summary.splitlines()] == [
        "=== machine", "=== engine_tests", "=== engine_bench", "=== engine_launches"
    ]  # fmt: skip
    proc = _dry_device_check(tmp_path, "scripts/bench.py", "engine", out)
    assert proc.returncode == 1
    assert "=== engine_bench: rc=3" in proc.stdout and "device_check: 1 step(s) failed" in proc.stderr
    proc = _dry_device_check(tmp_path, "test_fast_gpu.py", "train", out)
    assert proc.returncode == 1 and "=== train_test: rc=3" in (out / "summary.txt").read_text()


def test_mutation_test_fails_loudly_when_mutmut_cannot_run(tmp_path, monkeypatch, capsys):
    """When ``mutmut run`` fails (the tests fail on the unmutated copy: no mutant is run), the script says
    so and exits 1 instead of writing a summary of mutants "not checked"."""
    mutation = _scripts_module("mutation_test")
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command[:2])
        code = 1 if command[:2] == ["mutmut", "run"] else 0
        return subprocess.CompletedProcess(command, code, stdout=b"", stderr=b"")

    monkeypatch.setattr(mutation.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(mutation.subprocess, "run", fake_run)
    monkeypatch.setattr(mutation.tempfile, "mkdtemp", lambda prefix: str(tmp_path / "work"))
    (tmp_path / "work").mkdir()
    assert mutation.main(["bots", "--out", str(tmp_path / "out")]) == 1
    assert calls[-1] == ["mutmut", "run"] and not (tmp_path / "out" / "summary.txt").exists()
    assert "mutmut run failed (exit 1)" in capsys.readouterr().out
