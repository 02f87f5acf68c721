"""The trainer's secrecy cost (``secrecy_coef``): a learned eavesdropper read on every rollout tick and
fitted after each update (the network itself: ``baselines/eavesdropper.py``; docs/ppo.md "Secrecy cost").

Split from ``baselines/ppo.py``: this holds the eavesdropper's model, optimiser, memory and the rows
one rollout keeps to fit it on; the trainer only asks it for each tick's cost and for a fit. With
``secrecy_partner_coef`` it keeps a second reader, the team's partner (Eve's inputs plus the team's sign),
and pays the team for what that one reads: the cost is then ``secrecy_coef × Eve's leak −
secrecy_partner_coef × the partner's``. With ``secrecy_partner_pay="call"`` the partner is paid only at
the team's correct «Quatro»: ``secrecy_partner_coef × (partner − Eve)`` as they read the tick before it,
so holding and showing without calling earns nothing.
"""

from __future__ import annotations

from typing import Any

import torch

from baselines.config import TrainConfig
from baselines.eavesdropper import ChannelEavesdropper
from baselines.trainer_state import cloned, set_learning_rate


class SecrecyCost:
    """A learned eavesdropper over ``num_envs`` tables of ``n`` seats, and what it has read so far."""

    def __init__(self, cfg: TrainConfig, n: int, device: torch.device) -> None:
        self.cfg, self.n, self.device = cfg, n, device
        self.eavesdropper = ChannelEavesdropper(n, cfg.eavesdropper_hidden, cfg.eavesdropper_reads).to(device)
        self.optimizer = torch.optim.Adam(self.eavesdropper.parameters(), lr=cfg.eavesdropper_lr)
        self.h = self.eavesdropper.initial_state(cfg.num_envs, device)
        self.ledger = self.eavesdropper.initial_ledger(cfg.num_envs, device)  # reads="public" only
        self.partner: ChannelEavesdropper | None = None
        if cfg.secrecy_partner_coef:  # the same model, also given the team's sign (eavesdropper.py)
            self.partner = ChannelEavesdropper(
                n, cfg.eavesdropper_hidden, cfg.eavesdropper_reads, partner=True
            ).to(device)
            self.partner_optimizer = torch.optim.Adam(self.partner.parameters(), lr=cfg.eavesdropper_lr)
            self.h_partner = self.partner.initial_state(cfg.num_envs, device)
            # each team's (partner − Eve) nats on the last tick: what a correct call is paid ("call")
            self.edge = torch.zeros(cfg.num_envs, n // 2, device=device)
        self.updates = 0  # fits so far: its reading costs nothing before secrecy_warmup_updates
        self.batch: dict[str, torch.Tensor] = {}

    @property
    def pays_at_call(self) -> bool:
        """Whether ``read`` needs each tick's scored calls (the partner is paid at the call)."""
        return self.partner is not None and self.cfg.secrecy_partner_pay == "call"

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
        if self.partner is not None:
            self.batch["partner_h0"] = self.h_partner.clone()
            self.batch["partner_view"] = torch.zeros(
                steps, tables, teams, self.partner.input_dim, device=self.device
            )
            rollout_stats.update(partner_leak_nats=0.0)

    def read(
        self,
        t: int,
        obs: torch.Tensor,
        holders: torch.Tensor,
        done_tables: torch.Tensor,
        learner: torch.Tensor,
        rollout_stats: dict[str, Any],
        signs: torch.Tensor | None = None,
        paid_calls: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Each seat's team cost of tick ``t``, in reward units: ``secrecy_coef`` × the nats the
        eavesdropper reads from the table as it stands after the tick's actions (``obs``) beyond the
        clock, less ``secrecy_partner_coef`` × the partner reader's (which needs ``signs [B, teams]``,
        the team signs). With ``secrecy_partner_pay="call"`` the partner term is paid only where
        ``paid_calls [B, teams]`` (the team's «Quatro» scored this tick), as last tick's edge over Eve.
        The rows are kept to fit both on."""
        if self.pays_at_call and paid_calls is None:
            raise ValueError("secrecy_partner_pay='call': read() needs paid_calls [B, teams]")
        eaves, teams, tables = self.eavesdropper, self.n // 2, self.cfg.num_envs
        counts = None
        if eaves.ledger is not None:
            counts, self.ledger = eaves.read_ledger(obs, done_tables, self.ledger)
        view = eaves.view(obs, counts)
        label = holders.view(tables, 2, teams).amax(1)  # seats k and k + teams: team k
        play = eaves.playing(view)
        leak, self.h = self._tick(eaves, view, done_tables, self.h, label, play)
        batch = self.batch
        batch["view"][t], batch["label"][t], batch["done"][t] = view, label, done_tables
        learner_team = learner.view(tables, 2, teams).any(1) & play
        stats = rollout_stats
        stats["channel_leak_nats"] = stats["channel_leak_nats"] + leak.sum()
        stats["play_team_ticks"] = stats["play_team_ticks"] + play.sum()
        stats["learner_leak_nats"] = stats["learner_leak_nats"] + (leak * learner_team).sum()
        stats["learner_team_ticks"] = stats["learner_team_ticks"] + learner_team.sum()
        cost = self.cfg.secrecy_coef * leak
        if self.partner is not None:
            partner_view = self.partner.view(obs, counts, signs)  # refuses a missing ``signs``
            read, self.h_partner = self._tick(
                self.partner, partner_view, done_tables, self.h_partner, label, play
            )
            batch["partner_view"][t] = partner_view
            stats["partner_leak_nats"] = stats["partner_leak_nats"] + (read * learner_team).sum()
            if self.pays_at_call:
                cost = cost - self.cfg.secrecy_partner_coef * paid_calls * self.edge
                self.edge = read - leak
            else:
                cost = cost - self.cfg.secrecy_partner_coef * read
        return cost.repeat(1, 2).reshape(-1)  # seat s pays for its team s % teams

    @staticmethod
    @torch.no_grad()
    def _tick(reader, view, done_tables, h, label, play) -> tuple[torch.Tensor, torch.Tensor]:
        """One tick of ``reader`` over its memory ``h``: its nats over the clock on play rows, new ``h``."""
        logits, clock, h = reader(view[None], done_tables[None], h)
        return reader.leak(logits[0], clock[0], label) * play, h

    def fit(self, rollout_stats: dict[str, Any]) -> dict[str, float]:
        """A few full-batch steps on this rollout's rows; the BCEs logged are those *before* the steps
        (on rows it has not been fitted on), so their difference is an honest leak estimate."""
        batch = self.batch
        readers = [(self.eavesdropper, self.optimizer, "", "eavesdropper")]
        if self.partner is not None:
            readers.append((self.partner, self.partner_optimizer, "partner_", "partner"))
        logged: dict[str, float] = {}
        for reader, optimizer, prefix, name in readers:
            views, h0 = batch[f"{prefix}view"], batch[f"{prefix}h0"]
            for epoch in range(self.cfg.eavesdropper_epochs):
                loss, reader_bce, clock_bce = reader.loss(views, batch["done"], h0, batch["label"])
                if epoch == 0:
                    logged[f"{name}_bce"] = float(reader_bce)
                    logged.setdefault("clock_bce", float(clock_bce))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        self.updates += 1
        sums = [("channel", "play_team_ticks"), ("learner", "learner_team_ticks")]
        if self.partner is not None:
            sums.append(("partner", "learner_team_ticks"))  # the learner's teams, as "learner"
        for name, ticks in sums:
            rows = max(1.0, float(rollout_stats[ticks]))
            logged[f"{name}_leak_nats"] = float(rollout_stats[f"{name}_leak_nats"]) / rows
        return logged

    def state_dict(self) -> dict[str, Any]:
        """The trainer checkpoint's eavesdropper fields (names kept from before the split)."""
        state = {
            "eavesdropper": cloned(self.eavesdropper.state_dict()),
            "eavesdropper_optimizer": cloned(self.optimizer.state_dict()),
            "h_eaves": self.h.clone(),
            "eaves_updates": self.updates,
        } | ({} if self.eavesdropper.ledger is None else {"eaves_ledger": self.ledger.clone()})
        if self.partner is not None:
            state |= {
                "partner_reader": cloned(self.partner.state_dict()),
                "partner_reader_optimizer": cloned(self.partner_optimizer.state_dict()),
                "h_partner": self.h_partner.clone(),
                "partner_edge": self.edge.clone(),
            }
        return state

    def forget(self) -> None:
        """Every table starts a new episode (a curriculum stage's new tables): the readers' memories,
        the ledger and the partner's edge start afresh."""
        self.h.zero_()
        if self.eavesdropper.ledger is not None:
            self.ledger.copy_(self.eavesdropper.initial_ledger(self.cfg.num_envs, self.device))
        if self.partner is not None:
            self.h_partner.zero_()
            self.edge.zero_()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.eavesdropper.load_state_dict(state["eavesdropper"])
        self.optimizer.load_state_dict(cloned(state["eavesdropper_optimizer"]))  # Adam steps in place
        set_learning_rate(self.optimizer, self.cfg.eavesdropper_lr)  # the config's (a new leg may change it)
        self.h.copy_(state["h_eaves"])
        self.updates = state["eaves_updates"]
        if self.eavesdropper.ledger is not None:
            if "eaves_ledger" not in state:
                raise ValueError("trainer checkpoint: eavesdropper_reads='public' needs its eaves_ledger")
            self.ledger.copy_(state["eaves_ledger"])
        if self.partner is not None:
            if "partner_reader" not in state:
                raise ValueError("trainer checkpoint: secrecy_partner_coef needs its partner_reader")
            self.partner.load_state_dict(state["partner_reader"])
            self.partner_optimizer.load_state_dict(cloned(state["partner_reader_optimizer"]))
            set_learning_rate(self.partner_optimizer, self.cfg.eavesdropper_lr)
            self.h_partner.copy_(state["h_partner"])
            if "partner_edge" in state:  # checkpoints of the "tick" runs (nineteenth session) lack it
                self.edge.copy_(state["partner_edge"])
            elif self.pays_at_call:
                raise ValueError("trainer checkpoint: secrecy_partner_pay='call' needs its partner_edge")
