"""Mutation testing of the rule modules: do the tests fail when a rule is changed? (docs/testing.md)

mutmut changes one operator, constant or call at a time in the modules of a TARGET and runs the tests
that reach the changed function; a change no test notices "survives". mutmut reads its settings from
``pyproject.toml`` and writes ``mutants/`` beside it, so this script copies the committed tree (HEAD)
to a scratch folder, writes the TARGET's settings there, runs ``mutmut run`` and leaves every
survivor's diff in ``OUT/survivors.txt`` (``mutmut show``) with the counts in ``OUT/summary.txt``.

    pip install mutmut==3.8.1
    OMP_NUM_THREADS=1 python scripts/mutation_test.py quatro      # ~20 min on one core
    OMP_NUM_THREADS=1 python scripts/mutation_test.py companions  # Kwartet and Cuatrola, ~20 min
"""

from __future__ import annotations

import collections
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from quatro_env.common.cli import OneLineParser, output_dir_problem

ROOT = Path(__file__).resolve().parents[1]
#: the modules each target mutates and the tests it runs against them
TARGETS = {
    "quatro": (
        ["quatro_env/quatro/engine.py"],
        ["tests/quatro/", "tests/test_quatro_properties.py"],
    ),
    "quatro-encoding": (
        ["quatro_env/quatro/encoding.py", "quatro_env/quatro/actions.py", "quatro_env/quatro/cards.py"],
        ["tests/quatro/", "tests/test_quatro_properties.py"],
    ),
    "companions": (
        [
            "quatro_env/kwartet/game.py",
            "quatro_env/kwartet/cards.py",
            "quatro_env/cuatrola/state.py",
            "quatro_env/cuatrola/tricks.py",
            "quatro_env/cuatrola/scoring.py",
            "quatro_env/cuatrola/cards.py",
        ],
        ["tests/kwartet/", "tests/cuatrola/"],
    ),
    "adapters": (
        ["quatro_env/quatro/env.py", "quatro_env/kwartet/env.py", "quatro_env/cuatrola/env.py"],
        [
            "tests/quatro/",
            "tests/kwartet/",
            "tests/cuatrola/",
            "tests/test_quatro_properties.py",
            "tests/test_bad_input.py",
            "tests/render/",
        ],
    ),
    # the numpy bots (listening.py and cover.py lend numba functions to the batched rows, which mutmut's
    # trampolines would break); the batched rows' differential test (tests/baselines/test_fast_bots.py)
    # is left out: it recompiled the rows for each mutant, ~15 s each
    "bots": (
        ["quatro_env/bots/base.py", "quatro_env/bots/basic.py", "quatro_env/bots/signalling.py"],
        ["tests/eval/test_bots.py", "tests/eval/test_secrecy_bots.py", "tests/eval/test_partner_play.py"],
    ),
    # scripted positions (Q31): reset options checked before anything changes, then applied
    "positions": (
        ["quatro_env/quatro/positions.py", "quatro_env/quatro/scripted.py"],
        ["tests/quatro/", "tests/test_bad_input.py", "tests/test_quatro_properties.py"],
    ),
    # the secrecy yardstick's arithmetic (issue 18): the matched AUCs and their bootstrap, the linear
    # probes and the Wilson interval, against the tests that call them directly (tests/eval as a whole,
    # or with the harness's, ran 3 mutants a minute: its matches call the probes' tracker every tick);
    # the GRU decoders (secrecy.py) are left out, their fits take seconds per mutant
    "metrics": (
        ["quatro_env/eval/matched.py", "quatro_env/eval/probe.py", "quatro_env/common/stats.py"],
        ["tests/eval/test_secrecy.py", "tests/eval/test_probe_features.py", "tests/test_wilson_interval.py"],
    ),
    # what Eve and Bob are given (issue 18): the decoders' inputs cut from the observations, and the
    # fixed card-counting readers
    "readers": (
        ["quatro_env/eval/decoder_inputs.py", "quatro_env/eval/readers.py"],
        [
            "tests/eval/test_readers.py",
            "tests/eval/test_decoy_pairs.py",
            "tests/eval/test_ending_calls.py",
            "tests/eval/test_secrecy.py",
        ],
    ),
    # files people share (hardening): the safe checkpoint loader and its payload checks, the config
    # files' reader and overrides, and the strict value checks they all use; the source scan for unsafe
    # loaders (the rest of tests/security/test_no_unsafe_loads.py) is left out: it reads mutmut's copy,
    # which holds every mutant's version of a function side by side (``weights_only=False`` among them)
    "files": (
        [
            "baselines/checkpoint_io.py",
            "baselines/payload_checks.py",
            "quatro_env/common/configs.py",
            "quatro_env/common/overrides.py",
            "quatro_env/common/yaml_text.py",
            "quatro_env/common/strict.py",
        ],
        [
            "tests/security/test_malicious_checkpoints.py",
            "tests/security/test_checkpoint_files.py",
            "tests/security/test_no_unsafe_loads.py::test_the_config_loader_is_a_safe_loader_that_builds_no_object",
            "tests/security/test_no_unsafe_loads.py::test_the_config_loader_builds_json_data_only",
            "tests/test_config_files.py",
            "tests/test_strict_values.py",
            "tests/packaging/test_configs_and_cli.py",
            "tests/test_bad_input.py",
            "tests/baselines/test_bad_files.py",
            "tests/baselines/test_bad_input.py",
            "tests/baselines/test_league_bad_input.py",
        ],
    ),
    # the Gymnasium vector view of the batched engine (slots, bot seats, action checks); plain Python
    # around the compiled programs, which the differential tests hold to the reference engine
    "vector": (
        ["quatro_env/batched/vector.py"],
        [
            "tests/batched/test_vector_env.py",
            "tests/integrations/test_gym_vector.py",
            "tests/batched/test_strict_inputs.py",
            "tests/batched/test_vector_bots.py",
            "tests/batched/test_batched.py",
        ],
    ),
    "replay": (
        ["quatro_env/replay/loader.py", "quatro_env/replay/format.py", "quatro_env/replay/records.py"],
        ["tests/replay/", "tests/test_bad_input.py"],
    ),
}


