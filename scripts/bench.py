"""Benchmark: agent-steps/s of the ParallelEnv and of the batched engine (CPU, CUDA), plus peers.

Random legal actions are sampled on the engine's device and their cost is included. Prints a
markdown table and the speed-up ratios; ``--json FILE`` writes the same figures.

    python scripts/bench.py                      # 4/6/8 players, batch 1..16384, cpu (+cuda)
    python scripts/bench.py --quick --json out.json
    python scripts/bench.py --backends numba --clock cpu   # the CPU loops, CPU time

Peers (when installed, extra ``[bench]``): PettingZoo's Leduc Hold'em (AEC, one table), and the
JAX environments PGX Leduc Hold'em / Kuhn poker and JaxMARL Hanabi at the same batch sizes: one
``jit(vmap(...))`` call per step that samples uniformly random legal actions inside the jitted
function and auto-resets finished games; compilation is excluded (one warm-up call per batch
size) and every timed run ends with ``block_until_ready``. An agent-step is one agent's decision:
PGX games are turn-based (one agent acts per step), JaxMARL Hanabi takes an action from every
agent at every step (the others' only legal action is the no-op), like Quatro's seats.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
if os.environ["OMP_NUM_THREADS"] == "1":  # JAX peers on one thread too, like torch
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from quatro_env.batched import BatchedQuatroEngine  # noqa: E402
from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem, positive_float  # noqa: E402
from quatro_env.quatro.env import QuatroParallelEnv  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # --clock cpu: process CPU time (fair on a shared machine, one thread)


def bench_parallel_env(n: int, seconds: float) -> dict:
    env = QuatroParallelEnv(num_players=n)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, agents = 0, 0
    t0 = clock()
    while clock() - t0 < seconds:
        actions = {}
        for a, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            actions[a] = int(legal[rng.integers(len(legal))])
        obs, _, term, trunc, _ = env.step(actions)
        steps += 1
        agents += len(actions)
        if not env.agents:
            obs, _ = env.reset()
    dt = clock() - t0
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


def bench_batched(n: int, batch: int, device: str, seconds: float, backend: str = "auto") -> dict:
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    engine = BatchedQuatroEngine(batch, num_players=n, device=device, seed=0, backend=backend)
    gen = torch.Generator(device=device).manual_seed(0)
    for _ in range(5):  # warm-up
        engine.step(engine.sample_actions(gen))
    _sync(device)
    steps = 0
    launches0 = engine.kernel_launches
    t0 = clock()
    while True:
        for _ in range(10):
            engine.step(engine.sample_actions(gen))
        steps += 10
        _sync(device)
        if clock() - t0 >= seconds:
            break
    dt = clock() - t0
    buffers = sum(t.element_size() * t.numel() for t in (engine.observations, engine.masks, engine.rewards))
    row = {
        "impl": f"batched ({engine.backend})",
        "players": n,
        "batch": batch,
        "device": device,
        "agent_steps_per_s": batch * n * steps / dt,
        "state_bytes_per_table": engine.state_bytes_per_table,
        "output_bytes_per_table": buffers // batch,
    }
    if device.startswith("cuda"):
        row["peak_cuda_bytes_per_table"] = (torch.cuda.max_memory_allocated() - base) // batch
    if launches0 is not None:  # a step and its sampling
        row["launches_per_tick"] = (engine.kernel_launches - launches0) / steps
    del engine
    return row


def _time_jax(tick, carry, batch: int, seconds: float):
    """Compile (excluded), warm up, then run ``tick`` until ``seconds`` have passed; returns
    (steps, seconds, compile seconds)."""
    import jax

    t0 = time.perf_counter()
    carry = jax.block_until_ready(tick(carry))
    compile_s = time.perf_counter() - t0
    for _ in range(3):
        carry = tick(carry)
    jax.block_until_ready(carry)
    steps = 0
    t0 = clock()
    while True:
        for _ in range(10):
            carry = tick(carry)
        jax.block_until_ready(carry)
        steps += 10
        if clock() - t0 >= seconds:
            break
    return steps, clock() - t0, compile_s


def bench_pgx(name: str, batches: list[int], seconds: float) -> list[dict]:
    """A PGX game under jit(vmap): random legal actions sampled in the jitted step, auto-reset."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    step_fn = jax.vmap(auto_reset(env.step, env.init))
    init_fn = jax.jit(jax.vmap(env.init))

    @jax.jit
    def tick(carry):
        state, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1)
        state = step_fn(state, action, jax.random.split(k_step, action.shape[0]))
        return state, key

    rows = []
    for b in batches:
        state = init_fn(jax.random.split(jax.random.PRNGKey(0), b))
        steps, dt, compile_s = _time_jax(tick, (state, jax.random.PRNGKey(1)), b, seconds)
        rate = b * steps / dt
        rows.append(
            {"impl": f"PGX {name} (jit+vmap)", "players": env.num_players, "batch": b, "device": "cpu",
             "agent_steps_per_s": rate, "env_steps_per_s": rate, "compile_s": compile_s}
        )  # fmt: skip
        print(f"  PGX {name} batch {b}: {rate:,.0f} agent-steps/s", flush=True)
    return rows


