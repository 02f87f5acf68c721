"""The CUDA kernels against the reference engine, under numba's CUDA simulator (no GPU needed).

Run by ``test_cuda.py`` in a child process with ``NUMBA_ENABLE_CUDASIM=1`` (numba picks the simulator
at import). On a machine with a GPU the same checks run on the device: ``python -m
tests.batched.cuda_sim_check --device cuda``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
import torch

from quatro_env.batched import BatchedQuatroEngine, schema
from quatro_env.batched.schema import TABLE_STATE
from tests.batched import differential
from tests.random_configs import random_config


def side_by_side(n: int, num_envs: int, ticks: int, device: str, configs: dict | None = None) -> None:
    """The CUDA kernels and the CPU loops, step by step, every configuration (``configs``: name -> the
    config's keywords; the differential's three by default): sampled and biased actions, outputs, info,
    every state and event tensor, recorded draws, final views."""
    fields = (*TABLE_STATE, *(f.name for f in schema.EVENTS))
    configs = differential.configs(n) if configs is None else configs
    for name, cfg in configs.items():
        kw = dict(cfg, num_players=n, seed=3 * n, keep_final=True, record_draws=True, illegal_action="noop")
        gpu = BatchedQuatroEngine(num_envs, backend="cuda", device=device, **kw)
        cpu = BatchedQuatroEngine(num_envs, backend="numba", **kw)
        g = torch.Generator().manual_seed(n)
        sampler = differential.BiasedSampler(cpu, np.random.default_rng(n))
        for t in range(ticks):
            where = f"{n}p {name} tick {t}"
            # one CPU draw for both (a CUDA generator's stream is not the CPU's)
            u = torch.rand(num_envs, n, 2, generator=g)
            x, y = gpu.sample_actions(uniforms=u.to(device)).cpu(), cpu.sample_actions(uniforms=u)
            assert torch.equal(x, y), f"{where}: sampled actions differ"
            act = torch.as_tensor(sampler(cpu.masks.numpy())) if t % 2 else y
            ra, rb = gpu.step(act.to(device)), cpu.step(act)
            for out in ("observations", "masks", "rewards", "terminations", "truncations"):
                assert torch.equal(getattr(ra, out).cpu(), getattr(rb, out)), f"{where}: {out}"
            # the GPU never asks whether a table finished: its final_* keys are there at every step,
            # holding the current view where no table finished (the CPU adds them only when one did)
            always = {"final_scores", "final_rounds", "final_observation", "final_mask"}
            assert ra.info.keys() == rb.info.keys() | always, where
            current = {"final_scores": cpu.final_scores, "final_rounds": cpu.final_rounds,
                       "final_observation": rb.observations, "final_mask": rb.masks}  # fmt: skip
            for key in ra.info:
                want = rb.info[key] if key in rb.info else current[key]
                assert torch.equal(ra.info[key].cpu(), want), f"{where}: info[{key}]"
            for field in fields:
                assert torch.equal(getattr(gpu, field).cpu(), getattr(cpu, field)), f"{where}: {field}"
            assert _by_table(gpu.draws) == _by_table(cpu.draws), f"{where}: draws"


def _by_table(draws: dict) -> dict:
    """Each table's draws in order, as lists (tensors compare element-wise)."""
    out: dict = {}
    for kind, entries in draws.items():
        for idx, vals in entries:
            for row, b in enumerate(idx.tolist()):
                out.setdefault((kind, b), []).append(vals[row].tolist())
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu", help="cpu (under NUMBA_ENABLE_CUDASIM=1) or cuda")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--ticks", type=int, default=60)
    p.add_argument(
        "--random-configs",
        type=int,
        default=0,
        help="then this many configs of tests/random_configs.py (seeds --first-seed onwards), each "
        "against the reference and side by side with the CPU loops",
    )
    p.add_argument("--first-seed", type=int, default=0)
    args = p.parse_args()
    start = time.perf_counter()
    for n in (4, 6, 8):
        counts: Counter = Counter()
        for i, name in enumerate(differential.configs(n)):
            differential.run(
                n,
                name,
                num_envs=args.envs,
                ticks=args.ticks,
                seed=11 * n + i,
                counts=counts,
                backend="cuda",
                device=args.device,
            )
        side_by_side(n, args.envs, args.ticks, args.device)
        print(
            f"{n} players: {counts['ticks']} table-ticks identical to the reference; "
            f"rules fired: {sum(v > 0 for k, v in counts.items() if k != 'ticks')}"
        )
    for seed in range(args.first_seed, args.first_seed + args.random_configs):
        n, cfg = random_config(seed)
        counts = differential.run(n, cfg, args.envs, args.ticks, seed, args.device, backend="cuda")
        side_by_side(n, args.envs, args.ticks, args.device, {f"random config {seed}": cfg})
        print(f"random config {seed} ({n} players): {counts['ticks']} table-ticks identical to the reference")
    print(f"cuda kernels: all identical in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
