"""Differential harness: the batched engine against the reference ParallelEnv, tick by tick.

Both sides get the same deals, the same in-tick orders, the same random signs and the same
disconnection draws: the batched engine records its draws (``record_draws=True``) and every
reference table's ``engine.rng`` is replaced by a :class:`ReplayRng` that hands them out
again (the reference engine draws only through ``permutation``, ``integers``, ``shuffle`` and
``random``). Both get the same actions: random legal actions, biased (with a peek at the true
state, this is a test) so that every rule fires. At every tick we assert identical
observations, masks, rewards, terminations, truncations and scores, and that each side drew
exactly the same number of random values.

Run long: ``QUATRO_DIFF_TICKS=20000 pytest -m slow tests/batched -s`` or
``python -m tests.batched.differential --ticks 20000``; over random configs (``tests/random_configs.py``):
``python -m tests.batched.differential --random-configs 1000 --envs 12 --ticks 400``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict, deque
from typing import Any

import numpy as np
import torch

from quatro_env.batched import BatchedQuatroEngine
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import is_quartet
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.env import QuatroParallelEnv
from tests.random_configs import random_config


class ReplayRng:
    """Stands in for ``engine.rng``: returns the batched engine's recorded draws, in order."""

    def __init__(self) -> None:
        self.queues: dict[Any, deque] = defaultdict(deque)

    def push(self, key, value) -> None:
        self.queues[key].append(value)

    def _pop(self, key):
        q = self.queues[key]
        if not q:
            raise AssertionError(f"reference engine drew {key} but the batched engine did not")
        return q.popleft()

    def permutation(self, k: int) -> np.ndarray:
        return np.asarray(self._pop(("perm", int(k))))

    def integers(self, k: int) -> int:
        assert int(k) == 24, k
        return int(self._pop("int"))

    def shuffle(self, items: list) -> None:
        perm = self._pop("shuffle")
        items[:] = [items[i] for i in perm]

    def random(self, k: int) -> np.ndarray:
        vals = np.asarray(self._pop("random"), dtype=np.float64)
        assert vals.shape == (k,)
        return vals

    def assert_drained(self, where: str) -> None:
        left = {k: len(q) for k, q in self.queues.items() if q}
        if left:
            raise AssertionError(f"{where}: the batched engine drew {left} that the reference did not")


def distribute_draws(draws: dict, replays: list[ReplayRng], n: int, deck: int) -> None:
    for kind, entries in draws.items():
        for idx, vals in entries:
            for row, b in enumerate(idx.tolist()):
                r = replays[b]
                v = vals[row]
                if kind == "order":
                    r.push(("perm", n), v.tolist())
                elif kind == "deal":
                    r.push(("perm", deck), v.tolist())
                elif kind == "q5":
                    r.push("shuffle", v.tolist())
                elif kind == "sign":
                    for x in v.tolist():
                        if x >= 0:
                            r.push("int", x)
                elif kind == "random":
                    r.push("random", v.tolist())
                else:  # pragma: no cover
                    raise AssertionError(kind)


# ---------------------------------------------------------------------------- biased actions
KIND_WEIGHTS = {
    ActionKind.NOOP: 3.0,
    ActionKind.EXCHANGE: 3.0,
    ActionKind.TAKE_FLOOR: 1.0,
    ActionKind.RELEASE_FLOOR: 0.5,
    ActionKind.SHOW_EMOJI: 1.0,
    ActionKind.CHOOSE_SIGN: 1.0,
    ActionKind.READY: 0.7,
    ActionKind.QUATRO: 0.01,
    ActionKind.CONTRA: 0.01,
    ActionKind.PROPOSE_RESHUFFLE: 0.1,
    ActionKind.VOTE_YES: 1.0,
    ActionKind.VOTE_NO: 0.15,
    ActionKind.START_ROUND: 0.2,
}


