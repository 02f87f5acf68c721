"""The batched engine on a GPU: the table programs of ``program.py``, one CUDA thread per table.

``BatchedQuatroEngine(backend="cuda")`` runs these launches. The rules are not written again here:
``load_program`` executes ``program.py`` a second time with its functions compiled as numba-cuda device
functions, and each kernel below is the CPU loop's body for its thread's table. A tick is five
launches (check the actions, tick, reset the finished tables, observations, masks), a sampling
sixth; the work space has one row per table.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) the same kernels run on the CPU, on numpy
arrays, one Python thread per table: that is how CI proves this path without a GPU (slowly: use a
small batch).
"""

from __future__ import annotations

import importlib.util
import os
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


@cache
def load_program() -> ModuleType:
    """``program.py`` compiled for the GPU: the same source, with numba-cuda's device decorator."""
    path = Path(__file__).with_name("program.py")
    spec = importlib.util.spec_from_file_location("quatro_env.batched._program_cuda", path)
    module = importlib.util.module_from_spec(spec)
    module.rule = cuda.jit(device=True)

    @cuda.jit(device=True)
    def claim(counter):
        return cuda.atomic.add(counter, 0, 1)

    module.claim = claim
    spec.loader.exec_module(module)
    return module


@cache
def kernels() -> SimpleNamespace:
    """The launches, with the CPU loops' names and arguments (the engine calls either set)."""
    prog = load_program()
    reset_table, check_table, tick_table = prog.reset_table, prog.check_table, prog.tick_table
    encode_table, masks_table, sample_table = prog.encode_table, prog.masks_table, prog.sample_table

    @cuda.jit
    def reset_kernel(rows, prm, sched, is_bot, S, V):
        b = cuda.grid(1)
        if b < rows.shape[0] and rows[b]:
            reset_table(b, prm, sched, is_bot, S, V)

    @cuda.jit
    def check_kernel(actions, masks, num_actions, illegal, out):
        b = cuda.grid(1)
        if b < actions.shape[0]:
            check_table(b, actions, masks, num_actions, illegal, out)

    @cuda.jit
    def tick_kernel(actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W):
        b = cuda.grid(1)
        if b < actions.shape[0]:
            tick_table(b, actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W, b)

    @cuda.jit
    def encode_kernel(rows, all_rows, obs, prm, offs, reveal_signs, S, V, W):
        b = cuda.grid(1)
        if b < obs.shape[0] and (all_rows or rows[b]):
            encode_table(b, obs, prm, offs, reveal_signs, S, V, W, b)

    @cuda.jit
    def masks_kernel(rows, all_rows, masks, kind_legal, lut, prm, S):
        b = cuda.grid(1)
        if b < masks.shape[0] and (all_rows or rows[b]):
            masks_table(b, masks, kind_legal, lut, prm, S)

    @cuda.jit
    def sample_kernel(u, kind_legal, size, start, out, W):
        b = cuda.grid(1)
        if b < kind_legal.shape[0]:
            sample_table(b, u, kind_legal, size, start, out, W, b)

    @cuda.jit
    def copy_kernel(rows, src, dst):
        b = cuda.grid(1)
        if b < rows.shape[0] and not rows[b]:
            for i in range(src.shape[1]):
                for j in range(src.shape[2]):
                    dst[b, i, j] = src[b, i, j]

    stats = {"launches": 0}  # kernel launches so far (scripts/bench.py reports them per tick)

    def grid(size: int) -> tuple[int, int]:
        stats["launches"] += 1
        block = min(BLOCK, max(size, 1))
        return (size + block - 1) // block, block

    def reset_rows(rows, prm, sched, is_bot, S, V):
        reset_kernel[grid(rows.shape[0])](rows, prm, sched, is_bot, S, V)

    def check_actions(actions, masks, num_actions, illegal, out):
        check_kernel[grid(actions.shape[0])](actions, masks, num_actions, illegal, out)

    def tick_all(actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W):
        tick_kernel[grid(actions.shape[0])](
            actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W
        )

    def encode(rows, all_rows, obs, prm, offs, reveal_signs, S, V, W):
        encode_kernel[grid(obs.shape[0])](rows, all_rows, obs, prm, offs, reveal_signs, S, V, W)

    def compute_masks(rows, all_rows, masks, kind_legal, lut, prm, S):
        masks_kernel[grid(masks.shape[0])](rows, all_rows, masks, kind_legal, lut, prm, S)

    def sample(u, kind_legal, size, start, out, W):
        sample_kernel[grid(kind_legal.shape[0])](u, kind_legal, size, start, out, W)

    def copy_rows_not(rows, src, dst):
        copy_kernel[grid(rows.shape[0])](rows, src, dst)

    return SimpleNamespace(
        reset_rows=reset_rows,
        check_actions=check_actions,
        tick_all=tick_all,
        encode=encode,
        compute_masks=compute_masks,
        sample=sample,
        copy_rows_not=copy_rows_not,
        stats=stats,
        sources={  # the kernels' Python functions (scripts/cuda_ptx.py compiles them for a device)
            name: getattr(k, "py_func", None)
            for name, k in (
                ("reset_kernel", reset_kernel),
                ("check_kernel", check_kernel),
                ("tick_kernel", tick_kernel),
                ("encode_kernel", encode_kernel),
                ("masks_kernel", masks_kernel),
                ("sample_kernel", sample_kernel),
                ("copy_kernel", copy_kernel),
            )
        },
    )


def kernel_sources() -> dict:
    """Each kernel's Python function, by name."""
    return kernels().sources
