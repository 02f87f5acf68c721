"""Egocentric observation vector of one seat; never shows another seat's hand.

Seats are relative to the observer in play order (C1: seat ``i`` plays before ``i + 1``):
``0`` self, ``1`` next to play, ``2`` partner, ``3`` previous. Pairs are relative too:
``0`` own pair, ``1`` opponents. All values lie in ``[0, 1]``; counts are divided by their
maximum. ``LAYOUT`` is the single source of the field order and sizes; ``SLICES`` the offsets.
"""

from __future__ import annotations

import numpy as np

from quatro_env.cuatrola.cards import NUM_CARDS, NUM_SUITS
from quatro_env.cuatrola.scoring import CANTE_POINTS, LAST_TRICK_BONUS, NUM_TRICKS, TRUMP_CANTE_POINTS
from quatro_env.cuatrola.state import CuatrolaGame, Phase

# The most hand points a pair can make: all cards, the last trick, and a cante after each of
# the first four tricks (one of them in trumps).
MAX_HAND_POINTS = 120 + LAST_TRICK_BONUS + TRUMP_CANTE_POINTS + 3 * CANTE_POINTS  # 230

LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_CARDS, "own cards, by card id"),
    ("trump_suit", NUM_SUITS, "one-hot trump suit"),
    ("shown_card", NUM_CARDS, "one-hot last card dealt (the dealer's, face up)"),
    ("dealer", 4, "one-hot relative seat of the dealer (mano is the next seat)"),
    ("phase", 4, "one-hot: declare, play, cante, over"),
    ("to_act", 4, "one-hot relative seat whose decision it is (zeros when over)"),
    ("declarations", 4 * 5, "per relative seat, one-hot: not yet spoken, pass, solo, cuatrola, quintola"),
    ("contract", 4, "one-hot standing contract: none, solo, cuatrola, quintola"),
    ("declarer", 4, "one-hot relative seat of the standing declarer (zeros if none)"),
    ("sitting_out", 4, "one-hot relative seat sitting out (zeros if none or still declaring)"),
    ("trick_number", NUM_TRICKS, "one-hot index of the current trick"),
    ("trick_leader", 4, "one-hot relative seat that led / leads the current trick"),
    ("current_trick", 4 * NUM_CARDS, "per relative seat, one-hot card it played in the current trick"),
    ("earlier_tricks", 4 * NUM_CARDS, "per relative seat, the cards it played in finished tricks"),
    ("won_cards", 2 * NUM_CARDS, "per relative pair, the cards it has won in tricks"),
    ("tricks_won", 2, f"per relative pair, tricks won / {NUM_TRICKS}"),
    ("hand_points", 2, f"per relative pair, card points + last trick + cantes / {MAX_HAND_POINTS}"),
    ("cantes", NUM_SUITS * 2, "per suit, per relative pair: 1 if that pair sang that suit"),
    ("match_score", 2, "per relative pair, match points / (target_score + 4)"),
)

SLICES: dict[str, slice] = {}
_offset = 0
for _name, _size, _ in LAYOUT:
    SLICES[_name] = slice(_offset, _offset + _size)
    _offset += _size
OBS_SIZE = _offset  # 311
del _offset, _name, _size

_HAND = SLICES["hand"].start
_TRUMP = SLICES["trump_suit"].start
_SHOWN = SLICES["shown_card"].start
_DEALER = SLICES["dealer"].start
_PHASE = SLICES["phase"].start
_TO_ACT = SLICES["to_act"].start
_DECL = SLICES["declarations"].start
_CONTRACT = SLICES["contract"].start
_DECLARER = SLICES["declarer"].start
_OUT = SLICES["sitting_out"].start
_TRICK_NO = SLICES["trick_number"].start
_LEADER = SLICES["trick_leader"].start
_CURRENT = SLICES["current_trick"].start
_EARLIER = SLICES["earlier_tricks"].start
_WON = SLICES["won_cards"].start
_TRICKS = SLICES["tricks_won"].start
_POINTS = SLICES["hand_points"].start
_CANTES = SLICES["cantes"].start
_SCORE = SLICES["match_score"].start


def encode_observation(game: CuatrolaGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (a fresh float32 array of ``OBS_SIZE``)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    # Element-wise writes: for a few dozen ones this beats building an index array.
    for c in game.hands[seat]:
        obs[_HAND + c] = 1.0
    obs[_TRUMP + game.trump] = 1.0
    obs[_SHOWN + game.shown_card] = 1.0
    obs[_DEALER + ((game.dealer - seat) & 3)] = 1.0
    obs[_PHASE + game.phase] = 1.0
    if game.to_act >= 0:
        obs[_TO_ACT + ((game.to_act - seat) & 3)] = 1.0
    for rel in range(4):
        s = (seat + rel) & 3
        obs[_DECL + 5 * rel + game.declarations[s] + 1] = 1.0
        base = _EARLIER + NUM_CARDS * rel
        for c in game.played[s]:
            obs[base + c] = 1.0
    if game.phase == Phase.DECLARE:
        contract, declarer = game.highest_declaration()
    else:
        contract, declarer = game.contract, game.declarer
    obs[_CONTRACT + contract] = 1.0
    if declarer >= 0:
        obs[_DECLARER + ((declarer - seat) & 3)] = 1.0
    if game.out_seat >= 0:
        obs[_OUT + ((game.out_seat - seat) & 3)] = 1.0
    obs[_TRICK_NO + min(game.tricks_done, NUM_TRICKS - 1)] = 1.0
    if game.leader >= 0:
        obs[_LEADER + ((game.leader - seat) & 3)] = 1.0
    for s, c in zip(game.trick_seats, game.trick, strict=True):
        obs[_CURRENT + NUM_CARDS * ((s - seat) & 3) + c] = 1.0
    own = seat & 1
    score_scale = 1.0 / (game.target + 4)
    for rel_pair in (0, 1):
        pair = own ^ rel_pair
        base = _WON + NUM_CARDS * rel_pair
        for c in game.won_cards[pair]:
            obs[base + c] = 1.0
        obs[_TRICKS + rel_pair] = (game.tricks_won[pair] + game.tricks_won[pair + 2]) / NUM_TRICKS
        obs[_POINTS + rel_pair] = game.hand_points(pair) / MAX_HAND_POINTS
        obs[_SCORE + rel_pair] = game.scores[pair] * score_scale
    for suit, singer in enumerate(game.sung):
        if singer >= 0:
            obs[_CANTES + 2 * suit + ((singer & 1) ^ own)] = 1.0
    return obs