class BiasedSampler:
    """Random legal actions with per-table styles and a peek at the hands, so every rule fires."""

    def __init__(self, engine: BatchedQuatroEngine, rng: np.random.Generator) -> None:
        self.e, self.rng = engine, rng
        codec = engine.codec
        A, B = codec.num_actions, engine.num_envs
        self.kind_of = np.array([int(k) for k in codec.kinds])
        base = np.zeros(A)
        for kind, w in KIND_WEIGHTS.items():
            r = codec.ranges[kind]
            base[r.start : r.stop] = w / len(r)
        self.base = base
        # per-table style: each kind's weight scaled by a log-normal factor
        self.style = np.exp(rng.normal(0, 1.2, size=(B, len(ActionKind))))
        self.quatro = codec.ranges[ActionKind.QUATRO].start
        self.contra0 = codec.ranges[ActionKind.CONTRA].start
        self.ex0 = codec.ranges[ActionKind.EXCHANGE].start

    def new_style(self, rows: np.ndarray) -> None:
        self.style[rows] = np.exp(self.rng.normal(0, 1.2, size=(len(rows), self.style.shape[1])))

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        e = self.e
        B, n, A = masks.shape
        T = n // 2
        w = self.base[None, None, :] * self.style[:, None, self.kind_of]
        w = np.broadcast_to(w, (B, n, A)).copy()
        hands = e.hands.cpu().numpy().astype(np.int64)
        center = e.center.cpu().numpy().astype(np.int64)
        vals = hands >> 2
        quart = (vals == vals[:, :, :1]).all(-1) & (hands[:, :, 0] >= 0)  # [B, n]
        # calls: strongly favoured when they are right (or would trigger the reminder)
        partner = quart[:, (np.arange(n) + T) % n]
        w[:, :, self.quatro] += 3.0 * (partner | quart)
        team_q = quart[:, :T] | quart[:, T:]  # [B, T]
        for k in range(1, T):
            target = (np.arange(n) % T + k) % T
            w[:, :, self.contra0 + k - 1] += 3.0 * team_q[:, target]
        # exchanges: favour taking a center card of the hand's most common value
        cv = center >> 2
        counts = (vals[:, :, :, None] == vals[:, :, None, :]).sum(-1)  # [B, n, 4]
        best = np.take_along_axis(vals, counts.argmax(-1)[..., None], -1)[..., 0]  # [B, n]
        take = cv[:, None, :] == best[:, :, None]  # [B, n, 4] center slots worth taking
        give = vals != best[:, :, None]  # [B, n, 4] hand slots worth giving
        good = give[:, :, :, None] & take[:, :, None, :]  # [B, n, h, c]
        w[:, :, self.ex0 : self.ex0 + 16] += 2.0 * good.reshape(B, n, 16)
        w *= masks
        w[:, :, 0] += 1e-9
        cum = w.cumsum(-1)
        u = self.rng.random((B, n, 1)) * cum[:, :, -1:]
        act = (cum < u).sum(-1)
        return np.minimum(act, A - 1)


# ---------------------------------------------------------------------------- configurations
def configs(n: int) -> dict[str, dict]:
    return {
        # short clocks, bots, scheduled + random disconnections, truncation, the reminder
        "short": dict(
            num_players=n,
            sign_phase_seconds=6.0,
            round_seconds=25.0,
            pause_seconds=6.0,
            vote_window_seconds=4.0,
            vote_interval_seconds=6.0,
            pulse_seconds=2.0,
            points_to_win=3,
            max_rounds=5,
            bot_seats=(1,),
            disconnect_prob=0.01,
            reconnect_prob=0.2,
            disconnect_schedule=((3, 2, False), (9, 2, True), (40, 0, False), (46, 0, True)),
        ),
        # odd tick length (Q6 exact rounding), no guard, signs revealed, round episodes, team points
        "odd": dict(
            num_players=n,
            tick_seconds=0.3,
            sign_phase_seconds=2.1,
            round_seconds=12.0,
            pause_seconds=2.1,
            exchange_cooldown_seconds=0.7,
            floor_cooldown_seconds=1.0,
            pulse_seconds=1.3,
            vote_window_seconds=2.0,
            vote_interval_seconds=3.0,
            own_quartet_guard="off",
            reveal_signs=True,
            episode="round",
            reward_mode="team_points",
            disconnect_prob=0.02,
            reconnect_prob=0.3,
        ),
        # the source's defaults; no random disconnection, a scheduled one (reconnects at random)
        "default": dict(num_players=n, disconnect_schedule=((5, n - 1, False), (300, 1, False))),
    }


# ---------------------------------------------------------------------------- the run
def _field_name(offsets: dict[str, int], j: int) -> str:
    best = max((off, name) for name, off in offsets.items() if off <= j)
    return f"{best[1]}+{j - best[0]}"


