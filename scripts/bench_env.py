"""Agent-steps per second of the project's environments and of PettingZoo's classic card games.

Every environment is driven by the same random legal policy (``sample_legal``), whose cost is
included in every figure and also measured alone, so ratios compare like with like. The peers run
in the same process, one after another, when the ``[bench]`` extra is installed.

    python scripts/bench_env.py                 # all, 3 repeats of 2 s each
    python scripts/bench_env.py --seconds 1 --repeats 1 --only quatro
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from quatro_env.common.cli import OneLineParser, int_in, output_dir_problem, positive_float

os.environ.setdefault("OMP_NUM_THREADS", "1")
RNG = np.random.default_rng(0)


def sample_legal(mask: np.ndarray) -> int:
    """The shared random legal policy: uniform over the mask's legal actions."""
    legal = np.flatnonzero(mask)
    return int(legal[RNG.integers(legal.size)])


def run_parallel(make_env: Callable, seconds: float) -> float:
    env = make_env()
    obs, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = {agent: sample_legal(o["action_mask"]) for agent, o in obs.items()}
        obs, _, _, _, _ = env.step(actions)
        steps += len(actions)
        if not env.agents:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def run_aec(make_env: Callable, seconds: float) -> float:
    env = make_env()
    env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(sample_legal(observation["action_mask"]))
                steps += 1
            if steps % 256 == 0 and time.perf_counter() - start >= seconds:
                break
        else:
            env.reset()
    return steps / (time.perf_counter() - start)


def sampler_only(num_actions: int, seconds: float) -> float:
    """Cost of the random policy alone (per agent-step), on a typical Quatro mask."""
    mask = np.zeros(num_actions, np.int8)
    mask[:17] = 1
    mask[[17, 68, 69]] = 1
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            sample_legal(mask)
        calls += 1000
    return calls / (time.perf_counter() - start)


def targets() -> list[tuple[str, str, Callable, Callable]]:
    """(name, group, runner, factory); peers are skipped when their libraries are missing."""
    from quatro_env import quatro_v0

    found = []
    for n in (4, 6, 8):
        found.append(
            (
                f"quatro_v0 parallel ({n}p)",
                "quatro",
                run_parallel,
                lambda n=n: quatro_v0.parallel_env(num_players=n),
            )
        )
    for module, kwargs, label in (
        ("quatro_env.kwartet_v0", {"num_players": 4}, "kwartet_v0 AEC (4p)"),
        ("quatro_env.cuatrola_v0", {}, "cuatrola_v0 AEC (4p)"),
    ):
        try:
            mod = importlib.import_module(module)
            found.append((label, "companions", run_aec, lambda mod=mod, kw=kwargs: mod.env(**kw)))
        except ImportError:
            print(f"# {label}: not available", file=sys.stderr)
    for name in ("leduc_holdem_v4", "texas_holdem_v4", "hanabi_v5"):
        try:
            mod = importlib.import_module(f"pettingzoo.classic.{name}")
            mod.env().reset(seed=0)
            found.append((f"pettingzoo {name} AEC", "peer", run_aec, mod.env))
        except Exception as exc:  # missing optional dependency of a peer
            print(f"# peer {name}: not installed ({type(exc).__name__}: {exc})", file=sys.stderr)
    return found


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (
        f"{cpu}; {os.cpu_count()} CPUs; Python {platform.python_version()}; numpy {np.__version__}; "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}"
    )


def main(argv: list[str] | None = None) -> dict:
    parser = OneLineParser(prog="bench_env.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="duration of one measurement")
    parser.add_argument(
        "--repeats", type=int_in(1), default=3, help="measurements per environment (median kept)"
    )
    parser.add_argument(
        "--only",
        choices=["quatro", "companions", "peer"],
        action="append",
        help="restrict to these groups (repeatable)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.json is not None:
        problem = output_dir_problem(args.json.parent, (args.json.name,))
        if problem:
            parser.error(f"--json: {problem}")

    rows = []
    for name, group, runner, factory in targets():
        if args.only and group not in args.only and not (group == "peer" and "quatro" in args.only):
            continue
        rates = [runner(factory, args.seconds) for _ in range(args.repeats)]
        rows.append(
            {"env": name, "group": group, "agent_steps_per_s": statistics.median(rates), "runs": rates}
        )
    sampler = sampler_only(74, min(args.seconds, 1.0))  # the 4-player action count
    fastest_peer = max((r["agent_steps_per_s"] for r in rows if r["group"] == "peer"), default=None)

    print(f"machine: {machine()}")
    print(f"command: {' '.join([os.path.basename(sys.argv[0])] + sys.argv[1:])}")
    print(
        f"random legal policy alone: {sampler:,.0f} samples/s "
        f"({1e6 / sampler:.1f} µs per agent-step, included in every row)\n"
    )
    print("| environment | agent-steps/s (median) | × fastest peer |")
    print("|---|---:|---:|")
    for r in rows:
        ratio = f"{r['agent_steps_per_s'] / fastest_peer:.2f}" if fastest_peer else "n/a"
        print(f"| {r['env']} | {r['agent_steps_per_s']:,.0f} | {ratio} |")
    result = {
        "machine": machine(),
        "argv": sys.argv[1:],
        "sampler_per_s": sampler,
        "rows": rows,
        "fastest_peer": fastest_peer,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
