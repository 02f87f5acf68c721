"""Kwartet's table as a picture (``render_mode="rgb_array"``): the spectator's view."""

from __future__ import annotations

import numpy as np

from quatro_env.render.canvas import TABLE_HEIGHT as HEIGHT
from quatro_env.render.canvas import TABLE_WIDTH as WIDTH
from quatro_env.render.canvas import TEAM_COLOURS, Canvas, seat_box, seat_positions


def draw_kwartet(game) -> np.ndarray:
    """Every hand (spectator), scores, exposed families, stock and the last events."""
    from quatro_env.kwartet.render import describe_event

    c = Canvas(WIDTH, HEIGHT)
    n = game.num_players
    config = game.config
    status = "over" if game.over else ("truncated" if game.truncated else f"player_{game.to_move} to move")
    c.draw.rectangle((0, 0, WIDTH, 30), fill=(38, 50, 56))
    c.text(
        (10, 7),
        f"Kwartet  request {game.requests}/{config.max_requests}  stock {len(game.stock)}  {status}",
        14,
        (255, 255, 255),
        bold=True,
    )
    c.felt((120, 100, WIDTH - 120, HEIGHT - 100))
    exposed = [
        f"{game.deck.family_names[f]}: player_{game.exposed_by[f]}"
        for f in np.flatnonzero(game.exposed_by >= 0)
    ]
    c.text(
        (WIDTH // 2, HEIGHT // 2 - 10),
        "exposed: " + (", ".join(exposed) or "-"),
        12,
        (255, 255, 255),
        anchor="mm",
    )
    rows = game.events.rows
    for k, row in enumerate(rows[max(0, len(rows) - 3) :]):
        c.text(
            (WIDTH // 2, HEIGHT // 2 + 12 + 16 * k),
            describe_event(game, *(int(x) for x in row)),
            11,
            (255, 255, 255),
            anchor="mm",
        )
    for seat, (x, y) in enumerate(seat_positions(n, WIDTH / 2, HEIGHT / 2 + 10, 290, 200)):
        cards = [game.deck.name(int(card)) for card in np.flatnonzero(game.hands[seat])]
        active = seat == game.to_move and not (game.over or game.truncated)
        dealer = " (dealer)" if seat == game.dealer else ""
        seat_box(
            c,
            x,
            y,
            236,
            f"player_{seat}{dealer}",
            cards,
            [f"score {int(game.scores[seat])}, {int(game.hand_sizes[seat])} cards"],
            TEAM_COLOURS[seat % len(TEAM_COLOURS)],
            active,
        )
    return c.array()
