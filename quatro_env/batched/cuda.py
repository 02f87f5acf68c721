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

    @cuda.jit(device=True)
    def claim(counter):
        return cuda.atomic.add(counter, 0, 1)

    target.claim = claim
    built = {target.__name__: target}
    saved = {
        name: sys.modules.get(name) for name in (target.__name__, *(f"{PACKAGE}.{f}" for f in RULE_FILES))
    }
    try:
        sys.modules[target.__name__] = target
        for stem in RULE_FILES:
            name = f"{PACKAGE}.{stem}"
            spec = importlib.util.spec_from_file_location(
                name, Path(__file__).with_name("program") / f"{stem}.py"
            )
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            built[name] = module
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return SimpleNamespace(**{name.rsplit(".", 1)[1]: module for name, module in built.items()})


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
