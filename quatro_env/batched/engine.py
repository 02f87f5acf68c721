"""A batched Quatro engine: ``num_envs`` tables stepped at once as torch tensors (CPU or GPU).

Same rules (Q1–Q28), same observation vectors (``ObservationEncoder``), same action indices
(``ActionCodec``), same masks, rewards, terminations and truncations as ``QuatroParallelEnv``;
the differential test ``tests/batched/differential.py`` proves it tick by tick against the
reference engine. Design (see ``docs/batched.md``):

* The rules are scalar programs over one table (``program/``), run as numba loops over the
  tables on the CPU (``backend="numba"``) or as one CUDA thread per table (``backend="cuda"``,
  ``cuda.py``). This class is the API shell around them: it owns the tensors, checks inputs,
  hands the programs views of the tensors and assembles the step's outputs.
* State is compact integer tensors, one row per table, declared once in ``schema.py``.
* Randomness is counter based: every draw is a hash of (table seed, episode, tick, purpose,
  index), so a table's trajectory depends only on its seed and its actions — not on the batch
  size, the other tables or the device. ``record_draws=True`` keeps each tick's draws so that a
  reference engine can be fed the very same ones (the equivalence proof).
* Finished tables are reset automatically (same step); ``info["final_observation"]`` etc. hold
  the terminal view when ``keep_final=True``. The ``final_*`` keys appear on steps where a table
  finished, and on every step with ``backend="cuda"``, which never asks the host (``info["done"]``
  says which rows are real; the others hold the current view and scores).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from quatro_env.batched import schema
from quatro_env.batched.constants import MAX_TICKS
from quatro_env.batched.schema import STATE_FIELDS, TABLE_STATE
from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import deck_size, num_values
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.encoding import make_blocks
from quatro_env.quatro.engine import Phase, QuatroEngine, Vote


@dataclass
class StepResult:
    observations: torch.Tensor  # [B, n, obs_dim] uint8
    masks: torch.Tensor  # [B, n, num_actions] int8
    rewards: torch.Tensor  # [B, n] float32
    terminations: torch.Tensor  # [B] bool
    truncations: torch.Tensor  # [B] bool
    info: dict[str, Any]


class BatchedQuatroEngine:
    """``num_envs`` Quatro tables of one player count; ``step`` takes actions ``[num_envs, n]``.

    Actions are for every seat, bot seats included (a bot seat's action is whatever the caller
    plays for it: the vector adapter plays the configured bot policy there). Illegal actions
    raise (``illegal_action="raise"``) or become the no-op (``"noop"``), like the ParallelEnv.

    ``backend``: ``"auto"`` (the CPU loops on a CPU device, the CUDA kernels on a GPU;
    ``QUATRO_BATCHED_BACKEND`` overrides), ``"numba"`` (CPU) or ``"cuda"`` (numba-cuda).
    """

    def __init__(
        self,
        num_envs: int,
        config: QuatroConfig | None = None,
        device: str | torch.device = "cpu",
        seed: int | None = None,
        record_draws: bool = False,
        keep_final: bool = False,
        backend: str = "auto",
        **config_kwargs: Any,
    ) -> None:
        if config is None:
            config = QuatroConfig(**config_kwargs)
        elif config_kwargs:
            config = config.model_copy(update=config_kwargs)
            config = QuatroConfig(**config.model_dump())  # re-validate
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs: an integer number of tables, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs: need at least one table, got {num_envs}")
        self.config = cfg = config
        self.num_envs = B = int(num_envs)
        self.device = dev = torch.device(device)
        self.backend = _resolve_backend(backend, dev)  # before anything is allocated
        self.n = n = cfg.num_players
        self.num_teams = T = n // 2
        self.v = num_values(n)
        self.deck = deck_size(n)
        self.durations = to_ticks(cfg)
        for name, ticks in vars(self.durations).items():
            if ticks > MAX_TICKS:  # the tables' clocks are int32
                raise ValueError(
                    f"{name}_seconds: {ticks} ticks is beyond the batched engine's int32 clocks "
                    f"(at most {MAX_TICKS} ticks; the reference engine plays any length)"
                )
        self.codec = codec = ActionCodec(n)
        self.num_actions = A = codec.num_actions
        self.record_draws = record_draws
        self.keep_final = keep_final
        self.draws: dict[str, Any] = {}

        # ---- constants
        i64 = dict(dtype=torch.long, device=dev)
        self._ar_b = torch.arange(B, **i64)
        self._team_of = torch.arange(n, **i64) % T  # Q2
        self.is_bot = torch.tensor([s in cfg.bot_seats for s in range(n)], dtype=torch.bool, device=dev)
        kinds = torch.tensor([int(k) for k in codec.kinds], **i64)
        self._kind_of = kinds  # [A]
        arg = torch.zeros(A, **i64)
        for i, a in enumerate(codec.args):
            if isinstance(a, tuple):
                arg[i] = 4 * a[0] + a[1]
            elif a is not None:
                arg[i] = a
        self._arg_of = arg  # exchange: 4h+c; emoji/sign: e; contra: k
        sched = [(t, s, c) for t, s, c in cfg.disconnect_schedule]
        self._schedule = sched

        # ---- state (compact integer tensors, one row per table)
        z = lambda *shape, dt: torch.zeros(shape, dtype=dt, device=dev)  # noqa: E731
        i8, b8 = torch.int8, torch.bool
        self._dims = dims = schema.Dims(n=n, T=T)
        for name, tensor in schema.allocate(schema.STATE + schema.EVENTS, B, dims, dev).items():
            setattr(self, name, tensor)

        # ---- observation layout (the reference encoder's blocks, byte for byte)
        private, table, team, seat = make_blocks(n)
        self._blocks = (private, table, team, seat)
        self.P, self.G, self.TB, self.SB = private.size, table.size, team.size, seat.size
        self.obs_dim = D = self.P + self.G + T * self.TB + n * self.SB
        self._T0 = self.P + self.G
        self._S0 = self._T0 + T * self.TB
        self.observations = z(B, n, D, dt=torch.uint8)
        self.masks = z(B, n, A, dt=i8)
        self.rewards = z(B, n, dt=torch.float32)
        self._kind_legal = z(B, n, len(ActionKind), dt=b8)
        nk = len(ActionKind)
        codes = torch.arange(2**nk)
        self._mask_lut = ((codes[:, None] >> kinds.cpu()[None, :]) & 1).to(i8).to(dev)  # [2**13, A]
        # What the caller gets is a copy: legality is judged on the engine's own masks (Q29), so a
        # caller writing into the returned buffer (``res.masks.fill_(1)``) changes no rule.
        self.mask_out = torch.empty_like(self.masks)
        self.final_observations = z(B, n, D, dt=torch.uint8) if keep_final else None
        self.final_masks = z(B, n, A, dt=i8) if keep_final else None
        self._init_programs()
        self.reset(seed)

    # ================================================================== memory
    _STATE_NAMES = TABLE_STATE

    @property
    def kernel_launches(self) -> int | None:
        """GPU kernel launches so far in this process (``backend="cuda"``), else None."""
        return self._nb.stats["launches"] if self.backend == "cuda" else None

    @property
    def state_bytes_per_table(self) -> int:
        """Bytes of game state per table (observations, masks and event scratch excluded)."""
        return schema.bytes_per_table(schema.STATE, self._dims)

    # ================================================================== reset
    def reset(self, seed: int | torch.Tensor | list[int] | None = None) -> StepResult:
        """Reset every table. ``seed``: an int (table b gets ``seed + b``), one seed per table, or None."""
        B = self.num_envs
        if seed is None:
            seeds = torch.randint(0, 2**62, (B,), dtype=torch.long)
        elif isinstance(seed, int):
            seeds = seed + torch.arange(B, dtype=torch.long)
        else:
            seeds = torch.as_tensor(seed, dtype=torch.long).reshape(-1)
            if seeds.numel() != B:
                raise ValueError(f"seed: need one seed per table ({B}), got {seeds.numel()}")
        self.seeds.copy_(seeds.to(self.device))
        self.episode.zero_()
        return self._reset_programs()

    # ------------------------------------------------------------------ for learners
    @property
    def team_of(self) -> torch.Tensor:
        """``[n]`` long: each seat's team (Q1: seat s is in team s mod n/2)."""
        return self._team_of

    @property
    def in_play(self) -> torch.Tensor:
        """``[B]`` bool: tables whose round is being played (phase PLAY)."""
        return self.phase == int(Phase.PLAY)

    def seat_signs(self) -> torch.Tensor:
        """``[B, n]``: each seat's team sign (-1 before it is fixed); private to the team (Q26)."""
        return self.team_sign[:, self._team_of]

    def quartet_holders(self) -> torch.Tensor:
        """``[B, n]`` bool: seats holding four cards of one value while a round is played (Q18)."""
        values = self.hands.long() // 4  # a card's value (quatro.cards)
        return (values == values[..., :1]).all(-1) & self.in_play.unsqueeze(1)

    def state_dict(self) -> dict[str, torch.Tensor]:
        """A copy of every table's state and last outputs (:data:`STATE_FIELDS`), for checkpoints."""
        return {name: getattr(self, name).clone() for name in STATE_FIELDS}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore :meth:`state_dict`; a missing, unknown or ill-shaped entry is refused by name
        before anything changes."""
        if not isinstance(state, dict):
            raise ValueError(f"engine state: a dict of tensors, got {type(state).__name__}")
        missing = sorted(set(STATE_FIELDS) - set(state))
        unknown = sorted(set(state) - set(STATE_FIELDS))
        if missing or unknown:
            raise ValueError(f"engine state: missing {missing}, unknown {unknown}")
        for name in STATE_FIELDS:
            value, current = state[name], getattr(self, name)
            if (
                not isinstance(value, torch.Tensor)
                or value.shape != current.shape
                or value.dtype != current.dtype
            ):
                got = (
                    f"{value.dtype}{list(value.shape)}"
                    if isinstance(value, torch.Tensor)
                    else type(value).__name__
                )
                raise ValueError(
                    f"engine state: {name} must be {current.dtype}{list(current.shape)}, got {got}"
                )
        for name in STATE_FIELDS:
            getattr(self, name).copy_(state[name])

    def illegal_reason(self, table: int, seat: int, action: int) -> str | None:
        """Why ``action`` is not legal for ``seat`` of ``table`` this tick, or None (Q29).

        Asked of the reference engine's own per-kind rules (``QuatroEngine.illegal_reason``) on a
        copy of this table's fields, so the batched engine states no rule a second time. Meant for
        error messages: it reads one table on the host.
        """
        ref = QuatroEngine(self.config)
        b = table
        ints = lambda x: [int(v) for v in x[b].tolist()]  # noqa: E731
        ref.phase, ref.tick = Phase(int(self.phase[b])), int(self.tick[b])
        ref.connected = [bool(v) for v in self.connected[b].tolist()]
        ref.ready = [bool(v) for v in self.ready[b].tolist()]
        ref.floor = [bool(v) for v in self.floor[b].tolist()]
        ref.next_exchange_tick, ref.next_floor_tick = ints(self.next_exchange), ints(self.next_floor)
        ref.team_sign = [None if v < 0 else v for v in ints(self.team_sign)]
        ref.reshuffled_this_round = bool(self.reshuffled[b])
        ref.next_proposal_tick = int(self.next_proposal[b])
        ref.start_requested = bool(self.start_requested[b])
        ref.vote = None
        if bool(self.vote_open[b]):
            seats = lambda x: {s for s in range(self.n) if bool(x[b, s])}  # noqa: E731
            ref.vote = Vote(
                int(self.vote_proposer[b]),
                frozenset(seats(self.voters)),
                int(self.tick[b]),
                int(self.vote_deadline[b]),
                yes=seats(self.yes),
                absent=seats(self.absent),
            )
        return ref.illegal_reason(seat, action)

    def _illegal_action_error(self, table: int, seat: int, action: int) -> ValueError:
        """The Q29 error of the reference engine: table, seat, action, its description and why."""
        desc = self.codec.describe(action) if 0 <= action < self.num_actions else "?"
        reason = self.illegal_reason(table, seat, action) or "not legal this tick"
        return ValueError(f"illegal action for table {table} seat {seat}: {action} ({desc}): {reason} (Q29)")

    def _published_masks(self) -> torch.Tensor:
        self.mask_out.copy_(self.masks)
        return self.mask_out

    def step(self, actions: torch.Tensor) -> StepResult:
        """Play one tick on every table; finished tables are reset at once (same step)."""
        actions = torch.as_tensor(actions)
        if actions.dtype == torch.bool or actions.is_floating_point() or actions.is_complex():
            raise ValueError(f"actions: integer action indices, got dtype {actions.dtype}")
        return self._step_programs(actions)

    # ================================================================== sampling
    def sample_actions(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """Uniformly random legal actions ``[B, n]`` on the engine's device.

        Legality is uniform within each action kind (every mask is a union of whole kind ranges),
        so a kind is drawn with weight = its number of legal actions, then an index inside it:
        exactly uniform over the legal actions, at the cost of ``[B, n, 13]`` work.
        """
        B, n = self.num_envs, self.n
        u = torch.rand(B, n, 2, generator=generator, device=self.device)
        out = torch.empty(B, n, dtype=torch.long, device=self.device)
        view = self._nb_view
        self._nb.sample(
            view(u), view(self._kind_legal), self._nb_size, self._nb_start, view(out), self._nb_scratch
        )
        return out

    # ================================================================== the table programs (CPU, GPU)
    def _init_programs(self) -> None:
        """Constants and work space of the table programs (``program/``), looped over the tables on the
        CPU (``numba``) or one GPU thread per table (``cuda``); the state stays in the tensors."""
        from quatro_env.batched.program import layout as nb

        self._nb_prog = nb
        gpu = self.device.type == "cuda"
        if self.backend == "cuda":
            from quatro_env.batched import cuda as nb_cuda

            self._nb = nb_cuda.kernels()
        else:
            from quatro_env.batched.program import loops

            self._nb = loops
        if gpu:  # device views of the tensors, constants copied to the device once
            from numba import cuda

            self._nb_view, self._nb_const = cuda.as_cuda_array, cuda.to_device
        else:  # the CPU loops, or numba's CUDA simulator: numpy views of the CPU tensors
            self._nb_view, self._nb_const = torch.Tensor.numpy, _same
        B, n, T, d, cfg = self.num_envs, self.n, self.num_teams, self.durations, self.config
        prm = np.zeros(nb.I_NUM_PRM, np.int64)
        for i, value in (
            (nb.I_N, n),
            (nb.I_T, T),
            (nb.I_V, self.v),
            (nb.I_DECK, self.deck),
            (nb.I_A, self.num_actions),
            (nb.I_D, self.obs_dim),
            (nb.I_P, self.P),
            (nb.I_G, self.G),
            (nb.I_TB, self.TB),
            (nb.I_SB, self.SB),
            (nb.I_T0, self._T0),
            (nb.I_S0, self._S0),
            (nb.I_SIGN_PHASE, d.sign_phase),
            (nb.I_ROUND, d.round),
            (nb.I_PAUSE, d.pause),
            (nb.I_XCD, d.exchange_cooldown),
            (nb.I_FCD, d.floor_cooldown),
            (nb.I_PULSE, d.pulse),
            (nb.I_REMINDER, d.reminder_window),
            (nb.I_VOTE_WINDOW, d.vote_window),
            (nb.I_VOTE_INTERVAL, d.vote_interval),
            (nb.I_POINTS_TO_WIN, cfg.points_to_win),
            (nb.I_MAX_ROUNDS, cfg.max_rounds),
            (nb.I_GUARD, cfg.own_quartet_guard == "confirm"),
            (nb.I_REVEAL_SIGNS, cfg.reveal_signs),
            (nb.I_EPISODE_ROUND, cfg.episode == "round"),
            (nb.I_ZERO_SUM, cfg.reward_mode == "zero_sum"),
        ):
            prm[i] = int(value)
        const = self._nb_const
        self._nb_prm_host = prm
        self._nb_prm = const(prm)
        self._nb_fprm = const(np.array([cfg.disconnect_prob, cfg.reconnect_prob], np.float64))
        self._nb_offs = const(nb.make_offsets(self._blocks))
        self._nb_kind_of = const(self._kind_of.cpu().numpy().copy())
        self._nb_arg_of = const(self._arg_of.cpu().numpy().copy())
        self._nb_sched = const(np.array(self._schedule, dtype=np.int64).reshape(-1, 3))
        self._nb_is_bot = const(self.is_bot.cpu().numpy().copy())
        self._nb_lut = const(self._mask_lut.cpu().numpy())
        width = nb.encode_width(n, T, self.P, self.G, self.TB, self.SB)
        rows = B if self.backend == "cuda" else 1  # a work-space row per table played at once
        scratch = nb.make_scratch(rows, n, T, self.deck, width)
        self._nb_scratch = nb.Scratch(*map(const, scratch))
        ranges = [self.codec.ranges[k] for k in ActionKind]
        self._nb_size = const(np.array([len(r) for r in ranges], np.float32))
        self._nb_start = const(np.array([r.start for r in ranges], np.int64))
        results = schema.allocate(schema.RESULTS, B, self._dims, self.device)
        del results["rewards"]  # the engine's own reward buffer (the torch path's too)
        for name, tensor in results.items():  # points, round_ended, match_ended, terminated, ...
            setattr(self, self._result_attr(name), tensor)
        self._nb_illegal = torch.zeros(B, n, dtype=torch.bool, device=self.device)
        self._nb_actions_t = torch.zeros(B, n, dtype=torch.long, device=self.device)
        self._nb_actions = self._nb_view(self._nb_actions_t)
        self._nb_rec_size = 0
        self._nb_alloc_records(1)
        self._nb_all_t = torch.ones(B, dtype=torch.bool, device=self.device)
        self._nb_all = self._nb_view(self._nb_all_t)

    def _nb_set_record(self, record: bool) -> None:
        """Switch the kernels' draw recording (``prm[I_RECORD]``; re-sent to a GPU only when it changes)."""
        prm, i = self._nb_prm_host, self._nb_prog.I_RECORD
        if prm[i] != int(record):
            prm[i] = int(record)
            self._nb_prm = self._nb_const(prm)

    def _nb_alloc_records(self, rows: int) -> None:
        n, T = self.n, self.num_teams
        cap = 8 * rows + 64  # Q5 re-splits recorded per tick (a handful per deal at most)
        i64, b8 = torch.int64, torch.bool

        def z(*shape, dtype=i64):
            return torch.zeros(shape, dtype=dtype, device=self.device)

        self._nb_rec_t = schema.Draws(
            order=z(rows, n),
            sign=z(rows, T),
            sign_flag=z(rows, dtype=b8),
            deal=z(rows, self.deck),
            deal_flag=z(rows, dtype=b8),
            q5_rows=z(cap),
            q5=z(cap, 8),
            q5_count=z(1),
            random=z(rows, n, dtype=torch.float64),
            random_flag=z(rows, dtype=b8),
        )
        self._nb_rec = schema.Draws(*map(self._nb_view, self._nb_rec_t))
        self._nb_rec_size = rows

    #: results the torch path keeps too, under the same names; the kernel's own ones are ``_nb_*``
    _SHARED_RESULTS = ("rewards", "points", "round_ended", "match_ended")

    @classmethod
    def _result_attr(cls, name: str) -> str:
        return name if name in cls._SHARED_RESULTS else "_nb_" + name

    def _nb_state(self) -> tuple[schema.State, schema.Events, schema.Results]:
        """numpy views of the state, event and result tensors, as the kernel's namedtuples (cached
        while the tensors stay the same objects; a tensor replaced by assignment, e.g. a checkpoint
        restore, is picked up)."""
        names = (
            *schema.State._fields,
            *schema.Events._fields,
            *map(self._result_attr, schema.Results._fields),
        )
        tensors = [getattr(self, name) for name in names]
        cached = getattr(self, "_nb_cache", None)
        if cached is None or any(a is not b for a, b in zip(cached[0], tensors, strict=True)):
            views = [self._nb_view(t) for t in tensors]
            k, e = len(schema.State._fields), len(schema.Events._fields)
            bundles = (
                schema.State(*views[:k]),
                schema.Events(*views[k : k + e]),
                schema.Results(*views[k + e :]),
            )
            cached = (tensors, bundles)
            self._nb_cache = cached
        return cached[1]

    def _nb_encode_masks(self, rows, all_rows: bool, obs, masks, S, V) -> None:
        nb = self._nb
        nb.encode(
            rows, all_rows, obs, self._nb_prm, self._nb_offs, self.config.reveal_signs, S, V, self._nb_scratch
        )
        nb.compute_masks(
            rows, all_rows, masks, self._nb_view(self._kind_legal), self._nb_lut, self._nb_prm, S
        )

    def _reset_programs(self) -> StepResult:
        S, V, _ = self._nb_state()
        all_rows = self._nb_all
        self._nb.reset_rows(all_rows, self._nb_prm, self._nb_sched, self._nb_is_bot, S, V)
        view = self._nb_view
        self._nb_encode_masks(all_rows, True, view(self.observations), view(self.masks), S, V)
        self.rewards.zero_()
        zeros = torch.zeros(self.num_envs, dtype=torch.bool)
        return StepResult(self.observations, self._published_masks(), self.rewards, zeros, zeros.clone(), {})

    def _step_programs(self, a: torch.Tensor) -> StepResult:
        """``step`` once its actions are a tensor: check, tick, reset finished tables, encode."""
        nb = self._nb
        B, n = self.num_envs, self.n
        if tuple(a.shape) != (B, n):
            raise ValueError(f"actions: need shape [{B}, {n}], got {list(a.shape)}")
        view = self._nb_view
        a = a.to(device=self.device, dtype=torch.long).contiguous()
        illegal = self._nb_illegal
        first = nb.check_actions(view(a), view(self.masks), self.num_actions, view(illegal), self._nb_actions)
        if self.config.illegal_action == "raise":
            if first is None:  # a GPU launch returns nothing: look (raising needs the host; "noop" does not)
                flat = torch.nonzero(illegal.view(-1))
                first = int(flat[0]) if flat.numel() else -1
            if first >= 0:
                b, s = divmod(int(first), n)
                raise self._illegal_action_error(b, s, int(a[b, s]))
        record = self.record_draws
        if record:
            if self._nb_rec_size != B:
                self._nb_alloc_records(B)
            rec = self._nb_rec_t
            for flag in (rec.sign_flag, rec.deal_flag, rec.random_flag, rec.q5_count):
                flag.zero_()
        self._nb_set_record(record)
        S, V, R = self._nb_state()
        nb.tick_all(
            self._nb_actions,
            self._nb_prm,
            self._nb_fprm,
            self._nb_kind_of,
            self._nb_arg_of,
            self._nb_sched,
            self._nb_is_bot,
            S,
            V,
            R,
            self._nb_rec,
            self._nb_scratch,
        )
        if record:
            self.draws = self._nb_draws()
        done = R.done
        obs, masks = view(self.observations), view(self.masks)
        info: dict[str, Any] = {}
        # The CUDA kernels never ask the host whether a table finished (a synchronisation per tick would
        # cap the GPU): the row-masked kernels below run every tick and the final_* keys are always there.
        any_done = self.backend == "cuda" or bool(self._nb_done.any())
        if any_done:
            info["final_scores"] = self._nb_final_scores.clone()
            info["final_rounds"] = self._nb_final_rounds.clone()
        final = any_done and self.keep_final
        if final:
            fobs, fmasks = view(self.final_observations), view(self.final_masks)
            self._nb_encode_masks(done, False, fobs, fmasks, S, V)
        if any_done:
            self.episode += self._nb_done
            nb.reset_rows(done, self._nb_prm, self._nb_sched, self._nb_is_bot, S, V)
        self._nb_encode_masks(done, True, obs, masks, S, V)
        if final:
            nb.copy_rows_not(done, obs, fobs)
            nb.copy_rows_not(done, masks, fmasks)
            info["final_observation"] = self.final_observations
            info["final_mask"] = self.final_masks
        info["done"] = self._nb_done.clone()
        info["illegal"] = illegal.clone()
        return StepResult(
            self.observations,
            self._published_masks(),
            self.rewards,
            self._nb_terminated.clone(),
            self._nb_truncated.clone(),
            info,
        )

    def _nb_draws(self) -> dict[str, Any]:
        """This tick's draws in the torch path's format (``record_draws``)."""
        host = (t.cpu().numpy() for t in self._nb_rec_t)
        order, sign, sign_f, deal, deal_f, q5_rows, q5, q5_n, rnd, rnd_f = host  # schema.Draws
        draws: dict[str, Any] = {"order": [(self._ar_b.clone(), torch.from_numpy(order.copy()))]}
        for kind, flag, vals in (("sign", sign_f, sign), ("deal", deal_f, deal), ("random", rnd_f, rnd)):
            idx = np.flatnonzero(flag)
            if idx.size:
                draws[kind] = [(torch.from_numpy(idx), torch.from_numpy(vals[idx]))]
        k = int(q5_n[0])
        if k > q5_rows.shape[0]:
            raise RuntimeError(f"record_draws: {k} Q5 re-splits in one tick overflow the record buffer")
        if k:
            draws["q5"] = [(torch.from_numpy(q5_rows[:k].copy()), torch.from_numpy(q5[:k].copy()))]
        return draws

    # ================================================================== views
    def state(self) -> torch.Tensor:
        """Global state for centralised critics: every seat's observation, [B, n * obs_dim]."""
        return self.observations.view(self.num_envs, -1)


