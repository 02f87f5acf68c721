"""What a replay stores and shows: the omniscient state, and one seat's view decoded from its observation.

Two sources, kept apart on purpose:

* :func:`engine_state` reads the engine (everything, hidden information included): it is the
  omniscient record of a tick and feeds the omniscient view and the ``rgb_array`` picture;
* :func:`decode_observation` reads *only* one seat's egocentric observation vector (Q26, Q27) and
  turns it back into named fields with absolute seat and team numbers. A seat view built from it
  cannot hold anything the seat did not observe, which is what makes a per-seat replay leak-free.

The field layout comes from ``ObservationEncoder`` (names and sizes), never hard-coded here.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from quatro_env.quatro.cards import EMOJIS, VALUE_LABELS, card_label, is_quartet, num_values
from quatro_env.quatro.encoding import NO_PULSE_AGE, ObservationEncoder
from quatro_env.quatro.engine import Phase, QuatroEngine

#: fields of four card slots (each a one-hot over the n + 1 values)
_CARD_FIELDS = frozenset({"hand", "center", "revealed_hand"})
#: one-hot fields: decoded to the index of the hot bit, or None
_ONE_HOT_FIELDS = frozenset(
    {
        "sign",
        "emoji",
        "phase",
        "pulse_emoji",
        "last_call",
        "revealed_sign",
        "taken",
        "placed",
        "exchange_slot",
    }
)
#: multi-hot fields: decoded to the list of hot indices
_MULTI_HOT_FIELDS = frozenset({"rejected_slot"})
_CALL_KINDS = ("quatro", "contra", "blank")


@cache
def _encoder(num_players: int) -> ObservationEncoder:
    return ObservationEncoder(num_players)


def _decode_block(obs: np.ndarray, start: int, fields, v: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pos = start
    for name, size in fields:
        chunk = obs[pos : pos + size]
        pos += size
        if name in _CARD_FIELDS:
            slots = chunk.reshape(4, v)
            out[name] = [int(np.argmax(s)) if s.any() else None for s in slots]
        elif name in _ONE_HOT_FIELDS:
            nz = np.flatnonzero(chunk)
            out[name] = int(nz[0]) if nz.size else None
        elif name in _MULTI_HOT_FIELDS:
            out[name] = [int(i) for i in np.flatnonzero(chunk)]
        elif size == 1:
            out[name] = int(chunk[0])
        else:  # a field this module does not know yet: keep its raw values rather than guess
            out[name] = [int(x) for x in chunk]
    return out


def decode_observation(obs: np.ndarray, seat: int, num_players: int) -> dict[str, Any]:
    """Seat ``seat``'s observation vector as named fields, seats and teams made absolute.

    The seat knows its own number, so turning "r places clockwise" into an absolute seat adds no
    information. Everything else comes from ``obs`` alone.
    """
    enc = _encoder(num_players)
    obs = np.asarray(obs)
    if obs.shape != (enc.obs_dim,):
        raise ValueError(f"observation: expected shape ({enc.obs_dim},), got {obs.shape}")
    n, nt, v = num_players, num_players // 2, num_values(num_players)
    p, g, tb, sb = enc.private.size, enc.table.size, enc.team.size, enc.seat.size
    view: dict[str, Any] = {"seat": seat, "team": seat % nt}
    view["self"] = _decode_block(obs, 0, enc.private.fields, v)
    view["table"] = _decode_block(obs, p, enc.table.fields, v)
    teams: list[dict[str, Any]] = [{} for _ in range(nt)]
    for k in range(nt):
        block = _decode_block(obs, p + g + k * tb, enc.team.fields, v)
        teams[(seat + k) % nt] = {"team": (seat + k) % nt, **block}
    seats: list[dict[str, Any]] = [{} for _ in range(n)]
    for r in range(n):
        block = _decode_block(obs, p + g + nt * tb + r * sb, enc.seat.fields, v)
        seats[(seat + r) % n] = {"seat": (seat + r) % n, **block}
    view["teams"], view["seats"] = teams, seats
    return view


def engine_state(engine: QuatroEngine) -> dict[str, Any]:
    """The omniscient state of the table between two ticks, as JSON-ready data."""
    e = engine
    vote = None
    if e.vote is not None:
        vote = {
            "proposer": e.vote.proposer,
            "voters": sorted(e.vote.voters),
            "yes": sorted(e.vote.yes),
            "absent": sorted(e.vote.absent),
            "deadline": e.vote.deadline,
        }
    call = None
    if e.last_call is not None:
        c = e.last_call
        call = {
            "kind": c.kind,
            "caller": c.caller,
            "target_team": c.target_team,
            "scoring_teams": list(c.scoring_teams),
        }
    return {
        "tick": e.tick,
        "phase": Phase(e.phase).name.lower(),
        "phase_end": e.phase_end,
        "round": e.round_index,
        "scores": list(e.scores),
        "winners": list(e.winners),
        "hands": [list(h) for h in e.hands],
        "center": list(e.center),
        "signs": list(e.team_sign),
        "connected": list(e.connected),
        "ready": list(e.ready),
        "floor": list(e.floor),
        "emoji": list(e.emoji),
        "last_pulse": [None if p is None else list(p) for p in e.last_pulse],
        "next_exchange_tick": list(e.next_exchange_tick),
        "next_floor_tick": list(e.next_floor_tick),
        "reminder": [None if r is None else list(r) for r in e.reminder],
        "vote": vote,
        "reshuffled_this_round": e.reshuffled_this_round,
        "revealed": e.revealed,
        "last_call": call,
    }


# ---------------------------------------------------------------------------- display frames
# A display frame is what the viewer, the live page and the rgb_array picture draw: the same keys
# for both kinds of view. A hidden item is ``None`` (a seat view) — never present and masked.


def _emoji(index: int | None) -> str | None:
    return None if index is None else EMOJIS[index]


def _value_label(value: int | None) -> str | None:
    return None if value is None else VALUE_LABELS[value]


def omniscient_frame(state: dict[str, Any], events: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """The display frame of the whole table (every hand and sign), from :func:`engine_state`."""
    nt = n // 2
    tick = state["tick"]
    playing = state["phase"] == "play"
    seats = []
    for s in range(n):
        pulse = state["last_pulse"][s]
        hand = state["hands"][s]
        seats.append(
            {
                "seat": s,
                "team": s % nt,
                "hand": [card_label(c) for c in hand] if hand else [],
                "quartet": bool(hand) and is_quartet(hand),
                "connected": state["connected"][s],
                "ready": state["ready"][s],
                "floor": playing and state["floor"][s],
                "emoji": _emoji(state["emoji"][s]) if playing else None,
                "pulse": _emoji(pulse[0]) if pulse else None,
                "pulse_age": tick - 1 - pulse[1] if pulse else None,
                "exchange_wait": max(0, state["next_exchange_tick"][s] - tick) if playing else 0,
                "floor_wait": max(0, state["next_floor_tick"][s] - tick) if playing else 0,
            }
        )
    vote = state["vote"]
    call = state["last_call"]
    return {
        "tick": tick,
        "phase": state["phase"],
        "phase_left": max(0, state["phase_end"] - tick + 1) if state["phase"] != "over" else 0,
        "round": state["round"],
        "scores": state["scores"],
        "signs": [_emoji(x) for x in state["signs"]],
        "center": [card_label(c) for c in state["center"]],
        "seats": seats,
        "vote": None
        if vote is None
        else {"proposer": vote["proposer"], "voters": vote["voters"], "yes": vote["yes"]},
        "call": None
        if call is None
        else {
            "kind": call["kind"],
            "caller": call["caller"],
            "target_team": call["target_team"],
            "scoring_teams": call["scoring_teams"],
        },
        "events": [describe_event(ev) for ev in events],
        "winners": state["winners"],
    }


def seat_frame(view: dict[str, Any], n: int) -> dict[str, Any]:
    """The display frame of one seat, built only from :func:`decode_observation` of its observation."""
    nt = n // 2
    me, table = view["seat"], view["table"]
    phase = Phase(table["phase"]).name.lower() if table["phase"] is not None else "sign"
    revealed = any(v is not None for s in view["seats"] for v in s["revealed_hand"])
    own_hand = [_value_label(v) for v in view["self"]["hand"] if v is not None]
    seats = []
    for s in view["seats"]:
        mine = s["seat"] == me
        hand = own_hand if mine else None
        if revealed:
            hand = [_value_label(v) for v in s["revealed_hand"] if v is not None]
        age = s["pulse_age"]
        seats.append(
            {
                "seat": s["seat"],
                "team": s["seat"] % nt,
                "hand": hand,
                "quartet": hand is not None and len(hand) == 4 and len(set(hand)) == 1,
                "connected": bool(s["connected"]),
                "ready": bool(s["ready"]),
                "floor": bool(s["floor"]),
                "emoji": _emoji(view["self"]["emoji"]) if mine and phase == "play" else None,
                "pulse": _emoji(s["pulse_emoji"]),
                "pulse_age": None if age == NO_PULSE_AGE else age,
                "exchange_wait": s["exchange_wait"],
                "floor_wait": s["floor_wait"],
            }
        )
    signs: list[str | None] = [None] * nt
    signs[view["team"]] = _emoji(view["self"]["sign"])
    for t in view["teams"]:
        if t["revealed_sign"] is not None:
            signs[t["team"]] = _emoji(t["revealed_sign"])
    vote = None
    if table["vote_open"]:
        proposer = next((s["seat"] for s in view["seats"] if s["proposer"]), None)
        vote = {
            "proposer": proposer,
            "voters": [s["seat"] for s in view["seats"] if s["voter"]],
            "yes": [s["seat"] for s in view["seats"] if s["said_yes"]],
        }
    call = None
    if table["last_call"] is not None:
        caller = next((s["seat"] for s in view["seats"] if s["caller"]), None)
        accused = next((t["team"] for t in view["teams"] if t["accused"]), None)
        call = {
            "kind": _CALL_KINDS[table["last_call"]],
            "caller": caller,
            "target_team": accused,
            "scoring_teams": [t["team"] for t in view["teams"] if t["scored"]],
        }
    return {
        "tick": None,  # the observation holds no absolute tick; the replay adds it (public)
        "phase": phase,
        "phase_left": table["phase_left"],
        "round": table["round"],
        "scores": [t["score"] for t in view["teams"]],
        "signs": signs,
        "center": [_value_label(v) for v in table["center"] if v is not None],
        "seats": seats,
        "vote": vote,
        "call": call,
        "events": _seat_events(view),
        "reminder": bool(view["self"]["reminder"]),
        "rejected_slot": view["self"]["rejected_slot"],
        "winners": [],
    }


def _seat_events(view: dict[str, Any]) -> list[str]:
    """The tick's public events as the seat saw them (the observation's this-tick fields), in order."""
    lines = []
    for s in sorted(view["seats"], key=lambda s: (s["order"] == 0, s["order"])):
        who = f"seat {s['seat']}"
        if s["exchanged"]:
            lines.append(
                f"{who} exchange slot {s['exchange_slot']}: took {_value_label(s['taken'])} "
                f"placed {_value_label(s['placed'])}"
            )
        for flag, text in (
            ("took_floor", "took the floor"),
            ("released_floor", "released the floor"),
            ("proposed", "proposed a reshuffle"),
            ("voted_yes", "voted yes"),
            ("voted_no", "voted no"),
            ("hand_replaced", "had its dealt hand replaced (Q5)"),
        ):
            if s[flag]:
                lines.append(f"{who} {text}")
        if s["pulse_age"] == 0 and s["pulse_emoji"] is not None:
            lines.append(f"{who} pulse {EMOJIS[s['pulse_emoji']]}")
    if view["self"]["rejected_slot"]:
        lines.append(f"your exchange at center slot {view['self']['rejected_slot'][0]} was rejected (Q14)")
    if view["table"]["reshuffled"]:
        lines.append("reshuffle")
    if view["table"]["vote_failed"]:
        lines.append("vote failed")
    return lines


def describe_event(ev: dict[str, Any]) -> str:
    """One recorded event as a line of text (card ids and emoji indices turned into faces)."""
    data = dict(ev.get("data") or {})
    for key in ("emoji", "sign"):
        if data.get(key) is not None:
            data[key] = EMOJIS[data[key]]
    for key in ("taken", "placed"):
        if key in data:
            data[key] = card_label(data[key])
    data.pop("hands", None)
    who = f"seat {ev['seat']} " if ev.get("seat") is not None else ""
    seen = "" if ev.get("visible_to") is None else f" (seen by {ev['visible_to']})"
    detail = " ".join(f"{k}={v}" for k, v in data.items())
    return f"{who}{ev['kind']} {detail}".rstrip() + seen
