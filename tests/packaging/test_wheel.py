"""The built wheel, installed in a fresh virtual environment outside the repository (issue #21, item 5):
the core install (no extras) runs the demo, finds a shipped config by name, registers the Gymnasium id
and names the extra a command lacks; with the training stack beside it, one config trains by name.

Slow (a wheel build and a pip install): ``.ci/run`` runs it explicitly, with ``QUATRO_WHEEL`` set to
the wheel it built (otherwise the test builds one).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], cwd: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**clean, "OMP_NUM_THREADS": "1", **env},
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("QUATRO_WHEEL")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("dist")
    pytest.importorskip("build")
    proc = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = glob.glob(str(out / "quatro_env-*.whl"))
    return Path(path)


def _fresh_venv(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    return where / "bin"


@pytest.fixture(scope="module")
def core(tmp_path_factory, wheel) -> tuple[Path, Path]:
    """A venv with the wheel and its core dependencies only; the working directory is empty."""
    base = tmp_path_factory.mktemp("core")
    bin_dir = _fresh_venv(base / "venv")
    proc = _run([str(bin_dir / "pip"), "install", "-q", str(wheel)], cwd=base)
    assert proc.returncode == 0, proc.stderr[-3000:]
    work = base / "work"
    work.mkdir()
    return bin_dir, work


def test_the_package_comes_from_the_wheel(core):
    bin_dir, work = core
    code = "import quatro_env, baselines; print(quatro_env.__file__); print(quatro_env.__version__)"
    proc = _run([str(bin_dir / "python"), "-c", code], cwd=work)
    assert proc.returncode == 0, proc.stderr
    location, version = proc.stdout.split()
    assert str(bin_dir.parent) in location and str(ROOT) not in location
    assert (
        version == (ROOT / "quatro_env" / "__init__.py").read_text().split('__version__ = "')[1].split('"')[0]
    )


def test_the_core_install_runs_the_demo(core):
    bin_dir, work = core
    proc = _run([str(bin_dir / "quatro-demo")], cwd=work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "is the API seat" in proc.stdout and "Where to go next:" in proc.stdout


def test_the_core_install_finds_configs_by_name_and_registers_gym(core):
    bin_dir, work = core
    code = (
        "import gymnasium as gym, quatro_env\n"
        "from quatro_env.common.configs import shipped_configs\n"
        "from baselines.config import load_config\n"
        "from quatro_env.integrations.train_rllib import load_config as rllib_config\n"
        "print(sorted(shipped_configs()))\n"
        "print(*(load_config(name).env_config().num_players for name in ('ppo_4p', 'ppo_6p')))\n"
        "print(rllib_config('rllib_ppo_4p')['run']['iterations'])\n"
        "env = gym.make('quatro_env/QuatroSingleAgent-v0')\n"
        "print(env.reset(seed=0)[0]['observation'].shape)\n"
    )
    proc = _run([str(bin_dir / "python"), "-c", code], cwd=work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    names, players, iterations, shape = proc.stdout.strip().splitlines()
    assert names == str(sorted(p.stem for p in (ROOT / "configs").glob("*.yaml")))
    assert players == "4 6" and iterations.isdigit() and shape == "(467,)"


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["quatro-eval", "honest", "decoy"], "[eval]"),
        (["quatro-train", "--config", "smoke"], "[train]"),
        (["quatro-train-rllib"], "[rllib]"),
        (["quatro-convert", "--help"], "[train]"),  # its module imports torch: checked before
        (["quatro-exploit", "--help"], "[train]"),
    ],
)
def test_a_command_needing_an_extra_says_which_in_one_line(core, command, extra):
    bin_dir, work = core
    proc = _run([str(bin_dir / command[0]), *command[1:]], cwd=work)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and extra in lines[0] and "pip install -e '.[" in lines[0], proc.stderr
    assert "<the wheel file>[" in lines[0]  # a wheel user has no clone to install from
    assert "Traceback" not in proc.stderr


def test_a_config_trains_by_name_from_the_wheel(tmp_path, wheel):
    """The wheel alone in a fresh venv, its training dependencies (torch, numba) borrowed from the
    running environment through a path entry (so no second torch install), trains ``smoke``."""
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    bin_dir = _fresh_venv(tmp_path / "venv")
    proc = _run([str(bin_dir / "pip"), "install", "-q", "--no-deps", str(wheel)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    purelib = Path(
        _run(
            [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            cwd=tmp_path,
        ).stdout.strip()
    )
    (purelib / "borrowed_site.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )  # appended after the wheel
    work = tmp_path / "work"
    work.mkdir()
    proc = _run(
        [
            str(bin_dir / "quatro-train"),
            "--config",
            "smoke",
            "--updates",
            "1",
            "eval_every=0",
            f"out_dir={work / 'runs'}",
        ],
        cwd=work,  # the table programs compile afresh in the new venv (a minute or two)
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (work / "runs" / "smoke" / "latest.pt").is_file()
    where = _run(
        [str(bin_dir / "python"), "-c", "import baselines; print(baselines.__file__)"], cwd=work
    ).stdout
    assert str(purelib) in where, "the trainer ran from the wheel, not from the repository"
