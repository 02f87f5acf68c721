"""Training configuration: one validated object, loaded from YAML with ``key=value`` overrides.

Every field is checked (pydantic, unknown keys refused), and the table's rules come from the
``env`` section, validated as a :class:`~quatro_env.quatro.config.QuatroConfig`, so a typo in
either place fails at start-up with the field's name rather than hours into a run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from baselines.limits import MAX_COUNT, MAX_ENVS, MAX_POOL, MAX_STEPS, MAX_WIDTH
from quatro_env.common.cli import one_line_error  # noqa: F401 - the CLI's error line, re-exported
from quatro_env.common.configs import read_yaml_mapping
from quatro_env.common.overrides import merge, parse_overrides
from quatro_env.quatro.config import QuatroConfig


class Stage(BaseModel):
    """A curriculum stage, in force until ``until_agent_steps``: env overrides (e.g. shorter rounds)
    and/or another opponent mix (e.g. bot partners first, so that listening is learned early)."""

    # strict (decision 16): true is not 1.0, "16" and 8.0 are not ints; lists are read as tuples
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)
    until_agent_steps: PositiveInt
    env: dict[str, Any] = Field(default_factory=dict)
    pool_prob: float | None = Field(None, ge=0, le=1)
    bot_prob: float | None = Field(None, ge=0, le=1)
    partner_bot_prob: float | None = Field(None, ge=0, le=1)
    bot_opponents: tuple[str, ...] | None = Field(None, strict=False)
    bot_partners: tuple[str, ...] | None = Field(None, strict=False)

    @field_validator("bot_opponents")
    @classmethod
    def _known_opponents(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if names is None else _known_bots(names, "bot_opponents")

    @field_validator("bot_partners")
    @classmethod
    def _known_partners(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if names is None else _known_bots(names, "bot_partners")


def _known_bots(names: tuple[str, ...], field: str) -> tuple[str, ...]:
    """Training bots: the rows the trainer plays batched (quatro_env.bots.batched.KINDS), each given
    under its row's name however its options are spelled (``cover:split=True`` is the row
    ``cover:split=true``, ``cover:split=false`` is ``cover``), as every other bot line-up takes them."""
    from quatro_env.bots.batched import KINDS
    from quatro_env.quatro.bots import batched_kind

    if not names:
        raise ValueError(f"{field}: give at least one training bot; choose among {list(KINDS)}")
    unknown = [name for name in names if name.partition(":")[0] not in KINDS]
    if unknown:
        raise ValueError(f"{field}: unknown training bot(s) {unknown}; choose among {list(KINDS)}")
    rows = []
    for name in names:
        try:
            rows.append(batched_kind(name))
        except ValueError as exc:  # an option that is not the bot's, or has no compiled row
            raise ValueError(f"{field}: {one_line_error(exc)}") from None
    return tuple(rows)


def _known_policies(names: tuple[str, ...], field: str, num_players: int | None = None) -> tuple[str, ...]:
    """Evaluation opponents: anything the harness takes by name (a bot, ``counter:threshold=0.6``,
    a shipped checkpoint), checked now rather than at the first evaluation, hours in; with
    ``num_players``, each is also built for that table (a 6-player policy in a 4-player run)."""
    from quatro_env.eval.policies import as_policy

    if not names:
        raise ValueError(f"{field}: give at least one policy (e.g. [random, honest])")
    for name in names:
        try:
            spec = as_policy(name)
            if num_players is not None and spec.kind != "torchscript":  # a program is run only to play
                for member in (0, 1) if spec.kind == "team" else (0,):  # a team's two members differ
                    spec.build(num_players, 0, member)
        except ValueError as exc:
            raise ValueError(f"{field}: {exc}") from None
    return names


def run_folder_name(name: str, field: str) -> str:
    """A run's folder name: letters, digits, ``_``, ``.`` and ``-``, and not ``.`` or ``..`` (so that
    ``run_name=../../x`` cannot write outside ``out_dir``)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name in (".", ".."):
        raise ValueError(f"{field}: a folder name (letters, digits, _ . -), not a path, got {name!r}")
    return name


