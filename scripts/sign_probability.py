"""How likely a trained policy is to show its team sign, with and without a quartet in hand.

    python scripts/sign_probability.py runs/NAME/latest.pt [--config CONFIG] [--ticks 300] [key=value ...]

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

from baselines.config import load_config
from baselines.ppo import PPOTrainer


def sign_probabilities(trainer: PPOTrainer, ticks: int) -> dict[bool, tuple[int, float, float]]:
    """{holding a quartet: (seat-ticks, mean P(show the sign), mean P(show any emoji))}."""
    model, n_show = trainer.model, 24
    seen: dict[bool, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(ticks):
        obs = trainer.next_obs.reshape(trainer.slots, -1)
        mask = trainer.next_mask.reshape(trainer.slots, -1)
        with torch.no_grad():
            memory, _ = model.unroll(obs.unsqueeze(0), trainer.next_done.unsqueeze(0), trainer.h)
            dist, _ = model.heads(memory[0], mask)
            action, _, _, trainer.h = model.act(obs, mask, trainer.next_done, trainer.h, None)
        action = trainer._bot_actions(action)
        shows = dist.probs[:, trainer.a_show0 : trainer.a_show0 + n_show]
        sign, holding = trainer._own_sign(), trainer._quartet_holders().bool()
        asked = trainer.learner.reshape(-1) & trainer.engine.floor.reshape(-1).bool() & (sign >= 0)
        for i in asked.nonzero().flatten().tolist():
            seen[bool(holding[i])].append((float(shows[i, int(sign[i])]), float(shows[i].sum())))
        result = trainer.engine.step(action.reshape(trainer.cfg.num_envs, trainer.n))
        trainer.next_obs, trainer.next_mask = trainer._own(result)
        done = result.terminations | result.truncations
        trainer.next_done = done.repeat_interleave(trainer.n)
        if bool(done.any()):
            trainer._assign_opponents(done.nonzero().squeeze(1))
    return {k: (len(v), *torch.tensor(v).mean(0).tolist()) for k, v in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", help="default: the config stored in the checkpoint")
    parser.add_argument("--ticks", type=int, default=300)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    torch.set_num_threads(1)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    config = args.config
    if config is None:  # the config stored in the checkpoint, as a file so that overrides apply
        config = Path(tempfile.mkdtemp()) / "config.yaml"
        config.write_text(yaml.safe_dump(state["config"]))
    cfg = load_config(config, [*args.overrides, f"out_dir={tempfile.mkdtemp()}"])
    trainer = PPOTrainer(cfg)
    trainer.model.load_state_dict(state["model"])
    for holding, (count, p_sign, p_any) in sorted(sign_probabilities(trainer, args.ticks).items()):
        label = "holding a quartet" if holding else "no quartet"
        print(
            f"{label:>18}: {count:6d} seat-ticks on the floor  "
            f"P(show sign) {p_sign:.4f}  P(show any emoji) {p_any:.3f}"
        )


if __name__ == "__main__":
    main()