def bench_hanabi(batches: list[int], seconds: float) -> list[dict]:
    """JaxMARL Hanabi under jit(vmap): every agent's random legal action sampled in the jitted step."""
    import jax
    import jax.numpy as jnp
    import jaxmarl

    env = jaxmarl.make("hanabi")
    agents = list(env.agents)
    legal_fn = jax.vmap(env.get_legal_moves)
    step_fn = jax.vmap(env.step)  # MultiAgentEnv.step resets finished games itself

    @jax.jit
    def tick(carry):
        state, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        legal = legal_fn(state)
        keys = jax.random.split(k_act, len(agents))
        actions = {
            a: jax.random.categorical(keys[i], jnp.where(legal[a] > 0, 0.0, -jnp.inf), axis=-1)
            for i, a in enumerate(agents)
        }
        b = actions[agents[0]].shape[0]
        _, state, _, _, _ = step_fn(jax.random.split(k_step, b), state, actions)
        return state, key

    reset_fn = jax.jit(jax.vmap(env.reset))
    rows = []
    for b in batches:
        _, state = reset_fn(jax.random.split(jax.random.PRNGKey(0), b))
        steps, dt, compile_s = _time_jax(tick, (state, jax.random.PRNGKey(1)), b, seconds)
        env_rate = b * steps / dt
        rows.append(
            {"impl": "JaxMARL hanabi (jit+vmap)", "players": len(agents), "batch": b, "device": "cpu",
             "agent_steps_per_s": env_rate * len(agents), "env_steps_per_s": env_rate, "compile_s": compile_s}
        )  # fmt: skip
        print(f"  JaxMARL hanabi batch {b}: {env_rate * len(agents):,.0f} agent-steps/s", flush=True)
    return rows


def bench_peers(seconds: float, batches: list[int] | None = None) -> list[dict]:
    batches = batches or [1]
    rows = []
    try:  # PettingZoo classic card games (rlcard)
        from pettingzoo.classic import leduc_holdem_v4

        env = leduc_holdem_v4.env()
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = 0
        t0 = clock()
        while clock() - t0 < seconds:
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
             "agent_steps_per_s": steps / (clock() - t0)}
        )  # fmt: skip
    except ImportError:
        rows.append({"impl": "pettingzoo classic (rlcard)", "note": "not installed"})
    try:
        import pgx  # noqa: F401
    except ImportError:
        rows.append({"impl": "PGX leduc_holdem, kuhn_poker", "note": "not installed"})
    else:
        for name in ("leduc_holdem", "kuhn_poker"):
            rows += bench_pgx(name, batches, seconds)
    try:
        import jaxmarl  # noqa: F401
    except ImportError:
        rows.append({"impl": "JaxMARL hanabi", "note": "not installed"})
    else:
        rows += bench_hanabi(batches, seconds)
    return rows