def _events_to_counts(events, engine, counts: Counter) -> None:
    kinds = [ev.kind for ev in events]
    for ev in events:
        k = ev.kind
        if k == "call":
            d = ev.data
            counts[f"Q18/19 {d['kind']} {'right' if d['correct'] else 'wrong'}"] += 1
            if len(d["scoring_teams"]) > 1:
                counts["Q25 points to several teams"] += 1
        elif k == "floor_released":
            counts[f"Q15 floor released ({ev.data['reason']})"] += 1
        elif k == "vote_failed":
            counts[f"Q20 vote failed ({ev.data['reason']})"] += 1
        elif k == "vote_answer":
            counts[f"Q20 vote answer {'yes' if ev.data['yes'] else 'no'}"] += 1
        elif k == "vote_proposed":
            counts["Q20 proposal"] += 1
            if not ev.data["voters"]:
                counts["Q20 proposal without voters (passes at once)"] += 1
        elif k == "match_over":
            counts["Q24 match over"] += 1
            if len(ev.data["winners"]) > 1:
                counts["Q25 shared win"] += 1
        else:
            counts[k] += 1
    if "exchange_rejected" in kinds:
        counts["Q14 contested tick"] += 1


def run(
    n: int,
    config: str | dict,
    num_envs: int,
    ticks: int,
    seed: int = 0,
    device: str = "cpu",
    counts: Counter | None = None,
    backend: str = "auto",
) -> Counter:
    """Run ``ticks`` ticks on ``num_envs`` tables side by side; returns rule-firing counts.

    ``config``: the name of one of :func:`configs`, or the config's keyword arguments themselves."""
    counts = Counter() if counts is None else counts
    cfg = configs(n)[config] if isinstance(config, str) else dict(config, num_players=n)
    batched = BatchedQuatroEngine(
        num_envs,
        device=device,
        record_draws=True,
        keep_final=True,
        illegal_action="raise",
        backend=backend,
        **cfg,
    )
    deck = batched.deck
    offsets = ObservationEncoder(n).offsets
    refs = [QuatroParallelEnv(**cfg) for _ in range(num_envs)]
    replays = [ReplayRng() for _ in range(num_envs)]
    res = batched.reset(seed=seed * 100_003)
    episodes = [0] * num_envs

    def attach(b: int) -> None:
        refs[b].reset(seed=seed * 7919 + b * 31 + episodes[b])
        refs[b].engine.rng = replays[b]

    def compare(b: int, obs, mask, what: str) -> None:
        env = refs[b]
        ref_obs, ref_mask = env._obs, env._masks
        if not np.array_equal(ref_obs, obs):
            s, j = (int(x) for x in np.argwhere(ref_obs != obs)[0])
            raise AssertionError(
                f"{what}: table {b} seat {s} observation differs at {_field_name(offsets, j)}: "
                f"reference {ref_obs[s, j]} batched {obs[s, j]} (tick {env.engine.tick})"
            )
        if not np.array_equal(ref_mask, mask):
            s, j = (int(x) for x in np.argwhere(ref_mask != mask)[0])
            raise AssertionError(
                f"{what}: table {b} seat {s} mask differs at action {j} ({env.codec.describe(j)}): "
                f"reference {ref_mask[s, j]} batched {mask[s, j]} (tick {env.engine.tick})"
            )

    obs, masks = res.observations.cpu().numpy(), res.masks.cpu().numpy()
    for b in range(num_envs):
        attach(b)
        compare(b, obs[b], masks[b], "reset")
    sampler = BiasedSampler(batched, np.random.default_rng(seed))
    bot_seats = set(cfg.get("bot_seats", ()))
    agent_seat = refs[0].agent_seat
    for _ in range(ticks):
        actions = sampler(masks)
        res = batched.step(torch.as_tensor(actions))
        distribute_draws(batched.draws, replays, n, deck)
        info = res.info
        done = info["done"].cpu().numpy()
        obs, masks = res.observations.cpu().numpy(), res.masks.cpu().numpy()
        rewards = res.rewards.cpu().numpy()
        term, trunc = res.terminations.cpu().numpy(), res.truncations.cpu().numpy()
        if done.any():
            fobs, fmask = info["final_observation"].cpu().numpy(), info["final_mask"].cpu().numpy()
            fscores = info["final_scores"].cpu().numpy()
        scores = batched.scores.cpu().numpy()
        for b in range(num_envs):
            env = refs[b]
            for seat in bot_seats:
                env.drive_bot(seat, int(actions[b, seat]))
            act = {a: int(actions[b, s]) for a, s in agent_seat.items()}
            _, ref_rew, ref_term, ref_trunc, _ = env.step(act)
            replays[b].assert_drained(f"table {b} tick {env.engine.tick - 1}")
            _events_to_counts(env.last_tick.events, env.engine, counts)
            for a, s in agent_seat.items():
                if np.float32(ref_rew[a]) != rewards[b, s]:
                    raise AssertionError(f"table {b} seat {s}: reward {ref_rew[a]} vs {rewards[b, s]}")
            a0 = next(iter(agent_seat))
            if bool(ref_term[a0]) != bool(term[b]) or bool(ref_trunc[a0]) != bool(trunc[b]):
                raise AssertionError(
                    f"table {b}: termination {ref_term[a0]}/{ref_trunc[a0]} vs {term[b]}/{trunc[b]}"
                )
            counts["ticks"] += 1
            if done[b]:
                counts["terminated" if term[b] else "Q truncated (max_rounds)"] += 1
                compare(b, fobs[b], fmask[b], "final")
                if list(env.engine.scores) != fscores[b].tolist():
                    raise AssertionError(f"table {b}: scores {env.engine.scores} vs {fscores[b]}")
                episodes[b] += 1
                attach(b)
                sampler.new_style(np.array([b]))
                compare(b, obs[b], masks[b], "after reset")
            else:
                compare(b, obs[b], masks[b], "step")
                if list(env.engine.scores) != scores[b].tolist():
                    raise AssertionError(f"table {b}: scores {env.engine.scores} vs {scores[b]}")
            _extra_counts(env, counts)
    return counts