_EVENT_NAMES = tuple(f.name for f in schema.EVENTS)
#: the backends that run ``program/``: its CPU loops, or its CUDA kernels (``cuda.py``)
_PROGRAM_BACKENDS = ("numba", "cuda")


def _same(array: np.ndarray) -> np.ndarray:
    return array


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _resolve_backend(backend: str, device: torch.device) -> str:
    """``auto``: the CPU loops on a CPU device, the CUDA kernels on a GPU (``QUATRO_BATCHED_BACKEND``
    overrides ``auto``)."""
    if backend == "auto":
        backend = os.environ.get("QUATRO_BATCHED_BACKEND", "auto") or "auto"
    if backend == "auto":
        backend = "cuda" if device.type == "cuda" else "numba"
    if backend == "torch":
        raise ValueError(
            "backend: 'torch' (whole-batch torch operations) was removed; the table programs run on the "
            "CPU ('numba') and on a GPU ('cuda')"
        )
    if backend not in _PROGRAM_BACKENDS:
        raise ValueError(f"backend: 'auto', 'numba' or 'cuda', got {backend!r}")
    if not numba_available():
        raise ValueError("backend: the batched engine needs numba (pip install numba; numba-cuda for a GPU)")
    if backend == "cuda":
        from quatro_env.batched import cuda

        if not cuda.available():
            raise ValueError("backend: 'cuda' needs numba-cuda and a GPU (or NUMBA_ENABLE_CUDASIM=1)")
        if device.type != "cuda" and not cuda.simulated():
            raise ValueError(f"backend: 'cuda' runs on a CUDA device, not on {device}")
    if backend == "numba" and device.type != "cpu":
        raise ValueError(f"backend: 'numba' runs on the CPU only, not on {device} (use 'cuda')")
    return backend
