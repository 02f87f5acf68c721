"""Agent-steps per second of the PPO trainer, and where its time goes (issue #17's yardstick).

Runs a training config for a few updates (after warm-up updates that compile the numba kernels) and
reports:

* ``trainer_agent_steps_per_s``: agent-steps per second of *process CPU time* (the honest figure on
  a shared machine: other processes' load does not count against it) and ``..._wall`` per wall second;
  with ``processes=N`` (data-parallel training, ``baselines/replicas.py``) the CPU time is every
  trainer process's together and the wall clock is process 0's, so on N free cores the wall figure is
  the one that grows;
* ``engine_agent_steps_per_s``: the batched engine alone at the same batch (random legal actions,
  their sampling included), the ceiling the trainer could reach;
* ``split``: the CPU-time share of each phase (process 0's) — rollout (policy forward, scripted bots,
  engine step, the rest) and update (forward, backward, Adam, the rest: loss, gathers, packing, and
  with several processes the collectives).

The phases are timed by wrapping the trainer's own methods (``model.act``, ``_bot_actions``,
``engine.step``, ``optimise``; ``model.unroll``/``model.heads``, ``Tensor.backward`` and
``optimizer.step`` inside ``optimise``), so the same script measures any version of the trainer.

    OMP_NUM_THREADS=1 python scripts/bench_train.py --config configs/ppo_4p.yaml --updates 3 --json out.json
    OMP_NUM_THREADS=1 python scripts/bench_train.py --config configs/ppo_4p.yaml --updates 8 processes=2
    python scripts/bench_train.py --config configs/smoke.yaml --updates 5 num_envs=32
    python scripts/bench_train.py --at-agent-steps 9000000      # time the ppo_4p recipe's stage 3
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from baselines.config import TrainConfig, load_config  # noqa: E402
from baselines.ppo import PPOTrainer  # noqa: E402
from baselines.replicas import Replicas, launch  # noqa: E402
from quatro_env.batched import BatchedQuatroEngine  # noqa: E402
from quatro_env.common.cli import (  # noqa: E402
    OneLineParser,
    int_in,
    one_line_error,
    output_dir_problem,
    positive_float,
)
from quatro_env.common.configs import read_yaml_mapping  # noqa: E402

PHASES = (
    "rollout.policy",
    "rollout.bots",
    "rollout.engine",
    "rollout.other",
    "update.forward",
    "update.backward",
    "update.adam",
    "update.other",
)


class PhaseClock:
    """CPU seconds spent inside wrapped callables, by phase; nested calls count in the innermost."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.on = False
        self._stack: list[list[float]] = []  # [start, child seconds] per open call
        self._open: list[str] = []  # the phases of the open calls

    def wrap(self, phase: str, fn: Callable, inside: str | None = None) -> Callable:
        """``inside``: count only calls made from within that phase (others fall to their caller)."""

        def timed(*args, **kwargs):
            if not self.on or (inside is not None and inside not in self._open):
                return fn(*args, **kwargs)
            self._open.append(phase)
            self._stack.append([time.process_time(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                self._open.pop()
                start, child = self._stack.pop()
                spent = time.process_time() - start
                self.seconds[phase] += spent - child
                if self._stack:
                    self._stack[-1][1] += spent

        return timed


@contextlib.contextmanager
def instrumented(trainer: PPOTrainer, clock: PhaseClock) -> Iterator[None]:
    """Wrap the trainer's phases (instance attributes, restored afterwards; ``Tensor.backward`` too)."""
    model = trainer.model
    patched: list[tuple[Any, str]] = []

    def patch(obj: Any, name: str, phase: str) -> None:
        setattr(obj, name, clock.wrap(phase, getattr(obj, name)))
        patched.append((obj, name))

    patch(trainer, "rollout", "rollout.other")
    patch(model, "act", "rollout.policy")
    patch(trainer, "_bot_actions", "rollout.bots")
    patch(trainer, "optimise", "update.other")
    patch(trainer.optimizer, "step", "update.adam")
    for name in ("unroll", "heads"):  # the update's forward only (act counts as policy)
        setattr(model, name, clock.wrap("update.forward", getattr(model, name), inside="update.other"))
        patched.append((model, name))
    real_backward = torch.Tensor.backward
    torch.Tensor.backward = clock.wrap("update.backward", real_backward)
    real_step_engine = BatchedQuatroEngine.step
    BatchedQuatroEngine.step = clock.wrap("rollout.engine", real_step_engine)  # survives stage switches
    try:
        yield
    finally:
        torch.Tensor.backward = real_backward
        BatchedQuatroEngine.step = real_step_engine
        for obj, name in patched:
            with contextlib.suppress(AttributeError):
                delattr(obj, name)  # the instance attribute goes; the class's method shows again


def engine_rate(num_envs: int, env_config: Any, seconds: float) -> float:
    """The engine alone, the trainer's tables (all processes') and rules, random legal actions (sampled
    with torch), in one process."""
    engine = BatchedQuatroEngine(num_envs, config=env_config, seed=0)
    result = engine.reset(0)
    for _ in range(20):  # compile the kernels
        result = engine.step(
            torch.multinomial(result.masks.flatten(0, 1).float(), 1).view(engine.num_envs, -1)
        )
    ticks, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        actions = torch.multinomial(result.masks.flatten(0, 1).float(), 1).view(engine.num_envs, -1)
        result = engine.step(actions)
        ticks += 1
    return ticks * engine.num_envs * engine.n / (time.process_time() - start)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, StopIteration), open("/proc/cpuinfo") as f:
        cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    threads = torch.get_num_threads()
    return f"{cpu}, {os.cpu_count()} logical CPUs visible, torch {torch.__version__}, threads {threads}"


def timed_training(
    replicas: Replicas, config: dict[str, Any], updates: int, warmup: int, at_agent_steps: int
) -> dict[str, Any]:
    """One trainer process's timed updates: the CPU seconds of every process together, process 0's
    wall clock and CPU split (with several processes, ``launch`` runs this in each)."""
    trainer = PPOTrainer(TrainConfig(**config), replicas)
    if at_agent_steps:
        trainer.agent_steps = at_agent_steps
    trainer.train(updates=warmup)
    clock = PhaseClock()
    with instrumented(trainer, clock):
        clock.on = True
        cpu0, wall0 = time.process_time(), time.perf_counter()
        trainer.train(updates=updates)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        clock.on = False
    rest = cpu - sum(clock.seconds.values())  # the loop outside rollout/optimise: logging, saving
    split = {phase: clock.seconds.get(phase, 0.0) / cpu for phase in PHASES} | {"loop.other": rest / cpu}
    every_cpu = float(replicas.sum(torch.tensor([cpu], dtype=torch.float64)))
    return {"steps": updates * trainer.steps_per_update, "cpu": every_cpu, "wall": wall, "split": split}


def bench(
    config: str, overrides: list[str], updates: int, warmup: int, at_agent_steps: int, engine_seconds: float
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        fixed = [f"out_dir={out}", "tensorboard=false", "progress_bar=false", "eval_every=0"]
        cfg = load_config(config, [*fixed, "checkpoint_every=1000000", *overrides])
        args = (cfg.model_dump(mode="json"), updates, warmup, at_agent_steps)
        if cfg.processes == 1:
            run = timed_training(Replicas(), *args)
        else:  # the processes train; the engine alone is timed afterwards, here, in one process
            run = launch(cfg.processes, timed_training, *args)
        engine = engine_rate(cfg.num_envs, cfg.env_config(at_agent_steps), engine_seconds)
    steps, cpu, wall = run["steps"], run["cpu"], run["wall"]
    return {
        "trainer_agent_steps_per_s": steps / cpu,
        "trainer_agent_steps_per_s_wall": steps / wall,
        "engine_agent_steps_per_s": engine,
        "config": config,
        "overrides": overrides,
        "arch": cfg.arch,
        "num_envs": cfg.num_envs,
        "num_steps": cfg.num_steps,
        "updates": updates,
        "warmup_updates": warmup,
        "at_agent_steps": at_agent_steps,
        "agent_steps": steps,
        "processes": cfg.processes,
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "split": run["split"],
        "command": "python " + " ".join(sys.argv),
        "machine": machine(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="bench_train.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        default="configs/ppo_4p.yaml",
        help="a shipped config's name (ppo_4p, smoke) or a YAML path",
    )
    parser.add_argument("--updates", type=int_in(1), default=3, help="timed PPO updates")
    parser.add_argument("--warmup", type=int_in(0), default=1, help="untimed updates first (numba compiles)")
    parser.add_argument(
        "--at-agent-steps", type=int_in(0), default=0, help="start the run's clock here (curriculum stage)"
    )
    parser.add_argument(
        "--engine-seconds", type=positive_float, default=3.0, help="CPU seconds for the engine alone"
    )
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    try:  # the config (a path or a shipped config's name), checked before any update
        read_yaml_mapping(args.config)
    except ValueError as exc:
        parser.error(f"argument --config: {one_line_error(exc)}")
    try:
        load_config(args.config, args.overrides)
    except ValueError as exc:
        parser.error(f"argument overrides: {one_line_error(exc)}")
    if args.json is not None:
        problem = output_dir_problem(args.json.parent, (args.json.name,))
        if problem:
            parser.error(f"--json: {problem}")
    report = bench(
        args.config, args.overrides, args.updates, args.warmup, args.at_agent_steps, args.engine_seconds
    )
    print(
        f"trainer: {report['trainer_agent_steps_per_s']:,.0f} agent-steps/s (CPU clock), "
        f"{report['trainer_agent_steps_per_s_wall']:,.0f} (wall)"
    )
    print(
        f"engine alone: {report['engine_agent_steps_per_s']:,.0f} agent-steps/s "
        f"at {report['num_envs']} tables"
    )
    for phase, share in report["split"].items():
        print(f"  {phase:<16} {100 * share:5.1f} %")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
