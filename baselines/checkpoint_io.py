"""Checkpoint files that load without running code, written atomically.

A policy (``policy.pt``, the shipped ``baselines/checkpoints/*.pt``) and a trainer checkpoint
(``latest.pt``, ``checkpoint_NNNNN.pt``) are torch zip files holding tensors and plain data only
(dicts, lists, numbers, strings), read with ``torch.load(weights_only=True)``: torch's restricted
unpickler, which refuses any Python object that would need code to rebuild. Policies are files
people download and share, so a file that would need code (an older ``quatro-train`` file, a
pickled ``nn.Module``, a crafted ``__reduce__``) is refused with a message that says how to
convert a *trusted* one (``quatro-convert``). Every file says what it is (``format``), so a
trainer checkpoint is never mistaken for a policy or the other way round.

Writes go to a temporary file in the same directory, then ``os.replace``: an interrupt or a full
disk during a save leaves the previous file whole.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

POLICY_FORMAT = "quatro-policy/1"
TRAINER_FORMAT = "quatro-trainer/1"
CONVERT_HINT = "convert it once: quatro-convert {path} NEW.pt"
TRUSTED_HINT = "if you trust the file, convert it once: quatro-convert {path} NEW.pt --trusted"


class UnsafeCheckpointError(ValueError):
    """The file would need code to load (pickled Python objects): refused, never executed."""


def is_torchscript(path: str | Path) -> bool:
    """A TorchScript archive (a program, not a checkpoint of data): it has ``constants.pkl``/``code/``."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False
    return any(n.endswith("/constants.pkl") for n in names) and any("/code/" in n for n in names)


def load_checkpoint(path: str | Path, formats: Iterable[str] = (POLICY_FORMAT, TRAINER_FORMAT)) -> dict:
    """The payload of a safe checkpoint file whose ``format`` is one of ``formats``.

    Raises :class:`UnsafeCheckpointError` for a file that would need code to load, and ValueError
    (naming the file and what is wrong) for a missing file, a non-checkpoint or another format."""
    path, formats = Path(path), tuple(formats)
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r}: no such file")
    if is_torchscript(path):
        raise ValueError(
            f"checkpoint {str(path)!r}: a TorchScript program, not a data checkpoint; "
            f"if you trust it, run it as torchscript:{path}"
        )
    payload = safe_torch_load(path)
    found = payload.get("format") if isinstance(payload, dict) else None
    if found not in formats:
        if found is None and isinstance(payload, dict) and {"model", "obs_dim"} <= set(payload):
            detail = "an older quatro-train file without a format tag"
        elif found is None:
            detail = f"a {type(payload).__name__} without a format tag"
        else:
            detail = f"format {found!r}"
        # converting helps an untagged (older) file only: a policy never becomes a trainer checkpoint
        hint = f" ({CONVERT_HINT.format(path=path)})" if found is None else ""
        raise ValueError(f"checkpoint {str(path)!r}: {detail}; expected {' or '.join(formats)}{hint}")
    return payload


def check_payload(state: Any, fmt: str, required: Iterable[str], what: str) -> None:
    """A loaded payload is a dict of format ``fmt`` holding every ``required`` key, or a ``ValueError``
    naming ``what`` it should have been (before anything is changed by it)."""
    if not isinstance(state, dict) or state.get("format") != fmt:
        found = state.get("format") if isinstance(state, dict) else type(state).__name__
        raise ValueError(f"{what}: format {found!r}, expected {fmt!r}")
    missing = [key for key in required if key not in state]
    if missing:
        raise ValueError(f"{what}: missing {missing}")


def safe_torch_load(path: str | Path) -> Any:
    """``torch.load(weights_only=True)`` with errors that say what the file is. The archive's CRCs are
    checked first: torch's reader does not, and 50 flipped bytes loaded as changed weights."""
    if not Path(path).is_file():
        raise ValueError(f"checkpoint {str(path)!r}: no such file")
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"checkpoint {str(path)!r}: not a torch checkpoint file (torch.save writes a zip archive)"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()  # the first member whose CRC does not match, or None
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError, NotImplementedError) as exc:
        damaged = f"unreadable archive: {first_line(exc)}"
    if damaged is not None:
        raise ValueError(f"checkpoint {str(path)!r}: damaged ({damaged} does not match its checksum)")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        if "global" not in str(exc).lower():  # not a refused object: a broken or foreign file
            raise ValueError(
                f"checkpoint {str(path)!r}: not a torch checkpoint file ({_unsafe_reason(exc)})"
            ) from None
        raise UnsafeCheckpointError(
            f"checkpoint {str(path)!r}: refused: it holds pickled Python objects, and loading them "
            f"could run any code ({_unsafe_reason(exc)}); {TRUSTED_HINT.format(path=path)}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a damaged file makes torch's reader raise anything
        # (KeyError from a corrupt pickle memo, RuntimeError from the zip reader, ...): one clear error
        raise ValueError(
            f"checkpoint {str(path)!r}: not a torch checkpoint file ({first_line(exc)})"
        ) from None


def save_checkpoint(payload: dict[str, Any], path: str | Path) -> None:
    """Write atomically: a temporary file beside ``path``, flushed, then ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it 0600; a shared file reads as any other
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:  # an interrupt too: never leave a half-written file behind
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, RuntimeError) and isinstance(exc.__context__, KeyboardInterrupt):
            # Ctrl-C inside torch.save: its zip writer's cleanup then fails ("unexpected pos") and
            # hides the interrupt; the caller must still see the Ctrl-C it handles
            raise KeyboardInterrupt from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def first_line(exc: BaseException) -> str:
    """An exception as one line: its type and its message's first line (torch's run on for pages)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _unsafe_reason(exc: BaseException) -> str:
    """torch's line naming the refused global (e.g. ``Unsupported global: GLOBAL posix.system``)."""
    lines = [line.strip().removeprefix("WeightsUnpickler error:").strip() for line in str(exc).splitlines()]
    lines = [line for line in lines if line]
    # torch's advice around the reason: to unpickle anyway, to file an issue, to read its documentation
    boilerplate = ("weights only load failed", "please file an issue", "check the documentation")
    specific = [line for line in lines if not line.lower().startswith(boilerplate)]
    return specific[0] if specific else first_line(exc)
