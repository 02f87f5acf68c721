"""Kwartet and Cuatrola tables as pictures (``render_mode="rgb_array"``): the spectator's view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quatro_env.render.canvas import INK, TEAM_COLOURS, Canvas, seat_positions

WIDTH, HEIGHT = 800, 600


def _seat_box(
    c: Canvas,
    x: int,
    y: int,
    w: int,
    title: str,
    cards: Sequence[str],
    lines: Sequence[str],
    colour,
    active: bool,
) -> None:
    rows = max(1, (len(cards) + 7) // 8)
    h = 30 + 30 * rows + 16 * len(lines)
    c.box(
        (x - w // 2, y - h // 2, x + w // 2, y + h // 2),
        (255, 255, 255),
        (242, 193, 78) if active else colour,
        width=5 if active else 3,
    )
    top = y - h // 2
    c.text((x - w // 2 + 8, top + 5), title, 13, bold=True)
    for k, label in enumerate(cards):
        cx = x - w // 2 + 8 + 28 * (k % 8)
        cy = top + 24 + 30 * (k // 8)
        c.card(cx, cy, label, w=26, h=28)
    for k, line in enumerate(lines):
        c.text((x - w // 2 + 8, top + 28 + 30 * rows + 16 * k), line, 11, INK)


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
        _seat_box(
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
        _seat_box(
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
