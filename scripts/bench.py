"""Benchmark: agent-steps/s of the ParallelEnv and of the batched engine (CPU, CUDA), plus peers.

Random legal actions are sampled on the engine's device and their cost is included. Prints a
markdown table and the speed-up ratios; ``--json FILE`` writes the same figures.

    python scripts/bench.py                      # 4/6/8 players, batch 1..16384, cpu (+cuda)
    python scripts/bench.py --quick --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from quatro_env.batched import BatchedQuatroEngine  # noqa: E402
from quatro_env.quatro.env import QuatroParallelEnv  # noqa: E402


def bench_parallel_env(n: int, seconds: float) -> dict:
    env = QuatroParallelEnv(num_players=n)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, agents = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        actions = {}
        for a, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            actions[a] = int(legal[rng.integers(len(legal))])
        obs, _, term, trunc, _ = env.step(actions)
        steps += 1
        agents += len(actions)
        if not env.agents:
            obs, _ = env.reset()
    dt = time.perf_counter() - t0
    return {
        "impl": "ParallelEnv",
        "players": n,
        "batch": 1,
        "device": "cpu",
        "agent_steps_per_s": agents / dt,
    }


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def bench_batched(n: int, batch: int, device: str, seconds: float) -> dict:
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    engine = BatchedQuatroEngine(batch, num_players=n, device=device, seed=0)
    gen = torch.Generator(device=device).manual_seed(0)
    for _ in range(5):  # warm-up
        engine.step(engine.sample_actions(gen))
    _sync(device)
    steps = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(10):
            engine.step(engine.sample_actions(gen))
        steps += 10
        _sync(device)
        if time.perf_counter() - t0 >= seconds:
            break
    dt = time.perf_counter() - t0
    buffers = sum(t.element_size() * t.numel() for t in (engine.observations, engine.masks, engine.rewards))
    row = {
        "impl": "batched",
        "players": n,
        "batch": batch,
        "device": device,
        "agent_steps_per_s": batch * n * steps / dt,
        "state_bytes_per_table": engine.state_bytes_per_table,
        "output_bytes_per_table": buffers // batch,
    }
    if device.startswith("cuda"):
        row["peak_cuda_bytes_per_table"] = (torch.cuda.max_memory_allocated() - base) // batch
    del engine
    return row


def bench_peers(seconds: float) -> list[dict]:
    rows = []
    try:  # PettingZoo classic card games (rlcard)
        from pettingzoo.classic import leduc_holdem_v4

        env = leduc_holdem_v4.env()
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                env.step(action)
                steps += 1
            env.reset()
        rows.append(
            {"impl": "pettingzoo leduc_holdem_v4 (AEC)", "players": 2, "batch": 1, "device": "cpu",
             "agent_steps_per_s": steps / (time.perf_counter() - t0)}
        )  # fmt: skip
    except ImportError:
        rows.append({"impl": "pettingzoo classic (rlcard)", "note": "not installed"})
    try:
        import jaxmarl  # noqa: F401

        rows.append({"impl": "JaxMARL hanabi", "note": "installed; not measured by this script"})
    except ImportError:
        rows.append({"impl": "JaxMARL hanabi", "note": "not installed"})
    try:
        import pgx  # noqa: F401

        rows.append({"impl": "PGX leduc_holdem", "note": "installed; not measured by this script"})
    except ImportError:
        rows.append({"impl": "PGX leduc_holdem", "note": "not installed"})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default="4,6,8")
    p.add_argument("--batches", default="1,64,1024,4096,16384")
    p.add_argument("--devices", default="auto", help="comma list (cpu,cuda); auto = cpu + cuda if present")
    p.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: OMP_NUM_THREADS)")
    p.add_argument("--quick", action="store_true", help="batches 1,64,1024 and 0.5 s each")
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--json", default=None, help="write the figures to this file")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    players = [int(x) for x in args.players.split(",")]
    batches = [int(x) for x in args.batches.split(",")]
    seconds = args.seconds
    if args.quick:
        batches, seconds = [b for b in batches if b <= 1024], 0.5
    devices = (
        ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
        if args.devices == "auto"
        else args.devices.split(",")
    )

    rows = []
    for n in players:
        rows.append(bench_parallel_env(n, seconds))
        for device in devices:
            for b in batches:
                rows.append(bench_batched(n, b, device, seconds))
                print(
                    f"  {n}p {device} batch {b}: {rows[-1]['agent_steps_per_s']:,.0f} agent-steps/s",
                    flush=True,
                )
    peers = [] if args.no_peers else bench_peers(seconds)

    cuda_name = torch.cuda.get_device_name() if "cuda" in devices else "-"
    print(
        f"\nmachine: {platform.machine()}, torch {torch.__version__}, "
        f"threads {torch.get_num_threads()}, cuda {cuda_name}"
    )
    print(
        "\n| impl | players | device | batch | agent-steps/s | vs ParallelEnv | state B/table "
        "| peak B/table |"
    )
    print("|---|---|---|---|---|---|---|---|")
    base = {r["players"]: r["agent_steps_per_s"] for r in rows if r["impl"] == "ParallelEnv"}
    for r in rows:
        ratio = r["agent_steps_per_s"] / base[r["players"]]
        r["ratio_vs_parallel_env"] = ratio
        peak = ""
        if "state_bytes_per_table" in r:
            peak = r.get(
                "peak_cuda_bytes_per_table", r["state_bytes_per_table"] + r["output_bytes_per_table"]
            )
        speed = f"{r['agent_steps_per_s']:,.0f}"
        state = r.get("state_bytes_per_table", "")
        print(
            f"| {r['impl']} | {r['players']} | {r['device']} | {r['batch']} | {speed} | {ratio:,.2f}x "
            f"| {state} | {peak} |"
        )
    for r in peers:
        if "note" in r:
            print(f"| {r['impl']} | | | | {r['note']} | | | |")
        else:
            speed = f"{r['agent_steps_per_s']:,.0f}"
            print(f"| {r['impl']} | {r['players']} | {r['device']} | {r['batch']} | {speed} | | | |")
    target = [
        r
        for r in rows
        if r["impl"] == "batched" and r["players"] == 4 and r["batch"] == 4096 and r["device"] == "cpu"
    ]
    if target:
        speed = f"{target[0]['agent_steps_per_s']:,.0f}"
        print(f"\ntarget (4 players, batch 4096, CPU): {speed} agent-steps/s (goal 3,000,000)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "rows": rows,
                    "peers": peers,
                    "torch": torch.__version__,
                    "threads": torch.get_num_threads(),
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
