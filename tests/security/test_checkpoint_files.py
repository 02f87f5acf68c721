"""The safe checkpoint loader and the data checks every shared file passes (``baselines/checkpoint_io.py``,
``baselines/payload_checks.py``), called directly: each refusal, its exact message (the file by name,
what it is, what was expected), and what a save leaves behind. The loaders' callers are tested
through the trainer and the command lines (``test_malicious_checkpoints.py``,
``tests/baselines/test_bad_files.py``); these pin the pieces they share. Written against the mutants
that survived those tests (docs/testing.md, "files")."""

from __future__ import annotations

import os
import pickle
import re
import zipfile
from pathlib import Path

import pytest
import torch

from baselines import checkpoint_io as io
from baselines.payload_checks import (
    as_reals,
    check_config_fields,
    check_optimizer_state,
    check_tensor,
    check_weights,
)


def _saved(payload, tmp_path: Path, name: str = "file.pt") -> Path:
    path = tmp_path / name
    torch.save(payload, path)
    return path


def _refusal(path: Path, **kwargs) -> str:
    with pytest.raises(ValueError) as err:
        io.load_checkpoint(path, **kwargs)
    return str(err.value)


# ------------------------------------------------------------------ what a file says it is
def test_each_kind_of_untagged_or_foreign_file_is_named_with_what_was_expected(tmp_path):
    both = f"expected {io.POLICY_FORMAT} or {io.TRAINER_FORMAT}"
    older = _saved({"model": {}, "obs_dim": 3}, tmp_path, "older.pt")  # exactly the old keys
    assert _refusal(older) == (
        f"checkpoint {str(older)!r}: an older quatro-train file without a format tag; {both} "
        f"(convert it once: quatro-convert {older} NEW.pt)"
    )
    listed = _saved([1, 2], tmp_path, "list.pt")
    assert _refusal(listed) == (
        f"checkpoint {str(listed)!r}: a list without a format tag; {both} "
        f"(convert it once: quatro-convert {listed} NEW.pt)"
    )
    untagged = _saved({"weights": torch.zeros(1)}, tmp_path, "dict.pt")
    assert _refusal(untagged).startswith(f"checkpoint {str(untagged)!r}: a dict without a format tag; ")
    # a trainer checkpoint where a policy is wanted: named, and no conversion offered (none would help)
    trainer = _saved({"format": io.TRAINER_FORMAT}, tmp_path, "trainer.pt")
    assert _refusal(trainer, formats=[io.POLICY_FORMAT]) == (
        f"checkpoint {str(trainer)!r}: format {io.TRAINER_FORMAT!r}; expected {io.POLICY_FORMAT}"
    )
    assert io.load_checkpoint(trainer) == {"format": io.TRAINER_FORMAT}


def test_check_payload_refuses_another_format_a_non_mapping_and_missing_keys_by_name():
    io.check_payload({"format": "f/1", "a": 1}, "f/1", ["a"], "league file")
    with pytest.raises(ValueError, match=re.escape("league file: format 'g/1', expected 'f/1'")):
        io.check_payload({"format": "g/1", "a": 1}, "f/1", ["a"], "league file")
    with pytest.raises(ValueError, match=re.escape("league file: format 'list', expected 'f/1'")):
        io.check_payload([("format", "f/1")], "f/1", [], "league file")
    with pytest.raises(ValueError, match=re.escape("league file: format None, expected 'f/1'")):
        io.check_payload({"a": 1}, "f/1", ["a"], "league file")
    with pytest.raises(ValueError, match=re.escape("league file: missing ['b', 'c']")):
        io.check_payload({"format": "f/1", "a": 1}, "f/1", ["a", "b", "c"], "league file")


