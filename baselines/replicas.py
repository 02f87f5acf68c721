"""Data-parallel PPO on the CPU: one trainer process per core, one gradient.

Why processes and not threads: the update is thousands of small tensor operations (a GRU unrolled over
64 ticks on a few dozen columns), too small for torch's intra-op threads to split well; a process per
core splits the rollout and the update alike (docs/ppo.md, "Two processes"). The scheme is CleanRL's
multi-GPU PPO (``ppo_atari_multigpu.py``): every process holds ``num_envs / processes`` tables and the
same network; each minibatch is the union of every process's share (its rows normalised by the global
row count and advantage moments), the gradients are summed across processes (one gloo all-reduce)
before the clip and the Adam step, so every process holds the same parameters, bit for bit.

``Replicas`` is what a trainer process knows of the others; ``launch`` starts them. With one process
every method is the identity, so the single-process trainer runs exactly as it always did.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

#: process r's tables and draws are seeded with ``seed + r * RANK_SEED_STRIDE`` (process 0: ``seed``);
#: far above any ``seed + update`` a curriculum stage's new tables use
RANK_SEED_STRIDE = 1_000_003
#: rollout statistics that are counts (summed over processes), not shares (averaged)
COUNTED_STATS = ("points",)


class Replicas:
    """This process's place among the trainer's processes, and the few collective operations PPO needs."""

    def __init__(self, rank: int = 0, world: int = 1, stop: Any = None) -> None:
        self.rank, self.world = rank, world
        self._stop = stop  # process 0: the launcher's Ctrl-C event

    @property
    def main(self) -> bool:
        """Process 0 logs, evaluates and writes ``latest.pt`` and the policy."""
        return self.rank == 0

    def seed(self, seed: int) -> int:
        """This process's seed for its tables and draws (``seed`` itself in process 0)."""
        return seed + self.rank * RANK_SEED_STRIDE

    def sum(self, tensor: torch.Tensor) -> torch.Tensor:
        """``tensor`` summed over the processes, in place (unchanged with one process)."""
        if self.world > 1:
            dist.all_reduce(tensor)
        return tensor

    def sum_gradients(self, params: Iterable[torch.nn.Parameter], extra: torch.Tensor) -> torch.Tensor:
        """Every parameter's gradient summed over the processes (a missing gradient counts as zero, so
        all processes step the same parameters), with ``extra`` (e.g. the loss's parts) in the same
        all-reduce; returns the summed ``extra``."""
        params = list(params)
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        flat = torch.cat([g.reshape(-1) for g in grads] + [extra.reshape(-1).to(grads[0].dtype)])
        self.sum(flat)
        offset = 0
        for p in params:
            p.grad = flat[offset : offset + p.numel()].view_as(p)  # a view: flat is this call's own
            offset += p.numel()
        return flat[offset:].view_as(extra)

    def combine_stats(self, stats: dict[str, float], episodes: int) -> tuple[dict[str, float], int]:
        """Rollout statistics and an episode count over every process's tables: counts
        (:data:`COUNTED_STATS`) and episodes summed, shares averaged (each process's share is over an
        equal number of tables; a NaN share, nothing to count in that process, is left out)."""
        if self.world == 1:
            return stats, episodes
        keys = sorted(stats)
        values = torch.tensor([stats[k] for k in keys] + [episodes], dtype=torch.float64)
        counted = ~values.isnan()
        sums = self.sum(torch.cat([torch.where(counted, values, 0.0), counted.double()]))
        totals, counts = sums[: len(values)], sums[len(values) :]
        out = {k: float(totals[i] / (1 if k in COUNTED_STATS else counts[i])) for i, k in enumerate(keys)}
        return out, int(totals[-1])

    def stop_requested(self) -> bool:
        """Whether Ctrl-C reached the launcher (every process gets the same answer: all stop together
        at the same update). Also a barrier: no process commits an update before the others finished it."""
        asked = float(self._stop is not None and self._stop.is_set())
        return bool(self.sum(torch.tensor([asked])).item() > 0)


def rank_path(path: Path, rank: int) -> Path:
    """Process ``rank``'s copy of a checkpoint file: ``latest.pt`` for process 0, ``latest.rank1.pt``..."""
    return path if rank == 0 else path.with_name(f"{path.stem}.rank{rank}{path.suffix}")


def launch(world: int, worker: Callable[..., Any], *args: Any) -> Any:
    """Run ``worker(replicas, *args)`` in ``world`` new processes (one per core) and return process 0's
    result. Ctrl-C here is passed on as a request: the processes finish the update they are in, save,
    and stop together. A process that fails makes the launch fail, naming it (its traceback is printed).
    Keep the result small (a summary): it waits in a pipe (64 KiB) that is read once the processes end."""
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked torch/OpenMP state
    stop, results = context.Event(), context.SimpleQueue()
    with tempfile.TemporaryDirectory(prefix="quatro-replicas-") as rendezvous:
        store = f"file://{Path(rendezvous) / 'store'}"
        processes = [
            context.Process(target=_process, args=(rank, world, store, stop, results, worker, args))
            for rank in range(world)
        ]
        previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
        try:
            for process in processes:
                process.start()
            for process in processes:
                process.join()
        finally:
            signal.signal(signal.SIGINT, previous)
        failed = [rank for rank, p in enumerate(processes) if p.exitcode != 0]
        if failed:
            codes = ", ".join(f"process {r} exit code {processes[r].exitcode}" for r in failed)
            raise RuntimeError(f"data-parallel training failed ({codes}); see the traceback above")
        return results.get() if not results.empty() else None


def _process(
    rank: int,
    world: int,
    store: str,
    stop: Any,
    results: Any,
    worker: Callable[..., Any],
    args: tuple[Any, ...],
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the launcher turns Ctrl-C into a stop request
    dist.init_process_group(
        "gloo", init_method=store, rank=rank, world_size=world, timeout=timedelta(minutes=30)
    )
    try:
        result = worker(Replicas(rank, world, stop if rank == 0 else None), *args)
        if rank == 0:
            results.put(result)
        dist.barrier()  # no process tears its connections down while another still reads from them
    finally:
        dist.destroy_process_group()
    # Done: leave without the interpreter's teardown, as a forked multiprocessing child always does
    # (``os._exit`` after its target). Seen once in CI: a spawned process that had finished and saved
    # aborted in that teardown (``terminate called without an active exception``, exit code -6), a gloo
    # thread destroyed during finalisation (pytorch/pytorch#179291), which failed the whole launch.
    # A failure still raises above and exits 1 with its traceback.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
