"""Shared helpers of the Quatro rule tests: scripted positions, one-tick steps, observation fields."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

import quatro_env
from quatro_env.quatro import ActionKind as K
from quatro_env.quatro.cards import assign_suits, card_value, is_quartet, parse_cards

__all__ = [
    "K",
    "act",
    "agent",
    "card_value",
    "deal_ids",
    "events",
    "field",
    "idle",
    "is_quartet",
    "kinds",
    "make_env",
    "neutral_position",
    "no_triple_deal",
    "play",
    "quartet_position",
    "start_play",
    "step",
    "values",
]


def make_env(n: int = 4, **config):
    return quatro_env.parallel_env(num_players=n, **config)


def agent(seat: int) -> str:
    return f"player_{seat}"


def act(env, kind: K, arg=None) -> int:
    """The action index of ``kind(arg)``."""
    return env.codec.encode(kind, arg)


def step(env, actions: Mapping[int, int] | None = None, order: Sequence[int] | None = None):
    """Play one tick: ``actions`` maps seats to action indices, every other agent plays the no-op."""
    if order is not None:
        env.engine.force_next_order(order)
    joint = dict.fromkeys(env.agents, 0)
    for seat, action in (actions or {}).items():
        joint[agent(seat)] = action
    return env.step(joint)


def idle(env, ticks: int):
    """``ticks`` ticks of no-ops; returns the last step's result."""
    out = None
    for _ in range(ticks):
        out = step(env)
    return out


def events(env, kind: str | None = None) -> list:
    return [e for e in env.last_tick.events if kind is None or e.kind == kind]


def kinds(env) -> list[str]:
    return [e.kind for e in env.last_tick.events]


def values(cards: Sequence[int]) -> list[int]:
    return [card_value(c) for c in cards]


def field(env, obs, name: str) -> np.ndarray:
    """A named field: ``self.hand``, ``table.center``, ``team[1].score``, ``seat[2].floor``."""
    enc = env.encoder
    prefix, fname = name.rsplit(".", 1)
    if prefix == "self":
        block = enc.private
    elif prefix == "table":
        block = enc.table
    elif prefix.startswith("team["):
        block = enc.team
    else:
        block = enc.seat
    size = dict(block.fields)[fname]
    vec = obs["observation"] if isinstance(obs, Mapping) else obs
    start = enc.offsets[name]
    return np.asarray(vec[start : start + size])


def deal_ids(hands: Sequence[Sequence], center: Sequence, n: int) -> list[int]:
    """Card ids of a full deal (seat 0's four cards first, the center last) from value labels/indices."""
    groups = [parse_cards(h, n, f"hands[{s}]") for s, h in enumerate(hands)]
    groups.append(parse_cards(center, n, "center"))
    return [c for g in assign_suits(groups, n) for c in g]


def no_triple_deal(n: int) -> list[int]:
    """A deal in which no seat holds two cards of one value (four consecutive values each)."""
    return [4 * v + s for s in range(4) for v in range(n + 1)]


def quartet_position(n: int, quartet_seats: Sequence[int] = ()) -> tuple[list[list[int]], list[int]]:
    """Hands (value indices) and center where exactly ``quartet_seats`` hold a quartet (values 0, 1, …)."""
    nv = n + 1
    hands: list[list[int] | None] = [None] * n
    for i, seat in enumerate(quartet_seats):
        hands[seat] = [i] * 4
    rest_values = list(range(len(quartet_seats), nv))
    pool = [v for _ in range(4) for v in rest_values]
    holders = [s for s in range(n) if hands[s] is None] + ["center"]
    center: list[int] = []
    for k, holder in enumerate(holders):
        chunk = pool[4 * k : 4 * k + 4]
        if holder == "center":
            center = chunk
        else:
            hands[holder] = chunk
    assert all(not is_quartet([4 * v for v in h]) for s, h in enumerate(hands) if s not in quartet_seats)
    return hands, center


def neutral_position(n: int = 4) -> tuple[list[list[int]], list[int]]:
    """No quartet anywhere."""
    return quartet_position(n, ())


def play(env, hands=None, center=None, *, seed: int = 0, order=None, deal=None, **position):
    """Reset ``env`` into a scripted play position (default: no quartet anywhere)."""
    if hands is None:
        hands, center = neutral_position(env.n)
    options: dict = {"position": {"phase": "play", "hands": hands, "center": center, **position}}
    if order is not None:
        options["order"] = order
    if deal is not None:
        options["deal"] = deal
    return env.reset(seed=seed, options=options)


def start_play(env, seed: int = 0, deal=None):
    """Reset and confirm ready for every agent: the round starts at the end of that first tick."""
    env.reset(seed=seed, options={"deal": deal} if deal is not None else None)
    ready = act(env, K.READY)
    return step(env, {env.agent_seat[a]: ready for a in env.agents})
