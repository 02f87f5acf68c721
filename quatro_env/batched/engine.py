"""A batched Quatro engine: ``num_envs`` tables stepped at once as torch tensors (CPU or GPU).

Same rules (Q1–Q28), same observation vectors (``ObservationEncoder``), same action indices
(``ActionCodec``), same masks, rewards, terminations and truncations as ``QuatroParallelEnv``;
the differential test ``tests/batched/test_differential.py`` proves it tick by tick against the
reference engine. Design (see ``docs/batched.md``):

* State is a handful of compact integer tensors, one row per table (``state_bytes_per_table``).
* A tick is vectorised over tables; the only Python loop is over the ``n`` positions of the
  tick's resolution order (Q9), plus loops over at most ``n`` seats / ``n/2`` teams, the Q5
  re-split retries (each retry serves every table that still needs one) and config entries.
* Randomness is counter based: every draw is a hash of (table seed, episode, tick, purpose,
  index), so a table's trajectory depends only on its seed and its actions — not on the batch
  size, the other tables or the device. ``record_draws=True`` keeps each tick's draws so that a
  reference engine can be fed the very same ones (the equivalence proof).
* Finished tables are reset automatically (same step); ``info["final_observation"]`` etc. hold
  the terminal view when ``keep_final=True``.
* The rules as scalar programs over one table (``program.py``), run as numba loops over the tables
  on the CPU (``backend="numba"``, the CPU default when numba is installed) or as one CUDA thread per
  table (``backend="cuda"``, ``cuda.py``); and whole-batch torch ops (``backend="torch"``, any
  device), kept until the CUDA kernels have run on a GPU. All give identical results (tests/batched).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from quatro_env.batched import schema
from quatro_env.batched.constants import (
    BLANK_CALL,
    CONTRA_CALL,
    HOST_SEAT,
    M32,
    MAX_TICKS,
    NONE_CALL,
    OVER,
    P_CONNECT,
    P_DEAL,
    P_ORDER,
    P_Q5,
    P_SIGN,
    PAUSE,
    PLAY,
    QUATRO_CALL,
    SIGN,
)
from quatro_env.batched.schema import STATE_FIELDS, TABLE_STATE
from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS, deck_size, num_values
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.encoding import CLIP, make_blocks
from quatro_env.quatro.engine import Phase, QuatroEngine, Vote


def _mix(x: torch.Tensor) -> torch.Tensor:
    """A 32-bit integer hash (lowbias32 family) on int64 tensors holding values < 2**32.

    Multipliers are < 2**31 so no product overflows int64: identical on every device.
    """
    x = x & M32
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & M32
    x = x ^ (x >> 15)
    x = (x * 0x2C1B3C6D) & M32
    return x ^ (x >> 16)


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

    ``backend``: ``"auto"`` (numba kernel on CPU when numba is installed, else torch;
    ``QUATRO_BATCHED_BACKEND`` overrides), ``"torch"`` or ``"numba"`` (CPU only).
    """

    def __init__(
        self,
        num_envs: int,
        config: QuatroConfig | None = None,
        device: str | torch.device = "cpu",
        seed: int | None = None,
        record_draws: bool = False,
        keep_final: bool = False,
        sequential: bool = False,
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
        self.n = n = cfg.num_players
        self.num_teams = T = n // 2
        self.v = v = num_values(n)
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
        self.sequential = sequential  # True: resolve position by position (slower, same results)
        self.keep_final = keep_final
        self.draws: dict[str, Any] = {}

        # ---- constants
        i64 = dict(dtype=torch.long, device=dev)
        self._ar_b = torch.arange(B, **i64)
        self._ar_n = torch.arange(n, **i64)
        self._ar_t = torch.arange(T, **i64)
        self._ar4 = torch.arange(4, **i64)
        self._ar_v = torch.arange(v, **i64)
        self._ar_e = torch.arange(NUM_EMOJIS, **i64)
        self._ar_ph = torch.arange(4, **i64)
        self._ar_call = torch.arange(3, **i64)
        self._team_of = self._ar_n % T  # Q2
        self._partner = (self._ar_n + T) % n
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
        self._pow2 = (2 ** torch.arange(nk, dtype=torch.int16)).to(dev)
        codes = torch.arange(2**nk)
        self._mask_lut = ((codes[:, None] >> kinds.cpu()[None, :]) & 1).to(i8).to(dev)  # [2**13, A]
        self._masks_flat = self.masks.view(B * n, A)
        # What the caller gets is a copy: legality is judged on the engine's own masks (Q29), so a
        # caller writing into the returned buffer (``res.masks.fill_(1)``) changes no rule.
        self.mask_out = torch.empty_like(self.masks)
        self.final_observations = z(B, n, D, dt=torch.uint8) if keep_final else None
        self.final_masks = z(B, n, A, dt=i8) if keep_final else None
        self.backend = _resolve_backend(backend, dev)
        if self.backend in _PROGRAM_BACKENDS:
            self._init_numba()
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

    # ================================================================== randomness (Q30)
    def _table_keys(self, seeds: torch.Tensor, episode: torch.Tensor) -> torch.Tensor:
        lo, hi = seeds & M32, (seeds >> 32) & M32
        return _mix(_mix(lo ^ 0x3C6EF372) ^ _mix(hi ^ 0x1B873593) ^ _mix(episode ^ 0x68E31DA4))

    def _u32(self, rows: torch.Tensor | None, purpose: int, m: int) -> torch.Tensor:
        """[len(rows), m] independent 32-bit draws for (table, episode, tick, purpose)."""
        key = self.key if rows is None else self.key[rows]
        tick = self.tick if rows is None else self.tick[rows]
        base = _mix(key ^ _mix(tick.long() ^ (purpose << 20)))
        idx = torch.arange(m, dtype=torch.long, device=self.device) * 0x9E3779B1
        return _mix(base.unsqueeze(1) + idx)

    def _perm(self, rows: torch.Tensor | None, purpose: int, m: int) -> torch.Tensor:
        return torch.argsort(self._u32(rows, purpose, m), dim=1, stable=True)

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
        if self.backend in _PROGRAM_BACKENDS:
            return self._reset_numba()
        all_rows = torch.ones(B, dtype=torch.bool, device=self.device)
        self._reset_rows(all_rows)
        self._encode()
        self._compute_masks()
        self.rewards.zero_()
        zeros = torch.zeros(B, dtype=torch.bool, device=self.device)
        return StepResult(self.observations, self._published_masks(), self.rewards, zeros, zeros.clone(), {})

    def _reset_rows(self, rows: torch.Tensor) -> None:
        """A fresh match on the tables in ``rows`` (bool [B]): QuatroEngine.reset."""
        self.key.copy_(_where(rows, self._table_keys(self.seeds, self.episode), self.key))
        _fill_(self.tick, rows, 0)
        _fill_(self.scores, rows[:, None], 0)
        _fill_(self.round_index, rows, 0)
        _fill_(self.rounds_completed, rows, 0)
        _fill_(self.connected, rows[:, None], True)
        self._clear_events(rows)
        self._begin_sign_phase(rows, start=torch.zeros_like(self.tick))
        self._apply_schedule(rows, 0)

    def _clear_events(self, rows: torch.Tensor | None = None) -> None:
        if rows is None:
            for t in (self.ev_act, self.ev_took, self.ev_released, self.ev_proposed, self.ev_replaced):
                t.zero_()
            self.ev_vote.zero_()
            for t in (self.ev_slot, self.ev_taken, self.ev_placed, self.ev_rejected):
                t.fill_(-1)
            self.ev_vote_failed.zero_()
            self.ev_reshuffled.zero_()
            return
        r2 = rows[:, None]
        for t in (self.ev_act, self.ev_took, self.ev_released, self.ev_proposed, self.ev_replaced):
            _fill_(t, r2, False)
        _fill_(self.ev_vote, r2, 0)
        for t in (self.ev_slot, self.ev_taken, self.ev_placed, self.ev_rejected):
            _fill_(t, r2, -1)
        _fill_(self.ev_vote_failed, rows, False)
        _fill_(self.ev_reshuffled, rows, False)

    def _begin_sign_phase(self, rows: torch.Tensor, start: torch.Tensor) -> None:
        """Q7, Q8, Q11: a new round: round state cleared, signs afresh, hands empty."""
        r2 = rows[:, None]
        _fill_(self.floor, r2, False)
        for t in (
            self.emoji,
            self.pulse_anchor,
            self.pulse_emoji,
            self.pulse_tick,
            self.rem_open,
            self.rem_last,
        ):
            _fill_(t, r2, -1)
        _fill_(self.next_exchange, r2, 0)
        _fill_(self.next_floor, r2, 0)
        _fill_(self.vote_open, rows, False)
        _fill_(self.voters, r2, False)
        _fill_(self.yes, r2, False)
        _fill_(self.absent, r2, False)
        _fill_(self.reshuffled, rows, False)
        _fill_(self.next_proposal, rows, 0)
        _fill_(self.start_requested, rows, False)
        self.round_index.add_(rows.to(torch.int16))
        _fill_(self.phase, rows, SIGN)
        self.phase_end.copy_(_where(rows, start + (self.durations.sign_phase - 1), self.phase_end))
        _fill_(self.team_sign, r2, -1)
        self.ready.copy_(_where(r2, self.is_bot & self.connected, self.ready))
        _fill_(self.hands, rows[:, None, None], -1)
        _fill_(self.center, r2, -1)
        _fill_(self.call_kind, rows, NONE_CALL)
        _fill_(self.call_caller, rows, -1)
        _fill_(self.call_target, rows, -1)
        _fill_(self.call_scoring, r2, False)

    # ================================================================== deals (Q4, Q5)
    def _deal(self, rows: torch.Tensor) -> None:
        """Deal on the tables in ``rows`` (bool [B]); Q5 re-splits, seat by seat."""
        idx = rows.nonzero().squeeze(1)
        if idx.numel() == 0:
            return
        hands, center, replaced = self._deal_values(idx, self.record_draws)
        self.hands[idx] = hands
        self.center[idx] = center
        self.ev_replaced[idx] |= replaced

    def _deal_values(self, idx: torch.Tensor, record: bool):
        """The deal of the tables ``idx`` this tick (a pure function of their keys and tick)."""
        n = self.n
        perm = self._perm(idx, P_DEAL, self.deck).to(torch.int8)  # card ids, Q4
        hands = perm[:, : 4 * n].reshape(-1, n, 4).clone()
        center = perm[:, 4 * n : 4 * n + 4].clone()
        if record:
            self._rec("deal", idx, perm)
        replaced = torch.zeros(idx.numel(), n, dtype=torch.bool, device=self.device)
        for seat in range(n):  # seat order; a re-split never touches another hand (Q5)
            bad = _has_triple(hands[:, seat])
            replaced[:, seat] = bad
            it = 0
            while bool(bad.any()):
                sub = bad.nonzero().squeeze(1)
                p = self._perm(idx[sub], P_Q5 + it * 8 + seat, 8)
                if record:
                    self._rec("q5", idx[sub], p)
                pool = torch.cat([hands[sub, seat], center[sub]], dim=1)
                pool = pool.gather(1, p)
                hands[sub, seat] = pool[:, :4]
                center[sub] = pool[:, 4:]
                bad = torch.zeros_like(bad)
                bad[sub] = _has_triple(hands[sub, seat])
                it += 1
        return hands, center, replaced

    def _rec(self, kind: str, idx: torch.Tensor, values: torch.Tensor) -> None:
        self.draws.setdefault(kind, []).append((idx.cpu(), values.cpu()))

    # ================================================================== masks (exact legality, Q9)
    def _compute_masks(self) -> None:
        n, T = self.n, self.num_teams
        ph = self.phase[:, None]
        now = self.tick[:, None]
        play, sign, pause = ph == PLAY, ph == SIGN, ph == PAUSE
        K = self._kind_legal
        conn = self.connected
        K[:, :, ActionKind.NOOP] = True
        K[:, :, ActionKind.EXCHANGE] = play & (now >= self.next_exchange) & conn
        floor_ok = play & (now >= self.next_floor) & conn
        K[:, :, ActionKind.TAKE_FLOOR] = floor_ok & ~self.floor
        K[:, :, ActionKind.RELEASE_FLOOR] = floor_ok & self.floor
        K[:, :, ActionKind.SHOW_EMOJI] = play & self.floor & conn
        team_has = (self.team_sign >= 0)[:, self._team_of]
        K[:, :, ActionKind.CHOOSE_SIGN] = sign & ~team_has & conn
        K[:, :, ActionKind.READY] = sign & ~self.ready & conn
        K[:, :, ActionKind.QUATRO] = play & conn
        K[:, :, ActionKind.CONTRA] = play & conn
        prop = (self.phase == PLAY) & ~self.reshuffled & ~self.vote_open & (self.tick >= self.next_proposal)
        K[:, :, ActionKind.PROPOSE_RESHUFFLE] = prop[:, None] & conn
        vote = play & self.vote_open[:, None] & self.voters & ~self.yes & ~self.absent & conn
        K[:, :, ActionKind.VOTE_YES] = vote
        K[:, :, ActionKind.VOTE_NO] = vote
        start = torch.zeros_like(conn)
        start[:, HOST_SEAT] = (self.phase == PAUSE) & ~self.start_requested
        K[:, :, ActionKind.START_ROUND] = start & conn & pause
        del n, T
        # expand kinds to actions through a lookup table indexed by the 13-bit kind pattern
        ku = K.view(torch.uint8)
        code = ku[:, :, 0].to(torch.int16)
        for i in range(1, ku.shape[2]):
            code = code + (ku[:, :, i].to(torch.int16) << i)
        torch.index_select(self._mask_lut, 0, code.view(-1).long(), out=self._masks_flat)

    # ================================================================== the tick (Q9)
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
        if self.backend in _PROGRAM_BACKENDS:
            return self._step_numba(actions)
        B, n, T = self.num_envs, self.n, self.num_teams
        dev = self.device
        a = torch.as_tensor(actions, device=dev).to(torch.long)
        if a.shape != (B, n):
            raise ValueError(f"actions: need shape [{B}, {n}], got {list(a.shape)}")
        inside = (a >= 0) & (a < self.num_actions)
        legal = inside & self.masks.gather(2, a.clamp(0, self.num_actions - 1).unsqueeze(2)).squeeze(2).bool()
        illegal = ~legal
        if self.config.illegal_action == "raise" and bool(illegal.any()):
            b, s = (int(x) for x in illegal.nonzero()[0])
            raise self._illegal_action_error(b, s, int(a[b, s]))
        a = _where(legal, a, torch.zeros_like(a))
        if self.record_draws:
            self.draws = {}
        self._clear_events()

        t = self.tick  # [B] int32, the tick being played
        order = self._perm(None, P_ORDER, n)  # [B, n]: seat resolving at each position
        if self.record_draws:
            self._rec("order", self._ar_b, order)
        pos = torch.empty_like(order)
        pos.scatter_(1, order, self._ar_n.expand(B, n) + 1)
        self.ev_pos.copy_(pos)
        self.points = torch.zeros(B, T, dtype=torch.int8, device=dev)
        self.round_ended = torch.zeros(B, dtype=torch.bool, device=dev)
        self.match_ended = torch.zeros(B, dtype=torch.bool, device=dev)
        self._changed = torch.zeros(B, 4, dtype=torch.bool, device=dev)
        phase0 = self.phase.clone()
        kinds = self._kind_of[a]
        args = self._arg_of[a]
        if self.sequential:
            kinds_o = kinds.gather(1, order)  # [B, n] in resolution order
            args_o = args.gather(1, order)
            for k in range(n):
                s = order[:, k]
                kk = kinds_o[:, k]
                live = (kk != ActionKind.NOOP) & (self.phase == phase0)
                self._resolve(s, kk, args_o[:, k], live, t)
        else:
            self._resolve_tick(kinds, args, pos, t)
        self._end_of_tick(t)
        self.tick.add_(1)
        self._between_ticks()

        # ---- rewards, terminations (QuatroParallelEnv.step)
        per_seat = self.points[:, self._team_of].float()
        if self.config.reward_mode == "zero_sum":
            gained = per_seat.sum(1, keepdim=True)
            losers = per_seat == 0
            nl = losers.sum(1, keepdim=True)
            share = -gained / nl.clamp(min=1)
            per_seat = _where(losers & (gained != 0) & (nl > 0), share, per_seat)
        self.rewards.copy_(per_seat)
        terminated = self.match_ended.clone()
        if self.config.episode == "round":
            terminated |= self.round_ended
        truncated = ~terminated & self.round_ended & (self.rounds_completed >= self.config.max_rounds)
        done = terminated | truncated
        info: dict[str, Any] = {}
        any_done = bool(done.any())
        if any_done:
            info["final_scores"] = self.scores.clone()
            info["final_rounds"] = self.rounds_completed.clone()
        if any_done and self.keep_final:
            self._encode()
            self._compute_masks()
            self.final_observations.copy_(self.observations)
            self.final_masks.copy_(self.masks)
            info["final_observation"] = self.final_observations
            info["final_mask"] = self.final_masks
        if any_done:
            self.episode.add_(done.long())
            self._reset_rows(done)
        self._encode()
        self._compute_masks()
        info["done"] = done
        info["illegal"] = illegal
        return StepResult(
            self.observations, self._published_masks(), self.rewards, terminated, truncated, info
        )

    # ------------------------------------------------------------------ one position of the order
    def _put(self, x: torch.Tensor, where: torch.Tensor, value) -> None:
        """x[where] = value, for [B, n] fields and a [B, n] bool mask (value: scalar or [B, 1]/[B, n])."""
        if isinstance(value, (int, float, bool)):
            _fill_(x, where, value)
        else:
            x.copy_(_where(where, value.to(x.dtype), x))

    def _resolve(self, s: torch.Tensor, kk: torch.Tensor, arg: torch.Tensor, live: torch.Tensor, t) -> None:
        n, T = self.n, self.num_teams
        sel = s[:, None] == self._ar_n  # [B, n]: the acting seat
        t1 = t[:, None]
        d = self.durations
        AK = ActionKind

        # ---- Q12–Q14 exchange
        isx = live & (kk == AK.EXCHANGE)
        xa = _where(isx, arg, 0)
        h, c = xa >> 2, xa & 3
        ch = self._changed.gather(1, c[:, None]).squeeze(1)
        ok, rej = isx & ~ch, isx & ch
        hidx = s[:, None, None].expand(-1, 1, 4)
        hand_s = self.hands.gather(1, hidx).squeeze(1)  # [B, 4]
        placed = hand_s.gather(1, h[:, None]).squeeze(1)
        taken = self.center.gather(1, c[:, None]).squeeze(1)
        self.center.scatter_(1, c[:, None], _where(ok, placed, taken)[:, None])
        self.hands.scatter_(
            1, hidx, hand_s.scatter(1, h[:, None], _where(ok, taken, placed)[:, None]).unsqueeze(1)
        )
        self._changed.scatter_(1, c[:, None], (ch | ok)[:, None])
        okm = sel & ok[:, None]
        self._put(self.next_exchange, okm, t1 + d.exchange_cooldown)
        self._put(self.ev_slot, okm, c[:, None])
        self._put(self.ev_taken, okm, (taken >> 2)[:, None])
        self._put(self.ev_placed, okm, (placed >> 2)[:, None])
        self._put(self.ev_rejected, sel & rej[:, None], c[:, None])
        act = ok

        # ---- Q15, Q17 floor
        tk = (live & (kk == AK.TAKE_FLOOR))[:, None] & sel
        rl = (live & (kk == AK.RELEASE_FLOOR))[:, None] & sel
        tr = tk | rl
        self.floor.copy_((self.floor | tk) & ~rl)
        _fill_(self.emoji, tr, -1)
        _fill_(self.pulse_anchor, tr, -1)
        self._put(self.next_floor, tr, t1 + d.floor_cooldown)
        self.ev_took |= tk
        self.ev_released |= rl
        act = act | (live & ((kk == AK.TAKE_FLOOR) | (kk == AK.RELEASE_FLOOR)))
        em = (live & (kk == AK.SHOW_EMOJI))[:, None] & sel
        self._put(self.emoji, em, arg[:, None])
        self._put(self.pulse_anchor, em & (self.pulse_anchor < 0), t1)

        # ---- Q7 sign: the first teammate fixes it
        sg = live & (kk == AK.CHOOSE_SIGN)
        team = s % T
        cur = self.team_sign.gather(1, team[:, None]).squeeze(1)
        self.team_sign.scatter_(
            1, team[:, None], _where(sg & (cur < 0), arg, cur.long()).to(torch.int8)[:, None]
        )

        # ---- Q8 ready, Q11 start
        rd = live & (kk == AK.READY)
        self.ready |= sel & rd[:, None]
        st = live & (kk == AK.START_ROUND)
        self.start_requested |= st
        act = act | rd | st

        # ---- Q20, Q21 proposal
        pr = live & (kk == AK.PROPOSE_RESHUFFLE) & ~self.vote_open & ~self.reshuffled
        voters = self.connected & ~self.is_bot & ~sel
        has_voters = _any(voters)
        self.next_proposal.copy_(_where(pr, t + d.vote_interval, self.next_proposal))
        self.ev_proposed |= sel & pr[:, None]
        act = act | pr
        opens = pr & has_voters
        self.vote_open |= opens
        self.vote_proposer.copy_(_where(opens, s.to(torch.int8), self.vote_proposer))
        o2 = opens[:, None]
        self.voters.copy_(_where(o2, voters, self.voters))
        _fill_(self.yes, o2, False)
        _fill_(self.absent, o2, False)
        self.vote_deadline.copy_(_where(opens, t + d.vote_window, self.vote_deadline))
        reshuffle = pr & ~has_voters

        # ---- Q20 answers: a "no" ends the vote at once
        vy = live & (kk == AK.VOTE_YES) & self.vote_open
        vn = live & (kk == AK.VOTE_NO) & self.vote_open
        self._put(self.ev_vote, sel & vy[:, None], 1)
        self._put(self.ev_vote, sel & vn[:, None], 2)
        act = act | vy | vn
        self.vote_open &= ~vn
        self.ev_vote_failed |= vn
        self.yes |= sel & vy[:, None]
        complete = vy & _all(self.yes == self.voters)
        self.vote_open &= ~complete
        reshuffle = reshuffle | complete
        self.ev_act |= sel & act[:, None]
        if bool(reshuffle.any()):
            self._reshuffle(reshuffle)

        # ---- Q18 «Quatro!» (with the own-quartet reminder) and Q19 «Contra!»
        q = live & (kk == AK.QUATRO)
        cn = live & (kk == AK.CONTRA)
        if bool((q | cn).any()):
            quartets = _is_quartet(self.hands)  # [B, n]
            own_q = quartets.gather(1, s[:, None]).squeeze(1)
            if self.config.own_quartet_guard == "confirm":
                ro = self.rem_open.gather(1, s[:, None]).squeeze(1)
                rlast = self.rem_last.gather(1, s[:, None]).squeeze(1)
                active = (ro < t) & (t <= rlast)
                held = q & own_q & ~active
                hm = sel & held[:, None]
                self._put(self.rem_open, hm, t1)
                self._put(self.rem_last, hm, t1 + d.reminder_window)
                q = q & ~held
            my_team = s % T
            partner_q = quartets.gather(1, ((s + T) % n)[:, None]).squeeze(1)
            mine = my_team[:, None] == self._ar_t  # [B, T]
            target = (my_team + arg) % T
            tgt = target[:, None] == self._ar_t
            target_q = (
                quartets.gather(1, target[:, None]) | quartets.gather(1, (target + T)[:, None])
            ).squeeze(1)
            scoring = _where(
                q[:, None],
                _where(partner_q[:, None], mine, ~mine),
                _where(target_q[:, None], mine, tgt),
            )
            ends = q | cn
            kind = _where(q, QUATRO_CALL, CONTRA_CALL)
            tgt_team = _where(cn, target, -1)
            self.ev_act |= sel & ends[:, None]
            self._end_round(ends, scoring & ends[:, None], kind, s, tgt_team, t)

    # ------------------------------------------------------------------ the whole order at once
    def _resolve_tick(self, k: torch.Tensor, arg: torch.Tensor, p: torch.Tensor, t: torch.Tensor) -> None:
        """Q9 resolution of every seat's action, vectorised over seats as well as tables.

        Equivalent to resolving the actions one by one in the tick's order (``sequential=True``):
        whatever an earlier action can change for a later one is derived from positions ``p``
        ([B, n], 1-based): the first round-ending call ``C`` cuts the tick (Q10); a reshuffle at
        ``R`` (a proposal without voters, or the completing "yes") changes every slot (Q14) and
        every hand; the first exchange on a slot wins it (Q14); the first teammate fixes the sign
        (Q7); a "no" or the completing "yes" ends the vote (Q20). Legality was judged at the
        start of the tick (masks), which rules out every other interaction.
        """
        B, n, T = self.num_envs, self.n, self.num_teams
        dev = self.device
        d = self.durations
        AK = ActionKind
        INF = n + 1
        inf = torch.full_like(p, INF)
        t1 = t[:, None]

        def first(mask: torch.Tensor) -> torch.Tensor:  # [B] position of the first seat in mask
            return _red(_where(mask, p, inf), torch.minimum)

        # ---- votes and proposals (candidate positions, before the cut)
        YES, NO = k == AK.VOTE_YES, k == AK.VOTE_NO
        N = first(NO)
        need = self.voters & ~self.yes & self.vote_open[:, None]
        all_yes = _any(need) & ~_any(need & ~YES)
        Y = _where(
            all_yes, _red(_where(need & YES, p, torch.zeros_like(p)), torch.maximum), torch.full_like(N, INF)
        )
        PR = k == AK.PROPOSE_RESHUFFLE
        P = first(PR)
        proposer = _red(_where(PR & (p == P[:, None]), self._ar_n.expand(B, n), inf), torch.minimum).clamp(
            max=n - 1
        )
        new_voters = self.connected & ~self.is_bot & (self._ar_n != proposer[:, None])
        has_voters = _any(new_voters)
        R = _where((P < INF) & ~has_voters, P, _where(Y < N, Y, torch.full_like(N, INF)))
        R1 = R[:, None]

        # ---- exchanges: the first on a slot wins it, unless a reshuffle came first (Q14)
        EX = k == AK.EXCHANGE
        xa = _where(EX, arg, torch.zeros_like(arg))
        h, c = xa >> 2, xa & 3
        slot_first = _red(
            _where((c[:, :, None] == self._ar4) & EX[:, :, None], p[:, :, None], INF), torch.minimum
        )  # [B, 4]
        win = EX & (p == slot_first.gather(1, c)) & (p < R1)
        hands0 = self.hands
        center0 = self.center
        taken = center0.gather(1, c)  # [B, n] the card each exchanger would take
        placed = hands0.gather(2, h[:, :, None]).squeeze(2)
        hoh = (h[:, :, None] == self._ar4) & win[:, :, None]  # [B, n, 4]
        hands1 = _where(hoh, taken[:, :, None].expand(B, n, 4), hands0)

        # ---- the reshuffle's deal (if it happens before the cut)
        r_rows = R < INF
        any_r = bool(r_rows.any())
        if any_r:
            r_idx = r_rows.nonzero().squeeze(1)
            new_hands, new_center, new_replaced = self._deal_values(r_idx, False)
            Qn = torch.zeros(B, n, dtype=torch.bool, device=dev)
            Qn[r_idx] = _is_quartet(new_hands)
        else:
            Qn = torch.zeros(B, n, dtype=torch.bool, device=dev)

        # ---- calls (Q18, Q19): judged on the hands at their instant
        QU, CO = k == AK.QUATRO, k == AK.CONTRA
        Q0, Q1 = _is_quartet(hands0), _is_quartet(hands1)
        after_r = p > R1  # the reshuffle came before this seat's action

        def quartet_at(x: torch.Tensor) -> torch.Tensor:
            """[B, n]: does seat x[b, s] hold a quartet at the instant of seat s's action?"""
            px = p.gather(1, x)
            pre = _where(px < p, Q1.gather(1, x), Q0.gather(1, x))
            return _where(after_r, Qn.gather(1, x), pre)

        ar_n = self._ar_n.expand(B, n)
        own_q = quartet_at(ar_n)
        partner_q = quartet_at(self._partner.expand(B, n))
        team = self._team_of.expand(B, n)
        target = (team + _where(CO, arg, torch.zeros_like(arg))) % T
        target_q = quartet_at(target) | quartet_at(target + T)
        if self.config.own_quartet_guard == "confirm":
            active = (self.rem_open < t1) & (t1 <= self.rem_last)
            held = QU & own_q & ~active
        else:
            held = torch.zeros_like(QU)
        ending = (QU & ~held) | CO
        C = first(ending)
        C1 = C[:, None]
        live = (k != AK.NOOP) & (p <= C1)
        R = _where(R < C, R, torch.full_like(R, INF))
        r_rows = R < INF

        # ---- apply: exchanges
        won = win & live
        rejected = EX & live & ~won
        wm = hoh & live[:, :, None]
        self.hands.copy_(_where(wm, taken[:, :, None].expand(B, n, 4), hands0))
        coh = (c[:, :, None] == self._ar4) & won[:, :, None]  # [B, n, 4] seat s wins slot c
        got = _any(coh)
        new_c = _red(coh.to(torch.int8) * placed[:, :, None], torch.add)
        self.center.copy_(_where(got, new_c, center0))
        self._put(self.next_exchange, won, t1 + d.exchange_cooldown)
        self._put(self.ev_slot, won, c)
        self._put(self.ev_taken, won, taken >> 2)
        self._put(self.ev_placed, won, placed >> 2)
        self._put(self.ev_rejected, rejected, c)

        # ---- floor (Q15, Q17), emoji, sign (Q7), ready (Q8), start (Q11)
        TK, RL = live & (k == AK.TAKE_FLOOR), live & (k == AK.RELEASE_FLOOR)
        tr = TK | RL
        self.floor.copy_((self.floor | TK) & ~RL)
        _fill_(self.emoji, tr, -1)
        _fill_(self.pulse_anchor, tr, -1)
        self._put(self.next_floor, tr, t1 + d.floor_cooldown)
        self.ev_took |= TK
        self.ev_released |= RL
        EM = live & (k == AK.SHOW_EMOJI)
        self._put(self.emoji, EM, arg)
        self._put(self.pulse_anchor, EM & (self.pulse_anchor < 0), t1.expand(B, n))
        SG = live & (k == AK.CHOOSE_SIGN)
        sa, sb = SG[:, :T], SG[:, T:]
        pick_a = sa & (~sb | (p[:, :T] < p[:, T:]))
        chosen = _where(pick_a, arg[:, :T], arg[:, T:])
        self._put(self.team_sign, (sa | sb) & (self.team_sign < 0), chosen)
        RD = live & (k == AK.READY)
        self.ready |= RD
        ST = live & (k == AK.START_ROUND)
        self.start_requested |= _any(ST)

        # ---- proposal and answers (Q20, Q21)
        prop = PR & (p == P[:, None]) & live  # the first proposal (later ones are moot)
        proposed = _any(prop)
        self.ev_proposed |= prop
        self.next_proposal.copy_(_where(proposed, t + d.vote_interval, self.next_proposal))
        opens = proposed & has_voters
        self.vote_open |= opens
        self.vote_proposer.copy_(_where(opens, proposer.to(torch.int8), self.vote_proposer))
        o2 = opens[:, None]
        self.voters.copy_(_where(o2.expand(B, n), new_voters, self.voters))
        _fill_(self.yes, o2, False)
        _fill_(self.absent, o2, False)
        self.vote_deadline.copy_(_where(opens, t + d.vote_window, self.vote_deadline))
        E = torch.minimum(N, Y)
        answered = (YES | NO) & live & (p <= E[:, None])
        self._put(self.ev_vote, answered & YES, 1)
        self._put(self.ev_vote, answered & NO, 2)
        self.yes |= answered & YES
        failed = (N < Y) & (N < C)
        completed = (Y < N) & (Y < C)
        self.vote_open &= ~(failed | completed)
        self.ev_vote_failed |= failed
        held_live = held & live
        self._put(self.rem_open, held_live, t1.expand(B, n))
        self._put(self.rem_last, held_live, t1 + d.reminder_window)
        self.ev_act |= won | TK | RL | RD | ST | prop | answered | (ending & (p == C1))

        # ---- the reshuffle (Q20): every hand and the center re-dealt
        if any_r and bool(r_rows.any()):
            keep = r_rows[r_idx]
            if self.record_draws:
                self._deal_values(r_idx[keep], True)  # record exactly the draws that were used
            rows_i = r_idx[keep]
            self.hands[rows_i] = new_hands[keep]
            self.center[rows_i] = new_center[keep]
            self.ev_replaced[rows_i] |= new_replaced[keep]
            self.reshuffled |= r_rows
            self.ev_reshuffled |= r_rows

        # ---- the round-ending call (Q10, Q18, Q19)
        ends = C < INF
        if bool(ends.any()):
            at_c = (p == C1) & ending  # [B, n] the caller
            caller = _red(_where(at_c, ar_n, torch.zeros_like(ar_n)), torch.add)
            is_q = _any(at_c & QU)
            my_team = caller % T
            tgt = _red(_where(at_c, target, torch.zeros_like(target)), torch.add)
            right = _any(at_c & _where(QU, partner_q, target_q))
            mine = my_team[:, None] == self._ar_t
            tgt_oh = tgt[:, None] == self._ar_t
            scoring = _where(
                is_q[:, None].expand(B, T),
                _where(right[:, None].expand(B, T), mine, ~mine),
                _where(right[:, None].expand(B, T), mine, tgt_oh),
            )
            kind = _where(
                is_q, torch.zeros_like(caller) + QUATRO_CALL, torch.zeros_like(caller) + CONTRA_CALL
            )
            tgt_team = _where(is_q, torch.zeros_like(tgt) - 1, tgt)
            self._end_round(ends, scoring & ends[:, None], kind, caller, tgt_team, t)

    def _reshuffle(self, rows: torch.Tensor) -> None:
        """Q20: everything re-dealt; signs, clock, floors, cooldowns stay; every slot changed (Q14)."""
        self.reshuffled |= rows
        self._changed |= rows[:, None]
        self.ev_reshuffled |= rows
        self._deal(rows)

    def _end_round(self, ends, scoring, kind, caller, target, t) -> None:
        """Q10 the round ends at once; Q24 points never taken away; Q25 shared wins."""
        if not bool(ends.any()):
            return
        e2 = ends[:, None]
        add = scoring.to(torch.int8)
        self.scores += add
        self.points += add
        self.vote_open &= ~ends  # cancelled, no result
        rel = self.floor & e2  # every floor released (round over)
        self.ev_released |= rel
        self.floor &= ~e2
        # Q11: between rounds every cooldown and reminder is cleared (from the end of the round on)
        _fill_(self.next_exchange, e2, 0)
        _fill_(self.next_floor, e2, 0)
        _fill_(self.rem_open, e2, -1)
        _fill_(self.rem_last, e2, -1)
        _fill_(self.emoji, rel, -1)
        _fill_(self.pulse_anchor, rel, -1)
        self.call_kind.copy_(
            _where(ends, torch.as_tensor(kind, device=self.device).to(torch.int8), self.call_kind)
        )
        self.call_caller.copy_(
            _where(ends, torch.as_tensor(caller, device=self.device).to(torch.int8), self.call_caller)
        )
        self.call_target.copy_(
            _where(ends, torch.as_tensor(target, device=self.device).to(torch.int8), self.call_target)
        )
        self.call_scoring.copy_(_where(e2, scoring, self.call_scoring))
        self.rounds_completed += ends.to(torch.int16)
        self.round_ended |= ends
        over = ends & (self.scores.max(1).values >= self.config.points_to_win)
        self.match_ended |= over
        pause = ends & ~over
        _fill_(self.phase, over, OVER)
        _fill_(self.phase, pause, PAUSE)
        self.phase_end.copy_(_where(pause, t + self.durations.pause, self.phase_end))
        self.start_requested &= ~pause

    # ------------------------------------------------------------------ the clock
    def _end_of_tick(self, t: torch.Tensor) -> None:
        ph = self.phase
        play, sign, pause = ph == PLAY, ph == SIGN, ph == PAUSE
        d = self.durations
        # PLAY: pulses (Q15), vote deadline (Q20), blank round (Q10)
        t1 = t[:, None]
        pm = play[:, None] & self.floor & (self.pulse_anchor >= 0) & ((t1 - self.pulse_anchor) % d.pulse == 0)
        self._put(self.pulse_emoji, pm, self.emoji)
        self._put(self.pulse_tick, pm, t1.expand_as(self.pulse_tick))
        vd = play & self.vote_open & (t >= self.vote_deadline)
        self.vote_open &= ~vd
        self.ev_vote_failed |= vd
        blank = play & (t >= self.phase_end)
        if bool(blank.any()):
            none = torch.zeros(self.num_envs, self.num_teams, dtype=torch.bool, device=self.device)
            self._end_round(blank, none, BLANK_CALL, -1, -1, t)
        # SIGN: start at the deadline or when every connected player is ready (Q8)
        go = sign & ((t >= self.phase_end) | _all(self.ready | ~self.connected))
        if bool(go.any()):
            self._begin_play(go, t)
        # PAUSE: the host's start or the end of the pause (Q11)
        nxt = pause & (self.start_requested | (t >= self.phase_end))
        if bool(nxt.any()):
            self._begin_sign_phase(nxt, t + 1)

    def _begin_play(self, rows: torch.Tensor, t: torch.Tensor) -> None:
        """Q8: missing signs drawn (uniform, per team), deal, the 180 s clock."""
        draw = self._u32(None, P_SIGN, self.num_teams) % NUM_EMOJIS
        need = rows[:, None] & (self.team_sign < 0)
        if self.record_draws:
            idx = rows.nonzero().squeeze(1)
            self._rec("sign", idx, _where(need[idx], draw[idx], -1))
        self.team_sign.copy_(_where(need, draw.to(torch.int8), self.team_sign))
        self._deal(rows)
        _fill_(self.phase, rows, PLAY)
        self.phase_end.copy_(_where(rows, t + self.durations.round, self.phase_end))

    def _between_ticks(self) -> None:
        """Q23: connection changes between ticks (schedule, then random), not after the match."""
        live = self.phase != OVER
        self._apply_schedule(live, None)
        p_off, p_on = self.config.disconnect_prob, self.config.reconnect_prob
        if p_off > 0 or p_on > 0:
            # draws only when a change is possible (as the reference engine)
            drawn = live if p_off > 0 else live & ~_all(self.connected)
            live = drawn
            u = self._u32(None, P_CONNECT, self.n).double() / 2.0**32  # tick already advanced
            if self.record_draws:
                idx = drawn.nonzero().squeeze(1)
                self._rec("random", idx, u[idx])
            off = live[:, None] & self.connected & (u < p_off)
            on = live[:, None] & ~self.connected & (u < p_on)
            self._set_connected(off, False)
            self._set_connected(on, True)

    def _apply_schedule(self, rows: torch.Tensor, tick: int | None) -> None:
        for when, seat, connected in self._schedule:
            hit = rows & (self.tick == when) if tick is None else (rows if when == tick else None)
            if hit is None:
                continue
            m = torch.zeros_like(self.connected)
            m[:, seat] = hit
            self._set_connected(m & (self.connected != connected), connected)

    def _set_connected(self, m: torch.Tensor, connected: bool) -> None:
        """Q23: a disconnection releases the floor at once (public); a reconnecting bot is ready."""
        if connected:
            self.connected |= m
            self.ready |= m & self.is_bot & (self.phase == SIGN)[:, None]
        else:
            self.connected &= ~m
            rel = m & self.floor & (self.phase == PLAY)[:, None]
            self.ev_released |= rel
            self.floor &= ~rel
            _fill_(self.emoji, rel, -1)
            _fill_(self.pulse_anchor, rel, -1)
            self.absent |= m & self.voters & self.vote_open[:, None]  # Q20: the vote can only fail now

    # ================================================================== observations (Q26–Q28)
    def _encode(self) -> None:
        """Every seat's egocentric observation, exactly as ``ObservationEncoder.encode``.

        Each block is assembled contiguous (one ``cat`` of its fields, in the block's field order)
        and copied once into observer 0's view (absolute order) and, for private blocks, into every
        observer's own slot; the other observers' table/team/seat parts are rotated copies.
        """
        B, n, T, v = self.num_envs, self.n, self.num_teams, self.v
        P, G, TB, SB = self.P, self.G, self.TB, self.SB
        private, table, team, seat = self._blocks
        obs = self.observations
        now = self.tick
        now1 = now[:, None]
        ph = self.phase
        play = ph == PLAY
        revealed = (ph == PAUSE) | (ph == OVER)
        u8 = torch.uint8
        E = NUM_EMOJIS

        def oh(val: torch.Tensor, k: int) -> torch.Tensor:  # one-hot (zeros where val < 0), uint8
            key = (k, val.device)
            eye = _EYES.get(key)
            if eye is None:
                eye = torch.cat([torch.zeros(1, k, dtype=u8), torch.eye(k, dtype=u8)]).to(val.device)
                _EYES[key] = eye
            idx = (val.reshape(-1).long() + 1).clamp_(min=0)
            return eye.index_select(0, idx).view(*val.shape[:-1], val.shape[-1] * k)

        def flag(x: torch.Tensor) -> torch.Tensor:
            return x.view(u8).unsqueeze(-1)

        def num(x: torch.Tensor) -> torch.Tensor:
            x = x.clamp(min=0) if x.dtype == torch.int8 else x.clamp(0, CLIP)
            return x.to(u8).unsqueeze(-1)

        def build(block, fields: dict[str, torch.Tensor]) -> torch.Tensor:
            parts = [fields[name] for name, _ in block.fields]
            return torch.cat(parts, dim=-1)

        hv = _where(self.hands >= 0, self.hands >> 2, -1)  # values, -1 when no hand

        # ---- private blocks, one per seat, written into each observer's own slot (Q26)
        active = (self.rem_open < now1) & (now1 <= self.rem_last)
        pv = build(
            private,
            {
                "hand": oh(hv, v),
                "sign": oh(self.team_sign[:, self._team_of].unsqueeze(-1), E),
                "emoji": oh(self.emoji.unsqueeze(-1), E),
                "reminder": flag(active),
                "reminder_left": num(_where(active, self.rem_last - now1 + 1, 0)),
                "rejected_slot": oh(self.ev_rejected.unsqueeze(-1), 4),
            },
        )
        obs[:, :, :P].copy_(pv)

        # ---- table block (Q27)
        vo = self.vote_open
        pw = _where(play & (self.next_proposal > now), self.next_proposal - now, 0)
        cv = _where(self.center >= 0, self.center >> 2, -1)
        tv = build(
            table,
            {
                "phase": oh(ph.unsqueeze(-1), 4),
                "phase_left": num(_where(ph != OVER, self.phase_end - now + 1, 0)),
                "round": num(self.round_index),
                "center": oh(cv, v),
                "vote_open": flag(vo),
                "vote_left": num(_where(vo, self.vote_deadline - now + 1, 0)),
                "reshuffle_used": flag(self.reshuffled),
                "proposal_wait": num(pw),
                "vote_failed": flag(self.ev_vote_failed),
                "reshuffled": flag(self.ev_reshuffled),
                "last_call": oh(self.call_kind.unsqueeze(-1), 3),
            },
        )
        obs[:, :, P : P + G].copy_(tv.unsqueeze(1).expand(B, n, G))

        # ---- team blocks (absolute order, observer 0)
        rs = _where(revealed[:, None] & (self.team_sign >= 0), self.team_sign, -1)
        if not self.config.reveal_signs:
            rs = rs * 0 - 1
        tm = build(
            team,
            {
                "score": num(self.scores),
                "accused": flag(self.call_target[:, None] == self._ar_t),
                "scored": flag(self.call_scoring),
                "revealed_sign": oh(rs.unsqueeze(-1), E),
            },
        )
        obs[:, 0, self._T0 : self._T0 + T * TB].copy_(tm.view(B, T * TB))

        # ---- seat blocks (absolute order, observer 0)
        p1 = play[:, None]
        vo1 = vo[:, None]
        has_pulse = self.pulse_emoji >= 0
        sv = build(
            seat,
            {
                "connected": flag(self.connected),
                "ready": flag(self.ready),
                "floor": flag(self.floor & p1),
                "exchange_wait": num(_where(p1, self.next_exchange - now1, 0)),
                "floor_wait": num(_where(p1, self.next_floor - now1, 0)),
                "pulse_emoji": oh(self.pulse_emoji.unsqueeze(-1), E),
                "pulse_age": num(_where(has_pulse, now1 - 1 - self.pulse_tick, CLIP)),
                "exchanged": flag(self.ev_slot >= 0),
                "exchange_slot": oh(self.ev_slot.unsqueeze(-1), 4),
                "taken": oh(self.ev_taken.unsqueeze(-1), v),
                "placed": oh(self.ev_placed.unsqueeze(-1), v),
                "order": num(_where(self.ev_act, self.ev_pos, 0)),
                "took_floor": flag(self.ev_took),
                "released_floor": flag(self.ev_released),
                "voted_yes": flag(self.ev_vote == 1),
                "voted_no": flag(self.ev_vote == 2),
                "proposed": flag(self.ev_proposed),
                "voter": flag(self.voters & vo1),
                "said_yes": flag(self.yes & vo1),
                "hand_replaced": flag(self.ev_replaced),
                "proposer": flag(vo1 & (self.vote_proposer[:, None] == self._ar_n)),
                "caller": flag(self.call_caller[:, None] == self._ar_n),
                "revealed_hand": oh(_where(revealed[:, None, None], hv, -1), v),
            },
        )
        obs[:, 0, self._S0 : self._S0 + n * SB].copy_(sv.view(B, n * SB))

        # ---- every other observer: teams and seats rotated (egocentric)
        T0, S0 = self._T0, self._S0
        for i in range(1, n):
            j = i % T
            if j == 0:
                obs[:, i, T0 : T0 + T * TB].copy_(obs[:, 0, T0 : T0 + T * TB])
            else:
                obs[:, i, T0 : T0 + (T - j) * TB].copy_(obs[:, 0, T0 + j * TB : T0 + T * TB])
                obs[:, i, T0 + (T - j) * TB : T0 + T * TB].copy_(obs[:, 0, T0 : T0 + j * TB])
            obs[:, i, S0 : S0 + (n - i) * SB].copy_(obs[:, 0, S0 + i * SB : S0 + n * SB])
            obs[:, i, S0 + (n - i) * SB : S0 + n * SB].copy_(obs[:, 0, S0 : S0 + i * SB])

    # ================================================================== sampling
    def sample_actions(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """Uniformly random legal actions ``[B, n]`` on the engine's device.

        Legality is uniform within each action kind (every mask is a union of whole kind ranges),
        so a kind is drawn with weight = its number of legal actions, then an index inside it:
        exactly uniform over the legal actions, at the cost of ``[B, n, 13]`` work.
        """
        if not hasattr(self, "_kind_size"):
            ranges = [self.codec.ranges[k] for k in ActionKind]
            self._kind_size = torch.tensor([len(r) for r in ranges], dtype=torch.float32, device=self.device)
            self._kind_start = torch.tensor([r.start for r in ranges], dtype=torch.long, device=self.device)
            # cumulative weights by a matmul with diag(size) @ upper-triangular ones (fast everywhere)
            tri = torch.triu(torch.ones(len(ranges), len(ranges), device=self.device))
            self._kind_cum = torch.diag(self._kind_size) @ tri
            self._kind_size_list = [float(len(r)) for r in ranges]
        B, n = self.num_envs, self.n
        u = torch.rand(B, n, 2, generator=generator, device=self.device)
        if self.backend in _PROGRAM_BACKENDS:
            out = torch.empty(B, n, dtype=torch.long, device=self.device)
            view = self._nb_view
            self._nb.sample(
                view(u), view(self._kind_legal), self._nb_size, self._nb_start, view(out), self._nb_scratch
            )
            return out
        ku = self._kind_legal.view(torch.uint8)
        cols = []
        acc = ku[:, :, 0].float() * self._kind_size_list[0]
        cols.append(acc)
        for i in range(1, ku.shape[2]):
            acc = acc + ku[:, :, i].float() * self._kind_size_list[i]
            cols.append(acc)
        cum = torch.stack(cols, -1)  # [B, n, K] cumulative legal counts
        r = u[:, :, :1] * cum[:, :, -1:]
        kind = (cum <= r).sum(-1).clamp_(max=len(ActionKind) - 1)
        size = self._kind_size[kind]
        off = torch.minimum((u[:, :, 1] * size).long(), size.long() - 1)
        return self._kind_start[kind] + off

    # ================================================================== the table programs (CPU, GPU)
    def _init_numba(self) -> None:
        """Constants and work space of the table programs (``program.py``), looped over the tables on the
        CPU (``numba``) or one GPU thread per table (``cuda``); the state stays in the tensors."""
        from quatro_env.batched import program as nb

        self._nb_prog = nb
        gpu = self.device.type == "cuda"
        if self.backend == "cuda":
            from quatro_env.batched import cuda as nb_cuda

            self._nb = nb_cuda.kernels()
        else:
            self._nb = nb
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

    def _reset_numba(self) -> StepResult:
        S, V, _ = self._nb_state()
        all_rows = self._nb_all
        self._nb.reset_rows(all_rows, self._nb_prm, self._nb_sched, self._nb_is_bot, S, V)
        view = self._nb_view
        self._nb_encode_masks(all_rows, True, view(self.observations), view(self.masks), S, V)
        self.rewards.zero_()
        zeros = torch.zeros(self.num_envs, dtype=torch.bool)
        return StepResult(self.observations, self._published_masks(), self.rewards, zeros, zeros.clone(), {})

    def _step_numba(self, actions) -> StepResult:
        nb = self._nb
        B, n = self.num_envs, self.n
        a = torch.as_tensor(actions)
        if tuple(a.shape) != (B, n):
            raise ValueError(f"actions: need shape [{B}, {n}], got {list(a.shape)}")
        view = self._nb_view
        a = a.to(device=self.device, dtype=torch.long).contiguous()
        illegal = self._nb_illegal
        first = nb.check_actions(view(a), view(self.masks), self.num_actions, view(illegal), self._nb_actions)
        if self.config.illegal_action == "raise":
            if first is None:  # a GPU launch returns nothing: look (a host synchronisation)
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
        any_done = bool(self._nb_done.any())
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
#: the backends that run ``program.py``: its CPU loops, or its CUDA kernels (``cuda.py``)
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
    """``auto``: the numba kernel on CPU when numba is installed, else torch (``QUATRO_BATCHED_BACKEND``
    overrides ``auto``)."""
    if backend == "auto":
        backend = os.environ.get("QUATRO_BATCHED_BACKEND", "auto") or "auto"
    if backend == "auto":
        return "numba" if device.type == "cpu" and numba_available() else "torch"
    if backend not in ("torch", *_PROGRAM_BACKENDS):
        raise ValueError(f"backend: 'auto', 'torch', 'numba' or 'cuda', got {backend!r}")
    if backend == "cuda":
        if not numba_available():
            raise ValueError("backend: 'cuda' needs numba-cuda (pip install numba-cuda)")
        from quatro_env.batched import cuda

        if not cuda.available():
            raise ValueError("backend: 'cuda' needs numba-cuda and a GPU (or NUMBA_ENABLE_CUDASIM=1)")
        if device.type != "cuda" and not cuda.simulated():
            raise ValueError(f"backend: 'cuda' runs on a CUDA device, not on {device}")
    if backend == "numba":
        if device.type != "cpu":
            raise ValueError(f"backend: the numba kernel runs on the CPU only, not on {device}")
        if not numba_available():
            raise ValueError("backend: numba is not installed (pip install numba)")
    return backend


def _red(x: torch.Tensor, op, dim: int = 1) -> torch.Tensor:
    """Reduce a small dim (seats, slots, kinds) with a chain of element-wise ops.

    torch's CPU reductions over a short inner dim are slow; ``n - 1`` element-wise ops are not.
    """
    if x.device.type != "cpu":
        if op is torch.minimum:
            return x.amin(dim)
        if op is torch.maximum:
            return x.amax(dim)
        if op is torch.bitwise_or:
            return x.any(dim)
        if op is torch.bitwise_and:
            return x.all(dim)
        return x.sum(dim)
    parts = x.unbind(dim)
    out = parts[0]
    for part in parts[1:]:
        out = op(out, part)
    return out


def _any(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    return _red(x, torch.bitwise_or, dim)


def _all(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    return _red(x, torch.bitwise_and, dim)


def _where(c: torch.Tensor, a, b):
    """``torch.where`` through arithmetic on CPU (where/masked_fill take a slow path there)."""
    if c.device.type != "cpu":
        return torch.where(c, a, b)
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype == torch.bool:
        return (a & c) | (b & ~c)
    if not isinstance(b, torch.Tensor):
        b = torch.as_tensor(b, dtype=a.dtype if isinstance(a, torch.Tensor) else torch.long)
    if not isinstance(a, torch.Tensor):
        a = torch.as_tensor(a, dtype=b.dtype)
    dt = torch.promote_types(a.dtype, b.dtype)
    a, b = a.to(dt), b.to(dt)  # same-dtype arithmetic is vectorised; mixed dtypes are not
    return b + c.to(dt) * (a - b)


def _fill_(x: torch.Tensor, m: torch.Tensor, value) -> torch.Tensor:
    """``x.masked_fill_(m, value)`` without the slow CPU path."""
    if x.device.type != "cpu":
        return x.masked_fill_(m, value)
    if x.dtype == torch.bool:
        return x.bitwise_or_(m) if value else x.bitwise_and_(~m)
    mi = m.expand_as(x).to(x.dtype).contiguous()  # broadcasting in-place ops are slow on CPU
    x.mul_(1 - mi)
    if value:
        x.add_(mi * value)
    return x


_EYES: dict = {}


def _is_quartet(hands: torch.Tensor) -> torch.Tensor:
    """Four cards of one value (Q18, Q19); ``hands`` [..., 4] card ids."""
    v = hands >> 2
    return (v[..., 1] == v[..., 0]) & (v[..., 2] == v[..., 0]) & (v[..., 3] == v[..., 0])


def _has_triple(hands: torch.Tensor) -> torch.Tensor:
    """Three or four cards of one value (Q5); ``hands`` [..., 4] card ids."""
    v = hands >> 2
    cnt = (v.unsqueeze(-1) == v.unsqueeze(-2)).sum(-1)
    return (cnt >= 3).any(-1)
