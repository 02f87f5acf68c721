"""The CPU loops: every table program of this package, run table after table (scratch row 0).

``cuda.py`` launches one GPU thread per table instead. numba caches each loop on disk, and its cache
checks only the loop's own file: a loop that inlined a rule since edited in another file would load
stale machine code. So each loop is built by ``_build`` as a closure over ``PROGRAM_DIGEST``, the
hash of every rule file of the package, and numba puts a closure's captured values in the cache key
(``tests/batched/test_program_cache.py`` pins both).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace

from numba import njit

from quatro_env.batched.program.round import reset_table
from quatro_env.batched.program.tick import check_table, tick_table
from quatro_env.batched.program.view import encode_table, masks_table, sample_table

#: the files whose functions the loops inline (every module of the package but this one)
PROGRAM_FILES = tuple(sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "loops.py"))
PROGRAM_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in PROGRAM_FILES)).hexdigest()


def _build(key: int) -> SimpleNamespace:
    """The loops, compiled with ``key`` (the digest) in their cache key."""
    built = {}

    def loop(function):
        built[function.__name__] = njit(cache=True, _nrt=False)(function)
        return built[function.__name__]

    @loop
    def reset_rows(rows, prm, K, S, V):
        """A fresh match on the tables where ``rows``."""
        _ = key  # a closure value: part of the cache key
        for b in range(rows.shape[0]):
            if rows[b]:
                reset_table(b, prm, K, S, V)

    @loop
    def check_actions(actions, masks, num_actions, illegal, out):
        """Legality at the start of the tick; returns the flat index of the first illegal action or -1."""
        _ = key  # a closure value: part of the cache key
        first = -1
        for b in range(actions.shape[0]):
            if check_table(b, actions, masks, num_actions, illegal, out) and first < 0:
                for s in range(actions.shape[1]):
                    if illegal[b, s] and first < 0:
                        first = b * actions.shape[1] + s
        return first

    @loop
    def tick_all(actions, prm, K, S, V, R, REC, W):
        """One tick on every table (scratch row 0, reused table after table)."""
        _ = key  # a closure value: part of the cache key
        for b in range(actions.shape[0]):
            tick_table(b, actions, prm, K, S, V, R, REC, W, 0)

    @loop
    def encode(rows, all_rows, obs, prm, offs, S, V, W):
        """Every seat's observation on the tables where ``rows`` (all of them if ``all_rows``)."""
        _ = key  # a closure value: part of the cache key
        for b in range(obs.shape[0]):
            if all_rows or rows[b]:
                encode_table(b, obs, prm, offs, S, V, W, 0)

    @loop
    def compute_masks(rows, all_rows, masks, kind_legal, prm, K, S):
        """Every seat's mask on the tables where ``rows`` (all of them if ``all_rows``)."""
        _ = key  # a closure value: part of the cache key
        for b in range(masks.shape[0]):
            if all_rows or rows[b]:
                masks_table(b, masks, kind_legal, prm, K, S)

    @loop
    def sample(u, kind_legal, K, out, W):
        """Uniformly random legal actions on every table."""
        _ = key  # a closure value: part of the cache key
        for b in range(kind_legal.shape[0]):
            sample_table(b, u, kind_legal, K, out, W, 0)

    @loop
    def copy_rows_not(rows, src, dst):
        """dst[b] = src[b] where not rows[b] (the terminal view of tables that did not finish)."""
        _ = key  # a closure value: part of the cache key
        for b in range(rows.shape[0]):
            if not rows[b]:
                for i in range(src.shape[1]):
                    for j in range(src.shape[2]):
                        dst[b, i, j] = src[b, i, j]

    return SimpleNamespace(**built)


_loops = _build(int(PROGRAM_DIGEST[:15], 16))
reset_rows = _loops.reset_rows
check_actions = _loops.check_actions
tick_all = _loops.tick_all
encode = _loops.encode
compute_masks = _loops.compute_masks
sample = _loops.sample
copy_rows_not = _loops.copy_rows_not
