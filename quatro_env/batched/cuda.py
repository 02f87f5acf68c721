"""The batched engine on a GPU: the table programs of ``program/``, one CUDA thread per table.

``BatchedQuatroEngine(backend="cuda")`` runs these launches. The rules are not written again here:
``load_program`` executes the rule files of ``program/`` a second time, with their functions compiled
as numba-cuda device functions, and each kernel below is the CPU loop's body for its thread's table.
A tick is five launches (check the actions, tick, reset the finished tables, observations, masks) and
four more with ``keep_final`` (the final views); a sampling is one. The work space has one row per table.

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
from types import ModuleType, SimpleNamespace

from numba import cuda  # a module global: the simulator swaps it in the kernels' globals

#: threads per block (tables per block)
BLOCK = 128


def simulated() -> bool:
    """True when numba's CUDA simulator stands in for a GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def available() -> bool:
    """numba-cuda can run kernels here: a GPU with a driver, or the simulator."""
    return simulated() or cuda.is_available()


#: the rule files, each after those it imports from (``program/loops.py`` is the CPU's alone)
RULE_FILES = ("draws", "round", "tick", "view")
PACKAGE = "quatro_env.batched.program"


@cache
def load_program() -> SimpleNamespace:
    """The rule files compiled for the GPU: the same sources, executed again while a ``target`` module
    whose ``rule`` is numba-cuda's device decorator stands in for the CPU's. Each rule file imports its
    siblings by name, so each is registered under its own name while the next ones execute; the CPU
    modules are put back afterwards."""
    target = ModuleType(f"{PACKAGE}.target")
    target.rule = cuda.jit(device=True)
    names = (target.__name__, *(f"{PACKAGE}.{stem}" for stem in RULE_FILES))
    saved = {name: sys.modules.get(name) for name in names}
    built = {}
    try:
        sys.modules[target.__name__] = target
        for stem in RULE_FILES:
            path = Path(__file__).with_name("program") / f"{stem}.py"
            spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{stem}", path)
            built[stem] = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(built[stem])
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return SimpleNamespace(**built)


@cache
def kernels() -> SimpleNamespace:
    """The launches, with the CPU loops' names and arguments (the engine calls either set)."""
    prog = load_program()
    reset_table, check_table, tick_table = prog.round.reset_table, prog.tick.check_table, prog.tick.tick_table
    encode_table, masks_table, sample_table = (
        prog.view.encode_table,
        prog.view.masks_table,
        prog.view.sample_table,
    )

    @cuda.jit
    def reset_kernel(rows, prm, K, S, V):
        b = cuda.grid(1)
        if b < rows.shape[0] and rows[b]:
            reset_table(b, prm, K, S, V)

    @cuda.jit
    def check_kernel(actions, masks, num_actions, illegal, out):
        b = cuda.grid(1)
        if b < actions.shape[0]:
            check_table(b, actions, masks, num_actions, illegal, out)

    @cuda.jit
    def tick_kernel(actions, prm, K, S, V, R, REC, W):
        b = cuda.grid(1)
        if b < actions.shape[0]:
            tick_table(b, actions, prm, K, S, V, R, REC, W, b)

    @cuda.jit
    def encode_kernel(rows, all_rows, obs, prm, offs, S, V, W):
        b = cuda.grid(1)
        if b < obs.shape[0] and (all_rows or rows[b]):
            encode_table(b, obs, prm, offs, S, V, W, b)

    @cuda.jit
    def masks_kernel(rows, all_rows, masks, kind_legal, prm, K, S):
        b = cuda.grid(1)
        if b < masks.shape[0] and (all_rows or rows[b]):
            masks_table(b, masks, kind_legal, prm, K, S)

    @cuda.jit
    def sample_kernel(u, kind_legal, K, out, W):
        b = cuda.grid(1)
        if b < kind_legal.shape[0]:
            sample_table(b, u, kind_legal, K, out, W, b)

    @cuda.jit
    def copy_kernel(rows, src, dst):
        b = cuda.grid(1)
        if b < rows.shape[0] and not rows[b]:
            for i in range(src.shape[1]):
                for j in range(src.shape[2]):
                    dst[b, i, j] = src[b, i, j]

    stats = {"launches": 0}  # kernel launches so far (scripts/bench.py reports them per tick)

    def launcher(kernel):
        """A launch of one thread per table; every kernel's first argument has a row per table."""

        def launch(*args):
            stats["launches"] += 1
            size = args[0].shape[0]
            block = min(BLOCK, max(size, 1))
            kernel[(size + block - 1) // block, block](*args)

        return launch

    launches = {  # the CPU loop's name: its kernel
        "reset_rows": reset_kernel,
        "check_actions": check_kernel,
        "tick_all": tick_kernel,
        "encode": encode_kernel,
        "compute_masks": masks_kernel,
        "sample": sample_kernel,
        "copy_rows_not": copy_kernel,
    }
    return SimpleNamespace(
        **{name: launcher(kernel) for name, kernel in launches.items()},
        stats=stats,
        # the kernels' Python functions (scripts/cuda_ptx.py compiles them for a device)
        sources={f.__name__: f for k in launches.values() if (f := getattr(k, "py_func", None)) is not None},
    )


def kernel_sources() -> dict:
    """Each kernel's Python function, by name."""
    return kernels().sources
