"""ANSI text view of the whole table (all hands shown: it is the spectator's view)."""

from __future__ import annotations

from collections.abc import Sequence

from quatro_env.cuatrola.cards import CARD_CODES, CARD_SUIT, SUITS
from quatro_env.cuatrola.scoring import CONTRACT_NAMES
from quatro_env.cuatrola.state import CuatrolaGame, Phase

_SUIT_COLOURS = (
    "\033[33m",
    "\033[31m",
    "\033[34m",
    "\033[32m",
)  # oros yellow, copas red, espadas blue, bastos green
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _cards(cards: Sequence[int]) -> str:
    if not cards:
        return "-"
    return " ".join(f"{_SUIT_COLOURS[CARD_SUIT[c]]}{CARD_CODES[c]}{_RESET}" for c in sorted(cards))


def render_ansi(game: CuatrolaGame, names: Sequence[str]) -> str:
    """A few lines describing the match, the hand and the current trick, with coloured suits."""
    lines = [
        f"{_BOLD}Cuatrola{_RESET}  match {game.scores[0]} : {game.scores[1]} "
        f"(pairs 0+2 : 1+3, to {game.target})  hand {game.hand_number}",
        f"dealer {names[game.dealer]}, mano {names[game.mano]}; trumps {_SUIT_COLOURS[game.trump]}"
        f"{SUITS[game.trump]}{_RESET} (shown {_cards([game.shown_card])})",
    ]
    if game.phase == Phase.DECLARE:
        said = [
            f"{names[s]}: {'-' if d < 0 else ('pass' if d == 0 else CONTRACT_NAMES[d])}"
            for s, d in enumerate(game.declarations)
        ]
        lines.append("declarations: " + ", ".join(said))
    elif game.declarer >= 0:
        lines.append(
            f"contract: {CONTRACT_NAMES[game.contract]} by {names[game.declarer]} "
            f"({names[game.out_seat]} sits out)"
        )
    else:
        lines.append("contract: none (all four play for 1 point)")
    for seat in range(4):
        marker = ">" if seat == game.to_act else " "
        hand = _cards(game.hands[seat])
        if seat == game.out_seat:
            hand = f"{_DIM}{hand} (out){_RESET}"
        lines.append(f"{marker} {names[seat]} [pair {seat & 1}] tricks {game.tricks_won[seat]}  {hand}")
    trick = ", ".join(f"{names[s]} {_cards([c])}" for s, c in zip(game.trick_seats, game.trick, strict=True))
    lines.append(f"trick {min(game.tricks_done + 1, 5)}: {trick or '-'}")
    sung = ", ".join(f"{SUITS[s]} by {names[seat]}" for s, seat in enumerate(game.sung) if seat >= 0)
    lines.append(
        f"hand points: pair 0 {game.hand_points(0)}, pair 1 {game.hand_points(1)}; cantes: {sung or '-'}"
    )
    if game.phase == Phase.CANTE:
        lines.append(f"cante window: {names[game.to_act]} sings or passes")
    if game.phase == Phase.OVER:
        lines.append(f"{_BOLD}match over: pair {game.winner} wins{_RESET}")
    return "\n".join(lines)
