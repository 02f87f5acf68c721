"""The ladder at batch scale: every match of a line-up at once, outcomes and calls (issue 17, item 3).

The harness (:mod:`quatro_env.eval.runner`) plays one match at a time with the numpy bots and records
every tick for its metrics. This plays all the matches of a line-up at once, one table each on
:class:`~quatro_env.batched.BatchedQuatroEngine`, every seat a row of
:class:`~quatro_env.bots.batched.BatchedBots` (the numpy bots' rules and decisions,
``tests/baselines/test_fast_bots.py``), and keeps each match's outcome, points and the calls that
ended its rounds (read from what the tables show: ``readers.ending_calls``). So ten times the matches
(intervals a third as wide) cost about what the harness's table costs (``docs/evaluation.md``, "The
ladder at batch scale").

The matches are the harness's: team ``t`` of match ``m`` is played by slot ``(t + m) mod teams``
(:func:`~quatro_env.eval.runner.slots_of_match`); a match ends when a team reaches ``points_to_win``
(Q24; several teams at the best score win together, Q25) and is a draw once ``max_rounds`` rounds
are played without a winner. Table ``m`` is seeded ``seed + m`` and the bots' draws come from
``numpy.random.default_rng([seed, DRAW_STREAM])`` (Q30): the same seed gives the same table. Only bots
with a batched version play (:data:`~quatro_env.bots.batched.KINDS`).

A PPO checkpoint (a shipped name or a ``policy.pt``) plays too: every seat it holds is a row of one
batch through its recurrent network (:class:`CheckpointSeats`), which acts as the harness's
:class:`~baselines.policy.PPOPolicy` does seat by seat (the same probabilities from the same
observations, ``tests/eval/test_batch_play.py``; sampled, not greedy; its memory cleared at each
match's start), from ``torch.Generator().manual_seed(seed)``. So ``quatro-exploit --batched``
plays its hundreds of matches in seconds, not the minutes of the harness's one-by-one matches.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from baselines.policy import load_model, policy_tick, resolve_checkpoint
from quatro_env.batched import BatchedQuatroEngine
from quatro_env.bots.batched import KINDS, NO_BOT, BatchedBots
from quatro_env.common.stats import wilson_interval
from quatro_env.eval.harness import config_dict, make_config
from quatro_env.eval.readers import ending_calls
from quatro_env.eval.runner import slots_of_match
from quatro_env.quatro.bots import batched_kind
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import CALL_KINDS

DRAW_STREAM = 0xBA7C


def play_lineup(
    policies: Sequence[str],
    *,
    matches: int,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
) -> dict[str, Any]:
    """Play ``matches`` matches of one line-up (``policies[k]``: the bot or PPO checkpoint of slot
    ``k``, one per team); the report of ``quatro-eval --batched``.

    Returns ``wins`` (per slot, matches it won, shared wins included), ``teams`` (per slot: its win rate
    and Wilson interval, its points, points per round and calls with their precision, under the
    harness's keys), ``draws``, ``draw_rate``, ``matches``, ``ticks`` (the longest match),
    ``agent_steps`` (seat-ticks played, finished tables included), the config and ``wall_seconds``.
    No per-tick metric (signalling, listening, time to a right call, secrecy): those need the harness.
    """
    start = time.perf_counter()
    cfg = make_config(config, episode="match", max_rounds=max_rounds)
    played = _play(policies, matches, cfg, seed)
    won, ticks = played.won, played.ticks
    wins = [int(w) for w in won.sum(0)]
    draws = int((~won.any(1)).sum())
    teams = [
        {"policy": policy, **_slot_summary(w, matches, _slot_totals(played, [k]))}
        for k, (policy, w) in enumerate(zip(policies, wins, strict=True))
    ]
    return {
        "kind": "batch_evaluate",
        "policies": list(policies),
        "config": config_dict(cfg, matches=matches, seed=seed, max_rounds=max_rounds, probe_matches=0),
        "matches": matches,
        "wins": wins,
        "teams": teams,
        "draws": draws,
        "draw_rate": round(draws / matches, 4),
        "ticks": ticks,
        "agent_steps": ticks * matches * cfg.num_players,
        "wall_seconds": time.perf_counter() - start,
    }


def _slot_totals(played: Played, slots: Sequence[int]) -> np.ndarray:
    """These slots' points, team-rounds, «Quatro» calls, right ones, «Contra» calls, right ones."""
    calls = played.calls[:, slots].sum((0, 1))
    return np.array([played.points[:, slots].sum(), played.team_rounds[:, slots].sum(), *calls])


def _slot_summary(wins: int, matches: int, totals: np.ndarray) -> dict[str, Any]:
    """A slot's (or a policy's pooled) outcomes under the harness's keys, from :func:`_slot_totals`."""
    points, team_rounds, quatro, quatro_right, contra, contra_right = (int(x) for x in totals)
    lo, hi = wilson_interval(wins, matches)
    return {
        "wins": wins,
        "matches": matches,
        "win_rate": round(wins / matches, 4),
        "win_ci95": [round(lo, 4), round(hi, 4)],
        "points": points,
        "points_per_round": round(points / team_rounds, 4) if team_rounds else None,
        "quatro_calls": quatro,
        "quatro_precision": round(quatro_right / quatro, 4) if quatro else None,
        "contra_calls": contra,
        "contra_precision": round(contra_right / contra, 4) if contra else None,
    }


class CheckpointSeats:
    """The seats one PPO checkpoint plays, as rows of one batch: the harness's
    :class:`~baselines.policy.PPOPolicy` (its network, its per-seat GRU memory, sampled actions) for
    many seats at once."""

    def __init__(self, path: str, num_players: int, rows: np.ndarray, generator: torch.Generator) -> None:
        self.model, meta = load_model(path)
        if meta["num_players"] != num_players:
            raise ValueError(f"policy {path!r}: trained for {meta['num_players']} players, not {num_players}")
        self.rows, self.generator = rows, generator
        self.h = self.model.initial_state(len(rows))

    def probabilities(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """``[len(rows), num_actions]``: each seat's policy at this tick (its memory moves on)."""
        probs, self.h = policy_tick(self.model, obs[self.rows], masks[self.rows], self.h)
        return probs

    def act(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        return torch.multinomial(self.probabilities(obs, masks), 1, generator=self.generator)[:, 0]

    def forget(self, rows: np.ndarray) -> None:
        """A new match at these rows (of the whole batch): their seats start with an empty memory."""
        self.h[:, np.isin(self.rows, rows)] = 0.0


def bot_row(policy: str) -> str | None:
    """The compiled row that plays ``policy`` (:func:`quatro_env.quatro.bots.batched_kind`: options
    spelled as a line-up may, ``cover:split=True``), or None: not a bot, or a bot option without one."""
    try:
        return batched_kind(policy)
    except ValueError:
        return None


def checkpoint_paths(policies: Sequence[str]) -> dict[str, str]:
    """The file of each checkpoint among ``policies`` (the rest are batched bots); a name that is
    neither is refused, before any match is played."""
    path, unknown = {}, []
    for p in dict.fromkeys(policies):
        if bot_row(p) is not None:
            continue
        try:  # a shipped name or a file; quatro-eval spells a file checkpoint:PATH
            path[p] = str(resolve_checkpoint(p.removeprefix("checkpoint:")))
        except ValueError:
            unknown.append(p)
    if unknown:
        raise ValueError(
            f"policies: no batched version of {unknown} and no PPO checkpoint of that name; "
            f"batched bots: {list(KINDS)}"
        )
    return path


def _seats(policies: Sequence[str], seat_slot: np.ndarray, n: int, seed: int):
    """The bots' kind per seat row (:data:`NO_BOT` where a checkpoint plays) and one
    :class:`CheckpointSeats` per checkpoint of the line-up."""
    path = checkpoint_paths(policies)
    checkpoints = list(path)
    rows = {k: row for k, p in enumerate(policies) if (row := bot_row(p)) is not None}
    slot_kind = np.full(len(policies), NO_BOT, np.int64)
    slot_kind[list(rows)] = BatchedBots.kind_ids(list(rows.values()))
    kinds = slot_kind[seat_slot]
    generator = torch.Generator().manual_seed(int(seed))
    seats = []
    for name in checkpoints:
        rows = np.flatnonzero(np.isin(seat_slot, [k for k, p in enumerate(policies) if p == name]))
        seats.append(CheckpointSeats(path[name], n, rows, generator))
    return kinds, seats


@dataclass
class Played:
    """What :func:`_play` keeps of each match, per slot (a slot's teams added up, as the harness does)."""

    won: np.ndarray  # [matches, slots] bool: a team of slot k won match m (shared wins included)
    points: np.ndarray  # [matches, slots]: the points its teams scored (Q24)
    team_rounds: np.ndarray  # [matches, slots]: rounds completed, once per team of the slot
    calls: np.ndarray  # [matches, slots, 4]: «Quatro» calls made, right, «Contra» calls made, right
    ticks: int  # the longest match's ticks


def _play(policies: Sequence[str], matches: int, cfg: QuatroConfig, seed: int) -> Played:
    """Play the matches, every one at once, each table's first match only."""
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
        raise ValueError(f"matches: a whole number >= 1, got {matches!r}")
    n, teams = cfg.num_players, cfg.num_players // 2
    slot_of = np.array([slots_of_match(m, teams, len(policies)) for m in range(matches)])  # [M, teams]
    kinds, checkpoints = _seats(policies, slot_of[:, np.arange(n) % teams].reshape(-1), n, seed)
    bots = BatchedBots(n, matches * n)
    bots.reset_rows(np.arange(matches * n), kinds)
    bot_rows = bots.active_rows()
    engine = BatchedQuatroEngine(matches, config=cfg, seed=seed, keep_final=True)  # a match's last call
    rng = np.random.default_rng([seed, DRAW_STREAM])
    result = engine.reset(seed)
    won = np.zeros((matches, teams), bool)
    points = np.zeros((matches, teams), np.int64)
    rounds = np.zeros(matches, np.int64)
    calls = np.zeros((matches, teams, 4), np.int64)  # the harness's columns (eval.metrics)
    over = np.zeros(matches, bool)
    ticks = 0
    while not over.all():
        obs, masks = result.observations.reshape(matches * n, -1), result.masks.reshape(matches * n, -1)
        actions = torch.zeros(matches * n, dtype=torch.int64)
        if bot_rows.size:
            draws = rng.random((bot_rows.size, bots.num_draws))
            picked = bots.act(obs.numpy()[bot_rows], masks.numpy()[bot_rows], draws, rows=bot_rows)
            actions[bot_rows] = torch.from_numpy(picked)
        for seats in checkpoints:
            actions[seats.rows] = seats.act(obs, masks)
        result = engine.step(actions.view(matches, n))
        ticks += 1
        done = result.info["done"].numpy()
        _count_calls(engine, result, ~over, calls)
        if done.any():  # a finished table starts another match at once: only its first one counts
            first = done & ~over
            scores = result.info["final_scores"].numpy()[first]
            ended = result.terminations.numpy()[first]  # a truncation (max_rounds) has no winner
            won[first] = (scores == scores.max(1, keepdims=True)) & ended[:, None]
            points[first] = scores
            rounds[first] = result.info["final_rounds"].numpy()[first]
            over |= done
            rows = (np.flatnonzero(done)[:, None] * n + np.arange(n)).reshape(-1)
            bots.reset_rows(rows, kinds[rows])
            for seats in checkpoints:
                seats.forget(rows)
    per_slot = [np.zeros((matches, len(policies), *shape), np.int64) for shape in ((), (), (), (4,))]
    for t in range(teams):
        for total, team in zip(per_slot, (won[:, t], points[:, t], rounds, calls[:, t]), strict=True):
            np.add.at(total, (np.arange(matches), slot_of[:, t]), team)
    by_slot_won, by_slot_points, by_slot_rounds, by_slot_calls = per_slot
    return Played(by_slot_won > 0, by_slot_points, by_slot_rounds, by_slot_calls, ticks)


def _count_calls(engine: BatchedQuatroEngine, result, counted: np.ndarray, calls: np.ndarray) -> None:
    """Add the calls that ended a round this tick on the ``counted`` tables to ``calls`` [tables, teams,
    4], read from seat 0's view after the tick (a finished table's final view: its reset one has none)."""
    ended = engine.round_ended.numpy() & counted
    if not ended.any():
        return
    views = result.info.get("final_observation", result.observations)[ended, 0].numpy()
    kind, caller, right = ending_calls(views, engine.n)  # seat 0's frame: seats and teams as they are
    rows, team = np.flatnonzero(ended), caller % (engine.n // 2)
    for column, call in ((0, CALL_KINDS["quatro"]), (2, CALL_KINDS["contra"])):
        mine = kind == call
        np.add.at(calls, (rows[mine], team[mine], column), 1)
        np.add.at(calls, (rows[mine], team[mine], column + 1), right[mine])


def batch_cross_play(
    policies: Sequence[str],
    *,
    matches: int,
    config: QuatroConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    max_rounds: int = 20,
) -> dict[str, Any]:
    """Every pair of ``policies`` plays ``matches`` matches (as :func:`~quatro_env.eval.cross_play`
    pairs them: A on the even teams, B on the odd ones, seats rotated). Returns the cross-play
    matrices under the harness's keys (``win_rate``, ``win_ci95``, ``draw_rate``, ``points_per_round``;
    row against column, None on the diagonal), a ``summary`` per policy pooled over its opponents (as
    :func:`_slot_summary` writes a slot of :func:`play_lineup`), the config, ``wall_seconds`` and
    ``agent_steps``."""
    if len(set(policies)) != len(policies) or len(policies) < 2:
        raise ValueError(f"policies: at least two distinct policies, got {list(policies)}")
    cfg = make_config(config, episode="match", max_rounds=max_rounds)
    teams = cfg.num_players // 2
    k = len(policies)
    keys = ("win_rate", "win_ci95", "draw_rate", "points_per_round")
    matrices: dict[str, list[list[Any]]] = {key: [[None] * k for _ in range(k)] for key in keys}
    pooled = [np.zeros(8, np.int64) for _ in range(k)]  # wins, matches, then _slot_totals' six columns
    start, steps = time.perf_counter(), 0
    for i in range(k):
        for j in range(i + 1, k):
            lineup = [policies[i] if t % 2 == 0 else policies[j] for t in range(teams)]
            played = _play(lineup, matches, cfg, seed)
            steps += played.ticks * matches * cfg.num_players
            for side, other in ((i, j), (j, i)):
                slots = [s for s, name in enumerate(lineup) if name == policies[side]]
                wins = int(played.won[:, slots].any(1).sum())  # several teams: any of the policy's teams won
                totals = _slot_totals(played, slots)
                matrices["win_rate"][side][other] = wins / matches
                matrices["win_ci95"][side][other] = list(wilson_interval(wins, matches))
                matrices["draw_rate"][side][other] = float((~played.won.any(1)).mean())
                pair = _slot_summary(wins, matches, totals)
                matrices["points_per_round"][side][other] = pair["points_per_round"]
                pooled[side] += np.array([wins, matches, *totals])
    summary = [
        {"policy": policy, **_slot_summary(int(p[0]), int(p[1]), p[2:])}
        for policy, p in zip(policies, pooled, strict=True)
    ]
    return {
        "kind": "batch_cross_play",
        "policies": list(policies),
        "matches": matches,
        "seed": seed,
        "max_rounds": max_rounds,
        "config": config_dict(
            cfg, matches_per_pair=matches, seed=seed, max_rounds=max_rounds, probe_matches=0
        ),
        "cross_play": matrices,
        "summary": summary,
        "wall_seconds": time.perf_counter() - start,
        "agent_steps": steps,
    }