def _extra_counts(env: QuatroParallelEnv, counts: Counter) -> None:
    eng = env.engine
    events = env.last_tick.events
    kinds = {ev.kind for ev in events}
    if "round_started" in kinds:
        if all(eng.ready[s] for s in range(eng.n) if eng.connected[s]) and any(
            ev.kind == "ready" for ev in events
        ):
            counts["Q8 start: all ready"] += 1
        else:
            counts["Q8 start: sign phase timed out (or all ready earlier)"] += 1
    if "sign_phase_started" in kinds:
        counts[
            "Q11 next round: host start" if "start_requested" in kinds else "Q11 next round: pause ended"
        ] += 1
    if "disconnected" in kinds and eng.vote is not None and eng.vote.absent:
        counts["Q20 a voter disconnected during the vote"] += 1
    for ev in events:
        if ev.kind == "call" and ev.data["kind"] == "quatro" and is_quartet(eng.hands[ev.seat]):
            counts["Q18 call with own quartet went through"] += 1


def summarize(counts: Counter) -> str:
    return "\n".join(f"  {k:<55} {v}" for k, v in sorted(counts.items()))


def main() -> None:  # pragma: no cover - command line
    p = argparse.ArgumentParser()
    p.add_argument("--ticks", type=int, default=20000, help="table-ticks per player count and config")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--first-seed", type=int, default=0, help="play seeds first-seed .. + seeds - 1")
    p.add_argument("--device", default="cpu")
    p.add_argument("--players", default="4,6,8")
    p.add_argument("--configs", default="short,odd,default")
    p.add_argument("--backend", default="auto", help="auto, numba (CPU loops) or cuda (GPU kernels)")
    p.add_argument(
        "--random-configs",
        type=int,
        default=0,
        help="instead: this many configs drawn by random_config(seed), seeds first-seed onwards, "
        "each --envs tables for --ticks ticks",
    )
    args = p.parse_args()
    if args.random_configs:
        counts, t0 = Counter(), time.time()
        for seed in range(args.first_seed, args.first_seed + args.random_configs):
            n, cfg = random_config(seed)
            run(n, cfg, args.envs, args.ticks, seed, args.device, counts, args.backend)
            print(f"config {seed}: {n} players {cfg}: identical", flush=True)
        took = time.time() - t0
        print(f"== {args.random_configs} configs: {counts['ticks']} table-ticks identical ({took:.0f} s)")
        print(summarize(counts))
        return
    for n in map(int, args.players.split(",")):
        counts: Counter = Counter()
        t0 = time.time()
        for name in args.configs.split(","):
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                run(
                    n,
                    name,
                    args.envs,
                    max(1, args.ticks // (args.envs * args.seeds)),
                    seed,
                    args.device,
                    counts,
                    args.backend,
                )
        print(f"== {n} players: {counts['ticks']} table-ticks identical ({time.time() - t0:.1f} s)")
        print(summarize(counts))


if __name__ == "__main__":  # pragma: no cover
    main()
