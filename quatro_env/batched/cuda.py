"""The batched engine on a GPU: the table programs of ``program/``, one CUDA thread per table.

``BatchedQuatroEngine(backend="cuda")`` runs these launches. The rules are not written again here:
``load_program`` executes the files of ``program/`` a second time, with their rules compiled as
numba-cuda device functions and the loops of ``loops.py`` as kernels, one thread per table.
A tick is seven launches and a memset (check the actions, tick, reset the finished tables; the features,
the observations, the legal kinds, the masks) and six more with ``keep_final`` (the final views); a sampling
is one. The work space has one row per table. Observations and masks are written by the ``spread_*``
loops, a warp per row whose lanes write neighbouring bytes: the per-table copies of the CPU wrote bytes
a row apart from neighbouring threads, which took 12 of a 262,144-table tick's 17 ms on an H200
(docs/batched.md).

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) the same kernels run on the CPU, on numpy
arrays, one Python thread per table: that is how CI proves this path without a GPU (slowly: use a
small batch).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import FunctionType, ModuleType, SimpleNamespace

import numpy as np
from numba import cuda  # a module global: the simulator swaps it in the kernels' globals

#: threads per block (tables per block)
BLOCK = 128


def simulated() -> bool:
    """True when numba's CUDA simulator stands in for a GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def available() -> bool:
    """numba-cuda can run kernels here: a GPU with a driver, or the simulator."""
    return simulated() or cuda.is_available()


#: the program's files, each after those it imports from
COMPILE_ORDER = ("draws", "round", "tick", "view", "loops")
PACKAGE = "quatro_env.batched.program"
#: the loops of ``program/loops.py``, each launched as a kernel
LOOPS = (
    *("reset_rows", "check_actions", "tick_all", "encode_features", "spread_observations", "legal_kinds"),
    *("spread_masks", "sample", "copy_rows_not"),
)
#: loops over rows of output, a warp per row (under the simulator, one warp strides over every row)
SPREADS = ("spread_observations", "spread_masks")
WARP = 32


def _first_table():  # a thread's own table ...
    return cuda.grid(1)


def _table_step():  # ... and the next one after the whole grid (a grid-stride loop)
    return cuda.gridsize(1)


def _work_row(b):  # a thread has a row of work space of its own
    return b


def _first_group():  # the spreads: a warp per row, its lanes on neighbouring bytes
    return cuda.grid(1) // WARP


def _group_step():
    return cuda.gridsize(1) // WARP


def _lane():
    return cuda.grid(1) % WARP


def _lanes():
    return WARP


#: the target's functions for a thread's place in the grid, by the names the loops import
HELPERS = {
    "first_table": _first_table,
    "table_step": _table_step,
    "work_row": _work_row,
    "first_group": _first_group,
    "group_step": _group_step,
    "lane": _lane,
    "lanes": _lanes,
}


def require_compatible_numpy() -> None:
    """numba-cuda 0.30 registers an overload of ``np.row_stack``, which numpy 2.5 removed, so every
    compilation fails deep inside numba (NVIDIA/numba-cuda#907, not to be fixed there): say so first."""
    if not simulated() and not hasattr(np, "row_stack"):
        raise ImportError(
            f"backend 'cuda': numba-cuda 0.30 cannot compile with numpy {np.__version__} (numpy 2.5 "
            "removed np.row_stack, which it registers; NVIDIA/numba-cuda#907): install numpy<2.5, "
            "as quatro-env[gpu] pins"
        )


@cache
def load_program() -> SimpleNamespace:
    """The program compiled for the GPU: the same sources, executed again while a ``target`` module
    whose ``rule`` is numba-cuda's device decorator and ``loop`` its kernel decorator stands in for the
    CPU's. Each file imports its siblings by name, so each is registered under its own name while the
    next ones execute; the CPU modules are put back afterwards."""
    require_compatible_numpy()
    target = ModuleType(f"{PACKAGE}.target")
    device = cuda.jit(device=True)
    # Under the simulator a device function is the Python function wrapped in a per-call swap of its
    # module's ``cuda`` global; the rules do not name ``cuda``, so they run as the plain functions.
    target.rule = _plain if simulated() else device
    target.loop = cuda.jit
    for name, helper in HELPERS.items():
        setattr(target, name, device(helper))
    names = (target.__name__, *(f"{PACKAGE}.{stem}" for stem in COMPILE_ORDER))
    saved = {name: sys.modules.get(name) for name in names}
    built = {}
    try:
        sys.modules[target.__name__] = target
        for stem in COMPILE_ORDER:
            path = Path(__file__).with_name("program") / f"{stem}.py"
            spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{stem}", path)
            built[stem] = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(built[stem])
        if simulated():
            _helpers_read_the_launch(built["loops"])
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return SimpleNamespace(**built)


def _plain(fn):
    return fn


def _helpers_read_the_launch(loops: ModuleType) -> None:
    """Under the simulator, the grid helpers become plain functions of the loops' own globals.

    The simulator puts its fake ``cuda`` module in a kernel's globals for a whole launch, but in a device
    function's globals at each call, putting the real module back on return: with many threads in one
    helper, a thread returning left another reading ``numba.cuda.grid``, which the real module lacks
    (``module 'numba.cuda' has no attribute 'grid'``, once the spreads made each thread's work longer)."""
    space = vars(loops)
    space.update(cuda=cuda, WARP=WARP)
    for name, helper in HELPERS.items():
        space[name] = FunctionType(helper.__code__, space, name)


@cache
def kernels() -> SimpleNamespace:
    """The launches, under the CPU loops' names and with their arguments (the engine calls either set)."""
    loops = load_program().loops
    stats = {"launches": 0}  # kernel launches so far (scripts/bench.py reports them per tick)

    def launcher(name, kernel):
        """A launch of one thread per table (every loop's first argument has a row per table) or, for a
        spread, a warp per row of its first argument (``[tables, rows, bytes]``)."""
        spread = name in SPREADS

        def launch(*args):
            stats["launches"] += 1
            size = args[0].shape[0]
            if spread:
                size = WARP if simulated() else size * args[0].shape[1] * WARP
            block = min(BLOCK, max(size, 1))
            kernel[(size + block - 1) // block, block](*args)

        return launch

    return SimpleNamespace(**{name: launcher(name, getattr(loops, name)) for name in LOOPS}, stats=stats)


def kernel_sources() -> dict:
    """Each kernel's Python function, by its loop's name (``scripts/cuda_ptx.py`` compiles them)."""
    loops = load_program().loops
    return {name: getattr(loops, name).py_func for name in LOOPS}
