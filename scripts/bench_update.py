"""CPU seconds of one PPO update on a fixed rollout, eager or under ``torch.compile`` (issue #17).

``bench_train.py`` times the whole trainer; this times only the update's minibatch work (loss,
backward, gradient clip, Adam) on the packed minibatches of one real rollout, the same minibatches
for every variant, so variants of the update can be compared without the rollout's noise:

* ``eager``: the trainer as it is;
* ``recur``: the GRU recurrence (``baselines.networks.recur``) compiled by inductor;
* ``loss``: the whole loss (``baselines.ppo_update.ppo_loss``) compiled by inductor;
* ``all_pairs``: the pair scorer on every row, as before it skipped the rows where no exchange is
  legal (``StructuredActorCritic.score_every_pair``).

Shapes vary between minibatches (packed columns), so both compile with ``dynamic=True``. The first
update (compilation included) is reported apart.

    OMP_NUM_THREADS=1 python scripts/bench_update.py --compile eager recur loss all_pairs --updates 4
"""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from baselines import networks, ppo_update  # noqa: E402
from baselines.config import load_config  # noqa: E402
from baselines.packing import learner_segments  # noqa: E402
from baselines.ppo import PPOTrainer  # noqa: E402
from quatro_env.common.cli import OneLineParser, int_in, one_line_error  # noqa: E402

VARIANTS = ("eager", "recur", "loss", "all_pairs")


def minibatches(trainer: PPOTrainer) -> list[dict]:
    """One rollout's packed minibatches for every epoch, in the trainer's order (seeded)."""
    cfg, buf = trainer.cfg, trainer.rollout()
    segments = learner_segments(buf["done"], buf["learn"])
    generator = torch.Generator().manual_seed(0)
    per_mb, out = cfg.num_envs // cfg.num_minibatches, []
    for _ in range(cfg.update_epochs):
        order = torch.randperm(cfg.num_envs, generator=generator)
        for start in range(0, cfg.num_envs, per_mb):
            tables = order[start : start + per_mb]
            mb = ppo_update.packed_minibatch(buf, tables, segments, trainer.n, cfg.central_critic)
            if mb is not None:
                out.append(mb)
    return out


def time_variant(config: str, variant: str, updates: int, at_agent_steps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out:
        fixed = [f"out_dir={out}", "tensorboard=false", "progress_bar=false", "eval_every=0"]
        cfg = load_config(config, [*fixed, "checkpoint_every=1000000"])
        torch.manual_seed(0)
        trainer = PPOTrainer(cfg)
        trainer.agent_steps = at_agent_steps
        trainer.train(updates=1)  # numba compiles the engine and bots
        mbs = minibatches(trainer)
    loss_fn, recur = ppo_update.ppo_loss, networks.recur
    trainer.model.score_every_pair = variant == "all_pairs"
    if variant == "recur":
        networks.recur = torch.compile(recur, dynamic=True)
    elif variant == "loss":
        loss_fn = torch.compile(ppo_update.ppo_loss, dynamic=True)
    model, optimizer = trainer.model, trainer.optimizer

    def update() -> float:
        start = time.process_time()
        for mb in mbs:
            loss, _ = loss_fn(model, mb, cfg, cfg.ent_coef_start)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
        return time.process_time() - start

    try:
        first = update()
        times = [update() for _ in range(updates)]
    finally:
        networks.recur = recur
    return {"first": first, "best": min(times), "worst": max(times), "minibatches": len(mbs)}


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="bench_update.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        default="configs/ppo_4p.yaml",
        help="a shipped config's name (ppo_4p, smoke) or a YAML path",
    )
    parser.add_argument("--compile", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--updates", type=int_in(1), default=4, help="timed updates after the first")
    parser.add_argument("--at-agent-steps", type=int_in(0), default=0, help="the curriculum stage to time")
    args = parser.parse_args(argv)
    try:  # a path or a shipped config's name, checked before the first rollout
        load_config(args.config)
    except ValueError as exc:
        parser.error(f"argument --config: {one_line_error(exc)}")
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, config {args.config}")
    for variant in args.compile:
        r = time_variant(args.config, variant, args.updates, args.at_agent_steps)
        print(
            f"{variant:>6}: first update {r['first']:.2f} CPU s; then {r['best']:.3f}-{r['worst']:.3f} CPU s "
            f"an update ({r['minibatches']} minibatches)"
        )


if __name__ == "__main__":
    main()
