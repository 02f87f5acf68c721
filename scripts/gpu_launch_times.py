"""Where a GPU tick's time goes: each kernel's host dispatch time against its time to finish.

The H200 run (docs/batched.md, "First run on a GPU") read a fixed ~4 ms per tick off three batch sizes,
which points at numba-cuda's per-argument launch preparation. This script measures it directly, so the
next GPU session starts from figures: every launch of ``BatchedQuatroEngine(backend="cuda")`` is timed
twice, once until the launch call returns (host: typing and marshalling the arguments, queueing) and once
until the device has finished it (a synchronisation before and after each launch, so the kernels do not
overlap; the untimed tick rate is printed beside for comparison).

    python scripts/gpu_launch_times.py --batches 4096,262144 --ticks 50 --json launch_times.json

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1 ... --device cpu --batches 4 --ticks 2``) it runs
on the CPU; that is how its test checks it, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.batched import cuda as gpu
from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem


def _sync(device: str) -> None:
    """Wait for the device: torch and numba-cuda share its primary context, so one call covers both."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def measure(batch: int, ticks: int, device: str, players: int = 4) -> dict:
    """Per tick (a sampling and a step): each kernel's launches, host ms and ms until done; and the
    untimed tick's ms."""
    engine = BatchedQuatroEngine(batch, num_players=players, seed=0, device=device, backend="cuda",
                                 illegal_action="noop")  # fmt: skip
    gen = torch.Generator(device=device).manual_seed(0)
    for _ in range(3):  # compilation and first touches, untimed
        engine.step(engine.sample_actions(gen))
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(ticks):
        engine.step(engine.sample_actions(gen))
    _sync(device)
    untimed = (time.perf_counter() - t0) / ticks
    run = gpu.kernels()  # the cached launchers the engine calls, wrapped for the timed ticks only
    host, done, launches = Counter(), Counter(), Counter()
    originals = {name: getattr(run, name) for name in gpu.LOOPS}

    def timed(name, launch):
        def call(*args):
            _sync(device)
            start = time.perf_counter()
            launch(*args)
            queued = time.perf_counter()
            _sync(device)
            host[name] += queued - start
            done[name] += time.perf_counter() - start
            launches[name] += 1

        return call

    try:
        for name, launch in originals.items():
            setattr(run, name, timed(name, launch))
        for _ in range(ticks):
            engine.step(engine.sample_actions(gen))
    finally:
        for name, launch in originals.items():
            setattr(run, name, launch)
    ms = 1e3 / ticks
    kernels = {
        name: {"launches": launches[name] / ticks, "host_ms": host[name] * ms, "done_ms": done[name] * ms}
        for name in gpu.LOOPS
        if launches[name]
    }
    return {
        "batch": batch,
        "players": players,
        "ticks": ticks,
        "tick_ms_untimed": untimed * 1e3,
        "agent_steps_per_s_untimed": batch * players / untimed,
        "host_ms": sum(k["host_ms"] for k in kernels.values()),
        "done_ms": sum(k["done_ms"] for k in kernels.values()),
        "kernels": kernels,
    }


def comma_list(item: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated items, each checked by the argparse type ``item``."""

    def parse(text: str) -> list[Any]:
        return [item(part.strip()) for part in text.split(",")]

    parse.__name__ = "list"
    return parse


def device_name(text: str) -> str:
    """An argparse type: ``cuda``, ``cuda:N`` or ``cpu``."""
    if text not in ("cpu", "cuda") and not (text.startswith("cuda:") and text[5:].isdigit()):
        raise argparse.ArgumentTypeError(f"expected cuda, cuda:N or cpu, got {text!r}")
    return text


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="gpu_launch_times.py", description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=comma_list(int_in(1)), default="4096,65536,262144")
    p.add_argument("--ticks", type=int_in(1), default=50)
    p.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    p.add_argument(
        "--device", type=device_name, default="cuda", help="cuda; cpu only under NUMBA_ENABLE_CUDASIM=1"
    )
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error("--device cuda needs a CUDA GPU")
    if args.device == "cpu" and not gpu.simulated():
        p.error("--device cpu: only under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
    if args.json is not None:
        problem = output_dir_problem(args.json.parent, (args.json.name,))
        if problem:
            p.error(f"--json: {problem}")
    rows = []
    for batch in args.batches:
        row = measure(batch, args.ticks, args.device, args.players)
        rows.append(row)
        print(f"batch {batch}: untimed tick {row['tick_ms_untimed']:.3f} ms "
              f"({row['agent_steps_per_s_untimed']:,.0f} agent-steps/s); timed launches: host "
              f"{row['host_ms']:.3f} ms, until done {row['done_ms']:.3f} ms")  # fmt: skip
        for name, k in sorted(row["kernels"].items(), key=lambda kv: -kv[1]["done_ms"]):
            print(f"  {name:14s} {k['launches']:.0f}/tick  host {k['host_ms']:8.3f} ms  "
                  f"until done {k['done_ms']:8.3f} ms")  # fmt: skip
    if args.json:
        name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "numba CUDA simulator"
        args.json.write_text(json.dumps({"device": name, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
