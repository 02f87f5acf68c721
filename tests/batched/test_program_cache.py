"""The CPU loops never load stale machine code from numba's on-disk cache.

numba checks a cached function against its own file only, and the loops inline rules from the other
files of ``program/``. So each loop is cached under a name that carries the digest of those files
(``target.PROGRAM_DIGEST``). Both halves are pinned here: the loops carry the digest of the files as
they are now, and, on a two-file example, an edited callee is recompiled instead of loaded.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")


def test_every_loop_is_cached_under_the_digest_of_every_rule_file():
    from quatro_env.batched.program import loops, target

    package = Path(loops.__file__).parent
    files = sorted(p for p in package.glob("*.py") if p.name != "loops.py")
    assert [p.name for p in target.PROGRAM_FILES] == [p.name for p in files]
    assert {"draws.py", "round.py", "tick.py", "view.py", "target.py", "layout.py"} <= {p.name for p in files}
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()
    assert digest == target.PROGRAM_DIGEST
    for name in (
        "reset_rows",
        "check_actions",
        "tick_all",
        "encode",
        "compute_masks",
        "encode_features",
        "spread_observations",
        "legal_kinds",
        "spread_masks",
        "sample",
        "copy_rows_not",
    ):
        assert getattr(loops, name).py_func.__qualname__ == f"{name}_{digest[:16]}", name


RULES = "from numba import njit\n\n\n@njit(cache=True, inline='always')\ndef rule(x):\n    return x + {k}\n"
LOOPS = textwrap.dedent(
    """
    import hashlib, pathlib
    import numpy as np
    from numba import njit
    from rules import rule

    DIGEST = hashlib.sha256(pathlib.Path(__file__).with_name("rules.py").read_bytes()).hexdigest()

    def loop(a):
        for i in range(a.shape[0]):
            a[i] = rule(a[i])

    loop.__qualname__ = "loop_" + DIGEST[:16]
    loop = njit(cache=True)(loop)
    a = np.zeros(2, np.int64)
    loop(a)
    print(int(a[0]), sum(loop.stats.cache_hits.values()))
    """
)


def test_an_edited_callee_in_another_file_is_recompiled_not_loaded_stale(tmp_path: Path):
    (tmp_path / "loops.py").write_text(LOOPS)

    def run(k: int) -> tuple[int, int]:
        (tmp_path / "rules.py").write_text(RULES.format(k=k))
        out = subprocess.run(
            [sys.executable, "loops.py"], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout.split()
        return int(out[0]), int(out[1])

    assert run(1) == (1, 0)  # compiled and cached
    assert run(1) == (1, 1)  # loaded from the cache
    assert run(2) == (2, 0)  # the callee changed: compiled again, not the stale (1)
