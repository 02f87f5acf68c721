"""League training for Quatro (AlphaStar-style, Vinyals et al. 2019) on the PPO trainer, unchanged.

Why: a code that signals well is not a code that stays secret. Nothing at a self-play table punishes a
readable code except the one scripted ``counter`` bot; an opponent that *learns* to read the channel
and the exchanges and to call «Contra» on what it reads does (issue 19). The league grows such readers
and keeps them at the table:

* **main** agents, the policies we ship: they play prioritised opponents from the whole league (the
  share ``pool_prob`` of their tables), the bot ladder (``bot_prob``) and themselves (the rest);
* **main exploiters**: every table against the *current* main they target, nothing else — a learned
  counter-decoder of today's code; when one wins often enough it is frozen into the league (so the
  main must keep beating it) and starts again from its initial weights;
* **league exploiters**: every table against an opponent drawn from the whole league's frozen
  snapshots: they find what no snapshot defends against; frozen (and reset, sometimes) likewise.

Each agent is a :class:`~baselines.ppo.PPOTrainer`. The league trains them in turn, one *block* each
(``updates_per_block`` PPO updates against one opponent, which sits in the trainer's pool as its only
snapshot) and reads the block's results back from the trainer (every return its ``pool_returns``
received: the learner seats' returns at the tables against the pool) into a **win-rate table**.
Opponents are drawn by **prioritised fictitious self-play** (PFSP): an opponent beaten with win rate
``p`` is drawn with weight ``f(p)``; ``hard``: ``f(p) = (1 - p)^2`` (the default: play what beats
you), ``variance``: ``p (1 - p)`` (opponents of one's own level), ``linear``: ``1 - p``, ``uniform``: 1.
Win rates are smoothed, ``p = (wins + draws / 2 + prior / 2) / (games + prior)``, so an unplayed
opponent counts 0.5.
Every agent adds a frozen **snapshot** of itself every ``snapshot_every_steps`` of its agent-steps.

Resume is exact: the league file (``league.pt``, format ``quatro-league/1``, read with
``weights_only=True``, written atomically) holds every trainer's ``state_dict``, the snapshots, the
win-rate table and the league's RNG, as of the last completed block; each block starts from its
agent's own torch/numpy RNG stream (saved in its trainer state), so neither the order of agents nor
a stop between blocks changes a number. Ctrl-C drops the block in progress and writes that state.

    quatro-league --config league_smoke                     # seconds
    quatro-league --config league_4p --legs 1               # one leg, then league.pt
    quatro-league --resume runs/league_4p/league.pt --legs 1
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

import torch

from baselines.checkpoint_io import check_payload, first_line, load_checkpoint, save_checkpoint
from baselines.interrupts import hold_sigint, ignore_sigint, release_sigint, restore_sigint
from baselines.league_config import AgentSpec, LeagueConfig, load_league_config
from baselines.limits import MAX_COUNT
from baselines.payload_checks import (
    check_config_fields,
    check_tensor,
    check_tensors_in,
    check_weights,
)
from baselines.ppo import PPOTrainer
from baselines.trainer_state import cloned, set_numpy_rng_state
from quatro_env.common.cli import OneLineParser, int_in, one_line_error
from quatro_env.common.strict import as_int, as_list, as_real

LEAGUE_FORMAT = "quatro-league/1"
LEAGUE_FILE = "league.pt"
REQUIRED_KEYS = ("config", "agents", "init_params", "players", "wins", "since_reset", "next_snapshot")
REQUIRED_KEYS += ("turn", "legs", "rng")
PLAYER_KEYS = ("id", "agent", "role", "agent_steps", "params")  # a frozen snapshot (League._add_player)
RNG_SHAPE = torch.Generator().get_state().shape  # the league's CPU generator's state: uint8[5056]


# ---------------------------------------------------------------------- PFSP and the win-rate table
def pfsp_weights(win_rates: torch.Tensor, weighting: str) -> torch.Tensor:
    """PFSP's ``f(p)`` for the learner's win rate ``p`` against each candidate opponent."""
    p = win_rates.double()
    if weighting == "hard":
        return (1 - p) ** 2
    if weighting == "variance":
        return p * (1 - p)
    if weighting == "linear":
        return 1 - p
    if weighting == "uniform":
        return torch.ones_like(p)
    raise ValueError(f"weighting: hard, variance, linear or uniform, got {weighting!r}")


def pfsp_probabilities(win_rates: torch.Tensor, weighting: str) -> torch.Tensor:
    """``f(p) / sum f(p)``; uniform when every weight is 0 (say, every opponent always beaten)."""
    weights = pfsp_weights(win_rates, weighting)
    total = weights.sum()
    return weights / total if float(total) > 0 else torch.full_like(weights, 1 / len(weights))


def smoothed_win_rate(record: list[float] | None, prior: float) -> float:
    """``(wins + draws / 2 + prior / 2) / (games + prior)`` of a ``[wins, draws, losses]`` record."""
    wins, draws, losses = record or (0.0, 0.0, 0.0)
    return (wins + draws / 2 + prior / 2) / (wins + draws + losses + prior)


def outcomes(returns: list[float]) -> list[float]:
    """``[wins, draws, losses]`` of learner seat-episodes from their returns (the sign of the return)."""
    return [
        float(sum(r > 0 for r in returns)),
        float(sum(r == 0 for r in returns)),
        float(sum(r < 0 for r in returns)),
    ]


class Interrupted(Exception):
    """The trainer caught a Ctrl-C inside its block (it returns early instead of raising)."""


# ---------------------------------------------------------------------- the league
class League:
    """The agents (trainers), the frozen players, the win-rate table, and the schedule."""

    def __init__(self, cfg: LeagueConfig, state: dict[str, Any] | None = None) -> None:
        self.cfg = cfg
        self.dir = Path(cfg.out_dir) / cfg.run_name
        self.specs: dict[str, AgentSpec] = {a.name: a for a in cfg.agents}
        self.trainers: dict[str, PPOTrainer] = {}
        self.init_params: dict[str, dict[str, torch.Tensor]] = {}
        self.agent_states: dict[str, dict[str, Any]] = {}
        for index, spec in enumerate(cfg.agents):
            self.trainers[spec.name] = PPOTrainer(cfg.agent_config(index))  # seeds torch and numpy
            self.trainers[spec.name].hold_sigint_while_saving = True  # a Ctrl-C in its saves stops the league
            if state is None:  # right away: each agent's RNG stream starts from its own seed
                self._start_agent(spec.name)
        if state is None:
            self._fresh()
        else:
            self._restore(state)
        self.committed = self._snapshot_state()

    # ------------------------------------------------------------------ building
    def _start_agent(self, name: str) -> None:
        """A new agent: its initial weights, and every table seated against a snapshot."""
        trainer = self.trainers[name]
        if self.specs[name].init != "scratch":
            load_initial_weights(trainer.model, self.specs[name].init)
        self.init_params[name] = cloned(trainer.model.state_dict())
        # placeholder opponent (itself; each block replaces it), as quatro-exploit does: the trainer
        # seats tables against the pool only when it has one
        trainer.pool.replace([self.init_params[name]])
        trainer.reseat_opponents()
        self.agent_states[name] = trainer.state_dict()

    def _fresh(self) -> None:
        cfg = self.cfg
        self.rng = torch.Generator().manual_seed(cfg.seed)
        self.players: list[dict[str, Any]] = []  # frozen snapshots: id, agent, role, agent_steps, params
        for spec in cfg.agents:
            if spec.role == "main":  # the league starts with the mains' initial weights
                self._add_player(spec.name, self.init_params[spec.name], agent_steps=0)
        self.wins: dict[str, dict[str, list[float]]] = {name: {} for name in self.trainers}
        self.since_reset = {name: [0.0, 0.0, 0.0] for name in self.trainers}
        self.next_snapshot = {name: cfg.snapshot_every_steps for name in self.trainers}
        self.turn, self.legs = 0, 0

    def _restore(self, state: dict[str, Any]) -> None:
        check_league_state(state)
        if set(state["agents"]) != set(self.trainers):
            raise ValueError(
                f"league file: agents {sorted(state['agents'])} != config {sorted(self.trainers)}"
            )
        per_leg = self.cfg.blocks_per_leg * len(self.trainers)
        if state["legs"] != state["turn"] // per_leg:
            raise ValueError(
                f"league file: legs {state['legs']} after turn {state['turn']}: a leg is {per_leg} turns"
            )
        like = next(iter(self.trainers.values())).model.state_dict()  # every agent has one network shape
        for name in self.trainers:
            check_weights(state["init_params"][name], f"league file: init_params[{name!r}]", like)
        for index, player in enumerate(state["players"]):
            check_weights(player["params"], f"league file: players[{index}].params", like)
            if player["role"] != self.specs[player["agent"]].role:
                raise ValueError(
                    f"league file: players[{index}].role {player['role']!r:.40} is not its agent's"
                )
        for name, trainer in self.trainers.items():
            try:
                trainer.load_state_dict(state["agents"][name])
            except ValueError as exc:
                raise ValueError(f"league file: agents[{name!r}]: {exc}") from None
        self.agent_states = {name: state["agents"][name] for name in self.trainers}
        self.init_params = state["init_params"]
        self.players = list(state["players"])
        self.wins = {a: {p: list(r) for p, r in row.items()} for a, row in state["wins"].items()}
        self.since_reset = {a: list(r) for a, r in state["since_reset"].items()}
        self.next_snapshot = dict(state["next_snapshot"])
        self.turn, self.legs = state["turn"], state["legs"]
        self.rng = torch.Generator()
        self.rng.set_state(state["rng"])

    # ------------------------------------------------------------------ state
    def _snapshot_state(self) -> dict[str, Any]:
        """The league as plain data, as of now (a block boundary): what ``league.pt`` holds."""
        return {
            "format": LEAGUE_FORMAT,
            "config": self.cfg.model_dump(mode="json"),
            "agents": dict(self.agent_states),  # trainer state_dicts (copies taken at block ends)
            "init_params": self.init_params,
            "players": list(self.players),  # snapshots are never changed once taken
            "wins": {a: {p: list(r) for p, r in row.items()} for a, row in self.wins.items()},
            "since_reset": {a: list(r) for a, r in self.since_reset.items()},
            "next_snapshot": dict(self.next_snapshot),
            "turn": self.turn,
            "legs": self.legs,
            "rng": self.rng.get_state(),
        }

    def state_dict(self) -> dict[str, Any]:
        """The state at the last completed block (a block in progress is not part of it)."""
        return self.committed

    def save(self, path: Path | None = None) -> Path:
        path = self.dir / LEAGUE_FILE if path is None else Path(path)
        save_checkpoint(self.committed, path)
        (self.dir / "win_rates.json").write_text(json.dumps(self.win_rate_table(), indent=1) + "\n")
        return path

    # ------------------------------------------------------------------ players and opponents
    def _add_player(self, agent: str, params: dict[str, torch.Tensor], agent_steps: int) -> str:
        player_id = f"{agent}@{agent_steps}"
        self.players.append(
            {
                "id": player_id,
                "agent": agent,
                "role": self.specs[agent].role,
                "agent_steps": agent_steps,
                "params": cloned(params),
            }
        )
        return player_id

    def win_rate(self, agent: str, opponent: str) -> float:
        return smoothed_win_rate(self.wins[agent].get(opponent), self.cfg.win_rate_prior)

    def candidates(self, agent: str) -> list[tuple[str, dict[str, torch.Tensor]]]:
        """Who ``agent`` may play in a block: (player id, parameters)."""
        spec = self.specs[agent]
        if spec.role == "main_exploiter":  # the current main, nobody else
            target = self.cfg.target_of(spec)
            return [(target, self.trainers[target].model.state_dict())]
        frozen = [(p["id"], p["params"]) for p in self.players]
        if spec.role == "league_exploiter":
            return frozen
        live = [  # a main also plays the exploiters as they are now
            (name, self.trainers[name].model.state_dict())
            for name, other in self.specs.items()
            if other.role != "main"
        ]
        return frozen + live

    def choose_opponent(self, agent: str) -> tuple[str, dict[str, torch.Tensor]]:
        """A PFSP draw (the league's RNG) among ``agent``'s candidates."""
        options = self.candidates(agent)
        rates = torch.tensor([self.win_rate(agent, pid) for pid, _ in options])
        probs = pfsp_probabilities(rates, self.specs[agent].weighting)
        pick = int(torch.multinomial(probs.float(), 1, generator=self.rng))
        player_id, params = options[pick]
        return player_id, cloned(params)

    def win_rate_table(self) -> dict[str, dict[str, Any]]:
        """For people: each agent's smoothed win rate and seat-episodes against each opponent played."""
        return {
            agent: {
                pid: {"win_rate": round(self.win_rate(agent, pid), 4), "seat_episodes": int(sum(r))}
                for pid, r in row.items()
            }
            for agent, row in self.wins.items()
        }

    # ------------------------------------------------------------------ one block
    def finished(self) -> bool:
        return all(t.update >= t.num_updates for t in self.trainers.values())

    def play_block(self, agent: str, command: str = "") -> dict[str, Any] | None:
        """``agent`` trains ``updates_per_block`` updates against one PFSP-chosen opponent; the results
        go into the win-rate table; snapshots and resets follow. None when the agent has finished."""
        trainer, cfg = self.trainers[agent], self.cfg
        if trainer.update >= trainer.num_updates:
            return None
        own = self.agent_states[agent]
        torch.set_rng_state(own["torch_rng"])  # the agent's own stream, whatever ran before
        set_numpy_rng_state(own["numpy_rng"])
        if own.get("cuda_rng") and trainer.device.type == "cuda":  # sampling on the GPU draws from it
            torch.cuda.set_rng_state_all(own["cuda_rng"])
        opponent, params = self.choose_opponent(agent)
        trainer.pool.replace([params])  # the tables playing the last block's opponent finish with it
        returns: list[float] = []  # from here: every return at the tables against ``opponent``
        trainer.pool_record = returns
        target = min(trainer.num_updates, trainer.update + cfg.updates_per_block)
        try:
            trainer.train(updates=cfg.updates_per_block, command=command)
        finally:
            trainer.pool_record = None
            release_sigint()  # a Ctrl-C held by the trainer's save is raised here
        if trainer.update < target:  # the trainer caught a Ctrl-C and went back to its last update
            raise Interrupted
        record = outcomes(returns)
        row = self.wins[agent].setdefault(opponent, [0.0, 0.0, 0.0])
        for k in range(3):
            row[k] += record[k]
            self.since_reset[agent][k] += record[k]
        events = self._schedule(agent)
        self.agent_states[agent] = trainer.state_dict()
        return {
            "turn": self.turn,
            "agent": agent,
            "role": self.specs[agent].role,
            "opponent": opponent,
            "agent_steps": trainer.agent_steps,
            "seat_episodes": int(sum(record)),
            "block_win_rate": round((record[0] + record[1] / 2) / sum(record), 4) if sum(record) else None,
            "win_rate": round(self.win_rate(agent, opponent), 4),
            "players": len(self.players),
            "events": " ".join(events),
        }

    def _schedule(self, agent: str) -> list[str]:
        """Snapshots on the clock; an exploiter that wins often enough is frozen and (maybe) reset."""
        trainer, cfg, spec = self.trainers[agent], self.cfg, self.specs[agent]
        events = []
        if trainer.agent_steps >= self.next_snapshot[agent]:
            events.append(self._add_player(agent, trainer.model.state_dict(), trainer.agent_steps))
            while self.next_snapshot[agent] <= trainer.agent_steps:
                self.next_snapshot[agent] += cfg.snapshot_every_steps
        if spec.role == "main":
            return events
        record = self.since_reset[agent]
        games = sum(record)
        if (
            games >= cfg.exploiter_min_games
            and (record[0] + record[1] / 2) / games >= cfg.exploiter_beat_rate
        ):
            if not events:
                events.append(self._add_player(agent, trainer.model.state_dict(), trainer.agent_steps))
            reset = spec.role == "main_exploiter" or float(torch.rand((), generator=self.rng)) < (
                cfg.league_exploiter_reset_prob
            )
            self.since_reset[agent] = [0.0, 0.0, 0.0]
            if reset:
                self.reset_agent(agent)
                events.append("reset")
        return events

    def reset_agent(self, agent: str) -> None:
        """Back to the initial weights with a fresh optimiser (AlphaStar's exploiter reset); its
        win-rate row starts again, and so does every other agent's record against it: they were
        another policy's results (kept, a main's PFSP went on weighting the restarted, weak
        exploiter by the losses the frozen one had dealt it)."""
        trainer = self.trainers[agent]
        trainer.model.load_state_dict(self.init_params[agent])
        trainer.optimizer.state.clear()
        self.wins[agent] = {}
        for row in self.wins.values():
            row.pop(agent, None)

    # ------------------------------------------------------------------ the loop
    def run(self, legs: int | None = None, command: str = "") -> bool:
        """Play legs (``blocks_per_leg`` rounds of one block per agent), saving ``league.pt`` after
        each; Ctrl-C saves the last completed block and stops. True when the league is finished."""
        names = list(self.trainers)
        per_leg = self.cfg.blocks_per_leg * len(names)
        self.dir.mkdir(parents=True, exist_ok=True)
        try:
            self._run_legs(legs, per_leg, names, command)
        except (KeyboardInterrupt, Interrupted):
            previous = ignore_sigint()
            release_sigint()  # a Ctrl-C held until now is dropped (it asked for this stop)
            try:
                print(
                    f"\ninterrupted: back to the last completed block (turn {self.committed['turn']}), "
                    f"writing {self.dir / LEAGUE_FILE}",
                    file=sys.stderr,
                )
                self.save()
            finally:
                restore_sigint(previous)
            return False
        return self.finished()

    def _run_legs(self, legs: int | None, per_leg: int, names: list[str], command: str) -> None:
        played = 0
        while not self.finished() and (legs is None or played < legs):
            while True:
                row = self.play_block(names[self.turn % len(names)], command)
                self.turn += 1
                if self.turn % per_leg == 0:
                    self.legs += 1
                self.committed = self._snapshot_state()
                if row is not None:
                    self._log(row)
                if self.turn % per_leg == 0 or self.finished():
                    break
            played += 1
            self._save_whole()

    def _save_whole(self) -> None:
        """A leg's save is not cut short by a Ctrl-C: it is held, and stops the run right after."""
        hold_sigint()
        try:
            self.save()
        finally:
            release_sigint()

    def _log(self, row: dict[str, Any]) -> None:
        path = self.dir / "league.csv"
        new = not path.exists() or row["turn"] == 0
        with path.open("w" if new else "a", newline="") as f:
            out = csv.DictWriter(f, fieldnames=list(row))
            if new:
                out.writeheader()
            out.writerow(row)


# ---------------------------------------------------------------------- files and initial weights
def load_initial_weights(model: torch.nn.Module, init: str) -> None:
    """An agent's start from a policy file (shipped name or path): its weights where the shapes agree.

    A policy of the same architecture loads whole. A wider network (``arch: ledger``, the structured
    network plus public-exchange memory) starts *as* the structured policy: its extra layers are
    zero-initialised and the policy file fills every other parameter, so it plays identically at
    first and learns to use the new inputs from there."""
    from baselines.policy import load_policy_file

    payload = load_policy_file(init)
    state = {k: v for k, v in payload["model"].items() if not k.startswith("state_encoder")}
    own = model.state_dict()
    extra = sorted(set(state) - set(own))
    missing = sorted(k for k in set(own) - set(state) if not k.startswith(("state_encoder", "ledger_")))
    wrong = sorted(k for k in set(state) & set(own) if state[k].shape != own[k].shape)
    if extra or missing or wrong:
        raise ValueError(
            f"init {init!r}: its network does not fit this agent's (arch {payload.get('arch')!r}, hidden "
            f"{payload.get('hidden_size')}, rnn {payload.get('rnn_size')}); unexpected {extra[:3]}, missing "
            f"{missing[:3]}, other shapes {wrong[:3]}: set trainer.arch/hidden_size/rnn_size to match"
        )
    model.load_state_dict(state, strict=False)


def check_league_state(state: Any) -> None:
    """A league file's fields, each of its kind, shape and range (one-line ValueErrors), before anything
    is built from it; the weights' names and shapes, and each agent's trainer state, are checked when
    the league loads them (:meth:`League._restore`)."""
    what = "league file"
    check_payload(state, LEAGUE_FORMAT, REQUIRED_KEYS, what)
    check_config_fields(state["config"], f"{what}: config")  # read as LeagueConfig(**config)
    for key in ("agents", "init_params", "wins", "since_reset", "next_snapshot"):
        if not (isinstance(state[key], dict) and all(isinstance(k, str) for k in state[key])):
            raise ValueError(
                f"{what}: {key} must map agent names to their values, got {type(state[key]).__name__}"
            )
    agents = sorted(state["agents"])
    for key in ("init_params", "wins", "since_reset", "next_snapshot"):
        if sorted(state[key]) != agents:
            raise ValueError(f"{what}: {key} is for agents {sorted(state[key])}, the file's are {agents}")
    for name in agents:
        _record(state["since_reset"][name], f"{what}: since_reset[{name!r}]")
        as_int(state["next_snapshot"][name], f"{what}: next_snapshot[{name!r}]", low=1, high=MAX_COUNT)
        row = state["wins"][name]
        if not (isinstance(row, dict) and all(isinstance(k, str) for k in row)):
            raise ValueError(
                f"{what}: wins[{name!r}] must map opponent ids to records, got {type(row).__name__}"
            )
        for opponent, record in row.items():
            _record(record, f"{what}: wins[{name!r}][{opponent!r}]")
    turn = as_int(state["turn"], f"{what}: turn", low=0, high=MAX_COUNT)
    as_int(state["legs"], f"{what}: legs", low=0, high=turn)
    try:  # a generator's state of the right size can still be refused (an invalid mt19937 state)
        torch.Generator().set_state(check_tensor(state["rng"], f"{what}: rng", torch.uint8, RNG_SHAPE))
    except RuntimeError as exc:
        raise ValueError(f"{what}: rng is not a generator's state ({first_line(exc)})") from None
    if not isinstance(state["players"], list):
        raise ValueError(f"{what}: players must be a list, got {type(state['players']).__name__}")
    for index, player in enumerate(state["players"]):
        if not (isinstance(player, dict) and set(player) == set(PLAYER_KEYS)):
            raise ValueError(f"{what}: players[{index}] must be a mapping of {list(PLAYER_KEYS)}")
        steps = as_int(player["agent_steps"], f"{what}: players[{index}].agent_steps", low=0, high=MAX_COUNT)
        if player["agent"] not in agents or player["id"] != f"{player['agent']}@{steps}":
            raise ValueError(
                f"{what}: players[{index}] is agent {player['agent']!r:.40} as {player['id']!r:.40}; the "
                f"agents are {agents}, a player's id AGENT@AGENT_STEPS"
            )
    for key in ("init_params", "players"):  # every tensor dense, its own values, finite
        check_tensors_in(state[key], f"{what}: {key}")


def _record(value: Any, what: str) -> list[float]:
    """A ``[wins, draws, losses]`` record: three finite numbers >= 0."""
    record = [as_real(v, f"{what}[{k}]") for k, v in enumerate(as_list(value, what, 3))]
    if min(record) < 0:
        raise ValueError(f"{what}: a count of games, got {record}")
    return record


def load_league(path: str | Path) -> League:
    """A league file (``league.pt``), read without running code, checked, and rebuilt."""
    state = load_checkpoint(path, (LEAGUE_FORMAT,))
    try:
        check_league_state(state)
        cfg = LeagueConfig(**state["config"])
        return League(cfg, state)
    except ValueError as exc:
        raise ValueError(f"{path}: {one_line_error(exc)}") from None


# ---------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="quatro-league", description="League training (main agents and exploiters).")
    parser.add_argument("--config", help="a shipped league config (league_4p, league_smoke) or a YAML path")
    parser.add_argument("--resume", help="a league.pt to continue exactly from")
    parser.add_argument("--legs", type=int_in(1), help="stop after this many legs (default: to the end)")
    parser.add_argument("overrides", nargs="*", help="key=value overrides, e.g. trainer.num_envs=16")
    args = parser.parse_intermixed_args(argv)
    command = "quatro-league " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.resume and args.config:
        parser.error("--config: not with --resume (the league file holds its config)")
    if args.resume and args.overrides:
        parser.error("overrides: not with --resume (an exact continuation keeps the league file's config)")
    if not (args.resume or args.config):
        parser.error("--config or --resume: give one")
    try:
        league = (
            load_league(args.resume)
            if args.resume
            else League(load_league_config(args.config, args.overrides))
        )
        league.dir.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as exc:
        parser.exit(2, f"quatro-league: {one_line_error(exc)}\n")
    (league.dir / "config.json").write_text(json.dumps(league.cfg.model_dump(mode="json"), indent=2))
    done = league.run(args.legs, command)
    steps = sum(t.agent_steps for t in league.trainers.values())
    seconds = sum(t.wall_seconds for t in league.trainers.values())
    print(
        f"{'finished' if done else 'stopped'}: leg {league.legs}, turn {league.turn}, {steps:,} agent-steps "
        f"in {seconds:.0f} s of training ({steps / max(seconds, 1e-9):.0f} steps/s), "
        f"{len(league.players)} frozen players; {league.dir / LEAGUE_FILE}"
    )


if __name__ == "__main__":
    main()