def _usable_device(device: str, field: str) -> str:
    """A torch device string this machine has (``cpu``, ``cuda``, ``cuda:1``, ``mps``)."""
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"{field}: {device!r} is not a torch device; use cpu, cuda or cuda:N") from None
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{field}: {device!r} but no CUDA GPU is available here; use cpu")
    if parsed.type == "cuda" and parsed.index is not None and parsed.index >= torch.cuda.device_count():
        raise ValueError(f"{field}: {device!r} but this machine has {torch.cuda.device_count()} GPU(s)")
    if parsed.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"{field}: {device!r}: training runs on cpu or cuda")
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"{field}: {device!r} but MPS is not available here; use cpu")
    return device


class TrainConfig(BaseModel):
    """PPO on the batched engine (see ``docs/ppo.md`` for the meaning of every field)."""

    # .inf/.nan refused; strict (decision 16): true is not 1.0, "16" and 8.0 are not ints, yes is not a
    # flag; a container field takes a list (YAML has no tuples) of strictly typed items
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)

    run_name: str = Field("ppo", description="the run's folder under out_dir: a name, not a path")
    out_dir: str = "runs"
    seed: int = Field(1, ge=0, lt=2**32, description="seeds torch, numpy and the tables")
    deterministic: bool = True
    device: str = "cpu"
    env_device: str | None = Field(
        None, description="where the tables run; default: device (cpu: numba kernel)"
    )
    # environment
    env: dict[str, Any] = Field(default_factory=dict, description="QuatroConfig fields")
    curriculum: tuple[Stage, ...] = Field((), strict=False)
    num_envs: PositiveInt = Field(128, le=MAX_ENVS)
    processes: PositiveInt = Field(
        1,
        description="trainer processes, one per CPU core, each with num_envs / processes tables and one "
        "summed gradient (baselines/replicas.py); quatro-train launches them",
    )
    num_steps: PositiveInt = Field(64, le=MAX_STEPS)
    total_agent_steps: PositiveInt = Field(1_000_000, le=MAX_COUNT)
    # optimisation
    learning_rate: PositiveFloat = 3e-4
    anneal_lr: bool = True
    gamma: float = Field(0.995, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    num_minibatches: PositiveInt = 4
    update_epochs: PositiveInt = 4
    clip_coef: PositiveFloat = 0.2
    clip_vloss: bool = True
    vf_coef: float = Field(0.5, ge=0)
    ent_coef_start: float = Field(0.02, ge=0)
    ent_coef_end: float = Field(0.002, ge=0)
    max_grad_norm: PositiveFloat = 0.5
    target_kl: PositiveFloat | None = None
    # network
    arch: Literal["flat", "structured", "ledger"] = Field(
        "structured",
        description="flat: MLP+GRU; structured: + pair-scored exchanges, sign pointer, skips; "
        "ledger: + public exchange and pulse counts per seat in memory (exchange_memory.py)",
    )
    hidden_size: PositiveInt = Field(256, le=MAX_WIDTH)
    rnn_size: PositiveInt = Field(128, le=MAX_WIDTH)
    central_critic: bool = False
    pack_learner_rows: bool = Field(
        True, description="the update trains on learner segments only, packed (baselines/packing.py)"
    )
    # self-play
    pool_size: int = Field(5, ge=0, le=MAX_POOL, description="past snapshots kept as opponents")
    snapshot_every: PositiveInt = 10
    pool_prob: float = Field(0.5, ge=0, le=1, description="share of tables whose opponents are a snapshot")
    bot_prob: float = Field(0.0, ge=0, le=1, description="share of tables whose opponents are scripted bots")
    bot_opponents: tuple[str, ...] = Field(
        ("honest", "decoy", "eavesdropper", "counter"),
        strict=False,
        description="bots drawn (uniformly) for bot tables",
    )
    partner_bot_prob: float = Field(
        0.0, ge=0, le=1, description="share of bot tables where the learner's partner is a bot too"
    )
    bot_partners: tuple[str, ...] | None = Field(
        None,
        strict=False,
        description="bots drawn (uniformly) to partner a learner; None: the opponents' kind",
    )
    # shaping (off in evaluation)
    quartet_bonus: float = Field(0.0, ge=0, description="reward per tick while the seat holds a quartet")
    collect_shaping: float = Field(0.0, ge=0, description="potential-based reward for collecting one value")
    shaping_at_round_end: Literal["zero", "keep"] = Field(
        "zero",
        description="zero: Φ = 0 once the round ends (potential-based); keep: the end of a round takes "
        "no shaping back, so a call's point is not cancelled by the holder's loss of Φ",
    )
    # secrecy (training only): a learned eavesdropper's gain over the clock is a cost (eavesdropper.py)
    secrecy_coef: float = Field(
        0.0, ge=0, description="reward per nat the learned eavesdropper reads from a team's channel; 0 = off"
    )
    eavesdropper_reads: Literal["channel", "public"] = Field(
        "channel",
        description="channel: floors and pulses; public: also every exchange and the per-seat counts "
        "(what the evaluation's Eve reads: docs/evaluation.md)",
    )
    secrecy_partner_coef: float = Field(
        0.0,
        ge=0,
        description="reward per nat the team's partner reader (the eavesdropper's inputs plus the team's "
        "sign) gains over the clock; equal to secrecy_coef, the reward is the gap partner − eavesdropper",
    )
    secrecy_partner_pay: Literal["tick", "call"] = Field(
        "tick",
        description="tick: the partner reader's nats are paid every tick (farmed in the nineteenth "
        "session: hold, show the sign, never call); call: paid once, at the team's correct «Quatro», as "
        "the partner reader's edge over the eavesdropper on the tick before it",
    )
    eavesdropper_hidden: PositiveInt = Field(64, le=MAX_WIDTH)
    eavesdropper_lr: float = Field(1e-3, gt=0)
    eavesdropper_epochs: PositiveInt = 8
    secrecy_warmup_updates: int = Field(
        20, ge=0, description="updates the eavesdropper is only fitted, before its reading costs anything"
    )
    # logging, evaluation and checkpoints
    log_every: PositiveInt = 1
    tensorboard: bool = True
    progress_bar: bool = True
    checkpoint_every: PositiveInt = 20
    eval_every: int = Field(0, ge=0, description="updates between harness evaluations; 0 = never")
    eval_matches: PositiveInt = Field(20, le=MAX_ENVS)
    eval_bots: tuple[str, ...] = Field(("random", "honest"), strict=False)
    eval_batched: bool = Field(
        False,
        description="play the evaluations' matches all at once on the batched engine (batched bots and "
        "PPO checkpoints only) instead of the harness: the same win rates and points per round, in a "
        "fraction of the time (off by default, so a recorded eval.csv replays on the harness's stream)",
    )

    @field_validator("run_name")
    @classmethod
    def _a_name(cls, name: str) -> str:
        return run_folder_name(name, "run_name")

    @field_validator("env")
    @classmethod
    def _valid_env(cls, env: dict[str, Any]) -> dict[str, Any]:
        try:
            QuatroConfig(**env)
        except ValueError as exc:
            raise ValueError(f"env: {one_line_error(exc)}") from None
        return env

    @field_validator("bot_opponents")
    @classmethod
    def _known_opponents(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        return _known_bots(names, "bot_opponents")

    @field_validator("eval_bots")
    @classmethod
    def _known_eval_policies(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        env = info.data.get("env")  # validated before (declared first); absent if it was refused
        players = QuatroConfig(**env).num_players if env is not None else None
        return _known_policies(names, "eval_bots", players)

    @field_validator("device", "env_device")
    @classmethod
    def _known_device(cls, device: str | None, info: ValidationInfo) -> str | None:
        return None if device is None else _usable_device(device, info.field_name)

    @field_validator("bot_partners")
    @classmethod
    def _known_partners(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if names is None else _known_bots(names, "bot_partners")

    @model_validator(mode="after")
    def _check(self) -> TrainConfig:
        if self.pool_prob + self.bot_prob > 1:
            raise ValueError(
                f"pool_prob + bot_prob: {self.pool_prob} + {self.bot_prob} > 1 (shares of the tables)"
            )
        if self.num_envs % self.num_minibatches:
            raise ValueError(
                f"num_minibatches: {self.num_minibatches} must divide num_envs={self.num_envs} "
                f"(a minibatch holds whole tables, for the recurrent unroll and the critic)"
            )
        if self.num_envs % (self.processes * self.num_minibatches):
            raise ValueError(
                f"processes: {self.processes} processes x {self.num_minibatches} minibatches must divide "
                f"num_envs={self.num_envs} (each process holds whole tables of every minibatch)"
            )
        if self.processes > 1 and self.secrecy_coef:
            raise ValueError("processes: secrecy_coef > 0 trains in one process (its readers are not split)")
        if self.processes > 1 and (self.device != "cpu" or (self.env_device or "cpu") != "cpu"):
            raise ValueError("processes: several processes split the CPU's cores; on a GPU use processes=1")
        if self.secrecy_partner_coef and not self.secrecy_coef:
            raise ValueError("secrecy_partner_coef: needs secrecy_coef > 0 (the gap has two readers)")
        if self.secrecy_partner_pay != "tick" and not self.secrecy_partner_coef:
            raise ValueError("secrecy_partner_pay: 'call' needs secrecy_partner_coef > 0 (nothing to pay)")
        if self.eval_batched:
            from quatro_env.eval.batch_play import checkpoint_paths

            try:
                checkpoint_paths(self.eval_bots)
            except ValueError as exc:
                raise ValueError(f"eval_bots: with eval_batched, {exc}") from None
        steps = [s.until_agent_steps for s in self.curriculum]
        if steps != sorted(steps):
            raise ValueError("curriculum: stages must be sorted by until_agent_steps")
        for stage in self.curriculum:
            try:
                QuatroConfig(**{**self.env, **stage.env})
            except ValueError as exc:
                raise ValueError(f"curriculum: {one_line_error(exc)}") from None
            if "num_players" in stage.env:
                raise ValueError("curriculum: a stage cannot change num_players")
            pool, bots, _ = self.opponent_mix(stage.until_agent_steps - 1)
            if pool + bots > 1:
                raise ValueError(f"curriculum: pool_prob + bot_prob = {pool} + {bots} > 1 in a stage")
        return self

    def _stage(self, agent_steps: int) -> Stage | None:
        return next((s for s in self.curriculum if agent_steps < s.until_agent_steps), None)

    def opponent_mix(self, agent_steps: int = 0) -> tuple[float, float, float]:
        """(pool_prob, bot_prob, partner_bot_prob) at this point of training (curriculum stages apply)."""
        stage = self._stage(agent_steps)
        mix = [self.pool_prob, self.bot_prob, self.partner_bot_prob]
        if stage is not None:
            for i, name in enumerate(("pool_prob", "bot_prob", "partner_bot_prob")):
                if getattr(stage, name) is not None:
                    mix[i] = getattr(stage, name)
        return mix[0], mix[1], mix[2]

    def bots(self, agent_steps: int = 0) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
        """(opponent bots, partner bots or None = the opponents' kind) at this point of training."""
        stage = self._stage(agent_steps)
        opponents, partners = self.bot_opponents, self.bot_partners
        if stage is not None:
            opponents = stage.bot_opponents or opponents
            partners = stage.bot_partners or partners
        return opponents, partners

    def env_config(self, agent_steps: int = 0, evaluation: bool = False) -> QuatroConfig:
        """The table's rules at this point of training (curriculum stages apply; never in evaluation)."""
        stage = None if evaluation else self._stage(agent_steps)
        return QuatroConfig(**{**self.env, **(stage.env if stage else {})})


def override_config(cfg: TrainConfig, overrides: Sequence[str]) -> TrainConfig:
    """``cfg`` with ``key=value`` overrides applied (validated like a fresh config)."""
    return TrainConfig(**merge(cfg.model_dump(mode="json"), parse_overrides(overrides)))


def load_config(path: str | Path | None, overrides: Sequence[str] = ()) -> TrainConfig:
    """Read a YAML config (a path or a shipped config's name such as ``ppo_4p``; the defaults when
    ``path`` is None) and apply ``key=value`` overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        data = read_yaml_mapping(path)
    return TrainConfig(**merge(data, parse_overrides(overrides)))
