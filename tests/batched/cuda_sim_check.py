"""The CUDA kernels against the reference engine, under numba's CUDA simulator (no GPU needed).

Run by ``test_cuda.py`` in a child process with ``NUMBA_ENABLE_CUDASIM=1`` (numba picks the simulator
at import). On a machine with a GPU the same checks run on the device: ``python -m
tests.batched.cuda_sim_check --device cuda``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import torch

from quatro_env.batched import BatchedQuatroEngine
from tests.batched import differential


def side_by_side(n: int, num_envs: int, ticks: int, device: str) -> None:
    """The CUDA kernels and the CPU loops, step by step: sampled actions, outputs, draws, final views."""
    kw = dict(num_players=n, seed=3 * n, keep_final=True, record_draws=True, disconnect_prob=0.05)
    gpu = BatchedQuatroEngine(num_envs, backend="cuda", device=device, illegal_action="noop", **kw)
    cpu = BatchedQuatroEngine(num_envs, backend="numba", illegal_action="noop", **kw)
    g1, g2 = torch.Generator(device=device).manual_seed(n), torch.Generator().manual_seed(n)
    for t in range(ticks):
        a = gpu.sample_actions(g1) if device == "cpu" else cpu.sample_actions(g2).to(device)
        b = cpu.sample_actions(g2) if device == "cpu" else a.cpu()
        assert torch.equal(a.cpu(), b), f"{n}p tick {t}: sampled actions differ"
        ra, rb = gpu.step(a), cpu.step(b)
        for name in ("observations", "masks", "rewards", "terminations", "truncations"):
            assert torch.equal(getattr(ra, name).cpu(), getattr(rb, name)), f"{n}p tick {t}: {name} differ"
        for key in ("done", "illegal", "final_observation", "final_mask", "final_scores"):
            if key in rb.info:
                assert torch.equal(ra.info[key].cpu(), rb.info[key]), f"{n}p tick {t}: info[{key}] differs"
        assert str(gpu.draws) == str(cpu.draws), f"{n}p tick {t}: draws differ"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu", help="cpu (under NUMBA_ENABLE_CUDASIM=1) or cuda")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--ticks", type=int, default=60)
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
    print(f"cuda kernels: all identical in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