def _zip(tmp_path: Path, name: str, members: list[str]) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for member in members:
            archive.writestr(member, b"x")
    return path


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")  # torch's own
def test_a_torchscript_archive_is_told_by_both_its_constants_and_its_code(tmp_path):
    scripted = tmp_path / "scripted.pt"
    torch.jit.script(torch.nn.Linear(2, 2)).save(str(scripted))
    assert io.is_torchscript(scripted)
    assert _refusal(scripted) == (
        f"checkpoint {str(scripted)!r}: a TorchScript program, not a data checkpoint; "
        f"if you trust it, run it as torchscript:{scripted}"
    )
    assert not io.is_torchscript(_saved({"format": io.POLICY_FORMAT}, tmp_path))  # torch.save's zip
    assert not io.is_torchscript(_zip(tmp_path, "constants.zip", ["a/constants.pkl", "a/data.pkl"]))
    assert not io.is_torchscript(_zip(tmp_path, "code.zip", ["a/code/x.py", "a/data.pkl"]))
    assert io.is_torchscript(_zip(tmp_path, "both.zip", ["a/constants.pkl", "a/code/x.py"]))
    assert not io.is_torchscript(tmp_path / "missing.pt")


# ------------------------------------------------------------------ files that are no checkpoint
def test_refusals_of_a_missing_damaged_or_foreign_file_name_it(tmp_path):
    missing = tmp_path / "missing.pt"
    with pytest.raises(ValueError) as err:
        io.safe_torch_load(missing)
    assert str(err.value) == f"checkpoint {str(missing)!r}: no such file"

    odd = tmp_path / "odd.pt"  # a zip whose member uses a compression zipfile cannot read
    with zipfile.ZipFile(odd, "w") as archive:
        archive.writestr("data.pkl", b"x")
    raw = bytearray(odd.read_bytes())
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # the local and central headers' method field
        at = raw.index(header)
        offset = 8 if header == b"PK\x03\x04" else 10
        raw[at + offset : at + offset + 2] = (99).to_bytes(2, "little")
    odd.write_bytes(bytes(raw))
    with pytest.raises(ValueError) as err:
        io.safe_torch_load(odd)
    assert str(err.value).startswith(
        f"checkpoint {str(odd)!r}: damaged (unreadable archive: NotImplementedError: "
    )

    foreign = _zip(tmp_path, "foreign.pt", ["readme.txt"])  # a sound zip, but no torch file
    with pytest.raises(ValueError) as err:
        io.safe_torch_load(foreign)
    assert str(err.value).startswith(
        f"checkpoint {str(foreign)!r}: not a torch checkpoint file (RuntimeError: "
    )
    assert str(err.value).endswith("readme.txt)")  # torch's reason, in one line


class _Code:
    def __reduce__(self):
        return (os.getcwd, ())


def test_a_refused_object_names_the_global_it_would_have_called(tmp_path):
    path = _saved({"format": io.POLICY_FORMAT, "x": _Code()}, tmp_path)
    with pytest.raises(io.UnsafeCheckpointError) as err:
        io.safe_torch_load(path)
    message = str(err.value)
    assert message.startswith(f"checkpoint {str(path)!r}: refused: it holds pickled Python objects")
    reason = re.search(r"could run any code \((.*)\); if you trust", message).group(1)
    assert "posix.getcwd" in reason and not reason.lower().startswith("weights only load failed")
    assert message.endswith(f"quatro-convert {path} NEW.pt --trusted")


def test_a_broken_pickle_inside_a_sound_archive_is_named_with_torchs_reason_not_its_advice(tmp_path):
    """torch's text puts the reason ("Unsupported operand 255") after a line asking to file an issue,
    which the message quoted instead."""
    good = _saved({"format": io.POLICY_FORMAT}, tmp_path, "good.pt")
    broken = tmp_path / "broken.pt"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(broken, "w") as out:
        for info in source.infolist():  # the same archive, its pickle replaced (fresh checksums)
            data = source.read(info.filename)
            out.writestr(info, b"\x80\x02\xff." if info.filename.endswith("/data.pkl") else data)
    with pytest.raises(ValueError) as err:
        io.safe_torch_load(broken)
    assert not isinstance(err.value, io.UnsafeCheckpointError)
    assert (
        str(err.value) == f"checkpoint {str(broken)!r}: not a torch checkpoint file (Unsupported operand 255)"
    )


