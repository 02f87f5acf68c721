"""A batched Quatro engine: ``num_envs`` tables stepped at once, their state in torch tensors (CPU or GPU).

Same rules (Q1–Q28), observation vectors (``ObservationEncoder``), action indices (``ActionCodec``),
masks, rewards, terminations and truncations as ``QuatroParallelEnv``; ``tests/batched/differential.py``
proves it tick by tick against the reference engine. Design (``docs/batched.md``):

* The rules are scalar programs over one table (``program/``), run as numba loops over the tables on
  the CPU (``backend="numba"``) or one CUDA thread per table (``backend="cuda"``, ``cuda.py``). This
  class is the API shell: it owns the tensors, checks inputs and assembles the step's outputs.
* State is compact integer tensors, one row per table, declared once in ``schema.py``.
* Randomness is counter based: every draw hashes (table seed, episode, tick, purpose, index), so a
  table's trajectory depends only on its seed and its actions, not on the batch or the device.
  ``record_draws=True`` keeps each tick's draws, so that a reference engine can be fed the same ones.
* Finished tables are reset in the same step; with ``keep_final=True``, ``info["final_observation"]``
  and ``info["final_mask"]`` hold their terminal view. The ``final_*`` keys appear on steps where a
  table finished, and on every step with ``backend="cuda"``, which never asks the host
  (``info["done"]`` says which rows are real; the others hold the current view and scores).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from quatro_env.batched import schema
from quatro_env.batched.constants import MAX_POINTS, MAX_ROUNDS, MAX_TICKS
from quatro_env.batched.program import layout as L
from quatro_env.batched.program.draws import table_key
from quatro_env.batched.schema import CONFIG_KEY, STATE_FIELDS
from quatro_env.common.cli import one_line_error as one_line
from quatro_env.common.strict import as_flag, as_int
from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import deck_size, num_values
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.encoding import make_blocks
from quatro_env.quatro.engine import IllegalActionError, Phase, QuatroEngine, Vote

#: seeds lie in 0..MAX_SEED (a table's seed is the seed plus its index, in int64)
MAX_SEED = 2**62


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
    The fields of ``schema.STATE`` and ``schema.RESULTS`` are attributes (``engine.hands``, ...).
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
        elif not isinstance(config, QuatroConfig):
            raise ValueError(
                f"config: a QuatroConfig (or its fields as keywords), got {type(config).__name__}"
            )
        elif config_kwargs:  # re-validated
            config = QuatroConfig(**config.model_copy(update=config_kwargs).model_dump())
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
        self.deck = deck_size(n)  # cards (Q3)
        self.durations = to_ticks(cfg)
        for name, ticks in vars(self.durations).items():
            if ticks > MAX_TICKS:  # the tables' clocks are int32
                raise ValueError(
                    f"{name}_seconds: {ticks} ticks is beyond the batched engine's int32 clocks "
                    f"(at most {MAX_TICKS} ticks; the reference engine plays any length)"
                )
        # a round gives one point at most: a score never passes min(points_to_win, max_rounds)
        if min(cfg.points_to_win, cfg.max_rounds) > MAX_POINTS:
            raise ValueError(
                f"points_to_win: {cfg.points_to_win} with max_rounds {cfg.max_rounds} lets a score pass the "
                f"batched engine's int8 scores (at most {MAX_POINTS} points; the reference plays any)"
            )
        if cfg.max_rounds > MAX_ROUNDS:
            raise ValueError(
                f"max_rounds: {cfg.max_rounds} is beyond the batched engine's int16 round counters "
                f"(at most {MAX_ROUNDS}; the reference plays any)"
            )
        late = [entry for entry in cfg.disconnect_schedule if entry[0] > MAX_TICKS]
        if late:
            raise ValueError(
                f"disconnect_schedule: tick {late[0][0]} is beyond the int32 clocks ({MAX_TICKS})"
            )
        self.codec = ActionCodec(n)
        self.num_actions = A = self.codec.num_actions
        self.record_draws = as_flag(record_draws, "record_draws")
        self.keep_final = keep_final = as_flag(keep_final, "keep_final")
        self.draws: dict[str, Any] = {}
        self.is_bot = torch.tensor([s in cfg.bot_seats for s in range(n)], dtype=torch.bool, device=dev)
        self._team_of = torch.arange(n, dtype=torch.long, device=dev) % T  # Q2

        # ---- the observation layout: the reference encoder's blocks, byte for byte
        blocks = private, table, team, seat = make_blocks(n)
        self.obs_dim = D = private.size + table.size + T * team.size + n * seat.size
        width = L.encode_width(n, T, private.size, table.size, team.size, seat.size)
        self._dims = dims = schema.Dims(n=n, T=T, deck=self.deck, width=width)

        # ---- tensors: the state, events and results (schema.py), the outputs
        for name, tensor in schema.allocate(
            schema.STATE + schema.EVENTS + schema.RESULTS, B, dims, dev
        ).items():
            setattr(self, name, tensor)
        self.observations = torch.zeros(B, n, D, dtype=torch.uint8, device=dev)
        self.masks = torch.zeros(B, n, A, dtype=torch.int8, device=dev)
        self.kind_legal = torch.zeros(B, n, len(ActionKind), dtype=torch.bool, device=dev)
        # What the caller gets is a copy: legality is judged on the engine's own masks (Q29), so a
        # caller writing into the returned buffer (``res.masks.fill_(1)``) changes no rule.
        self.mask_out = torch.empty_like(self.masks)
        self.final_observations = torch.zeros_like(self.observations) if keep_final else None
        self.final_masks = torch.zeros_like(self.masks) if keep_final else None
        self._illegal = torch.zeros(B, n, dtype=torch.bool, device=dev)
        self._actions = torch.zeros(B, n, dtype=torch.long, device=dev)  # the checked actions
        self._all_rows = torch.ones(B, dtype=torch.bool, device=dev)

        # ---- the table programs: the CPU loops or the CUDA kernels, handed views of the tensors
        if self.backend == "cuda":
            from quatro_env.batched import cuda as gpu

            self._run = gpu.kernels()
        else:
            from quatro_env.batched.program import loops

            self._run = loops
        if dev.type == "cuda":
            from numba import cuda

            self._view, const = cuda.as_cuda_array, cuda.to_device
        else:  # the CPU loops, or numba's CUDA simulator: numpy views of the CPU tensors
            self._view, const = torch.Tensor.numpy, np.asarray
        view = self._view
        self._prm = L.make_params(
            **dict(n=n, T=T, v=num_values(n), deck=dims.deck, A=A, D=D),
            **dict(P=private.size, G=table.size, TB=team.size, SB=seat.size),
            **dict(T0=private.size + table.size, S0=private.size + table.size + T * team.size),
            **vars(self.durations),
            **dict(points_to_win=cfg.points_to_win, max_rounds=cfg.max_rounds),
            guard=int(cfg.own_quartet_guard == "confirm"),
            reveal_signs=int(cfg.reveal_signs),
            episode_round=int(cfg.episode == "round"),
            zero_sum=int(cfg.reward_mode == "zero_sum"),
            p_disconnect=float(cfg.disconnect_prob),
            p_reconnect=float(cfg.reconnect_prob),
            record=int(record_draws),
        )
        self._offs = L.make_offsets(blocks)
        kinds = np.array([int(k) for k in self.codec.kinds], np.int64)
        args = [4 * a[0] + a[1] if isinstance(a, tuple) else (a or 0) for a in self.codec.args]
        ranges = [self.codec.ranges[k] for k in ActionKind]
        self._tables = L.Tables(
            kind_of=const(kinds),
            arg_of=const(np.array(args, np.int64)),
            lut=const(L.mask_lut(kinds)),
            size=const(np.array([len(r) for r in ranges], np.float32)),
            start=const(np.array([r.start for r in ranges], np.int64)),
            sched=const(np.array(cfg.disconnect_schedule, np.int64).reshape(-1, 3)),
            is_bot=const(self.is_bot.cpu().numpy().copy()),
        )
        # views made once: every tensor above is updated in place (load_state_dict copies into it)
        self._S, self._V, self._R = (
            bundle(**{f.name: view(getattr(self, f.name)) for f in fields})
            for bundle, fields in (
                (schema.State, schema.STATE),
                (schema.Events, schema.EVENTS),
                (schema.Results, schema.RESULTS),
            )
        )
        rows = B if self.backend == "cuda" else 1  # a work-space row per table played at once
        self._work = schema.allocate(schema.SCRATCH, rows, dims, dev)
        self._W = schema.Scratch(**{name: view(t) for name, t in self._work.items()})
        self._alloc_draws(B if record_draws else 1)
        self._seed_rng = np.random.default_rng()  # unseeded resets: reseeded by every seeded one (Q30)
        self.reset(seed)

    # ================================================================== for learners
    @property
    def kernel_launches(self) -> int | None:
        """GPU kernel launches so far in this process (``backend="cuda"``), else None."""
        return self._run.stats["launches"] if self.backend == "cuda" else None

    @property
    def state_bytes_per_table(self) -> int:
        """Bytes of game state per table (observations, masks and event scratch excluded)."""
        return schema.bytes_per_table(schema.STATE, self._dims)

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
        """A copy of every table's state and last outputs (:data:`STATE_FIELDS`), for checkpoints, and
        the config that played them (``"config"``: its JSON as a uint8 tensor, so that the state stays a
        dict of tensors for any code that moves, compares or saves one)."""
        state = {name: getattr(self, name).clone() for name in STATE_FIELDS}
        state[CONFIG_KEY] = torch.tensor(list(self.config.model_dump_json().encode()), dtype=torch.uint8)
        return state

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore :meth:`state_dict`; a missing, unknown, ill-shaped or out-of-range entry, or a state no
        play reaches (a card twice, a score no round gave, a key not its seed's), is refused by name
        before anything changes, and so is a state played under another config (its clocks, scores
        and seats mean that config's rules; a state saved before the config was recorded has none and is
        taken as it is). The masks are derived again from the loaded state (the rules decide legality,
        not the file), with the kinds ``sample_actions`` draws from; the observations are taken as saved
        (the events they show are not saved). The last step's results (``rewards``, ``done``,
        ``final_scores``...) are cleared."""
        if not isinstance(state, dict):
            raise ValueError(f"engine state: a dict of tensors, got {type(state).__name__}")
        missing = sorted(set(STATE_FIELDS) - set(state))
        unknown = sorted(set(state) - {*STATE_FIELDS, CONFIG_KEY}, key=repr)  # keys of any type
        if missing or unknown:
            raise ValueError(f"engine state: missing {missing}, unknown {unknown}")
        if CONFIG_KEY in state:
            self._check_config(state[CONFIG_KEY])
        for name in STATE_FIELDS:
            value, current = state[name], getattr(self, name)
            if not isinstance(value, torch.Tensor):
                raise ValueError(f"engine state: {name} must be a tensor, got {type(value).__name__}")
            if value.shape != current.shape or value.dtype != current.dtype:
                raise ValueError(
                    f"engine state: {name} must be {current.dtype}{list(current.shape)}, "
                    f"got {value.dtype}{list(value.shape)}"
                )
            if value.is_meta or value.layout != torch.strided:  # no data to copy: found half-loaded
                raise ValueError(
                    f"engine state: {name} must hold its values, got a {value.layout} tensor "
                    f"on {value.device}"
                )
        bad = schema.out_of_bounds(state, self._dims)
        if bad:
            raise ValueError(f"engine state: values the rules never hold: {'; '.join(bad)}")
        bad = schema.never_reached(state, self._dims, self.config.points_to_win) + _bad_keys(state)
        if bad:
            raise ValueError(f"engine state: a state no play reaches: {'; '.join(bad)}")
        for name in STATE_FIELDS:
            getattr(self, name).copy_(state[name])
        for field in schema.RESULTS:
            getattr(self, field.name).fill_(field.fill)
        self._derive_masks(self._view(self._all_rows), True, self.masks)

    def _check_config(self, saved: Any) -> None:
        """Refuse a state's recorded config (JSON) unless it is this engine's, naming what differs."""
        if not (isinstance(saved, torch.Tensor) and saved.dtype == torch.uint8 and saved.ndim == 1):
            got = (
                f"{saved.dtype}{list(saved.shape)}"
                if isinstance(saved, torch.Tensor)
                else type(saved).__name__
            )
            raise ValueError(f"engine state: config must be its JSON as a uint8 tensor [bytes], got {got}")
        try:
            theirs = QuatroConfig.model_validate_json(bytes(saved.cpu().tolist())).model_dump()
        except ValueError as err:  # pydantic's ValidationError is a ValueError
            raise ValueError(f"engine state: config is not a valid QuatroConfig ({one_line(err)})") from None
        ours = self.config.model_dump()
        differ = [f"{k} {theirs[k]!r} (this engine: {ours[k]!r})" for k in ours if theirs[k] != ours[k]]
        if differ:
            raise ValueError(f"engine state: played under another config: {'; '.join(differ)}")

    def illegal_reason(self, table: int, seat: int, action: int) -> str | None:
        """Why ``action`` is not legal for ``seat`` of ``table`` this tick, or None (Q29).

        Asked of the reference engine's own per-kind rules (``QuatroEngine.illegal_reason``) on a
        copy of this table's fields, so the batched engine states no rule a second time. Meant for
        error messages: it reads one table on the host.
        """
        table = as_int(table, "table", low=0, high=self.num_envs - 1)
        seat = as_int(seat, "seat", low=0, high=self.n - 1)
        b, ref = table, QuatroEngine(self.config)
        row = {name: getattr(self, name)[b].tolist() for name in schema.TABLE_STATE}
        seats = lambda name: {s for s, on in enumerate(row[name]) if on}  # noqa: E731
        ref.phase, ref.tick = Phase(row["phase"]), row["tick"]
        ref.connected, ref.ready, ref.floor = row["connected"], row["ready"], row["floor"]
        ref.next_exchange_tick, ref.next_floor_tick = row["next_exchange"], row["next_floor"]
        ref.team_sign = [None if v < 0 else v for v in row["team_sign"]]
        ref.reshuffled_this_round = row["reshuffled"]
        ref.next_proposal_tick, ref.start_requested = row["next_proposal"], row["start_requested"]
        ref.vote = None
        if row["vote_open"]:
            ref.vote = Vote(
                row["vote_proposer"],
                frozenset(seats("voters")),
                row["vote_deadline"],
                yes=seats("yes"),
                absent=seats("absent"),
            )
        return ref.illegal_reason(seat, action)

    # ================================================================== reset, step, sample
    def reset(self, seed: int | torch.Tensor | list[int] | None = None) -> StepResult:
        """Reset every table. ``seed``: an int (table b gets ``seed + b``), one seed per table, or None.

        Seeds are integers in 0..MAX_SEED: a bool, a float or a negative one is refused, as by the
        ParallelEnv, never rounded; one seed per table is an integer list, array or tensor of shape [B]."""
        B = self.num_envs
        if isinstance(seed, (torch.Tensor, np.ndarray)) and seed.ndim == 0:
            seed = seed.item()  # a 0-d integer is one seed (a 0-d float stays a float: refused)
        if seed is None:  # the stream of the last seeded reset goes on (it was torch's global generator)
            seeds = torch.from_numpy(self._seed_rng.integers(0, MAX_SEED, B, dtype=np.int64))
        else:
            if isinstance(seed, (list, tuple, torch.Tensor, np.ndarray)):
                seeds = torch.from_numpy(_table_seeds(seed, B))
            else:
                seeds = as_int(seed, "seed", low=0, high=MAX_SEED) + torch.arange(B, dtype=torch.long)
            self._seed_rng = np.random.default_rng(seeds.numpy())
        self.seeds.copy_(seeds.to(self.device))
        self.episode.zero_()
        all_rows = self._view(self._all_rows)
        self._run.reset_rows(all_rows, self._prm, self._tables, self._S, self._V)
        self._encode(all_rows, True, self.observations, self.masks)
        self.rewards.zero_()
        no = torch.zeros(B, dtype=torch.bool, device=self.device)
        return StepResult(self.observations, self._published_masks(), self.rewards, no, no.clone(), {})

    def step(self, actions: torch.Tensor) -> StepResult:
        """Play one tick on every table (check, tick, reset the finished tables, encode)."""
        run, view = self._run, self._view
        self.refuse_illegal(actions)  # into self._actions: the checked actions the tick plays
        if self.record_draws != bool(self._prm.record):
            self._prm = self._prm._replace(record=np.int64(self.record_draws))
        if self.record_draws:
            if self._draws_t["order"].shape[0] != self.num_envs:
                self._alloc_draws(self.num_envs)
            for name in ("sign_flag", "deal_flag", "random_flag", "q5_count"):
                self._draws_t[name].zero_()
        S, V, R = self._S, self._V, self._R
        run.tick_all(view(self._actions), self._prm, self._tables, S, V, R, self._REC, self._W)
        if self.record_draws:
            self.draws = self._recorded_draws()
        info: dict[str, Any] = {}
        # The CUDA kernels never ask the host whether a table finished (a synchronisation per tick would
        # cap the GPU): the row-masked kernels below run every tick and the final_* keys are always there.
        any_done = self.backend == "cuda" or bool(self.done.any())
        if any_done:
            info["final_scores"], info["final_rounds"] = self.final_scores.clone(), self.final_rounds.clone()
            if self.keep_final:  # the finished tables' last view, before they are reset
                self._encode(R.done, False, self.final_observations, self.final_masks)
            self.episode += self.done
            run.reset_rows(R.done, self._prm, self._tables, S, V)
        self._encode(R.done, True, self.observations, self.masks)
        if any_done and self.keep_final:
            run.copy_rows_not(R.done, view(self.observations), view(self.final_observations))
            run.copy_rows_not(R.done, view(self.masks), view(self.final_masks))
            info["final_observation"], info["final_mask"] = self.final_observations, self.final_masks
        info["done"], info["illegal"] = self.done.clone(), self._illegal.clone()
        terminated, truncated = self.terminated.clone(), self.truncated.clone()
        return StepResult(
            self.observations, self._published_masks(), self.rewards, terminated, truncated, info
        )

    def refuse_illegal(self, actions: torch.Tensor) -> None:
        """Check ``actions`` (type, shape, Q29 legality) as ``step`` does, playing nothing: an illegal one
        raises ``IllegalActionError`` (a ValueError naming table and seat) under ``illegal_action="raise"``;
        under ``"noop"`` the illegal ones are marked for the no-op."""
        run, view = self._run, self._view
        if isinstance(actions, np.ndarray):  # a reversed view has negative strides, which torch refuses
            actions = np.ascontiguousarray(actions)
        try:
            a = torch.as_tensor(actions)
        except (TypeError, ValueError, RuntimeError, OverflowError):
            raise ValueError(
                f"actions: an integer array [{self.num_envs}, {self.n}], got {actions!r}"
            ) from None
        if a.dtype == torch.bool or a.is_floating_point() or a.is_complex():
            raise ValueError(f"actions: integer action indices, got dtype {a.dtype}")
        if tuple(a.shape) != (self.num_envs, self.n):
            raise ValueError(f"actions: need shape [{self.num_envs}, {self.n}], got {list(a.shape)}")
        a = a.to(device=self.device, dtype=torch.long).contiguous()
        illegal = self._illegal
        run.check_actions(view(a), view(self.masks), self.num_actions, view(illegal), view(self._actions))
        if self.config.illegal_action == "raise" and bool(illegal.any()):  # asks the host; "noop" does not
            b, s = divmod(int(torch.nonzero(illegal.view(-1))[0]), self.n)
            raise self._illegal_action_error(b, s, int(a[b, s]))

    def sample_actions(
        self, generator: torch.Generator | None = None, uniforms: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Uniformly random legal actions ``[B, n]`` on the engine's device.

        Legality is uniform within each action kind (every mask is a union of whole kind ranges),
        so a kind is drawn with weight = its number of legal actions, then an index inside it:
        exactly uniform over the legal actions, at the cost of ``[B, n, 13]`` work.
        ``uniforms`` (float32 ``[B, n, 2]`` in [0, 1), on this device) supplies the draw instead of
        ``generator``: a CUDA generator's stream differs from the CPU's, so the same draw is how a
        CPU and a GPU engine sample the same actions.
        """
        shape = (self.num_envs, self.n, 2)
        if uniforms is None:
            u = torch.rand(shape, generator=generator, device=self.device)
        elif generator is not None:
            raise ValueError("sample_actions: give a generator or uniforms, not both")
        elif uniforms.shape != shape or uniforms.dtype != torch.float32 or not self._here(uniforms):
            raise ValueError(
                f"sample_actions: uniforms must be float32 {list(shape)} on {self.device}, "
                f"got {uniforms.dtype} {list(uniforms.shape)} on {uniforms.device}"
            )
        elif not bool(((uniforms >= 0) & (uniforms < 1)).all()):
            raise ValueError("sample_actions: uniforms must lie in [0, 1)")
        else:
            u = uniforms.contiguous()
        out = torch.empty(self.num_envs, self.n, dtype=torch.long, device=self.device)
        view = self._view
        self._run.sample(view(u), view(self.kind_legal), self._tables, view(out), self._W)
        return out

    def _here(self, t: torch.Tensor) -> bool:
        """``t`` is on this engine's device (``cuda`` and ``cuda:0`` are one device when 0 is current)."""
        want = self.device if self.device.index is not None or self.device.type != "cuda" else None
        return t.device == (want or torch.device("cuda", torch.cuda.current_device()))

    def state(self) -> torch.Tensor:
        """Global state for centralised critics: every seat's observation, [B, n * obs_dim]."""
        return self.observations.view(self.num_envs, -1)

    # ================================================================== helpers
    def _encode(self, rows, all_rows: bool, observations: torch.Tensor, masks: torch.Tensor) -> None:
        """Observations and masks of the tables where ``rows`` (every table if ``all_rows``)."""
        view, S, run, prm = self._view, self._S, self._run, self._prm
        if self.backend == "cuda":  # a thread per table, then a thread per output byte (coalesced)
            self._work["encode"].zero_()
            run.encode_features(rows, all_rows, prm, self._offs, S, self._V, self._W)
            run.spread_observations(view(observations), rows, all_rows, prm, self._W)
        else:
            run.encode(rows, all_rows, view(observations), prm, self._offs, S, self._V, self._W)
        self._derive_masks(rows, all_rows, masks)

    def _derive_masks(self, rows, all_rows: bool, masks: torch.Tensor) -> None:
        """Masks and legal kinds of the tables where ``rows`` (every table if ``all_rows``) from the state."""
        view, S, run, prm = self._view, self._S, self._run, self._prm
        if self.backend == "cuda":
            run.legal_kinds(rows, all_rows, view(self.kind_legal), prm, S)
            run.spread_masks(view(masks), rows, all_rows, view(self.kind_legal), self._tables)
        else:
            run.compute_masks(rows, all_rows, view(masks), view(self.kind_legal), prm, self._tables, S)

    def _published_masks(self) -> torch.Tensor:
        self.mask_out.copy_(self.masks)
        return self.mask_out

    def _illegal_action_error(self, table: int, seat: int, action: int) -> IllegalActionError:
        """The Q29 error of the reference engine: table, seat, action, its description and why."""
        desc = self.codec.describe(action) if 0 <= action < self.num_actions else "?"
        reason = self.illegal_reason(table, seat, action) or "not legal this tick"
        return IllegalActionError(seat, action, desc, f"{reason} (Q29)", table=table)

    def _alloc_draws(self, rows: int) -> None:
        """The draw record (``schema.DRAWS``): a row per table when recording, one otherwise."""
        self._draws_t = schema.allocate(schema.DRAWS, rows, self._dims, self.device)
        self._REC = schema.Draws(**{name: self._view(t) for name, t in self._draws_t.items()})

    def _recorded_draws(self) -> dict[str, Any]:
        """This tick's draws: per kind a list of (tables, values), as the differential test reads them."""
        rec = {name: t.cpu() for name, t in self._draws_t.items()}
        draws: dict[str, Any] = {"order": [(torch.arange(self.num_envs), rec["order"].clone())]}
        for kind in ("sign", "deal", "random"):
            rows = torch.nonzero(rec[f"{kind}_flag"]).squeeze(1)
            if rows.numel():
                draws[kind] = [(rows, rec[kind][rows])]
        counts = rec["q5_count"]
        if counts.numel() and int(counts.max()) > self._dims.q5_cap:
            raise RuntimeError(
                f"record_draws: {int(counts.max())} Q5 re-splits in one tick on one table overflow "
                f"the record ({self._dims.q5_cap})"
            )
        if int(counts.sum()):
            rows = torch.repeat_interleave(torch.arange(self.num_envs), counts)
            slots = torch.cat([torch.arange(int(k)) for k in counts])
            draws["q5"] = [(rows, rec["q5"][rows, slots])]
        return draws


def _table_seeds(seed: Any, tables: int) -> np.ndarray:
    """One int64 seed per table from a list, array or tensor of shape [tables], or a ValueError."""
    values = np.asarray(seed.cpu() if isinstance(seed, torch.Tensor) else seed)
    if values.dtype.kind not in "iu" or values.shape != (tables,):
        raise ValueError(
            f"seed: one integer seed per table, shape [{tables}], got {values.dtype} {list(values.shape)}"
        )
    if ((values < 0) | (values > MAX_SEED)).any():
        raise ValueError(f"seed: every seed lies in 0..{MAX_SEED}, got {values.min()}..{values.max()}")
    return values.astype(np.int64)


def _bad_keys(state: dict[str, torch.Tensor]) -> list[str]:
    """Each table's seed in 0..MAX_SEED, its episodes counted from 0, and its draw key the hash of the two
    (Q30: a table's draws follow from its seed; a key of another seed would play other cards)."""
    seeds, episodes, keys = (state[name].tolist() for name in ("seeds", "episode", "key"))
    for b, (seed, episode, key) in enumerate(zip(seeds, episodes, keys, strict=True)):
        if not 0 <= seed <= MAX_SEED:
            return [f"seeds: 0..{MAX_SEED}, got {seed} (table {b})"]
        if episode < 0:
            return [f"episode: 0 or more, got {episode} (table {b})"]
        if key != table_key(seed, episode):
            return [f"key: the hash of the table's seed and episode (table {b})"]
    return []


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _resolve_backend(backend: str, device: torch.device) -> str:
    """``auto``: the CPU loops on a CPU device, the CUDA kernels on a GPU (``QUATRO_BATCHED_BACKEND``
    overrides ``auto``)."""
    source = "backend"
    if backend == "auto":
        backend = os.environ.get("QUATRO_BATCHED_BACKEND", "auto") or "auto"
        source = "QUATRO_BATCHED_BACKEND (environment)" if backend != "auto" else source
    if backend == "auto":
        backend = "cuda" if device.type == "cuda" else "numba"
    if backend == "torch":
        raise ValueError(
            "backend: 'torch' (whole-batch torch operations) was removed; the table programs run on the "
            "CPU ('numba') and on a GPU ('cuda')"
        )
    if backend not in ("numba", "cuda"):
        raise ValueError(f"{source}: 'auto', 'numba' or 'cuda', got {backend!r}")
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