def comma_list(item: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated items, each checked by the argparse type ``item``."""

    def parse(text: str) -> list[Any]:
        return [item(part.strip()) for part in text.split(",")]

    parse.__name__ = "list"
    return parse


def one_of(*allowed: str) -> Callable[[str], str]:
    """An argparse type: one of ``allowed`` (for an item of a comma-separated list)."""

    def parse(text: str) -> str:
        if text not in allowed:
            raise argparse.ArgumentTypeError(f"expected items from {', '.join(allowed)}, got {text!r}")
        return text

    parse.__name__ = "choice"
    return parse


def device_name(text: str) -> str:
    """An argparse type: ``cpu``, ``cuda`` or ``cuda:N``."""
    if text not in ("cpu", "cuda") and not (text.startswith("cuda:") and text[5:].isdigit()):
        raise argparse.ArgumentTypeError(f"expected items from cpu, cuda, cuda:N, got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command line: bad input is one line naming the argument, exit code 2, before any measurement."""
    p = OneLineParser(
        prog="bench.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--players", type=comma_list(one_of("4", "6", "8")), default="4,6,8", help="comma list of 4, 6, 8"
    )
    p.add_argument("--batches", type=comma_list(int_in(1)), default="1,64,1024,4096,16384")
    p.add_argument(
        "--devices", default="auto", help="comma list (cpu,cuda,cuda:N); auto = cpu + cuda if present"
    )
    p.add_argument("--seconds", type=positive_float, default=2.0, help="time per measurement")
    p.add_argument(
        "--threads", type=int_in(1), default=None, help="torch CPU threads (default: OMP_NUM_THREADS)"
    )
    p.add_argument("--quick", action="store_true", help="batches 1,64,1024 and 0.5 s each")
    p.add_argument(
        "--backends",
        type=comma_list(one_of("auto", "numba", "cuda")),
        default="auto",
        help="batched engine code paths: auto, numba (CPU loops), cuda (GPU kernels); on a GPU device "
        "numba and auto mean cuda",
    )
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="cpu: process CPU time")
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--only-peers", action="store_true", help="measure the peers only")
    p.add_argument("--json", type=Path, default=None, help="write the figures to this file")
    return p


def main(argv: list[str] | None = None) -> None:
    p = build_parser()
    args = p.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    if args.threads:
        torch.set_num_threads(args.threads)
    players = [int(x) for x in args.players]
    batches = args.batches
    seconds = args.seconds
    if args.quick:
        batches, seconds = [b for b in batches if b <= 1024], 0.5
    if args.devices == "auto":
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    else:
        try:
            devices = comma_list(device_name)(args.devices)
        except argparse.ArgumentTypeError as exc:
            p.error(f"argument --devices: {exc}")
    if any(d.startswith("cuda") for d in devices) and not torch.cuda.is_available():
        p.error(f"--devices {args.devices}: no CUDA device here (torch {torch.__version__})")
    if args.json is not None:
        problem = output_dir_problem(args.json.parent, (args.json.name,))
        if problem:
            p.error(f"--json: {problem}")

    backends = args.backends
    rows = []
    for n in [] if args.only_peers else players:
        rows.append(bench_parallel_env(n, seconds))
        for device in devices:
            on_gpu = {"numba": "cuda", "auto": "cuda"}  # a GPU runs the CUDA kernels
            for backend in backends if device == "cpu" else sorted({on_gpu.get(x, x) for x in backends}):
                if device == "cpu" and backend == "cuda":
                    continue
                for b in batches:
                    rows.append(bench_batched(n, b, device, seconds, backend))
                    r = rows[-1]
                    per_tick = r.get("launches_per_tick")
                    launches = "" if per_tick is None else f", {per_tick:.1f} launches/tick"
                    print(
                        f"  {n}p {device} {r['impl']} batch {b}: {r['agent_steps_per_s']:,.0f} agent-steps/s"
                        + launches,
                        flush=True,
                    )
    peers = [] if args.no_peers else bench_peers(seconds, batches)

    cuda_name = torch.cuda.get_device_name() if "cuda" in devices else "-"
    machine = (
        f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"threads {torch.get_num_threads()}, cuda {cuda_name}, clock {args.clock}"
    )
    command = f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')} python " + " ".join(sys.argv)
    print(f"\nmachine: {machine}\ncommand: {command}")
    if rows:
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
    if peers:
        print("\n| peer | players | device | batch | agent-steps/s | env-steps/s | compile s |")
        print("|---|---|---|---|---|---|---|")
    for r in peers:
        if "note" in r:
            print(f"| {r['impl']} | | | | {r['note']} | | |")
        else:
            speed = f"{r['agent_steps_per_s']:,.0f}"
            env_speed = f"{r['env_steps_per_s']:,.0f}" if "env_steps_per_s" in r else ""
            comp = f"{r['compile_s']:.1f}" if "compile_s" in r else ""
            cells = [r["impl"], r["players"], r["device"], r["batch"], speed, env_speed, comp]
            print("| " + " | ".join(str(c) for c in cells) + " |")
    for r in rows:
        if r["impl"].startswith("batched") and (r["players"], r["batch"], r["device"]) == (4, 4096, "cpu"):
            speed = f"{r['agent_steps_per_s']:,.0f}"
            print(f"\ntarget (4 players, batch 4096, CPU, {r['impl']}): {speed} agent-steps/s (goal 3M)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "machine": machine,
                    "command": command,
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
