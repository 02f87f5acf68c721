"""What the table programs are compiled for: the CPU (this module) or a GPU (``cuda.py``'s stand-in).

Every rule module decorates its functions with ``rule`` from here, and ``loops.py`` its loops over the
tables with ``loop``, walking them as ``range(first_table(), count, table_step())`` with the work-space
row ``work_row(b)``. For the CPU, ``rule`` is numba's ``njit`` without reference counting (it costs more
than the rules themselves when a table unpacks ~60 arrays), inlined into the loops; a loop walks every
table in one row of work space. ``cuda.py`` builds the GPU copy by executing the same files again while
a module of this name stands in for this one: ``rule`` is a device function, ``loop`` a kernel, and a
thread walks its own table (a grid-stride loop) in its own row. So both devices run one source.

numba caches each loop on disk and checks a cached loop against its own file only, but a loop inlines
rules from the other files: an edited rule would load stale machine code. So each loop is cached under
a name that carries ``PROGRAM_DIGEST``, the hash of every file of the package but ``loops.py``: a loop
built from other rules is cached under another name, and never loaded for these
(``tests/batched/test_program_cache.py``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit

rule = njit(cache=True, _nrt=False, inline="always")

#: the files whose functions the loops inline (every module of the package but ``loops.py``)
PROGRAM_FILES = tuple(sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "loops.py"))
PROGRAM_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in PROGRAM_FILES)).hexdigest()


def loop(function):
    """A loop over the tables, compiled without reference counting, cached under its name and the digest."""
    function.__qualname__ = f"{function.__name__}_{PROGRAM_DIGEST[:16]}"
    return njit(cache=True, _nrt=False)(function)


@rule
def first_table():
    return 0


@rule
def table_step():
    return 1


@rule
def work_row(b):
    return 0


@rule
def first_group():  # the spreads' rows: a row per group of threads (one group on the CPU, a warp on a GPU)
    return 0


@rule
def group_step():
    return 1


@rule
def lane():  # a thread's place in its group
    return 0


@rule
def lanes():
    return 1
