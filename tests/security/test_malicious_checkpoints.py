"""A crafted checkpoint runs no code through any public loader (issue #15 item 1).

Each malicious file would create a marker file when unpickled (``__reduce__`` calling
``os.system`` or ``exec``). Every loader — the library APIs, ``as_policy`` in all its forms,
``quatro-eval FILE`` / ``checkpoint:FILE``, ``quatro-train --resume FILE``, ``quatro-exploit FILE``,
the scripts and ``quatro-convert`` without ``--trusted`` — refuses it with a message naming the
file and how to convert a trusted one, and the marker never appears. A bot name always means the
bot, even with a malicious file of that name in the working directory.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baselines.checkpoint_io import POLICY_FORMAT, TRAINER_FORMAT, UnsafeCheckpointError, load_checkpoint
from baselines.convert import main as convert_main
from baselines.exploit import frozen_policy
from baselines.exploit import main as exploit_main
from baselines.policy import PPOPolicy, load_model, load_policy_file
from baselines.train_cli import main as train_main
from baselines.trainer_state import load_trainer_checkpoint
from quatro_env.eval import as_policy
from quatro_env.eval.cli import main as eval_main


class _System:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _Exec:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


def _malicious_files(tmp_path: Path) -> tuple[Path, list[Path]]:
    marker = tmp_path / "MARKER"
    files = []
    for i, payload in enumerate(
        (
            {"model": _System(marker), "obs_dim": 467, "num_actions": 74, "rnn_size": 8},  # old layout
            {"format": POLICY_FORMAT, "model": {"w": torch.zeros(1)}, "config": _Exec(marker)},
            {"format": TRAINER_FORMAT, "bots": _System(marker)},
            _Exec(marker),  # the whole file one object
        )
    ):
        path = tmp_path / f"evil{i}.pt"
        torch.save(payload, path)
        files.append(path)
    raw = tmp_path / "evil_raw.pt"  # a bare pickle, not torch's zip
    raw.write_bytes(pickle.dumps(_System(marker)))
    files.append(raw)
    return marker, files


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, f"scripts/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LIBRARY_LOADERS = {
    "load_checkpoint": lambda p: load_checkpoint(p),
    "load_trainer_checkpoint": load_trainer_checkpoint,
    "load_policy_file": load_policy_file,
    "load_model": load_model,
    "PPOPolicy": lambda p: PPOPolicy(4, 0, path=str(p)),
    "as_policy(path)": lambda p: as_policy(str(p)).build(4, 0),
    "as_policy(Path)": lambda p: as_policy(Path(p)).build(4, 0),
    "as_policy(checkpoint:)": lambda p: as_policy(f"checkpoint:{p}").build(4, 0),
    "as_policy(torchscript:)": lambda p: as_policy(f"torchscript:{p}").build(4, 0),
    "as_policy(team)": lambda p: as_policy(("honest", f"checkpoint:{p}")).build(4, 0, member=1),
    "frozen_policy (quatro-exploit)": lambda p: frozen_policy(str(p)),
}


@pytest.mark.parametrize("loader", sorted(LIBRARY_LOADERS))
def test_every_library_loader_refuses_a_malicious_file(loader, tmp_path):
    marker, files = _malicious_files(tmp_path)
    for path in files:
        with pytest.raises(ValueError, match=r"evil") as refused:
            LIBRARY_LOADERS[loader](path)
        assert not marker.exists(), f"{loader} ran code from {path.name}"
        if isinstance(refused.value, UnsafeCheckpointError):
            assert "quatro-convert" in str(refused.value) and "--trusted" in str(refused.value)


def test_the_command_lines_refuse_a_malicious_file_in_one_line(tmp_path, capsys, monkeypatch):
    marker, files = _malicious_files(tmp_path)
    for path in files:
        for policy in (str(path), f"checkpoint:{path}"):
            assert eval_main([policy, "random", "--matches", "1", "--no-progress"]) == 2
        with pytest.raises(SystemExit) as stop:
            train_main(["--resume", str(path)])
        assert stop.value.code == 2
        assert convert_main([str(path), str(tmp_path / "converted.pt")]) == 2  # not without --trusted
        assert exploit_main([str(path), "--steps", "100"]) == 2
        for script, argv in (
            ("sign_probability", [str(path)]),
            ("ship_checkpoint", [str(path), "x", "--dest", str(tmp_path / "shipped")]),
        ):
            with pytest.raises(SystemExit) as stop:
                _script(script).main(argv)
            assert stop.value.code == 2
        assert not marker.exists(), f"a command ran code from {path.name}"
    assert not (tmp_path / "shipped").exists()
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    commands = ("quatro-eval", "quatro-train", "quatro-convert", "quatro-exploit")
    scripts = ("sign_probability.py", "ship_checkpoint.py")
    prefixes = tuple(f"{name}: " for name in commands + scripts)
    assert lines and all(line.startswith(prefixes) for line in lines), lines
    assert "refused" in err and "Traceback" not in err


def test_a_bot_name_means_the_bot_even_beside_a_file_of_that_name(tmp_path, monkeypatch, capsys):
    """``quatro-eval honest random`` with malicious files ``./honest``, ``./random``, ``./ppo_4p``."""
    marker = tmp_path / "MARKER"
    monkeypatch.chdir(tmp_path)
    for name in ("honest", "random", "ppo_4p", "honest+random"):
        torch.save({"model": _System(marker)}, tmp_path / name)
    assert as_policy("honest").kind == "bot" and as_policy("random").kind == "bot"
    assert as_policy("honest+random").kind == "team"
    assert dict(as_policy("ppo_4p").kwargs)["path"] == "ppo_4p"  # the shipped checkpoint
    PPOPolicy(4, 0, path="ppo_4p")  # resolves to baselines/checkpoints/ppo_4p.pt, not ./ppo_4p
    args = ["--matches", "1", "--round-seconds", "5", "--points-to-win", "1", "--probe-matches", "0"]
    assert eval_main(["honest", "random", *args, "--workers", "1", "--no-progress"]) == 0
    assert "| 0: honest |" in capsys.readouterr().out
    assert not marker.exists()
    with pytest.raises(ValueError, match="refused"):  # the file itself: named as a path
        as_policy("./honest")
    assert not marker.exists()


def test_old_format_files_are_refused_with_a_conversion_hint_and_convert(tmp_path):
    """An untagged policy of an earlier quatro-train (safe data) converts without --trusted; the
    same tensors come out."""
    old = load_policy_file("ppo_4p")
    del old["format"]
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(ValueError, match=r"older quatro-train file.*quatro-convert .*old\.pt NEW\.pt"):
        load_policy_file(tmp_path / "old.pt")
    assert convert_main([str(tmp_path / "old.pt"), str(tmp_path / "new.pt")]) == 0
    new = load_policy_file(tmp_path / "new.pt")
    assert new.keys() - old.keys() == {"format"}
    assert all(torch.equal(old["model"][k], new["model"][k]) for k in old["model"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600), flips=st.lists(st.integers(0, 10**6), max_size=4))
def test_any_bytes_are_refused_by_name_never_run(data, flips, tmp_path):
    """Arbitrary bytes, and a valid policy file with bytes changed: ValueError naming the file, no
    other exception, no code run. A change inside a member's data is always refused (the archive's
    CRCs are checked: torch's reader did not, and loaded changed weights); a change elsewhere (a
    header field torch does not read) may load, and then loads the file's very weights."""
    path = tmp_path / "fuzz.pt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match="fuzz.pt"):
        load_checkpoint(path)
    original = Path("baselines/checkpoints/ppo_4p.pt").read_bytes()
    valid = bytearray(original)
    flipped = {flip % len(valid) for flip in flips}
    for at in flipped:
        valid[at] ^= 0xFF
    path.write_bytes(bytes(valid))
    in_data = any(at in span for span in _member_data_spans(original) for at in flipped)
    try:
        loaded = load_checkpoint(path)
    except ValueError as exc:
        assert "fuzz.pt" in str(exc)
        return
    assert not in_data, "a member's data was changed and the file still loaded"
    reference = load_checkpoint("baselines/checkpoints/ppo_4p.pt")
    assert all(torch.equal(reference["model"][k], loaded["model"][k]) for k in reference["model"])


def _member_data_spans(raw: bytes) -> list[range]:
    """The byte ranges of the archive members' stored data (after each local header)."""
    import io
    import struct
    import zipfile

    spans = []
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for info in archive.infolist():
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
            start = info.header_offset + 30 + name_len + extra_len
            spans.append(range(start, start + info.compress_size))
    return spans


def test_a_flipped_weight_byte_is_refused_as_damaged(tmp_path):
    raw = bytearray(Path("baselines/checkpoints/ppo_4p.pt").read_bytes())
    for at in range(300_000, 300_050):  # inside a weight tensor's data
        raw[at] ^= 0xFF
    (tmp_path / "flipped.pt").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"flipped\.pt.*damaged"):
        load_checkpoint(tmp_path / "flipped.pt")
