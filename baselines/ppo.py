"""PPO for Quatro: a recurrent, masked, seat-shared policy trained by self-play on the batched engine.

CleanRL spirit: the loop is in this file, top to bottom — opponents, rollout, update, checkpoints —
with the update's arithmetic (GAE, minibatches, the clipped objective) in ``ppo_update.py``, the
logs and periodic evaluation in ``run_log.py``, the optional secrecy cost in ``secrecy_cost.py``,
the network in ``networks.py`` and the config in ``config.py``. Opponents: when a table starts an episode it
draws who sits with the learner — a frozen past snapshot on every other team (``pool_prob``), or
scripted bots (``bot_prob``, optionally the learner's partner too, ``partner_bot_prob``), or
nobody (pure self-play, every seat learns). Signals must then survive eavesdroppers that are not
the learner itself, and bot partners that call on the sign show the learner what a sign is for.

    quatro-train --config configs/ppo_4p.yaml                # train
    quatro-train --config configs/smoke.yaml num_envs=16     # key=value overrides
    quatro-train --resume runs/ppo_4p/latest.pt              # identical continuation
"""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baselines.checkpoint_io import TRAINER_FORMAT, first_line, save_checkpoint
from baselines.config import TrainConfig
from baselines.interrupts import ignore_sigint, restore_sigint
from baselines.networks import build_model
from baselines.opponent_pool import OpponentPool
from baselines.packing import learner_segments
from baselines.ppo_update import (
    LOSS_PARTS,
    gae,
    packed_minibatch,
    ppo_loss,
    table_minibatch,
    table_moments,
)
from baselines.replicas import Replicas, rank_path
from baselines.run_log import evaluate_policy, log_row, open_writer, policy_payload, progress_row
from baselines.secrecy_cost import SecrecyCost
from baselines.trainer_state import (
    TRAINER_TENSORS,
    check_trainer_state,
    cloned,
    engine_state,
    load_engine_state,
    numpy_rng_state,
    set_learning_rate,
    set_numpy_rng_state,
)
from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import NO_BOT, BatchedBots
from quatro_env.quatro.actions import ActionCodec, ActionKind

SELF_PLAY, VS_POOL, VS_BOTS = 0, 1, 2  # who sits with the learner at a table, drawn per episode


