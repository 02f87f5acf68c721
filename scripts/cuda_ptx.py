"""Compile the batched engine's CUDA kernels to PTX, without a GPU: does numba-cuda accept them?

The simulator (``NUMBA_ENABLE_CUDASIM=1``, tests/batched/test_cuda.py) proves what the kernels
compute but runs them as Python; this compiles each one for a real device, with the argument types
of an engine's own tensors, and prints the PTX size and the registers each kernel declares.

    pip install "numba-cuda[cu12]"        # numba-cuda with the NVVM/NVRTC wheels; no GPU needed
    python scripts/cuda_ptx.py --players 4,6,8 [--cc 9.0]

(If the NVIDIA wheels are installed outside site-packages, point ``LD_LIBRARY_PATH`` at their
``nvrtc``/``nvvm`` library folders.)
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numba
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.batched import cuda as batched_cuda
from quatro_env.common.cli import OneLineParser


def kernel_arguments(engine: BatchedQuatroEngine) -> dict[str, tuple]:
    """Each kernel's arguments, as the engine passes them (numpy views stand in for device arrays)."""
    view = torch.Tensor.numpy
    S, V, R, W, K, prm = engine._S, engine._V, engine._R, engine._W, engine._tables, engine._prm
    obs, masks, legal, actions = map(
        view, (engine.observations, engine.masks, engine.kind_legal, engine._actions)
    )
    rows = view(engine._all_rows)
    u = torch.rand(engine.num_envs, engine.n, 2).numpy()
    return {
        "reset_rows": (rows, prm, K, S, V),
        "check_actions": (actions, masks, engine.num_actions, view(engine._illegal), actions),
        "tick_all": (actions, prm, K, S, V, R, engine._REC, W),
        "encode_features": (rows, True, prm, engine._offs, S, V, W),
        "spread_observations": (obs, rows, True, prm, W),
        "legal_kinds": (rows, True, legal, prm, S),
        "spread_masks": (masks, rows, True, legal, K),
        "sample": (u, legal, K, actions, W),
        "copy_rows_not": (rows, obs, obs.copy()),
    }


def comma_list(item: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated items, each checked by the argparse type ``item``."""

    def parse(text: str) -> list[Any]:
        return [item(part.strip()) for part in text.split(",")]

    parse.__name__ = "list"
    return parse


def player_count(text: str) -> int:
    """An argparse type: a table size, 4, 6 or 8."""
    if text not in ("4", "6", "8"):
        raise argparse.ArgumentTypeError(f"expected items from 4, 6, 8, got {text!r}")
    return int(text)


def compute_capability(text: str) -> tuple[int, int]:
    """An argparse type: ``MAJOR.MINOR`` (``9.0``)."""
    match = re.fullmatch(r"([0-9]+)\.([0-9]+)", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected MAJOR.MINOR such as 9.0, got {text!r}")
    return int(match[1]), int(match[2])


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="cuda_ptx.py", description=__doc__.split("\n")[0])
    p.add_argument("--players", type=comma_list(player_count), default="4,6,8", help="comma list of 4, 6, 8")
    p.add_argument(
        "--cc",
        type=compute_capability,
        default="9.0",
        help="compute capability to compile for (9.0: H100/H200)",
    )
    args = p.parse_args(argv)
    from numba import cuda

    cc = args.cc
    # device functions compile for "the current device"; without a GPU, name the target instead
    import numba.cuda.dispatcher as dispatcher

    dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=cc)
    sources = batched_cuda.kernel_sources()
    for n in args.players:
        engine = BatchedQuatroEngine(8, num_players=n, seed=0, backend="numba", record_draws=True)
        for name, argv in kernel_arguments(engine).items():
            sig = tuple(numba.typeof(a) for a in argv)
            ptx, _ = cuda.compile_ptx(sources[name], sig, cc=cc)
            regs = re.findall(r"\.reg \.\w+ \s*%\w+<(\d+)>", ptx)
            print(f"{n}p {name}: {len(ptx):,} bytes of PTX, {sum(map(int, regs))} virtual registers declared")
    print(f"all kernels compiled for compute capability {cc[0]}.{cc[1]} (numba-cuda {cuda.__name__})")


if __name__ == "__main__":
    main()
