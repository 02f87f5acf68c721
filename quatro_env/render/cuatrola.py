"""Cuatrola's table as a picture (``render_mode="rgb_array"``): the spectator's view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quatro_env.render.canvas import TABLE_HEIGHT as HEIGHT
from quatro_env.render.canvas import TABLE_WIDTH as WIDTH
from quatro_env.render.canvas import TEAM_COLOURS, Canvas, seat_box, seat_positions


def draw_cuatrola(game, names: Sequence[str]) -> np.ndarray:
    """Every hand (spectator), trumps, the contract, the current trick and the match score."""
    from quatro_env.cuatrola.cards import CARD_CODES, SUITS
    from quatro_env.cuatrola.scoring import CONTRACT_NAMES
    from quatro_env.cuatrola.state import Phase

    c = Canvas(WIDTH, HEIGHT)
    c.draw.rectangle((0, 0, WIDTH, 30), fill=(38, 50, 56))
    c.text(
        (10, 7),
        f"Cuatrola  match {game.scores[0]} : {game.scores[1]} (to {game.target})  hand "
        f"{game.hand_number}  trumps {SUITS[game.trump]}",
        14,
        (255, 255, 255),
        bold=True,
    )
    c.felt((120, 100, WIDTH - 120, HEIGHT - 100))
    for k, (seat, card) in enumerate(zip(game.trick_seats, game.trick, strict=True)):
        c.card(WIDTH // 2 - 80 + 42 * k, HEIGHT // 2 - 30, CARD_CODES[card])
        c.text(
            (WIDTH // 2 - 63 + 42 * k, HEIGHT // 2 + 24), names[seat][-1:], 11, (255, 255, 255), anchor="mm"
        )
    if game.declarer >= 0:
        contract = f"{CONTRACT_NAMES[game.contract]} by {names[game.declarer]}"
    else:
        contract = "declaring" if game.phase == Phase.DECLARE else "no contract"
    c.text((WIDTH // 2, HEIGHT // 2 + 48), contract, 12, (255, 255, 255), anchor="mm")
    if game.phase == Phase.OVER:
        c.text(
            (WIDTH // 2, HEIGHT // 2 + 66),
            f"match over: pair {game.winner} wins",
            13,
            (255, 255, 255),
            bold=True,
            anchor="mm",
        )
    for seat, (x, y) in enumerate(seat_positions(4, WIDTH / 2, HEIGHT / 2 + 10, 280, 200)):
        cards = [CARD_CODES[card] for card in sorted(game.hands[seat])]
        out = " (sits out)" if seat == game.out_seat else ""
        seat_box(
            c,
            x,
            y,
            200,
            f"{names[seat]} · pair {seat & 1}{out}",
            cards,
            [f"tricks {game.tricks_won[seat]}"],
            TEAM_COLOURS[seat & 1],
            seat == game.to_act,
        )
    return c.array()
