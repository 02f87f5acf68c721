"""Golden outputs of the batched engine: a hash of everything it returns on fixed seeds.

Recorded before the engine was rebuilt as one per-table program (issue #16), so that the rebuild
is proven to keep outputs and seeds identical: observations, masks, rewards, terminations,
truncations, every ``info`` entry and the recorded draws, over fixed-seed runs at 4, 6 and 8
players and the differential test's configurations, with biased random actions (every rule
fires) and the engine's own ``sample_actions``.

Re-recorded once since, for a rule fix: a scheduled (dis)connection holds for its tick, and the random
model no longer undoes it at the same boundary (Q23, docs/quatro.md decision 7). The cases whose
configs have a schedule (``short``, ``default``) changed; the ``odd`` cases, without one, did not.

    python -m tests.batched.golden            # print the hashes
    python -m tests.batched.golden --write    # re-record tests/batched/golden_hashes.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from quatro_env.batched import BatchedQuatroEngine
from tests.batched import differential

GOLDEN_FILE = Path(__file__).with_name("golden_hashes.json")
PLAYERS = (4, 6, 8)
TABLES, TICKS = 12, 160


def _feed(h, x) -> None:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    a = np.ascontiguousarray(np.asarray(x))
    h.update(str((a.dtype.str, a.shape)).encode())
    h.update(a.tobytes())


def _feed_draws(h, draws: dict) -> None:
    for kind in sorted(draws):
        for idx, vals in draws[kind]:
            h.update(kind.encode())
            _feed(h, idx)
            _feed(h, vals)


def run_hash(n: int, config_name: str, sampler: str, **engine_kwargs) -> str:
    """sha256 of one fixed-seed run's every output (``sampler``: 'biased' or 'uniform')."""
    cfg = dict(differential.configs(n)[config_name], **engine_kwargs)
    engine = BatchedQuatroEngine(TABLES, seed=1000 * n + len(config_name), **cfg)
    h = hashlib.sha256()
    res = engine.reset(seed=7 * n)
    for x in (res.observations, res.masks, res.rewards, res.terminations, res.truncations):
        _feed(h, x)
    biased = differential.BiasedSampler(engine, np.random.default_rng(n))
    gen = torch.Generator().manual_seed(n)
    for _ in range(TICKS):
        if sampler == "biased":
            act = torch.as_tensor(biased(engine.masks.cpu().numpy()))
        else:
            act = engine.sample_actions(gen)
        _feed(h, act)
        res = engine.step(act)
        for x in (res.observations, res.masks, res.rewards, res.terminations, res.truncations):
            _feed(h, x)
        for key in sorted(res.info):
            h.update(key.encode())
            _feed(h, res.info[key])
        if engine.record_draws:
            _feed_draws(h, engine.draws)
    return h.hexdigest()


def cases() -> dict[str, dict]:
    out = {}
    for n in PLAYERS:
        for name in ("short", "odd", "default"):
            out[f"{n}p-{name}-biased"] = dict(
                n=n, config_name=name, sampler="biased", keep_final=True, record_draws=True
            )
        out[f"{n}p-default-uniform"] = dict(n=n, config_name="default", sampler="uniform")
    return out


def compute() -> dict[str, str]:
    return {key: run_hash(**case) for key, case in cases().items()}


def main() -> None:  # pragma: no cover - command line
    p = argparse.ArgumentParser()
    p.add_argument("--write", action="store_true", help=f"record the hashes in {GOLDEN_FILE.name}")
    args = p.parse_args()
    hashes = compute()
    print(json.dumps(hashes, indent=1))
    if args.write:
        GOLDEN_FILE.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":  # pragma: no cover
    main()
