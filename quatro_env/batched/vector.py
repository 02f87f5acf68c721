"""A Gymnasium-style vector view of the batched engine: one slot per (table, agent seat).

This is what SuperSuit's ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1`` produce from
a ParallelEnv: slot ``b * m + j`` is agent ``j`` (the j-th non-bot seat) of table ``b``; arrays are
``[num_envs, ...]`` with ``num_envs = num_tables * m``. So a CleanRL-style loop works unchanged::

    envs = QuatroVectorEnv(num_tables=1024, device="cuda", num_players=4)
    obs, info = envs.reset(seed=1)                 # obs [4096, obs_dim] uint8, info["action_mask"]
    obs, rew, term, trunc, info = envs.step(actions)  # actions [4096] ints

It is a ``gymnasium.vector.VectorEnv`` (``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``),
so Gymnasium's vector wrappers (``RecordEpisodeStatistics``, ...) accept it; most of them compute
with numpy, so give them ``numpy=True``. Episodes reset automatically in the same step
(SB3/SuperSuit convention); the next episode's first observation is returned and, with
``keep_final=True``, ``info["final_observation"]`` holds the last one of the finished episode (also
under Gymnasium's names, ``info["final_obs"]`` with the per-slot flags ``info["_final_obs"]``).
Bot seats (Q22) are played by the configured bot policy: ``idle`` (no-op), ``random`` (uniform
legal without calls) and ``random_caller`` (uniform legal) on the device; the scripted ladder
(``collector``, ``honest``, ``decoy``, ``eavesdropper``, ``counter``, ``listener``) and the secrecy
scale's ``cover`` and ``shout`` as rows of :class:`~quatro_env.bots.batched.BatchedBots`, every bot seat
of every table in one compiled call on the host (the numpy bots' rules and decisions, tested). A table
that finishes an episode gets fresh bots, as a new match does.
Arrays are torch tensors on the engine's device (zero copy: the next step overwrites them); ``numpy=True``
returns numpy arrays of their own. ``reset()`` without a seed continues the env's own seeded stream (Q30).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from quatro_env.batched.engine import MAX_SEED, BatchedQuatroEngine
from quatro_env.bots.batched import BatchedBots
from quatro_env.common.strict import as_flag, as_int
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.bots import batched_kind, build_bot
from quatro_env.quatro.engine import IllegalActionError

#: bot policies the engine's device plays itself (whole-batch torch operations)
DEVICE_POLICIES = ("idle", "random", "random_caller")


#: the batched bots' draws come from ``numpy.random.default_rng([seed, BOT_DRAW_STREAM])``
BOT_DRAW_STREAM = 0xB075


class QuatroVectorEnv(VectorEnv):
    """Every agent seat of every table is one slot of a Gymnasium vector env."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_tables: int,
        device: str | torch.device = "cpu",
        seed: int | None = None,
        numpy: bool = False,
        keep_final: bool = False,
        **config: Any,
    ) -> None:
        if seed is not None:
            seed = as_int(seed, "seed", low=0, high=MAX_SEED)  # as reset's
        # the seeds of unseeded resets (and of an unseeded construction): the env's own stream (Q30)
        self._seed_rng = np.random.default_rng(seed)
        if seed is None:
            seed = int(self._seed_rng.integers(0, MAX_SEED))
        self.engine = BatchedQuatroEngine(
            num_tables, device=device, seed=seed, keep_final=as_flag(keep_final, "keep_final"), **config
        )
        e = self.engine
        self.numpy = as_flag(numpy, "numpy")
        self.num_tables = e.num_envs
        self.agent_seats = [s for s in range(e.n) if s not in e.config.bot_seats]
        self.bot_seats = [s for s in range(e.n) if s in e.config.bot_seats]
        self.agents_per_table = m = len(self.agent_seats)
        self.num_envs = self.num_tables * m
        self._all_agents = m == e.n
        self._agent_idx = torch.tensor(self.agent_seats, dtype=torch.long, device=e.device)
        self.single_observation_space = spaces.Box(0, 255, (e.obs_dim,), np.uint8)
        self.single_action_space = spaces.Discrete(e.num_actions)
        self.observation_space = spaces.Box(0, 255, (self.num_envs, e.obs_dim), np.uint8)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, e.num_actions))
        self._gen = torch.Generator(device=e.device)
        self._gen.manual_seed(seed ^ 0x5EED)
        self._no_calls = torch.ones(e.num_actions, dtype=torch.int8, device=e.device)
        for kind in (ActionKind.QUATRO, ActionKind.CONTRA):
            r = e.codec.ranges[kind]
            self._no_calls[r.start : r.stop] = 0
        self._joint = torch.zeros(self.num_tables, e.n, dtype=torch.long, device=e.device)
        self._agents_only = torch.zeros_like(self._joint)  # the agents' actions, the bots' no-ops
        policy = e.config.bot_policy
        self._bots: BatchedBots | None = None
        self._bot_seats = torch.tensor(self.bot_seats, dtype=torch.long, device=e.device)
        build_bot(policy, e.n)  # a bad option or value is refused by name, as by the ParallelEnv
        kind = batched_kind(policy) if self.bot_seats else None  # refused by name without a row
        if kind is not None and kind not in DEVICE_POLICIES:
            # the scripted ladder: a row per (table, bot seat), row b * len(bot_seats) + j
            self._bots = BatchedBots(e.n, self.num_tables * len(self.bot_seats))
            self._bot_kind = BatchedBots.kind_ids([kind])[0]
            self._bots.reset_rows(np.arange(self._bots.rows), np.full(self._bots.rows, self._bot_kind))
            self._bot_rng = np.random.default_rng([seed, BOT_DRAW_STREAM])

    # ---------------------------------------------------------------- views
    def _slots(self, x: torch.Tensor) -> torch.Tensor:
        """[B, n, ...] per seat -> [B * m, ...] per agent slot (a view when every seat is an agent)."""
        if not self._all_agents:
            x = x.index_select(1, self._agent_idx)
        return x.reshape(self.num_envs, *x.shape[2:])

    def _out(self, x: torch.Tensor):
        """A numpy copy (the engine's buffers are overwritten by the next step), or the tensor itself."""
        return x.cpu().numpy().copy() if self.numpy else x

    def _infos(self, res) -> dict[str, Any]:
        # the published masks, never the engine's own: legality is judged on those (Q29)
        info: dict[str, Any] = {"action_mask": self._out(self._slots(res.masks))}
        if "illegal" in res.info:  # illegal_action="noop": which slots played the no-op instead
            info["illegal"] = self._out(self._slots(res.info["illegal"]))
        if "final_observation" in res.info:
            info["final_observation"] = info["final_obs"] = self._out(
                self._slots(res.info["final_observation"])
            )
            info["final_action_mask"] = self._out(self._slots(res.info["final_mask"]))
            info["_final_obs"] = self._out(res.info["done"].repeat_interleave(self.agents_per_table))
        return info

    @property
    def bot_actions(self) -> torch.Tensor:
        """``[num_tables, len(bot_seats)]``: the actions the bot seats played on the last step."""
        return self._joint.index_select(1, self._bot_seats)

    def state(self):
        """Global state per table, ``[num_tables, n * obs_dim]`` (every seat's observation)."""
        return self._out(self.engine.state())

    # ---------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(
                f"options: the vector env takes no reset options (scripted positions are the "
                f"ParallelEnv's), got {options!r}"
            )
        if seed is None:  # the next seed of the env's stream, as the ParallelEnv does
            seed = int(self._seed_rng.integers(0, MAX_SEED))
        else:  # as the ParallelEnv: no bool, float or negative seed
            seed = as_int(seed, "seed", low=0, high=MAX_SEED)
            self._seed_rng = np.random.default_rng(seed)
        self._gen.manual_seed(seed ^ 0x5EED)
        if self._bots is not None:  # fresh bots for every table's new match
            self._bots.reset_rows(np.arange(self._bots.rows), np.full(self._bots.rows, self._bot_kind))
            self._bot_rng = np.random.default_rng([seed, BOT_DRAW_STREAM])
        res = self.engine.reset(seed)
        return self._out(self._slots(res.observations)), self._infos(res)

    def _bot_draws(self, rows: int) -> np.ndarray:
        """This tick's uniform draws of the batched bots, ``[rows, num_draws]`` (Q30: from the env's seed)."""
        return self._bot_rng.random((rows, self._bots.num_draws))

    def _bot_actions(self) -> None:
        e = self.engine
        policy = e.config.bot_policy
        if self._bots is not None:  # every bot seat of every table in one call, on the host
            seats = self._bot_seats
            obs = e.observations.index_select(1, seats).reshape(self._bots.rows, -1).cpu().numpy()
            masks = e.masks.index_select(1, seats).reshape(self._bots.rows, -1).cpu().numpy()
            acts = self._bots.act(obs, masks, self._bot_draws(self._bots.rows))
            self._joint[:, seats] = torch.from_numpy(acts).view(self.num_tables, -1).to(e.device)
            return
        for s in self.bot_seats:
            if policy == "idle":
                self._joint[:, s] = 0
                continue
            mask = e.masks[:, s].float()
            if policy == "random":
                mask = mask * self._no_calls
                mask[:, 0] = 1.0  # the no-op is always legal
            self._joint[:, s] = torch.multinomial(mask, 1, generator=self._gen).squeeze(1)

    def step(self, actions):
        e = self.engine
        a = self._checked_actions(actions).to(device=e.device).reshape(self.num_tables, self.agents_per_table)
        try:
            if self._all_agents:
                joint = a
            else:
                if e.config.illegal_action == "raise":  # before the bots draw: a refused step changes nothing
                    self._agents_only[:, self._agent_idx] = a  # the bot seats hold the no-op, always legal
                    e.refuse_illegal(self._agents_only)
                self._joint[:, self._agent_idx] = a
                self._bot_actions()
                joint = self._joint
            res = e.step(joint)
        except IllegalActionError as err:  # named by the slot the caller indexes
            raise self._slot_error(err) from None
        if self._bots is not None and bool(res.info["done"].any()):  # a new episode: fresh bots
            k = len(self.bot_seats)
            done = res.info["done"].cpu().numpy()
            rows = (np.flatnonzero(done)[:, None] * k + np.arange(k)).reshape(-1)
            self._bots.reset_rows(rows, np.full(rows.size, self._bot_kind))
        m = self.agents_per_table
        obs = self._slots(res.observations)
        rew = self._slots(res.rewards)
        term = res.terminations.repeat_interleave(m)
        trunc = res.truncations.repeat_interleave(m)
        return self._out(obs), self._out(rew), self._out(term), self._out(trunc), self._infos(res)

    def _slot_error(self, err: IllegalActionError) -> IllegalActionError:
        """The engine's error (table, seat) with the vector slot of that seat (a bot seat has none)."""
        if err.table is None or err.seat not in self.agent_seats:
            return err
        slot = err.table * self.agents_per_table + self.agent_seats.index(err.seat)
        return IllegalActionError(err.seat, err.action, err.description, err.reason, err.table, slot)

    def _checked_actions(self, actions) -> torch.Tensor:
        """``actions`` as long ``[num_envs]`` (or ``[num_tables, agents per table]``), or a ValueError: a
        float is not rounded, a transposed array is not reshaped."""
        if isinstance(actions, np.ndarray):  # a reversed view has negative strides, which torch refuses
            actions = np.ascontiguousarray(actions)
        try:
            a = torch.as_tensor(actions)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(
                f"actions: an integer array of {self.num_envs} action indices, got {actions!r}"
            ) from None
        if a.dtype == torch.bool or a.is_floating_point() or a.is_complex():
            raise ValueError(f"actions: integer action indices, got dtype {a.dtype}")
        shapes = ((self.num_envs,), (self.num_tables, self.agents_per_table))
        if tuple(a.shape) not in shapes:
            raise ValueError(
                f"actions: need shape [{self.num_envs}] (one per agent slot) or "
                f"[{self.num_tables}, {self.agents_per_table}], got {list(a.shape)}"
            )
        return a.long()

    def sample_legal_actions(self) -> torch.Tensor:
        """Uniformly random legal actions for every slot, on the engine's device."""
        return self._slots(self.engine.sample_actions(self._gen).unsqueeze(-1)).squeeze(-1)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the engine holds tensors only (``close()`` marks the env closed)."""