def settings(target: str) -> str:
    """The ``[tool.mutmut]`` table of ``target`` (a JSON list of strings is a TOML array): mutmut copies
    ``tests/`` whole; the rest of the package, and the docs and scripts some tests read, are copied
    unchanged."""
    mutate, tests = TARGETS[target]
    table = {
        "source_paths": mutate,
        "pytest_add_cli_args_test_selection": tests,
        "also_copy": ["quatro_env/", "baselines/", "docs/", "README.md", "configs/", "scripts/"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-x", "-q"],
    }
    return "\n[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="mutation_test.py", description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--out", type=Path, default=None, help="summary folder (default: the scratch copy)")
    args = parser.parse_args(argv)
    if args.out is not None and (problem := output_dir_problem(args.out, ("summary.txt", "survivors.txt"))):
        parser.error(f"argument --out: {problem}")
    if shutil.which("mutmut") is None:
        parser.error("mutmut is not installed: pip install mutmut==3.8.1")
    work = Path(tempfile.mkdtemp(prefix=f"mutation_{args.target}_"))
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-xf", "-"], cwd=work, input=archive, check=True)
    with open(work / "pyproject.toml", "a") as f:
        f.write(settings(args.target))
    run = subprocess.run(["mutmut", "run", "--max-children", "1"], cwd=work, check=False)
    if run.returncode != 0:  # e.g. the tests fail on the unmutated copy: no mutant was run
        print(f"mutation_test.py: mutmut run failed (exit {run.returncode}) in {work}; see its output above")
        return 1
    listed = subprocess.run(["mutmut", "results", "--all", "true"], cwd=work, capture_output=True, text=True)
    status = dict(line.strip().rsplit(": ", 1) for line in listed.stdout.splitlines() if ": " in line)
    out = args.out or work
    out.mkdir(parents=True, exist_ok=True)
    counts = collections.Counter(status.values())
    survivors = sorted(name for name, what in status.items() if what == "survived")
    with open(out / "survivors.txt", "w") as f:
        for name in survivors:
            shown = subprocess.run(["mutmut", "show", name], cwd=work, capture_output=True, text=True).stdout
            f.write(f"## {name}\n{shown}\n")
    summary = f"{args.target}: {sum(counts.values())} mutants, " + ", ".join(
        f"{what} {k}" for what, k in counts.most_common()
    )
    (out / "summary.txt").write_text(summary + "\n")
    print(summary, f"\nsurvivors' diffs: {out / 'survivors.txt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
