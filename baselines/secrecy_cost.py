"""The trainer's secrecy cost (``secrecy_coef``): a learned eavesdropper read on every rollout tick and
fitted after each update (the network itself: ``baselines/eavesdropper.py``; docs/ppo.md "Secrecy cost").

Split from ``baselines/ppo.py``: this holds the eavesdropper's model, optimiser, memory and the rows
one rollout keeps to fit it on; the trainer only asks it for each tick's leak and for a fit.
"""

from __future__ import annotations

from typing import Any

import torch

from baselines.config import TrainConfig
from baselines.eavesdropper import ChannelEavesdropper
from baselines.trainer_state import cloned


class SecrecyCost:
    """A learned eavesdropper over ``num_envs`` tables of ``n`` seats, and what it has read so far."""

    def __init__(self, cfg: TrainConfig, n: int, device: torch.device) -> None:
        self.cfg, self.n, self.device = cfg, n, device
        self.eavesdropper = ChannelEavesdropper(n, cfg.eavesdropper_hidden, cfg.eavesdropper_reads).to(device)
        self.optimizer = torch.optim.Adam(self.eavesdropper.parameters(), lr=cfg.eavesdropper_lr)
        self.h = self.eavesdropper.initial_state(cfg.num_envs, device)
        self.ledger = self.eavesdropper.initial_ledger(cfg.num_envs, device)  # reads="public" only
        self.updates = 0  # fits so far: its reading costs nothing before secrecy_warmup_updates
        self.batch: dict[str, torch.Tensor] = {}

    @property
    def charging(self) -> bool:
        """Whether the leak is charged yet (after ``secrecy_warmup_updates`` fits)."""
        return self.updates >= self.cfg.secrecy_warmup_updates

    def start(self, rollout_stats: dict[str, Any]) -> None:
        """Fresh buffers for the rows the eavesdropper reads during this rollout; its counters in
        ``rollout_stats`` (tensors until the update reads them: no host sync per tick)."""
        steps, tables, teams = self.cfg.num_steps, self.cfg.num_envs, self.n // 2
        dim = self.eavesdropper.input_dim
        self.batch = {
            "h0": self.h.clone(),
            "view": torch.zeros(steps, tables, teams, dim, device=self.device),
            "label": torch.zeros(steps, tables, teams, device=self.device),
            "done": torch.zeros(steps, tables, dtype=torch.bool, device=self.device),
        }
        rollout_stats.update(channel_leak_nats=0.0, play_team_ticks=0.0)
        rollout_stats.update(learner_leak_nats=0.0, learner_team_ticks=0.0)

    def read(
        self,
        t: int,
        obs: torch.Tensor,
        holders: torch.Tensor,
        done_tables: torch.Tensor,
        learner: torch.Tensor,
        rollout_stats: dict[str, Any],
    ) -> torch.Tensor:
        """Each seat's team leak of tick ``t``, in nats: what the eavesdropper reads from the channel as
        it stands after the tick's actions (``obs``), beyond the clock (the row is kept to fit it on)."""
        eaves, teams, tables = self.eavesdropper, self.n // 2, self.cfg.num_envs
        counts = None
        if eaves.ledger is not None:
            counts, self.ledger = eaves.read_ledger(obs, done_tables, self.ledger)
        view = eaves.view(obs, counts)
        label = holders.view(tables, 2, teams).amax(1)  # seats k and k + teams: team k
        with torch.no_grad():
            logits, clock, self.h = eaves(view[None], done_tables[None], self.h)
            play = eaves.playing(view)
            leak = eaves.leak(logits[0], clock[0], label) * play
        batch = self.batch
        batch["view"][t], batch["label"][t], batch["done"][t] = view, label, done_tables
        learner_team = learner.view(tables, 2, teams).any(1) & play
        stats = rollout_stats
        stats["channel_leak_nats"] = stats["channel_leak_nats"] + leak.sum()
        stats["play_team_ticks"] = stats["play_team_ticks"] + play.sum()
        stats["learner_leak_nats"] = stats["learner_leak_nats"] + (leak * learner_team).sum()
        stats["learner_team_ticks"] = stats["learner_team_ticks"] + learner_team.sum()
        return leak.repeat(1, 2).reshape(-1)  # seat s pays for its team s % teams

    def fit(self, rollout_stats: dict[str, Any]) -> dict[str, float]:
        """A few full-batch steps on this rollout's rows; the BCEs logged are those *before* the steps
        (on rows it has not been fitted on), so their difference is an honest leak estimate."""
        eaves, batch = self.eavesdropper, self.batch
        logged: dict[str, float] = {}
        for epoch in range(self.cfg.eavesdropper_epochs):
            loss, eaves_bce, clock_bce = eaves.loss(batch["view"], batch["done"], batch["h0"], batch["label"])
            if epoch == 0:
                logged = {"eavesdropper_bce": float(eaves_bce), "clock_bce": float(clock_bce)}
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.updates += 1
        for name, ticks in (("channel", "play_team_ticks"), ("learner", "learner_team_ticks")):
            rows = max(1.0, float(rollout_stats[ticks]))
            logged[f"{name}_leak_nats"] = float(rollout_stats[f"{name}_leak_nats"]) / rows
        return logged

    def state_dict(self) -> dict[str, Any]:
        """The trainer checkpoint's eavesdropper fields (names kept from before the split)."""
        return {
            "eavesdropper": cloned(self.eavesdropper.state_dict()),
            "eavesdropper_optimizer": cloned(self.optimizer.state_dict()),
            "h_eaves": self.h.clone(),
            "eaves_updates": self.updates,
        } | ({} if self.eavesdropper.ledger is None else {"eaves_ledger": self.ledger.clone()})

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.eavesdropper.load_state_dict(state["eavesdropper"])
        self.optimizer.load_state_dict(cloned(state["eavesdropper_optimizer"]))  # Adam steps in place
        self.h.copy_(state["h_eaves"])
        self.updates = state["eaves_updates"]
        if self.eavesdropper.ledger is not None:
            if "eaves_ledger" not in state:
                raise ValueError("trainer checkpoint: eavesdropper_reads='public' needs its eaves_ledger")
            self.ledger.copy_(state["eaves_ledger"])
