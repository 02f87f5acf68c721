"""How likely a trained policy is to show its team sign, with and without a quartet in hand.

    python scripts/sign_probability.py runs/NAME/latest.pt [--config CONFIG] [--rollouts 5] [key=value ...]

Plays the checkpoint's policy at the config's tables (bots and opponents as in training at agent-step
0, i.e. the first curriculum stage; ``key=value`` overrides as for ``quatro-train``) and averages, over
learner seat-ticks where the seat holds the floor (so showing an emoji is legal), the policy's
probability of showing its team sign and of showing any emoji, apart for seats holding a quartet.
This is how docs/ppo.md found that the sign was being *suppressed* (a false sign is punished long
before a true one is ever rewarded), not merely unexplored.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import torch
import yaml

from baselines.checkpoint_io import load_checkpoint
from baselines.config import load_config
from baselines.ppo import PPOTrainer
from quatro_env.bots import ObservationView
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", help="default: the config stored in the checkpoint")
    parser.add_argument("--rollouts", type=int, default=5, help="rollouts of num_steps ticks each")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    torch.set_num_threads(1)
    state = load_checkpoint(args.checkpoint)  # a trainer checkpoint or a policy file, read safely
    config = args.config
    if config is None:  # the config stored in the checkpoint, as a file so that overrides apply
        config = Path(tempfile.mkdtemp()) / "config.yaml"
        config.write_text(yaml.safe_dump(state["config"]))
    cfg = load_config(config, [*args.overrides, f"out_dir={tempfile.mkdtemp()}"])
    trainer = PPOTrainer(cfg)
    trainer.model.load_state_dict(state["model"])
    for holding, (count, p_sign, p_any) in sorted(sign_probabilities(trainer, args.rollouts).items()):
        label = "holding a quartet" if holding else "no quartet"
        print(
            f"{label:>18}: {count:6d} seat-ticks on the floor  "
            f"P(show sign) {p_sign:.4f}  P(show any emoji) {p_any:.3f}"
        )


if __name__ == "__main__":
    main()
