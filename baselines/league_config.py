"""League configuration (``quatro-league``): one validated object, loaded from YAML with overrides.

A league is a list of agents, each a :class:`~baselines.config.TrainConfig` built from the shared
``trainer`` section, its role's fixed opponent mix and its own ``overrides``. Every agent's config
is validated at start-up (with the agent's name in the error), so a typo in the fifth agent fails
now, not after four hours of the first four.

The league owns the opponents: it chooses one per block (``updates_per_block`` PPO updates) and puts
it in the trainer's pool as its only snapshot, so ``pool_size`` (the trainer's own snapshots),
``out_dir``, ``run_name`` and ``seed`` are the league's to set and are refused in an agent's config.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from baselines.config import TrainConfig, run_folder_name
from quatro_env.common.cli import one_line_error
from quatro_env.common.configs import read_yaml_mapping
from quatro_env.common.overrides import merge, parse_overrides

Role = Literal["main", "main_exploiter", "league_exploiter"]
Weighting = Literal["hard", "variance", "linear", "uniform"]

#: the trainer fields the league sets for every agent (an agent's config may not set them)
LEAGUE_OWNED = ("pool_size", "out_dir", "run_name", "seed")
#: the fields every agent shares: a snapshot of any agent plays in any other agent's network slot
SHARED_SHAPE = ("arch", "hidden_size", "rnn_size", "central_critic")
#: exploiters play only league opponents (their target, or the league): every table, no bots
EXPLOITER_MIX = {"pool_prob": 1.0, "bot_prob": 0.0, "partner_bot_prob": 0.0}


class AgentSpec(BaseModel):
    """One learning agent of the league (``docs/league.md``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    name: str = Field(
        strict=True, pattern=r"^[a-z][a-z0-9_]{0,31}$", description="a short identifier: main0, mexp0"
    )
    role: Role
    init: str = Field(
        "scratch",
        strict=True,
        description="scratch, or a policy to start from (a shipped name such as ppo_4p, a policy.pt)",
    )
    target: str | None = Field(
        None, strict=True, description="main_exploiter: the main it exploits (default: the first)"
    )
    weighting: Weighting = Field("hard", description="PFSP weighting of opponents by win rate")
    overrides: dict[str, Any] = Field(default_factory=dict, description="TrainConfig fields of this agent")


class LeagueConfig(BaseModel):
    """An AlphaStar-style league on the PPO trainer (see ``docs/league.md`` for every field)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    run_name: str = Field("league", strict=True)
    out_dir: str = Field("runs", strict=True)
    seed: int = Field(1, strict=True, ge=0)
    trainer: dict[str, Any] = Field(default_factory=dict, description="TrainConfig fields of every agent")
    agents: tuple[AgentSpec, ...] = Field(min_length=1)
    updates_per_block: int = Field(
        5, strict=True, gt=0, description="PPO updates an agent plays one opponent for"
    )
    blocks_per_leg: int = Field(
        10, strict=True, gt=0, description="rounds of blocks (every agent one) per leg"
    )
    snapshot_every_steps: int = Field(
        2_000_000,
        strict=True,
        gt=0,
        description="an agent's agent-steps between frozen snapshots added to the league",
    )
    exploiter_beat_rate: float = Field(
        0.7,
        strict=True,
        gt=0.5,
        le=1,
        description="an exploiter that wins this often is snapshotted (and reset)",
    )
    exploiter_min_games: int = Field(
        200,
        strict=True,
        gt=0,
        description="seat-episodes since its last reset before an exploiter can be judged",
    )
    league_exploiter_reset_prob: float = Field(0.25, strict=True, ge=0, le=1)
    win_rate_prior: float = Field(
        1.0,
        strict=True,
        gt=0,
        description="pseudo-games at 0.5 in every win rate (an unplayed opponent: 0.5)",
    )

    @field_validator("run_name")
    @classmethod
    def _a_name(cls, name: str) -> str:
        return run_folder_name(name, "run_name")  # ".." matched the old pattern

    @model_validator(mode="after")
    def _check(self) -> LeagueConfig:
        names = [a.name for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError(f"agents: names must be unique, got {names}")
        mains = [a.name for a in self.agents if a.role == "main"]
        if not mains:
            raise ValueError("agents: a league needs at least one agent with role main")
        for i, agent in enumerate(self.agents):
            where = f"agents[{i}] ({agent.name})"
            if agent.target is not None and agent.role != "main_exploiter":
                raise ValueError(f"{where}.target: only a main_exploiter has a target")
            if agent.role == "main_exploiter" and (agent.target or mains[0]) not in mains:
                raise ValueError(f"{where}.target: {agent.target!r} is not a main; choose among {mains}")
            for key in EXPLOITER_MIX:
                if agent.role != "main" and key in agent.overrides:
                    raise ValueError(
                        f"{where}.overrides.{key}: an exploiter plays league opponents at every table "
                        f"(its mix is fixed: {EXPLOITER_MIX})"
                    )
            for key in LEAGUE_OWNED:
                if key in agent.overrides:
                    raise ValueError(f"{where}.overrides.{key}: set by the league, not per agent")
            if agent.init != "scratch":
                _check_init(agent.init, f"{where}.init")
        for key in LEAGUE_OWNED:
            if key in self.trainer:
                raise ValueError(f"trainer.{key}: set by the league (its {_OWNER[key]})")
        configs = [self.agent_config(i) for i in range(len(self.agents))]  # each validated
        first = configs[0]
        for i, cfg in enumerate(configs):
            where = f"agents[{i}] ({self.agents[i].name})"
            for key in SHARED_SHAPE:
                if getattr(cfg, key) != getattr(first, key):
                    raise ValueError(
                        f"{where}.overrides.{key}: every agent shares one network shape (a snapshot plays "
                        f"in any agent's opponent seats): {getattr(cfg, key)!r} != {getattr(first, key)!r}"
                    )
            if cfg.env_config().num_players != first.env_config().num_players:
                raise ValueError(f"{where}: every agent plays the same num_players")
            if self.agents[i].role != "main":
                _check_exploiter_mix(cfg, where)
        return self

    def target_of(self, agent: AgentSpec) -> str:
        """The main a main exploiter plays (its ``target``, else the league's first main)."""
        return agent.target or next(a.name for a in self.agents if a.role == "main")

    def agent_config(self, index: int) -> TrainConfig:
        """Agent ``index``'s trainer config: ``trainer`` < role mix < ``overrides`` < the league's fields."""
        agent = self.agents[index]
        role_mix = EXPLOITER_MIX if agent.role != "main" else {}
        owned = {
            "pool_size": 0,
            "out_dir": str(Path(self.out_dir) / self.run_name / "agents"),
            "run_name": agent.name,
            "seed": self.seed + 1000 * (index + 1),
        }
        data = merge(merge(merge(self.trainer, role_mix), agent.overrides), owned)
        try:
            return TrainConfig(**data)
        except ValueError as exc:
            raise ValueError(f"agents[{index}] ({agent.name}): {one_line_error(exc)}") from None


_OWNER = {
    "pool_size": "snapshots",
    "out_dir": "out_dir",
    "run_name": "run_name/agents/<name>",
    "seed": "seed + 1000 x (index + 1)",
}


def _check_init(init: str, field: str) -> None:
    from baselines.policy import resolve_checkpoint

    try:
        resolve_checkpoint(init)
    except ValueError as exc:
        raise ValueError(f"{field}: {exc}; or scratch") from None


def _check_exploiter_mix(cfg: TrainConfig, where: str) -> None:
    """Exploiters play only what the league gives them: every table, at every curriculum stage."""
    checkpoints = [0] + [stage.until_agent_steps - 1 for stage in cfg.curriculum]
    for steps in checkpoints:
        pool, bots, partner = cfg.opponent_mix(steps)
        if (pool, bots, partner) != (1.0, 0.0, 0.0):
            raise ValueError(
                f"{where}: an exploiter plays league opponents at every table (pool_prob=1, bot_prob=0, "
                f"partner_bot_prob=0), got {pool}, {bots}, {partner} at agent-step {steps}"
            )


def load_league_config(path: str | Path, overrides: Sequence[str] = ()) -> LeagueConfig:
    """A league YAML (a path or a shipped name such as ``league_4p``) with ``key=value`` overrides
    (``trainer.num_envs=16``, ``blocks_per_leg=2``)."""
    data = read_yaml_mapping(path)
    return LeagueConfig(**merge(data, parse_overrides(overrides)))