def test_the_loader_stays_safe_when_the_environment_asks_torch_for_unsafe_loads(tmp_path, monkeypatch):
    """``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` turns torch.load unsafe wherever ``weights_only`` is not
    passed; the loader passes it, so the file is still refused and its code never runs."""
    marker = tmp_path / "MARKER"

    class Touch:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    path = _saved({"format": io.POLICY_FORMAT, "x": Touch()}, tmp_path)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(io.UnsafeCheckpointError, match="posix.mkdir"):
        io.load_checkpoint(path)
    assert not marker.exists()


def test_unsafe_reason_drops_torchs_advice_and_falls_back_to_the_first_line():
    torch_says = pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded...\n"
        "Check the documentation of torch.load to learn more.\n"
        "WeightsUnpickler error: Unsupported global: GLOBAL posix.system\n"
    )
    assert io._unsafe_reason(torch_says) == "Unsupported global: GLOBAL posix.system"
    only_advice = pickle.UnpicklingError("Weights only load failed.\nCheck the documentation, please")
    assert io._unsafe_reason(only_advice) == "UnpicklingError: Weights only load failed."
    assert io.first_line(ValueError("first\nsecond")) == "ValueError: first"
    assert io.first_line(KeyError()) == "KeyError: "


# ------------------------------------------------------------------ saving
def test_a_save_makes_missing_folders_and_writes_through_a_hidden_temporary_beside_the_file(
    tmp_path, monkeypatch
):
    target = tmp_path / "a" / "b" / "policy.pt"
    moved = []
    real_replace = os.replace
    monkeypatch.setattr(io.os, "replace", lambda src, dst: (moved.append(Path(src)), real_replace(src, dst)))
    io.save_checkpoint({"format": io.POLICY_FORMAT}, target)
    assert io.load_checkpoint(target) == {"format": io.POLICY_FORMAT}
    (tmp,) = moved  # same folder, so os.replace is one atomic rename
    assert tmp.parent == target.parent
    assert tmp.name.startswith(".policy.pt.") and tmp.name.endswith(".tmp")
    assert sorted(p.name for p in target.parent.iterdir()) == ["policy.pt"]


