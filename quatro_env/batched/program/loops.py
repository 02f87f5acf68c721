"""The CPU loops: every table program of this package, run table after table (work-space row 0).

``cuda.py`` launches one GPU thread per table instead. numba caches each loop on disk and checks a
cached loop against its own file only, but a loop inlines rules from the other files: an edited rule
would load stale machine code. So each loop is cached under a name that carries ``PROGRAM_DIGEST``, the
hash of every other file of the package: a loop built from other rules is cached under another name,
and never loaded for these (``tests/batched/test_program_cache.py``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit

from quatro_env.batched.program.round import reset_table
from quatro_env.batched.program.tick import check_table, tick_table
from quatro_env.batched.program.view import encode_table, masks_table, sample_table

#: the files whose functions the loops inline (every module of the package but this one)
PROGRAM_FILES = tuple(sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "loops.py"))
PROGRAM_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in PROGRAM_FILES)).hexdigest()


def _loop(function):
    """A loop compiled without reference counting, cached under its name and the digest."""
    function.__qualname__ = f"{function.__name__}_{PROGRAM_DIGEST[:16]}"
    return njit(cache=True, _nrt=False)(function)


@_loop
def reset_rows(rows, prm, K, S, V):
    """A fresh match on the tables where ``rows``."""
    for b in range(rows.shape[0]):
        if rows[b]:
            reset_table(b, prm, K, S, V)


@_loop
def check_actions(actions, masks, num_actions, illegal, out):
    """Legality at the start of the tick; returns the flat index of the first illegal action or -1."""
    first = -1
    for b in range(actions.shape[0]):
        if check_table(b, actions, masks, num_actions, illegal, out) and first < 0:
            for s in range(actions.shape[1]):
                if illegal[b, s] and first < 0:
                    first = b * actions.shape[1] + s
    return first


@_loop
def tick_all(actions, prm, K, S, V, R, REC, W):
    """One tick on every table."""
    for b in range(actions.shape[0]):
        tick_table(b, actions, prm, K, S, V, R, REC, W, 0)


@_loop
def encode(rows, all_rows, obs, prm, offs, S, V, W):
    """Every seat's observation on the tables where ``rows`` (all of them if ``all_rows``)."""
    for b in range(obs.shape[0]):
        if all_rows or rows[b]:
            encode_table(b, obs, prm, offs, S, V, W, 0)


@_loop
def compute_masks(rows, all_rows, masks, kind_legal, prm, K, S):
    """Every seat's mask on the tables where ``rows`` (all of them if ``all_rows``)."""
    for b in range(masks.shape[0]):
        if all_rows or rows[b]:
            masks_table(b, masks, kind_legal, prm, K, S)


@_loop
def sample(u, kind_legal, K, out, W):
    """Uniformly random legal actions on every table."""
    for b in range(kind_legal.shape[0]):
        sample_table(b, u, kind_legal, K, out, W, 0)


@_loop
def copy_rows_not(rows, src, dst):
    """dst[b] = src[b] where not rows[b] (the terminal view of tables that did not finish)."""
    for b in range(rows.shape[0]):
        if not rows[b]:
            for i in range(src.shape[1]):
                for j in range(src.shape[2]):
                    dst[b, i, j] = src[b, i, j]
