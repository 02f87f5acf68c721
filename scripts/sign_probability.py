"""How likely a trained policy is to show its team sign, with and without a quartet in hand.

    python scripts/sign_probability.py runs/NAME/latest.pt [--config CONFIG] [--rollouts 5] [key=value ...]

``--config`` takes a shipped config's name (``smoke``) or a YAML path, as ``quatro-train --config`` does.

Plays the checkpoint's policy at the config's tables (bots and opponents as in training at agent-step
0, i.e. the first curriculum stage; ``key=value`` overrides as for ``quatro-train``) and averages, over
learner seat-ticks where the seat holds the floor (so showing an emoji is legal), the policy's
probability of showing its team sign and of showing any emoji, apart for seats holding a quartet.
This is how docs/ppo.md found that the sign was being *suppressed* (a false sign is punished long
before a true one is ever rewarded), not merely unexplored.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path

import torch
import yaml

from baselines.checkpoint_io import load_checkpoint
from baselines.config import load_config
from baselines.ppo import PPOTrainer
from quatro_env.bots import ObservationView
from quatro_env.common.cli import OneLineParser, int_in, one_line_error
from quatro_env.quatro.cards import NUM_EMOJIS


def sign_probabilities(trainer: PPOTrainer, rollouts: int) -> dict[bool, tuple[int, float, float]]:
    """{holding a quartet: (seat-ticks, mean P(show the sign), mean P(show any emoji))}.

    Plays the trainer's own rollouts (its tables, bots and opponents), then re-reads each learner
    seat-tick from the seat's observation: on the floor, its sign, whether its hand is a quartet."""
    if trainer.cfg.central_critic:
        raise ValueError(
            "sign_probability: central_critic checkpoints are not supported (the value head needs state)"
        )
    view, show = ObservationView(trainer.n), slice(trainer.a_show0, trainer.a_show0 + NUM_EMOJIS)
    seen: dict[bool, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(rollouts):
        buf = trainer.rollout()
        with torch.no_grad():
            memory, _ = trainer.model.unroll(buf["obs"], buf["done"], buf["h0"])
            dist, _ = trainer.model.heads(memory, buf["mask"])
        probs = dist.probs.reshape(*buf["obs"].shape[:2], -1)[..., show].numpy()
        obs = buf["obs"].numpy()
        for t, i in buf["learn"].nonzero().tolist():
            o, sign = obs[t, i], view.sign(obs[t, i])
            if sign is None or not view.floor(o, 0):
                continue
            hand = view.hand(o)
            holding = len(hand) == 4 and hand.count(hand[0]) == 4
            seen[holding].append((float(probs[t, i, sign]), float(probs[t, i].sum())))
    return {k: (len(v), *torch.tensor(v).mean(0).tolist()) for k, v in seen.items()}


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="sign_probability.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument(
        "--config", help="a shipped config's name or a YAML path (default: the one stored in the checkpoint)"
    )
    parser.add_argument("--rollouts", type=int_in(1), default=5, help="rollouts of num_steps ticks each")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_intermixed_args(argv)  # key=value overrides before or after the flags
    torch.set_num_threads(1)
    try:  # a trainer checkpoint or a policy file, read safely
        state = load_checkpoint(args.checkpoint)
    except ValueError as exc:
        parser.error(f"argument checkpoint: {one_line_error(exc)}")
    config = args.config
    if config is None:  # the config stored in the checkpoint, as a file so that overrides apply
        config = Path(tempfile.mkdtemp()) / "config.yaml"
        config.write_text(yaml.safe_dump(state["config"]))
    try:  # the config (a path or a shipped name, resolved by load_config) and the overrides
        # played in this process, whatever the policy was trained in (``processes=2`` was refused)
        overrides = ["processes=1", *args.overrides, f"out_dir={tempfile.mkdtemp()}"]
        trainer = PPOTrainer(load_config(config, overrides))
    except ValueError as exc:
        parser.error(f"--config/overrides: {one_line_error(exc)}")
    try:
        trainer.model.load_state_dict(state["model"])
    except RuntimeError as exc:  # weights of another shape than the config's network
        parser.error(f"argument checkpoint: does not fit the config's network ({one_line_error(exc)[:300]})")
    try:
        probabilities = sign_probabilities(trainer, args.rollouts)
    except ValueError as exc:  # a checkpoint kind it cannot read (central critic)
        parser.error(f"argument checkpoint: {one_line_error(exc)}")
    for holding, (count, p_sign, p_any) in sorted(probabilities.items()):
        label = "holding a quartet" if holding else "no quartet"
        print(
            f"{label:>18}: {count:6d} seat-ticks on the floor  "
            f"P(show sign) {p_sign:.4f}  P(show any emoji) {p_any:.3f}"
        )


if __name__ == "__main__":
    main()
