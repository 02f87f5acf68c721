"""What every compiled bot row shares (:mod:`quatro_env.bots.batched`): the draw slots, the parameter
entries, the observation positions and action indices read from the reference encoder and codec, and the
collector's row, which every collecting bot plays.

The rows read one seat's egocentric observation vector ``o`` at the positions :func:`layout` gives (by
field name, as :class:`~quatro_env.bots.base.ObservationView` does), never at hard-coded offsets.
"""

from __future__ import annotations

import numpy as np

from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba ships with the torch/train extras

    def njit(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda f: f)


# draw slots (columns of the per-tick uniform numbers); the order slots come last, one per value
D_SIGN, D_SWAP, D_COVER_P, D_COVER_E, D_CHOICE, D_ORDER = range(6)
# ``params`` entries, in the order BatchedBots fills them
(P_PATIENCE, P_SILENCE, P_STEADY, P_THRESHOLD, P_KEEP, P_COVER_RATE, P_PARTNER_DELAY, P_BEATS) = range(8)


def layout(num_players: int) -> dict[str, np.ndarray]:
    """Observation positions (from the reference encoder) and action indices, as int64 arrays."""
    from quatro_env.quatro.encoding import ObservationEncoder  # late: encoding imports the engine

    off = ObservationEncoder(num_players).offsets
    n = num_players
    codec = ActionCodec(n)
    per_seat = ("floor", "took_floor", "pulse_emoji", "pulse_age", "exchanged", "taken", "placed")
    actions = [
        codec.ranges[ActionKind.EXCHANGE].start,
        codec.encode(ActionKind.TAKE_FLOOR),
        codec.encode(ActionKind.RELEASE_FLOOR),
        codec.ranges[ActionKind.SHOW_EMOJI].start,
        codec.ranges[ActionKind.CHOOSE_SIGN].start,
        codec.encode(ActionKind.READY),
        codec.encode(ActionKind.QUATRO),
        codec.ranges[ActionKind.CONTRA].start,
        codec.encode(ActionKind.START_ROUND),
    ]
    calls = np.zeros(codec.num_actions, np.bool_)
    for kind in (ActionKind.QUATRO, ActionKind.CONTRA):
        r = codec.ranges[kind]
        calls[r.start : r.stop] = True
    return {
        "fields": np.array(
            [off["self.hand"], off["self.sign"], off["self.emoji"], off["table.phase"], off["table.center"]]
            + [off["table.reshuffled"]],
            np.int64,
        ),
        "seats": np.array([[off[f"seat[{r}].{f}"] for f in per_seat] for r in range(n)], np.int64),
        "actions": np.array(actions, np.int64),
        "calls": calls,
    }


# field columns of ``fields`` / ``seats`` and action columns of ``actions``
F_HAND, F_SIGN, F_EMOJI, F_PHASE, F_CENTER, F_RESHUFFLED = range(6)
S_FLOOR, S_TOOK, S_PULSE, S_AGE, S_EXCHANGED, S_TAKEN, S_PLACED = range(7)
A_EXCHANGE0, A_TAKE, A_RELEASE, A_SHOW0, A_SIGN0, A_READY, A_QUATRO, A_CONTRA1, A_START = range(9)
E = NUM_EMOJIS
NO_CARD = -1


@njit(cache=True)
def first_set(o, start, size):
    """Index of the first nonzero entry of ``o[start:start+size]``, or -1."""
    for i in range(size):
        if o[start + i]:
            return i
    return -1


@njit(cache=True)
def cards_of(o, start, v, out):
    """The values of a 4-slot one-hot block, in slot order; returns how many slots hold a card."""
    k = 0
    for i in range(4 * v):
        if o[start + i]:
            out[k] = i % v
            k += 1
    return k


@njit(cache=True)
def argmax_at(o, start, size):
    best, at = o[start], 0
    for i in range(1, size):
        if o[start + i] > best:
            best, at = o[start + i], i
    return at


@njit(cache=True)
def swap_action(give_slot, center, value, u_swap, act):
    slots = np.empty(4, np.int64)
    k = 0
    for c in range(4):
        if center[c] == value:
            slots[k] = c
            k += 1
    take = slots[int(u_swap * k)] if k > 1 else slots[0]
    return act[A_EXCHANGE0] + 4 * give_slot + take


@njit(cache=True)
def give_slot(hand, counts, order, exclude, cap):
    """The hand slot to give: min over slots not holding ``exclude`` (and of a value held at most
    ``cap`` times) of (count of its value, tie-break order, slot); -1 if none."""
    give = -1
    for h in range(4):
        if hand[h] == exclude or counts[hand[h]] > cap:
            continue
        key = (counts[hand[h]], order[hand[h]], h)
        if give < 0 or key < (counts[hand[give]], order[hand[give]], give):
            give = h
    return give


@njit(cache=True)
def collect(o, m, u, fields, act, v, target, waited, order, patience):
    """CollectorBot.collect; ``target``/``waited``: this row's state (length-1 views), ``order``:
    its tie-breaks."""
    hand = np.empty(4, np.int64)
    center = np.empty(4, np.int64)
    if cards_of(o, fields[F_HAND], v, hand) != 4 or cards_of(o, fields[F_CENTER], v, center) != 4:
        return 0
    counts = np.zeros(v, np.int64)
    in_center = np.zeros(v, np.int64)
    for i in range(4):
        counts[hand[i]] += 1
        in_center[center[i]] += 1
    best = counts.max()
    if best == 4:
        return 0
    t = -1  # max over x with counts[x] == best of (in_center[x], x == target, -order[x])
    for x in range(v):
        if counts[x] != best:
            continue
        key = (in_center[x], 1 if x == target[0] else 0, -order[x])
        if t < 0 or key > (in_center[t], 1 if t == target[0] else 0, -order[t]):
            t = x
    target[0] = t
    if in_center[t] == 0:
        waited[0] += 1
        if waited[0] < patience:
            return 0
        take_value = -1  # max over options of (counts[x], in_center[x], -order[x])
        for x in range(v):
            if not (in_center[x] and counts[x] >= 1):
                continue
            key = (counts[x], in_center[x], -order[x])
            if take_value < 0 or key > (counts[take_value], in_center[take_value], -order[take_value]):
                take_value = x
        if take_value < 0 or not m[act[A_EXCHANGE0]]:
            return 0
        give = give_slot(hand, counts, order, take_value, counts[take_value])
        if give < 0:
            return 0
        waited[0] = 0
        return swap_action(give, center, take_value, u[D_SWAP], act)
    waited[0] = 0
    if not m[act[A_EXCHANGE0]]:
        return 0
    return swap_action(give_slot(hand, counts, order, t, 4), center, t, u[D_SWAP], act)


@njit(cache=True)
def holds_quartet(o, fields, v):
    hand = np.empty(4, np.int64)
    if cards_of(o, fields[F_HAND], v, hand) != 4:
        return False
    return hand[0] == hand[1] and hand[0] == hand[2] and hand[0] == hand[3]
