"""ANSI (plain-text) rendering of the full table: a spectator's view including every hand."""

from __future__ import annotations

import numpy as np

from quatro_env.kwartet.events import DRAW, EXPOSE, HIT, MISS
from quatro_env.kwartet.game import KwartetGame


def describe_event(game: KwartetGame, kind: int, actor: int, target: int, value: int) -> str:
    """One public event as a sentence (the drawn card of a DRAW is private and not shown)."""
    if kind in (HIT, MISS):
        outcome = "got it" if kind == HIT else "miss"
        return f"player_{actor} asked player_{target} for {game.deck.name(value)}: {outcome}"
    if kind == EXPOSE:
        return f"player_{actor} exposed the {game.deck.family_names[value]} family"
    if kind == DRAW:
        return f"player_{actor} drew from the stock"
    raise ValueError(f"unknown event kind {kind}")


def render_ansi(game: KwartetGame, last_events: int = 3) -> str:
    config = game.config
    status = "over" if game.over else ("truncated" if game.truncated else f"player_{game.to_move} to move")
    lines = [
        f"Kwartet: {config.num_players} players, {config.num_families} families, "
        f"request {game.requests}/{config.max_requests}, stock {len(game.stock)}, {status}"
    ]
    for seat in range(game.num_players):
        marker = ">" if seat == game.to_move and not (game.over or game.truncated) else " "
        dealer = " (dealer)" if seat == game.dealer else ""
        cards = " ".join(game.deck.name(int(c)) for c in np.flatnonzero(game.hands[seat])) or "-"
        score, size = game.scores[seat], game.hand_sizes[seat]
        lines.append(f"{marker} player_{seat}{dealer}: score {score}, {size} cards: {cards}")
    exposed = [
        f"{game.deck.family_names[family]}:player_{game.exposed_by[family]}"
        for family in np.flatnonzero(game.exposed_by >= 0)
    ]
    lines.append("exposed: " + (" ".join(exposed) or "-"))
    rows = game.events.rows
    for row in rows[max(0, len(rows) - last_events) :]:
        lines.append("  " + describe_event(game, *(int(x) for x in row)))
    return "\n".join(lines)
