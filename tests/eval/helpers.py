"""A bare table for bot tests: the reference engine, bots on some seats, scripted actions on others."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from quatro_env.quatro import ActionKind, QuatroConfig, QuatroEngine
from quatro_env.quatro.bots import BOT_POLICIES
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.scripted import apply_options


class Table:
    """``bots[seat]``: a bot name or instance; other seats play ``script(seat, tick)`` (default: no-op)."""

    def __init__(
        self,
        bots: Mapping[int, object],
        n: int = 4,
        position: Mapping | None = None,
        script: Callable[[int, int], int] | None = None,
        seed: int = 0,
        **config,
    ) -> None:
        self.engine = QuatroEngine(QuatroConfig(num_players=n, **config))
        self.codec = self.engine.codec
        self.enc = ObservationEncoder(n)
        self.n = n
        self.bots = {s: (BOT_POLICIES[b](n, seed + s) if isinstance(b, str) else b) for s, b in bots.items()}
        for s, b in self.bots.items():
            b.reset(seed + s)
        self.script = script or (lambda seat, tick: 0)
        self.obs = np.zeros((n, self.enc.obs_dim), np.uint8)
        self.masks = np.zeros((n, self.codec.num_actions), np.int8)
        events = self.engine.reset(seed)
        if position is not None:
            apply_options(self.engine, {"position": position})
        self.enc.encode(self.engine, events, (), self.obs)
        self.log: list[tuple[int, list[int], list]] = []  # (tick, actions, events)

    def step(self) -> list:
        e = self.engine
        for s in range(self.n):
            e.legal_mask(s, self.masks[s])
        actions = []
        for s in range(self.n):
            a = self.bots[s].act(self.obs[s], self.masks[s]) if s in self.bots else self.script(s, e.tick)
            assert self.masks[s, a], f"seat {s} chose illegal {self.codec.describe(a)} at tick {e.tick}"
            actions.append(a)
        tick = e.tick
        result = e.step(actions)
        self.enc.encode(e, result.events, result.order, self.obs)
        self.log.append((tick, actions, result.events))
        return result.events

    def run_until(self, predicate: Callable[[list], bool], max_ticks: int) -> list:
        for _ in range(max_ticks):
            events = self.step()
            if predicate(events) or self.engine.match_over:
                return events
        raise AssertionError(f"condition not met within {max_ticks} ticks")

    def kinds_played(self, seat: int) -> set[ActionKind]:
        return {self.codec.kinds[actions[seat]] for _, actions, _ in self.log}


def first(events: list, kind: str, seat: int | None = None):
    for ev in events:
        if ev.kind == kind and (seat is None or ev.seat == seat):
            return ev
    return None


#: the short matches of the secrecy tests: 30 s rounds, 2 points to win
SHORT_MATCH = {"round_seconds": 30, "points_to_win": 2}


def honest_vs_counter(matches: int):
    """The decoder data of ``honest`` (slot 0) against ``counter`` over ``matches`` :data:`SHORT_MATCH`
    matches of at most 4 rounds."""
    from quatro_env.eval import secrecy
    from quatro_env.eval.policies import as_policy
    from quatro_env.eval.runner import MatchRunner

    cfg = QuatroConfig(num_players=4, **SHORT_MATCH)
    runner = MatchRunner(cfg, [as_policy("honest"), as_policy("counter")], max_rounds=4)
    return secrecy.decoder_data([runner.play(m, 0, record_views=True) for m in range(matches)], 0, 4)
