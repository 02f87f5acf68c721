"""ANSI rendering: one screen per tick, with card faces and emojis."""

from __future__ import annotations

from collections.abc import Sequence

from quatro_env.quatro.cards import EMOJIS, card_label
from quatro_env.quatro.engine import Phase, QuatroEngine
from quatro_env.quatro.events import Event


def _cards(cards: Sequence[int]) -> str:
    return " ".join(f"{card_label(c):>3}" for c in cards) if cards else "—"


def render_table(engine: QuatroEngine, events: Sequence[Event] = ()) -> str:
    """The whole table as the omniscient observer sees it (hands included), then the tick's events."""
    e = engine
    lines = [
        f"tick {e.tick:>4}  round {e.round_index}  phase {Phase(e.phase).name.lower():5}  "
        f"ticks left {max(0, e.phase_end - e.tick + 1) if e.phase != Phase.OVER else 0:>3}  "
        f"scores {' '.join(f'T{t}:{s}' for t, s in enumerate(e.scores))}"
    ]
    lines.append(f"center: {_cards(e.center)}")
    for seat in range(e.n):
        team = e.team_of(seat)
        sign = e.team_sign[team]
        flags = []
        if not e.connected[seat]:
            flags.append("offline")
        if e.phase == Phase.SIGN and e.ready[seat]:
            flags.append("ready")
        if e.phase == Phase.PLAY and e.floor[seat]:
            shown = EMOJIS[e.emoji[seat]] if e.emoji[seat] is not None else "…"
            flags.append(f"floor {shown}")
        if e.is_bot[seat]:
            flags.append("bot")
        lines.append(
            f"  seat {seat} (T{team} sign {EMOJIS[sign] if sign is not None else '?'}): "
            f"{_cards(e.hands[seat])}  {' '.join(flags)}"
        )
    if e.vote is not None:
        lines.append(f"vote by seat {e.vote.proposer}: yes {sorted(e.vote.yes)} of {sorted(e.vote.voters)}")
    for ev in events:
        who = f"seat {ev.seat} " if ev.seat is not None else ""
        seen = "" if ev.public else f" (seen by {sorted(ev.visible_to)})"
        data = dict(ev.data)
        if "emoji" in data and data["emoji"] is not None:
            data["emoji"] = EMOJIS[data["emoji"]]
        for key in ("taken", "placed"):
            if key in data:
                data[key] = card_label(data[key])
        detail = " ".join(f"{k}={v}" for k, v in data.items() if k != "hands")
        lines.append(f"  · {who}{ev.kind} {detail}{seen}")
    return "\n".join(lines)