def test_a_failed_save_raises_its_own_error_and_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "policy.pt"
    io.save_checkpoint({"format": io.POLICY_FORMAT, "n": 1}, target)
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError), match="lambda|local"):
        io.save_checkpoint({"format": io.POLICY_FORMAT, "f": lambda: 0}, target)  # cannot be pickled

    def full_disk(*args, **kwargs):
        raise RuntimeError("no space left on device")

    monkeypatch.setattr(io.torch, "save", full_disk)
    with pytest.raises(RuntimeError, match="no space left"):  # not mistaken for a Ctrl-C
        io.save_checkpoint({"format": io.POLICY_FORMAT, "n": 2}, target)
    assert io.load_checkpoint(target) == {"format": io.POLICY_FORMAT, "n": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["policy.pt"]


# ------------------------------------------------------------------ the data checks
def test_a_view_holding_fewer_bytes_than_its_values_is_refused():
    base = torch.zeros(8)
    check_tensor(base[4:], "w")  # an honest view: 4 values in the storage's last 16 bytes
    with pytest.raises(ValueError, match=re.escape("w is a view of 16 bytes standing for [6] values")):
        check_tensor(base[4:5].expand(6), "w")  # 6 values from 16 bytes past offset 4
    with pytest.raises(ValueError, match=re.escape("w is a view of 16 bytes standing for [8] values")):
        check_tensor(torch.zeros(4)[:1].expand(8), "w")  # twice the bytes it has


def test_weights_are_a_mapping_of_names_to_tensors_that_fit_the_network_named_exactly():
    like = {name: torch.zeros(2) for name in ("a", "b", "c", "d", "e")}
    must_map = "net must map parameter names to tensors"
    for weights in ({**like, "a": [0.0, 0.0]}, {1: torch.zeros(2)}, [("a", torch.zeros(2))]):
        with pytest.raises(ValueError) as err:
            check_weights(weights, "net", like)
        assert str(err.value) == must_map
    few = {k: like[k] for k in ("a",)}
    with pytest.raises(ValueError) as err:
        check_weights({**few, "x": torch.zeros(2)}, "net", like)
    assert str(err.value) == ("net does not fit the network: missing ['b', 'c', 'd'] ..., unexpected ['x']")
    with pytest.raises(ValueError) as err:
        check_weights({"a": like["a"]}, "net", {k: like[k] for k in ("a", "b", "c", "d")})
    assert str(err.value) == "net does not fit the network: missing ['b', 'c', 'd']"  # three: all named
    check_weights(dict(like), "net", like)


def _adam_state(steps: int = 1):
    param = torch.nn.Parameter(torch.zeros(3))
    optimizer = torch.optim.Adam([param])
    for _ in range(steps):
        param.grad = torch.ones(3)
        optimizer.step()
    return optimizer, optimizer.state_dict()


def test_an_optimizer_state_is_refused_by_name_for_its_structure_its_indices_and_its_dtypes():
    optimizer, saved = _adam_state()
    check_optimizer_state(saved, "opt", optimizer)
    shape_error = "opt must be an optimizer's state_dict (state and param_groups)"
    for bad in ({"state": {}, "param_groups": 5}, {"state": [], "param_groups": []}, [saved]):
        with pytest.raises(ValueError) as err:
            check_optimizer_state(bad, "opt", optimizer)
        assert str(err.value) == shape_error
    with pytest.raises(ValueError) as err:
        check_optimizer_state({"state": {}, "param_groups": [3]}, "opt")
    assert str(err.value) == "opt: param_groups[0] must be a mapping, got int"
    entry = saved["state"][0]
    for index, value in ((1, entry), (-1, entry), ("0", entry), (0, [entry])):  # one parameter: index 0
        with pytest.raises(ValueError) as err:
            check_optimizer_state(
                {"state": {index: value}, "param_groups": saved["param_groups"]}, "opt", optimizer
            )
        assert str(err.value) == f"opt: state[{index!r}] is not the state of one of its 1 parameters"
    doubled = {**entry, "exp_avg": entry["exp_avg"].double()}
    with pytest.raises(ValueError, match=re.escape("opt['state'][0]['exp_avg'] must be torch.float32")):
        check_optimizer_state(
            {"state": {0: doubled}, "param_groups": saved["param_groups"]}, "opt", optimizer
        )
    stepped = {**entry, "step": torch.tensor(1.0, dtype=torch.float64)}
    with pytest.raises(ValueError, match=re.escape("opt['state'][0]['step'] must be torch.float32")):
        check_optimizer_state(
            {"state": {0: stepped}, "param_groups": saved["param_groups"]}, "opt", optimizer
        )


def test_every_number_of_an_optimizer_group_is_finite_lists_included():
    _, saved = _adam_state()
    group = saved["param_groups"][0]
    for key, value in (("lr", float("nan")), ("betas", (0.9, float("inf")))):
        bad = {"state": saved["state"], "param_groups": [{**group, key: value}]}
        with pytest.raises(ValueError, match=re.escape(f"opt: param_groups[0][{key!r}]")):
            check_optimizer_state(bad, "opt")
    nan_moment = {0: {**saved["state"][0], "exp_avg": torch.full((3,), float("nan"))}}
    with pytest.raises(ValueError, match="non-finite"):
        check_optimizer_state({"state": nan_moment, "param_groups": saved["param_groups"]}, "opt")


def test_a_saved_config_and_a_list_of_returns_are_refused_naming_what_they_are():
    assert check_config_fields({"lr": 0.1}, "config") == {"lr": 0.1}
    for check, value, message in (
        (check_config_fields, [("lr", 0.1)], "config must be a mapping, got list"),
        (check_config_fields, {1: 0.1}, "config: 1 (int) is not a field name"),
        (as_reals, (1.0,), "config must be a list, got tuple"),
        (as_reals, [1.0, float("inf")], "config[1]: must be a finite number, got inf (float)"),
    ):
        with pytest.raises(ValueError) as err:
            check(value, "config")
        assert str(err.value) == message
    assert as_reals([1, 2.5], "returns") == [1.0, 2.5]