class PPOTrainer:
    """Holds everything a run needs, so that a checkpoint can restore it exactly."""

    def __init__(self, cfg: TrainConfig, replicas: Replicas | None = None) -> None:
        """``replicas``: this process's place among ``cfg.processes`` trainer processes (``launch``
        gives it; one process by default)."""
        self.cfg = cfg
        self.replicas = replicas or Replicas()
        if cfg.processes != self.replicas.world:
            raise ValueError(
                f"processes: {cfg.processes}, but this trainer is one of {self.replicas.world} process(es); "
                "quatro-train launches the processes (baselines.replicas.launch)"
            )
        self.seed = self.replicas.seed(cfg.seed)  # this process's tables and draws
        self.num_envs = cfg.num_envs // cfg.processes  # this process's tables
        torch.manual_seed(cfg.seed)  # the network starts the same in every process
        np.random.seed(cfg.seed)
        if cfg.deterministic:
            torch.use_deterministic_algorithms(True)
        self.device = torch.device(cfg.device)  # the network and the rollout buffers
        self.env_device = torch.device(cfg.env_device or cfg.device)  # the tables (numba runs on the CPU)
        self.agent_steps, self.update, self.wall_seconds = 0, 0, 0.0
        self.env_cfg = cfg.env_config(0)
        self.engine = BatchedQuatroEngine(
            self.num_envs, config=self.env_cfg, device=self.env_device, seed=self.seed
        )
        self.n = self.engine.n
        codec = ActionCodec(self.n)
        self.a_quatro = codec.encode(ActionKind.QUATRO)
        self.a_contra, self.a_contra_last = (
            codec.ranges[ActionKind.CONTRA][0],
            codec.ranges[ActionKind.CONTRA][-1],
        )
        self.a_show0 = codec.ranges[ActionKind.SHOW_EMOJI][0]
        self.slots = self.num_envs * self.n
        state_dim = self.n * self.engine.obs_dim if cfg.central_critic else None
        self.model = build_model(
            cfg.arch,
            self.engine.obs_dim,
            self.engine.num_actions,
            cfg.hidden_size,
            cfg.rnn_size,
            state_dim,
            self.n,
        ).to(self.device)
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True
        )  # one kernel a step, not one a tensor (issue #17; a checkpoint keeps its own choice)
        self.opponent = copy.deepcopy(self.model).requires_grad_(False)
        if self.replicas.rank:  # the same network, other draws
            torch.manual_seed(self.seed)
            np.random.seed(self.seed % 2**32)
        self.pool = OpponentPool(self.opponent, self.num_envs, self.device)  # a snapshot per pool table
        self.secrecy = SecrecyCost(cfg, self.n, self.device) if cfg.secrecy_coef else None
        self.eavesdropper = None if self.secrecy is None else self.secrecy.eavesdropper
        self.num_updates = max(1, cfg.total_agent_steps // self.steps_per_update)
        self.next_obs, self.next_mask = self._own(self.engine.reset(self.seed))
        self.next_done = torch.zeros(self.slots, dtype=torch.bool, device=self.device)
        self.h = self.model.initial_state(self.slots, self.device)
        self.h_opp = self.model.initial_state(self.slots, self.device)
        self.mode = torch.zeros(self.num_envs, dtype=torch.long, device=self.device)
        self.learner = torch.ones(self.num_envs, self.n, dtype=torch.bool, device=self.device)
        self.bots = BatchedBots(
            self.n, self.slots
        )  # one row per slot: the scripted bot seats of VS_BOTS tables
        self.bot_returns: list[float] = []
        self.assign_opponents(torch.arange(self.num_envs, device=self.device))
        self.running_return = torch.zeros(self.slots, device=self.device)
        self.potential = torch.zeros(self.slots, device=self.device)
        self.finished_returns: list[float] = []
        self.pool_returns: list[float] = []  # the last 1000 of each are kept
        #: when a list, every return at a table against the pool is also appended to it, unbounded
        #: (a league counts each block's results; not checkpointed: it is the caller's record)
        self.pool_record: list[float] | None = None
        #: a Ctrl-C during the saves at the end of ``train`` is held pending (SIGINT blocked, for the
        #: caller to unblock) instead of ignored: a caller that trains in many calls must not lose it
        self.hold_sigint_while_saving = False
        self.episodes = 0
        self.run_dir = Path(cfg.out_dir) / cfg.run_name
        self.history: list[dict[str, float]] = []

    def reseat_opponents(self) -> None:
        """Draw every table's opponents again (pool snapshot, bots or self-play, by the current
        stage's mix): for a caller that has just replaced the pool, e.g. a league's next block."""
        self.assign_opponents(torch.arange(self.num_envs, device=self.device))

    @property
    def steps_per_update(self) -> int:
        """Agent-steps of one update, every process's tables together."""
        return self.cfg.num_steps * self.slots * self.replicas.world

    # ------------------------------------------------------------------ self-play bookkeeping
    def assign_opponents(self, tables: torch.Tensor) -> None:
        """Tables that (re)start an episode draw who sits with the learner, and which seats learn."""
        cfg, n, k = self.cfg, self.n, int(tables.numel())
        pool_prob, bot_prob, partner_bot_prob = cfg.opponent_mix(self.agent_steps)
        draw = torch.rand(k, device=self.device)
        mode = torch.full((k,), SELF_PLAY, dtype=torch.long, device=self.device)
        if self.pool.drawable:
            mode[draw < pool_prob] = VS_POOL
        mode[(draw >= pool_prob) & (draw < pool_prob + bot_prob)] = VS_BOTS
        team = torch.randint(n // 2, (k,), device=self.device)
        seat_team = torch.arange(n, device=self.device) % (n // 2)
        learner = seat_team.unsqueeze(0) == team.unsqueeze(1)
        partner_bot = (mode == VS_BOTS) & (torch.rand(k, device=self.device) < partner_bot_prob)
        learner[partner_bot, :] = False  # one learner seat of the team; its partner is a bot
        learner[partner_bot, team[partner_bot]] = True
        learner[mode == SELF_PLAY] = True
        self.mode[tables], self.learner[tables] = mode, learner
        self.pool.seat(tables, mode == VS_POOL)  # kept for the whole episode
        opponents, partners = cfg.bots(self.agent_steps)
        kinds = torch.randint(len(opponents), (k,))
        partner_kinds = torch.randint(len(partners or opponents), (k,))
        opponent_ids = torch.from_numpy(BatchedBots.kind_ids(opponents))[kinds]
        kind = opponent_ids.unsqueeze(1).expand(k, n)
        if partners is not None:
            partner_ids = torch.from_numpy(BatchedBots.kind_ids(partners))[partner_kinds]
            partner_seat = (seat_team.unsqueeze(0) == team.unsqueeze(1)).cpu()
            kind = torch.where(partner_seat, partner_ids.unsqueeze(1), kind)
        is_bot = ((mode == VS_BOTS).unsqueeze(1) & ~learner).cpu()
        kind = torch.where(is_bot, kind, torch.full_like(kind, NO_BOT))
        rows = tables.cpu().unsqueeze(1) * n + torch.arange(n)
        self.bots.reset_rows(rows.reshape(-1).numpy(), kind.reshape(-1).numpy())

    def _bot_actions(self, action: torch.Tensor) -> torch.Tensor:
        """Scripted bots play their seats: every bot seat in one compiled call (quatro_env/bots/batched.py),
        its random choices from this tick's uniform draws (torch's generator: a checkpoint restores them)."""
        rows = self.bots.active_rows()
        if not rows.size:
            return action
        index = torch.from_numpy(rows).to(self.device)
        obs = self.next_obs.reshape(self.slots, -1)[index].cpu().numpy()
        mask = self.next_mask.reshape(self.slots, -1)[index].cpu().numpy()
        draws = torch.rand(rows.size, self.bots.num_draws).numpy()
        chosen = self.bots.act(obs, mask, draws, rows)
        action = action.clone()
        action[index] = torch.from_numpy(chosen).to(self.device)
        return action

    # ------------------------------------------------------------------ rollout
    def rollout(self) -> dict[str, torch.Tensor]:
        cfg, n, T, N = self.cfg, self.n, self.cfg.num_steps, self.slots
        dev = self.device
        buf = self._rollout_buffers()
        buf["h0"] = self.h.clone()
        # behaviour statistics of this rollout: share of seat-ticks holding a quartet, seats paid
        # (tensors while the rollout runs: no host sync per tick; floats once it is over)
        zero = torch.zeros((), device=dev)
        self.rollout_stats = {"quartet_share": zero, "points": zero, "learner_best_count": zero}
        calls = dict.fromkeys(("quatro", "quatro_paid", "contra", "contra_paid", "holding", "signs"), zero)
        holders = self._quartet_holders().to(dev)  # at each tick's start: what the seats see
        if self.secrecy is not None:
            self.secrecy.start(self.rollout_stats)
        for t in range(T):
            obs = self.next_obs.reshape(N, -1)
            mask = self.next_mask.reshape(N, -1)
            state = self._state(self.next_obs)
            learn = self.learner.reshape(-1)
            if self.device.type == "cpu":  # compute bound: the networks see only the seats they play
                action, logp, value = self._policy_rows(obs, mask, state, learn)
            else:  # a GPU has width to spare; picking rows would cost a host sync per tick
                action, logp, value, self.h = self.model.act(obs, mask, self.next_done, self.h, state)
                if bool((self.mode == VS_POOL).any()):
                    pool_seat = (self.mode == VS_POOL).repeat_interleave(n) & ~learn
                    action, self.h_opp = self.pool.act_all(
                        pool_seat, n, (obs, mask, self.next_done, state), action, self.h_opp
                    )
            action = self._bot_actions(action)
            buf["obs"][t], buf["mask"][t], buf["done"][t], buf["learn"][t] = obs, mask, self.next_done, learn
            buf["action"][t], buf["logp"][t], buf["value"][t] = action, logp, value

            holding = holders.bool() & learn
            calls["holding"] = calls["holding"] + holding.sum()
            calls["signs"] = calls["signs"] + (holding & (action == self.a_show0 + self._own_sign())).sum()
            result = self.engine.step(action.reshape(self.num_envs, n).to(self.env_device))
            game_reward = result.rewards.reshape(N).float().to(dev)
            holders = self._quartet_holders().to(dev)
            potential = self._collect_potential().to(dev)
            stats, learners = self.rollout_stats, learn.sum()
            stats["quartet_share"] = stats["quartet_share"] + (holders * learn).sum() / learners / T
            stats["learner_best_count"] = (
                stats["learner_best_count"] + 4 * (potential * learn).sum() / learners / T
            )
            stats["points"] = stats["points"] + (result.rewards > 0).sum().to(dev)
            for kind, chosen in (("quatro", action == self.a_quatro), ("contra", action >= self.a_contra)):
                chosen = chosen & (action <= self.a_contra_last) & learn
                calls[kind] = calls[kind] + chosen.sum()
                calls[f"{kind}_paid"] = calls[f"{kind}_paid"] + (chosen & (game_reward > 0)).sum()
            self.next_obs, self.next_mask = self._own(result)
            done_tables = (result.terminations | result.truncations).to(dev)
            reward = game_reward + cfg.quartet_bonus * holders if cfg.quartet_bonus else game_reward
            if cfg.collect_shaping:
                reward = reward + cfg.collect_shaping * self._shaping(potential)
                self.potential = potential  # a finished table restarts in its sign phase, where Φ = 0
            if self.secrecy is not None:
                paid = None  # teams whose «Quatro» scored this tick: only a payment at the call reads it
                if self.secrecy.pays_at_call:
                    paid = ((action == self.a_quatro) & (game_reward > 0)).view(self.num_envs, 2, -1).any(1)
                cost = self._eavesdrop(t, holders, done_tables, paid)
                if self.secrecy.charging:
                    reward = reward - cost
            buf["reward"][t] = reward
            self.next_done = done_tables.repeat_interleave(n)
            self._track_returns(game_reward, learn)
            if bool(done_tables.any()):
                self.assign_opponents(done_tables.nonzero().squeeze(1))
        calls = {k: float(v) for k, v in calls.items()}
        for key in ("quartet_share", "points", "learner_best_count"):
            self.rollout_stats[key] = float(self.rollout_stats[key])
        # signalling: share of the learner's quartet-holding seat-ticks on which it shows its team sign
        self.rollout_stats["sign_shown_share"] = (
            calls["signs"] / calls["holding"] if calls["holding"] else float("nan")
        )
        for kind in ("quatro", "contra"):  # learner calls per 1k learner seat-ticks, and the share paid
            seat_ticks = max(1.0, float(buf["learn"].sum()))
            self.rollout_stats[f"{kind}_calls_per_1k"] = 1000 * calls[kind] / seat_ticks
            self.rollout_stats[f"{kind}_paid_share"] = (
                calls[f"{kind}_paid"] / calls[kind] if calls[kind] else float("nan")
            )
        with torch.no_grad():
            memory, _ = self.model.unroll(
                self.next_obs.reshape(1, N, -1), self.next_done.unsqueeze(0), self.h
            )
            _, next_value = self.model.heads(
                memory[0], self.next_mask.reshape(N, -1), self._state(self.next_obs)
            )
        buf["adv"], buf["ret"] = gae(buf, next_value, self.next_done, cfg.gamma, cfg.gae_lambda)
        return buf

    def _policy_rows(
        self, obs: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None, learn: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """This tick's learner rows through the policy, the snapshot's seats through the snapshot;
        bot seats through neither (their memory is never read: a seat changes hands only where its
        table starts an episode, and the memory is cleared there). Other rows get action 0, log-prob
        and value 0 (weightless in the update)."""
        action = torch.zeros(self.slots, dtype=torch.long, device=self.device)
        logp = torch.zeros(self.slots, device=self.device)
        value = torch.zeros(self.slots, device=self.device)
        pool_seat = (self.mode == VS_POOL).repeat_interleave(self.n) & ~learn

        def play(model: torch.nn.Module, rows: torch.Tensor, memory: torch.Tensor) -> tuple:
            sub_state = None if state is None else state[rows]
            out = model.act(obs[rows], mask[rows], self.next_done[rows], memory[:, rows], sub_state)
            action[rows], memory[:, rows] = out[0], out[3]
            return out

        rows = learn.nonzero().squeeze(1)
        if rows.numel():
            _, logp[rows], value[rows], _ = play(self.model, rows, self.h)
        self.pool.act_rows(pool_seat, self.n, lambda net, rows: play(net, rows, self.h_opp))
        return action, logp, value

    def _rollout_buffers(self) -> dict[str, torch.Tensor]:
        """The rollout's buffers, allocated once and overwritten by every rollout (no allocation churn:
        a rollout's ``buf`` is valid until the next rollout starts)."""
        T, N, dev = self.cfg.num_steps, self.slots, self.device
        shapes = {
            "obs": ((self.engine.obs_dim,), torch.uint8),
            "mask": ((self.engine.num_actions,), torch.int8),
            "done": ((), torch.bool),
            "learn": ((), torch.bool),
            "action": ((), torch.long),
            "logp": ((), torch.float32),
            "value": ((), torch.float32),
            "reward": ((), torch.float32),
        }
        buf = getattr(self, "_buffers", None)
        if buf is None or buf["obs"].shape != (T, N, self.engine.obs_dim):
            buf = {
                k: torch.zeros(T, N, *shape, dtype=dtype, device=dev) for k, (shape, dtype) in shapes.items()
            }
            self._buffers = buf
        return dict(buf)

    # ------------------------------------------------------------------ secrecy (secrecy_cost.py)
    @property
    def eaves_updates(self) -> int:
        """The eavesdropper's fits so far (0 without a secrecy cost)."""
        return 0 if self.secrecy is None else self.secrecy.updates

    def _eavesdrop(
        self, t: int, holders: torch.Tensor, done_tables: torch.Tensor, paid_calls: torch.Tensor | None
    ) -> torch.Tensor:
        """Each seat's team cost of this tick (``SecrecyCost.read``), on the tables as they stand now;
        ``paid_calls [B, teams]``: the teams whose «Quatro» scored this tick (else None)."""
        signs = None if self.secrecy.partner is None else self.engine.team_sign.to(self.device)
        stats, learner = self.rollout_stats, self.learner
        return self.secrecy.read(t, self.next_obs, holders, done_tables, learner, stats, signs, paid_calls)

    def _own(self, result) -> tuple[torch.Tensor, torch.Tensor]:
        """Observations and masks copied to the network's device (the engine reuses its buffers)."""
        obs, mask = result.observations.to(self.device), result.masks.to(self.device)
        if obs.device == result.observations.device:  # .to() did not copy
            obs, mask = obs.clone(), mask.clone()
        return obs, mask

    def _state(self, obs: torch.Tensor) -> torch.Tensor | None:
        """Centralised critic input: the whole table's observations, for every seat of the table."""
        if not self.cfg.central_critic:
            return None
        flat = obs.reshape(obs.shape[0], -1)
        return flat.repeat_interleave(self.n, dim=0)

    def _shaping(self, potential: torch.Tensor) -> torch.Tensor:
        """γΦ(s′) − Φ(s): potential-based (Ng et al. 1999), so it leaves the optimal policy unchanged.

        With ``shaping_at_round_end: keep`` the tick that ends a round (Φ(s′) = 0: the play phase is
        over) adds nothing: the holder of a quartet that is called on loses no Φ, so the call's point
        is not cancelled in the very tick it is earned (docs/ppo.md: why the signalling recipe needs it).
        """
        shaping = self.cfg.gamma * potential - self.potential
        if self.cfg.shaping_at_round_end == "keep":
            shaping = torch.where(potential == 0, torch.zeros_like(shaping), shaping)
        return shaping

    def _collect_potential(self) -> torch.Tensor:
        """Φ = (largest number of cards of one value in the hand) / 4 while a round is played, else 0."""
        values = self.engine.hands.long() // 4
        same = (values.unsqueeze(-1) == values.unsqueeze(-2)).sum(-1).amax(-1).float() / 4.0
        return (same * self.engine.in_play.unsqueeze(1)).reshape(-1)

    def _own_sign(self) -> torch.Tensor:
        """Every seat's team sign (−1 before it is fixed), on the network's device."""
        return self.engine.seat_signs().reshape(-1).long().to(self.device)

    def _quartet_holders(self) -> torch.Tensor:
        return self.engine.quartet_holders().reshape(-1).float()

    def _track_returns(self, reward: torch.Tensor, learn: torch.Tensor) -> None:
        """Game returns (no shaping) of learner seats; those against a pool snapshot kept apart,
        since in pure self-play a zero-sum return averages to 0 by construction."""
        self.running_return += reward
        ended = self.next_done & learn
        self.episodes += int(ended.sum())
        if bool(ended.any()):
            self.finished_returns = (self.finished_returns + self.running_return[ended].tolist())[-1000:]
            mode = self.mode.repeat_interleave(self.n)
            vs_pool, vs_bots = (mode == VS_POOL) & ended, (mode == VS_BOTS) & ended
            pool = self.running_return[vs_pool].tolist()
            self.pool_returns = (self.pool_returns + pool)[-1000:]
            if self.pool_record is not None:  # the drawable snapshots' episodes only (a league's block)
                current = self.pool.current(torch.arange(self.num_envs, device=self.device))
                credited = vs_pool & current.repeat_interleave(self.n)
                self.pool_record.extend(self.running_return[credited].tolist())
            self.bot_returns = (self.bot_returns + self.running_return[vs_bots].tolist())[-1000:]
        self.running_return[self.next_done] = 0

    # ------------------------------------------------------------------ optimisation
    def optimise(self, buf: dict[str, torch.Tensor]) -> dict[str, float]:
        cfg = self.cfg
        frac = self.update / self.num_updates
        if cfg.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1.0 - frac)
        ent_coef = cfg.ent_coef_start + frac * (cfg.ent_coef_end - cfg.ent_coef_start)
        tables_per_mb = self.num_envs // cfg.num_minibatches  # this process's share of a minibatch
        segments = learner_segments(buf["done"], buf["learn"]) if cfg.pack_learner_rows else None
        stats: dict[str, list[torch.Tensor]] = {k: [] for k in LOSS_PARTS}
        orders, moments = None, None
        if self.replicas.world > 1:  # every epoch's order now: one collective for all the moments
            orders = [torch.randperm(self.num_envs, device=self.device) for _ in range(cfg.update_epochs)]
            moments = self._minibatch_moments(table_moments(buf, self.n), orders)
        for epoch in range(cfg.update_epochs):
            order = orders[epoch] if orders else torch.randperm(self.num_envs, device=self.device)
            for index, start in enumerate(range(0, self.num_envs, tables_per_mb)):
                tables = order[start : start + tables_per_mb]
                if segments is None:
                    mb = table_minibatch(buf, tables, self.n, cfg.central_critic)
                else:
                    mb = packed_minibatch(buf, tables, segments, self.n, cfg.central_critic)
                if moments is not None:
                    parts = self._shared_gradient(mb, ent_coef, moments[epoch, index])
                    if parts is None:  # no learner row in any process's share
                        continue
                else:
                    if mb is None:  # no learner row in these tables
                        continue
                    loss, parts = ppo_loss(self.model, mb, cfg, ent_coef)
                    self.optimizer.zero_grad()
                    loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                for key, value_ in parts.items():
                    stats[key].append(value_)
            if (
                cfg.target_kl is not None
                and stats["approx_kl"]
                and float(stats["approx_kl"][-1]) > cfg.target_kl
            ):
                break
        out = {k: float(torch.stack(v).mean()) if v else 0.0 for k, v in stats.items()}  # one host sync
        out["ent_coef"], out["lr"] = ent_coef, self.optimizer.param_groups[0]["lr"]
        return out

    def _minibatch_moments(self, per_table: torch.Tensor, orders: list[torch.Tensor]) -> torch.Tensor:
        """``[epochs, minibatches, 3]``: each minibatch's advantage moments (``advantage_moments``: the
        learner rows of its tables) summed over the processes' shares, in one collective."""
        tables = torch.stack(orders).view(len(orders), self.cfg.num_minibatches, -1)
        return self.replicas.sum(per_table[tables].to(self.device).sum(2))

    def _shared_gradient(
        self, mb: dict[str, Any] | None, ent_coef: float, moments: torch.Tensor
    ) -> dict[str, torch.Tensor] | None:
        """The minibatch's gradient over every process's share (``mb``: this process's, None if it has
        no learner row; ``moments``: the whole minibatch's): rows weighted by the global count and
        advantage moments, gradients summed, so the step is the one a single process holding every
        share would take. The loss's parts come back summed too (None when no process has a row:
        every process skips the step)."""
        if float(moments[0]) == 0:
            return None
        self.optimizer.zero_grad()
        if mb is None:
            parts = torch.zeros(len(LOSS_PARTS), device=self.device)
        else:
            loss, named = ppo_loss(self.model, mb, self.cfg, ent_coef, moments)
            loss.backward()
            parts = torch.stack([named[k] for k in LOSS_PARTS])
        parts = self.replicas.sum_gradients(self.model.parameters(), parts)
        return dict(zip(LOSS_PARTS, parts, strict=True))

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Everything the run needs to continue exactly, as tensors and plain data (no pickled
        objects: see ``checkpoint_io``), each tensor a copy: the dict is a snapshot that later
        training does not change (``train`` keeps the last completed update's one for Ctrl-C)."""
        return {
            "format": TRAINER_FORMAT,
            "config": self.cfg.model_dump(mode="json"),
            "model": cloned(self.model.state_dict()),
            "optimizer": cloned(self.optimizer.state_dict()),
            "opponent": cloned(self.opponent.state_dict()),
            **self.pool.state_dict(),  # snapshots are never changed once taken
            "engine": engine_state(self.engine),
            **{name: getattr(self, name).clone() for name in TRAINER_TENSORS},
            "bots": self.bots.state_dict(),  # plain tensors (quatro_env.bots.batched)
            "bot_returns": list(self.bot_returns),
            "agent_steps": self.agent_steps,
            "update": self.update,
            "wall_seconds": self.wall_seconds,
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if self.device.type == "cuda" else [],
            "numpy_rng": numpy_rng_state(),
            "history": list(self.history),
            "finished_returns": list(self.finished_returns),
            "pool_returns": list(self.pool_returns),
            "episodes": self.episodes,
            "env_config": self.env_cfg.model_dump(mode="json"),
            "replica": {"rank": self.replicas.rank, "world": self.replicas.world},
        } | ({} if self.secrecy is None else self.secrecy.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from ``state`` (``state_dict()`` or a file read by ``load_trainer_checkpoint``).

        A state that does not fit (another network size, missing fields, tables out of step) is
        refused with a ValueError and the trainer is left exactly as it was."""
        check_trainer_state(state, self)  # names, dtypes and shapes against this trainer's
        backup = self.state_dict()
        try:
            self._load_checked_state(state)
        except Exception as exc:  # noqa: BLE001 - whatever a malformed field raises, roll back
            self._load_checked_state(backup)
            raise ValueError(f"trainer checkpoint: does not fit this trainer ({first_line(exc)})") from None

    def _load_checked_state(self, state: dict[str, Any]) -> None:
        from quatro_env.quatro.config import QuatroConfig

        state = dict(state, optimizer=cloned(state["optimizer"]))  # Adam steps its moments in place
        replica = state.get("replica", {"rank": 0, "world": 1})  # before data-parallel training: one process
        if replica != {"rank": self.replicas.rank, "world": self.replicas.world}:
            raise ValueError(
                f"written by process {replica['rank']} of {replica['world']}, loaded into process "
                f"{self.replicas.rank} of {self.replicas.world} (a run resumes with its own processes)"
            )
        self.env_cfg = QuatroConfig(**state["env_config"])
        if self.env_cfg != self.engine.config:
            self.engine = BatchedQuatroEngine(self.num_envs, config=self.env_cfg, device=self.env_device)
        load_engine_state(self.engine, state["engine"])
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if not self.cfg.anneal_lr:  # the config's rate, which a resumed leg may change (annealed: per update)
            set_learning_rate(self.optimizer, self.cfg.learning_rate)
        self.opponent.load_state_dict(state["opponent"])
        self.pool.load_state_dict(state, state["opponent"], state["mode"].to(self.device) == VS_POOL)
        # each of this trainer's dtype and shape (checked above: copy_ would cast and broadcast)
        for name in TRAINER_TENSORS:
            getattr(self, name).copy_(state[name])
        self.next_mask.copy_(self.engine.masks)  # the rules' masks of the loaded tables, not the file's
        self.agent_steps, self.update = state["agent_steps"], state["update"]
        self.wall_seconds, self.history = state["wall_seconds"], list(state["history"])
        self.finished_returns = list(state["finished_returns"])
        self.pool_returns = list(state["pool_returns"])
        self.bots.load_state_dict(state["bots"])
        self.bot_returns = list(state["bot_returns"])
        self.episodes = state["episodes"]
        torch.set_rng_state(state["torch_rng"])
        if state.get("cuda_rng") and self.device.type == "cuda":  # sampling on the GPU draws from it
            torch.cuda.set_rng_state_all(state["cuda_rng"])
        set_numpy_rng_state(state["numpy_rng"])
        if self.secrecy is not None and "eavesdropper" in state:  # else: secrecy starts in this leg
            self.secrecy.load_state_dict(state)

    def save(self, path: Path, state: dict[str, Any] | None = None) -> None:
        """Write ``state`` (default: the current one) atomically (temp file, then ``os.replace``); in
        data-parallel training each process writes its own copy (``rank_path``: ``latest.rank1.pt``)."""
        save_checkpoint(self.state_dict() if state is None else state, rank_path(path, self.replicas.rank))

    def export_policy(self, path: Path, command: str) -> None:
        """A small file with the policy alone and how it was made (what ships in the package)."""
        save_checkpoint(policy_payload(self.state_dict(), command), path)

    # ------------------------------------------------------------------ the loop
    def _maybe_switch_stage(self) -> None:
        wanted = self.cfg.env_config(self.agent_steps)
        if wanted != self.env_cfg:  # a curriculum stage ended: new tables with the next stage's rules
            self.env_cfg = wanted
            self.engine = BatchedQuatroEngine(
                self.num_envs, config=wanted, device=self.env_device, seed=self.seed + self.update
            )
            self.next_obs, self.next_mask = self._own(self.engine.reset(self.seed + self.update))
            self.next_done.fill_(True)
            # every episode starts afresh: no shaping potential, return or eavesdropper memory carried over
            self.potential.zero_()
            self.running_return.zero_()
            if self.secrecy is not None:
                self.secrecy.forget()
            self.assign_opponents(torch.arange(self.num_envs, device=self.device))

    def train(self, updates: int | None = None, command: str = "") -> list[dict[str, float]]:
        """Run ``updates`` PPO updates (default: to the configured total); Ctrl-C saves and stops.

        Resume is exact whenever the interrupt comes (in the rollout, the update, an evaluation or
        a save): ``committed`` is the snapshot of the last completed update, and it is what every
        checkpoint file holds and what the trainer returns to when interrupted."""
        cfg = self.cfg
        committed = self.state_dict()
        last = self.num_updates if updates is None else min(self.num_updates, self.update + updates)
        main = self.replicas.main  # with several processes, process 0 logs, evaluates, exports
        writer = open_writer(cfg, self.run_dir) if main else None
        bar = None
        previous_handler, sigint_ignored = None, False
        if cfg.progress_bar and main:
            from tqdm import tqdm

            bar = tqdm(
                total=self.num_updates * self.steps_per_update,
                initial=self.agent_steps,
                unit="step",
                unit_scale=True,
                dynamic_ncols=True,
            )
        try:
            while self.update < last:
                self._maybe_switch_stage()
                start = time.perf_counter()
                buf = self.rollout()
                stats = self.optimise(buf)
                if self.secrecy is not None:
                    stats.update(self.secrecy.fit(self.rollout_stats))
                self.update += 1
                self.agent_steps += self.steps_per_update  # counted once the update used them
                elapsed = time.perf_counter() - start
                self.wall_seconds += elapsed
                if cfg.pool_size and self.update % cfg.snapshot_every == 0:
                    self.pool.add({k: v.clone() for k, v in self.model.state_dict().items()}, cfg.pool_size)
                rollout_stats, episodes = self.replicas.combine_stats(self.rollout_stats, self.episodes)
                row = progress_row(
                    update=self.update,
                    agent_steps=self.agent_steps,
                    steps_per_s=self.steps_per_update / elapsed,
                    returns=(self.finished_returns, self.pool_returns, self.bot_returns),
                    rollout_stats=rollout_stats,
                    ticks=cfg.num_steps * cfg.num_envs,
                    episodes=episodes,
                    update_stats=stats,
                )
                self.history.append(row)
                if main:
                    log_row(self.run_dir, row, writer)
                if bar is not None:
                    bar.update(self.steps_per_update)
                    bar.set_postfix(sps=f"{row['steps_per_s']:.0f}", ret=f"{row['episode_return']:.2f}")
                if main and cfg.eval_every and self.update % cfg.eval_every == 0:
                    log_row(self.run_dir, self.evaluate(command), writer, prefix="eval")
                stop = self.replicas.stop_requested()  # several processes: all commit, or stop, together
                committed = self.state_dict()  # this update is complete: from now on, the state
                if self.update % cfg.checkpoint_every == 0:
                    self.save(self.run_dir / f"checkpoint_{self.update:05d}.pt", committed)
                    self.save(self.run_dir / "latest.pt", committed)
                if stop:
                    if main:
                        print(
                            f"\ninterrupted: every process stopped after update {self.update}",
                            file=sys.stderr,
                        )
                    break
        except KeyboardInterrupt:
            # a second Ctrl-C (or a signal sent to both ``timeout`` and its child) must not cut the
            # save short: further SIGINTs are ignored until the checkpoint is written
            previous_handler, sigint_ignored = ignore_sigint(self.hold_sigint_while_saving), True
            print(
                f"\ninterrupted: back to the last completed update ({committed['update']}), "
                f"writing {self.run_dir / 'latest.pt'}",
                file=sys.stderr,
            )
            self.load_state_dict(committed)  # the interrupted update is dropped whole
        finally:
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()
        if not sigint_ignored:  # a Ctrl-C now would cut the final save short
            previous_handler, sigint_ignored = ignore_sigint(self.hold_sigint_while_saving), True
        try:
            self.save(self.run_dir / "latest.pt", committed)
            if main:
                self.export_policy(self.run_dir / "policy.pt", command)
        finally:
            restore_sigint(previous_handler)
        return self.history

    def evaluate(self, command: str = "") -> dict[str, float]:
        """Play the current policy against each of ``eval_bots`` through the harness, on the game's
        own rules and rewards (no shaping, no curriculum); logged to ``eval.csv`` and TensorBoard."""
        path = self.run_dir / "policy.pt"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.export_policy(path, command)
        row: dict[str, float] = {"update": self.update, "agent_steps": self.agent_steps}
        return row | evaluate_policy(path, self.cfg, self.n, seed=self.update)


if __name__ == "__main__":  # ``python -m baselines.ppo`` = ``quatro-train``
    from baselines.train_cli import main

    main()
