"""Play matches on the reference engine and record what the metrics need.

A match is played on :class:`~quatro_env.quatro.engine.QuatroEngine` directly: every seat's
egocentric observation (``ObservationEncoder``) and legal mask go to that seat's actor, one action
per seat per tick. The harness is omniscient (it reads hands and signs to label the data) but the
actors see only their observations. Engine state read here: ``hands``, ``floor``, ``pulse_anchor``,
``last_pulse``, ``team_sign``, ``phase``, ``scores``, ``winners``, ``rounds_completed``.

Every seat is played by the harness (``bot_seats`` stays empty), so scripted bots confirm ready
themselves and, not being env bot seats, are voters of a reshuffle proposal (they never answer: a
silent voter is a "no" at the deadline, Q20).

Seats and seeds: ``policies[k]`` is the policy of *slot* ``k``; in match ``m`` team ``t`` is played
by slot ``(t + m) mod teams`` (seat rotation: every slot plays every team, so seat 0's host role and
the seat order cannot favour one policy). Match ``m`` draws its engine seed and one seed per seat
from ``SeedSequence([seed, m])``: a match is reproducible on its own, whatever the worker count.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from quatro_env.common.strict import as_int
from quatro_env.eval.policies import PolicySpec
from quatro_env.eval.probe import ChannelTracker
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import is_quartet
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.engine import Phase, QuatroEngine
from quatro_env.replay.format import ReplayWriter

#: the command lines' most harness processes: the CPUs this process may run on (each plays whole matches)
MAX_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


#: the longest line-up part of a replay's file name (file systems allow 255 bytes a name)
MAX_STEM = 120


def replay_stem(labels: Iterable[str]) -> str:
    """A replay's file name before ``_mNNNNN.jsonl``: the line-up's labels, safe characters only; a long
    line-up (checkpoint paths, parameters) is cut and keeps a hash of the whole, so names stay apart."""
    name = re.sub(r"[^A-Za-z0-9_.+-]+", "_", "-vs-".join(labels))
    if len(name) <= MAX_STEM:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{name[: MAX_STEM - 13]}-{digest}"


def slots_of_match(match_index: int, num_teams: int, num_slots: int) -> list[int]:
    """The slot (index into the policy list) playing each team in match ``match_index``."""
    if num_slots != num_teams:
        raise ValueError(f"need one policy per team ({num_teams}), got {num_slots}")
    return [(t + match_index) % num_teams for t in range(num_teams)]


class MatchRunner:
    """One table and the seat actors of one line-up; plays matches one after another."""

    def __init__(
        self,
        config: QuatroConfig,
        policies: Sequence[PolicySpec],
        max_rounds: int,
        replay_dir: str | Path | None = None,
    ) -> None:
        self.config = config
        self.n = n = config.num_players
        self.num_teams = n // 2
        if len(policies) != self.num_teams:
            raise ValueError(f"policies: need one policy per team ({self.num_teams}), got {len(policies)}")
        self.policies = list(policies)
        self.max_rounds = max_rounds
        self.engine = QuatroEngine(config)
        self.encoder = ObservationEncoder(n)
        self.obs = np.zeros((n, self.encoder.obs_dim), np.uint8)
        self.masks = np.zeros((n, self.engine.codec.num_actions), np.int8)
        self._actors: dict[tuple[int, int], Any] = {}
        self._quatro = self.engine.codec.encode(ActionKind.QUATRO)
        #: when set, every match played is written there as a replay file (docs/watch_and_play.md)
        self.replay_dir = None if replay_dir is None else Path(replay_dir)

    def _replay_writer(self, match_index: int, engine_seed: int, seat_seeds, team_slot) -> ReplayWriter:
        labels = [self.policies[slot].label for slot in team_slot]
        name = replay_stem(self.policies[k].label for k in range(self.num_teams))
        seats = []
        for s in range(self.n):
            spec = self.policies[team_slot[s % self.num_teams]]
            if spec.kind == "team":  # a mixed team: the lower seat plays member 0, its partner member 1
                spec = spec.target[s // self.num_teams]
            seats.append({"seat": s, "policy": spec.label, "seed": int(seat_seeds[s])})
        meta = {"written_by": "quatro-eval", "match": match_index, "team_policies": labels}
        path = self.replay_dir / f"{name}_m{match_index:05d}.jsonl"
        return ReplayWriter(path, self.config, engine_seed, seats, meta)

    def actor(self, slot: int, seat: int):
        key = (slot, seat)
        if key not in self._actors:
            self._actors[key] = self.policies[slot].build(self.n, 0, member=seat // self.num_teams)
        return self._actors[key]

    def play(
        self, match_index: int, seed: int, record_probe: bool = False, record_views: bool = False
    ) -> dict[str, Any]:
        """Play match ``match_index`` to its end (or ``max_rounds``); return its record.

        ``record_views`` keeps, for every play tick that does not end its round, every seat's
        observation after the tick with the labels the Eve/Bob decoders need (:mod:`.secrecy`)."""
        engine, enc, obs, masks = self.engine, self.encoder, self.obs, self.masks
        n, nt = self.n, self.num_teams
        seeds = np.random.SeedSequence([seed, match_index]).generate_state(n + 1)
        team_slot = slots_of_match(match_index, nt, len(self.policies))
        actors = [self.actor(team_slot[seat % nt], seat) for seat in range(n)]
        events = engine.reset(int(seeds[0]))
        for seat, actor in enumerate(actors):
            actor.reset(int(seeds[seat + 1]))
        enc.encode(engine, events, (), obs)
        writer = None
        if self.replay_dir is not None:
            writer = self._replay_writer(match_index, int(seeds[0]), seeds[1:], team_slot)
            writer.start(engine, events, obs)

        team_of = [seat % nt for seat in range(n)]
        partner = [(seat + nt) % n for seat in range(n)]
        calls = np.zeros((nt, 4), np.int64)  # quatro made, quatro correct, contra made, contra correct
        accused = np.zeros(nt, np.int64)
        delays: list[list[int]] = [[] for _ in range(nt)]
        signal = np.zeros((nt, 2, 3), np.int64)  # [team, holds quartet, shows nothing/sign/other]
        listen = np.zeros((nt, 2, 2), np.int64)  # [team, partner shows sign, I call «Quatro»]
        illegal = np.zeros(nt, np.int64)
        round_ticks: list[int] = []
        blank = 0
        play_ticks = 0
        since: list[int | None] = [None] * n
        tracker = ChannelTracker(n) if record_probe else None
        probe_x: list[np.ndarray] = []
        probe_s: list[np.ndarray] = []
        probe_y: list[np.ndarray] = []
        round_len = 0
        views: dict[str, list] | None = (
            {"obs": [], "holds": [], "sign": [], "tick": [], "round": []} if record_views else None
        )
        round_number = 0

        while True:
            for seat in range(n):
                engine.legal_mask(seat, masks[seat])
            actions = [0] * n
            for seat in range(n):
                a = int(actors[seat].act(obs[seat], masks[seat]))
                if not (0 <= a < masks.shape[1] and masks[seat, a]):
                    illegal[team_of[seat]] += 1
                    a = 0
                actions[seat] = a
            in_play = engine.phase == Phase.PLAY
            if in_play:
                hands, floor, anchor, last_pulse, signs = (
                    engine.hands,
                    engine.floor,
                    engine.pulse_anchor,
                    engine.last_pulse,
                    engine.team_sign,
                )
                quartet = [is_quartet(hands[s]) for s in range(n)]
                shown = [0] * n
                for s in range(n):
                    if floor[s] and anchor[s] is not None and last_pulse[s] is not None:
                        shown[s] = 1 if last_pulse[s][0] == signs[team_of[s]] else 2
                for s in range(n):
                    t = team_of[s]
                    signal[t, int(quartet[s]), shown[s]] += 1
                    listen[t, int(shown[partner[s]] == 1), int(actions[s] == self._quatro)] += 1
                if round_len == 0 and tracker is not None:
                    tracker.new_round()
                round_len += 1
                play_ticks += 1

            result = engine.step(actions)
            enc.encode(engine, result.events, result.order, obs)
            if writer is not None:
                writer.tick(actions, result, engine, obs)

            if in_play:
                for ev in result.events:
                    if ev.kind == "call":
                        t = team_of[ev.seat]
                        kind, correct = ev.data["kind"], bool(ev.data["correct"])
                        col = 0 if kind == "quatro" else 2
                        calls[t, col] += 1
                        calls[t, col + 1] += correct
                        if kind == "contra":
                            accused[ev.data["target_team"]] += 1
                        if correct:
                            if kind == "quatro":
                                formed = since[partner[ev.seat]]
                            else:
                                target = ev.data["target_team"]
                                members = [x for x in (target, target + nt) if since[x] is not None]
                                formed = min(since[x] for x in members) if members else None
                            delays[t].append(result.tick - formed if formed is not None else 0)
                    elif ev.kind == "blank_round":
                        blank += 1
                if result.round_ended:
                    round_ticks.append(round_len)
                    round_len = 0
                    round_number += 1
                    since = [None] * n
                else:
                    for s in range(n):
                        if is_quartet(engine.hands[s]):
                            if since[s] is None:
                                since[s] = result.tick
                        else:
                            since[s] = None
                    if tracker is not None:
                        x, srow = tracker.update(engine.floor, result.events, engine.team_sign)
                        probe_x.append(x)
                        probe_s.append(srow)
                        probe_y.append(
                            np.array(
                                [since[t] is not None or since[t + nt] is not None for t in range(nt)],
                                np.int8,
                            )
                        )
                    if views is not None:
                        self._record_view(views, since, round_len - 1, round_number)
            if result.match_over or engine.rounds_completed >= self.max_rounds:
                break
        if writer is not None:
            writer.close(engine)

        record: dict[str, Any] = {
            "match": match_index,
            "team_slot": team_slot,
            "scores": list(engine.scores),
            "winners": list(engine.winners),
            "rounds": engine.rounds_completed,
            "truncated": not engine.match_over,
            "blank_rounds": blank,
            "play_ticks": play_ticks,
            "round_ticks": round_ticks,
            "calls": calls,
            "accused": accused,
            "delays": delays,
            "signal": signal,
            "listen": listen,
            "illegal": illegal,
            "probe": None,
            "views": None,
        }
        if views is not None and views["tick"]:
            record["views"] = {
                "obs": np.stack(views["obs"]),  # [ticks, seats, obs_dim] uint8, absolute seat order
                "holds": np.array(views["holds"], bool),  # [ticks, seats]: the seat holds a quartet
                "sign": np.array(views["sign"], bool),  # [ticks, seats]: the seat shows its team sign
                "tick": np.array(views["tick"], np.int32),  # play tick within the round
                "round": np.array(views["round"], np.int32),  # round number within the match
            }
        if tracker is not None and probe_x:
            record["probe"] = {
                "x": np.stack(probe_x),  # [ticks, teams, features]
                "s": np.stack(probe_s),
                "y": np.stack(probe_y),  # [ticks, teams]
            }
        return record

    def _record_view(self, views: dict[str, list], since: list[int | None], tick: int, rnd: int) -> None:
        """One decoder row per seat: the observations after the tick, who holds a quartet, who shows
        the team sign (on the floor, its last pulse since taking it was the sign)."""
        e, nt = self.engine, self.num_teams
        views["obs"].append(self.obs.copy())
        views["holds"].append([s is not None for s in since])
        views["sign"].append(
            [
                bool(e.floor[s])
                and e.pulse_anchor[s] is not None
                and e.last_pulse[s] is not None
                and e.last_pulse[s][0] == e.team_sign[s % nt]
                for s in range(self.n)
            ]
        )
        views["tick"].append(tick)
        views["round"].append(rnd)


# ---------------------------------------------------------------------------- parallel tables
_WORKER: dict[str, Any] = {}


def _init_worker(
    config: QuatroConfig,
    max_rounds: int,
    seed: int,
    probe_matches: int,
    view_matches: int = 0,
    replay_dir: str | None = None,
) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER.clear()
    _WORKER.update(
        config=config,
        max_rounds=max_rounds,
        seed=seed,
        probe_matches=probe_matches,
        view_matches=view_matches,
        runners={},
        replay_dir=replay_dir,
    )


def _run_chunk(job: tuple[int, tuple[PolicySpec, ...], list[int]]) -> tuple[int, list[dict[str, Any]]]:
    key, policies, matches = job
    runners = _WORKER["runners"]
    if key not in runners:
        runners[key] = MatchRunner(_WORKER["config"], policies, _WORKER["max_rounds"], _WORKER["replay_dir"])
    runner = runners[key]
    out = [
        runner.play(
            m,
            _WORKER["seed"],
            record_probe=m < _WORKER["probe_matches"],
            record_views=m < _WORKER["view_matches"],
        )
        for m in matches
    ]
    return key, out


def run_lineups(
    config: QuatroConfig,
    lineups: Sequence[Sequence[PolicySpec]],
    num_matches: int,
    *,
    seed: int = 0,
    max_rounds: int = 20,
    probe_matches: int = 0,
    view_matches: int = 0,
    workers: int = 1,
    chunk: int = 10,
    progress: bool = True,
    desc: str = "matches",
    replay_dir: str | Path | None = None,
) -> list[list[dict[str, Any]]]:
    """Play ``num_matches`` matches for every line-up (one policy per team); records per line-up,
    in match order. ``workers`` processes play tables in parallel (the command lines allow at most
    :data:`MAX_WORKERS`, the CPUs); the results do not depend on how many. The first
    ``probe_matches`` matches record the linear probes' rows, the first ``view_matches`` the
    observations the Eve/Bob decoders read (:mod:`quatro_env.eval.secrecy`). With ``replay_dir``
    every match is also written there as a replay file."""
    replay_dir = None if replay_dir is None else str(replay_dir)
    if num_matches <= 0:
        raise ValueError(f"matches: must be positive, got {num_matches}")
    if max_rounds <= 0:
        raise ValueError(f"max_rounds: must be positive, got {max_rounds}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers: a whole number >= 1, got {workers!r}")
    as_int(seed, "seed", low=0)  # SeedSequence's own error names nothing
    # The first job of each line-up is one match, so a progress bar moves from the first match on.
    bounds = sorted({0, *range(1, num_matches, max(1, chunk)), num_matches})
    jobs = [
        (k, tuple(lineup), list(range(lo, hi)))
        for k, lineup in enumerate(lineups)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    results: list[list[dict[str, Any]]] = [[] for _ in lineups]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=num_matches * len(lineups), desc=desc, unit="match", dynamic_ncols=True)
    try:
        if workers == 1:
            _init_worker(config, max_rounds, seed, probe_matches, view_matches, replay_dir)
            for job in jobs:
                key, recs = _run_chunk(job)
                results[key].extend(recs)
                if bar is not None:
                    bar.update(len(recs))
        else:
            ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
            init = (config, max_rounds, seed, probe_matches, view_matches, replay_dir)
            with ctx.Pool(workers, _init_worker, init) as pool:
                for key, recs in pool.imap_unordered(_run_chunk, jobs):
                    results[key].extend(recs)
                    if bar is not None:
                        bar.update(len(recs))
    finally:
        if bar is not None:
            bar.close()
    for recs in results:
        recs.sort(key=lambda r: r["match"])
    return results
