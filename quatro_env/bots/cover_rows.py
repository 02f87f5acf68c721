"""The batched ``cover`` (:class:`~quatro_env.bots.cover.CoverBot`) as compiled row functions: the floor
held, a fresh cover emoji every pulse, one exchange per beat, the completing one on a pulse tick with the
sign armed the tick before. Three of its options have rows: the default, ``split`` (the halves of the
center keyed by the team sign) and ``beat=False`` (the channel-only cover). :mod:`quatro_env.bots.batched`
dispatches a cover row here; the numpy bot is the reference (``tests/baselines/test_fast_bots.py``).
"""

from __future__ import annotations

import numpy as np

from quatro_env.bots.cover import PAIRINGS, split_key
from quatro_env.bots.rows import (
    A_EXCHANGE0,
    A_QUATRO,
    A_SHOW0,
    A_TAKE,
    D_COVER_E,
    D_SWAP,
    F_CENTER,
    F_EMOJI,
    F_HAND,
    F_RESHUFFLED,
    F_SIGN,
    NO_CARD,
    P_BEATS,
    P_PARTNER_DELAY,
    P_PATIENCE,
    S_AGE,
    S_EXCHANGED,
    S_FLOOR,
    S_PLACED,
    S_PULSE,
    S_TAKEN,
    E,
    argmax_at,
    cards_of,
    collect,
    first_set,
    holds_quartet,
    njit,
)
from quatro_env.quatro.encoding import NO_PULSE_AGE as NO_PULSE

# the cover's memory (columns of ``BatchedBots.cover``): the current emoji has pulsed, the pulse
# period in ticks (kept across rounds), my pulse age a tick ago (-1: none this round), the tick of the
# round to call «Quatro» from (-1: no sign seen); with ``split``: the last keyed split (-1: none yet)
# and whether my pulse showed the lower emoji of the two then (CoverBot._split, _lower)
C_SHOWN, C_PERIOD, C_LAST_AGE, C_CALL_DUE, C_SPLIT, C_LOWER = range(6)
NUM_COVER_COLUMNS = 6
ALL_SLOTS = 0b1111  # a half of the center as a bit set of its slots: here, the whole center

_PAIRINGS = np.array(PAIRINGS, np.int64)  # [3 pairings, 2 halves, 2 slots]
_split_key = njit(cache=True)(split_key)  # the reference bot's own function, compiled


@njit(cache=True)
def completes(o, fields, v):
    """CoverBot._completes: the center offers the fourth card of a value I hold three of."""
    hand = np.empty(4, np.int64)
    center = np.empty(4, np.int64)
    if cards_of(o, fields[F_HAND], v, hand) != 4:
        return False
    counts = np.zeros(v, np.int64)
    for i in range(4):
        counts[hand[i]] += 1
    for c in range(cards_of(o, fields[F_CENTER], v, center)):  # noqa: SIM110 - a loop compiles
        if counts[center[c]] == 3:
            return True
    return False


@njit(cache=True)
def fresh_cover(sign, u, act, cov):
    """CoverBot._fresh_cover: a uniformly random emoji that is not the sign, not yet pulsed."""
    cov[C_SHOWN] = 0
    e = int(u[D_COVER_E] * (E - 1))
    return act[A_SHOW0] + (e + 1 if e >= sign else e)


@njit(cache=True)
def my_half(o, seats, n, sign, split, cov):
    """CoverBot._my_half as a bit set of center slots: the lower of the two last pulse emojis takes
    slots 0-1; with ``split`` the keyed split (:func:`~quatro_env.bots.cover.keyed_split`), which a tie
    keeps (it is remembered in ``cov``, as the numpy bot remembers it, each time the half is asked)."""
    mine, theirs = first_set(o, seats[0, S_PULSE], E), first_set(o, seats[n // 2, S_PULSE], E)
    differ = mine >= 0 and theirs >= 0 and mine != theirs
    if not split:
        if not differ:
            return ALL_SLOTS
        return 0b0011 if mine < theirs else 0b1100
    if differ:
        cov[C_SPLIT] = _split_key(min(mine, theirs), max(mine, theirs), sign)
        cov[C_LOWER] = 1 if mine < theirs else 0
    k = cov[C_SPLIT]
    if k < 0:
        return ALL_SLOTS
    # keyed_split: (first, second) if k is odd else (second, first); the lower emoji's half comes first
    slots = _PAIRINGS[k // 2, 0 if (k % 2 == 1) == (cov[C_LOWER] == 1) else 1]
    return (1 << slots[0]) | (1 << slots[1])


@njit(cache=True)
def neutral_exchange(o, u, fields, seats, act, n, v, target, sign, split, cov, kept):
    """CoverBot._neutral_exchange: give a card of a value I hold fewest of, take one that is not the
    target. Without ``split``: preferring another value than the one given, then my half of the center.
    With it: my half first, then a value the partner has not been taking, then one no opponent has been
    taking, then another value than the one given (``kept``: per seat, values taken less placed)."""
    hand = np.empty(4, np.int64)
    center = np.empty(4, np.int64)
    if cards_of(o, fields[F_HAND], v, hand) != 4 or cards_of(o, fields[F_CENTER], v, center) != 4:
        return 0
    counts = np.zeros(v, np.int64)
    for i in range(4):
        counts[hand[i]] += 1
    t = target if target != NO_CARD else argmax_at(counts, 0, v)
    give = -1
    for h in range(4):
        if hand[h] != t and (give < 0 or counts[hand[h]] < counts[hand[give]]):
            give = h
    takes = np.empty(4, np.int64)
    k = 0
    for c in range(4):
        if center[c] != t:
            takes[k] = c
            k += 1
    if give < 0 or k == 0:
        return 0
    half = my_half(o, seats, n, sign, split, cov)
    if split:  # the numpy bot's rank tuple, read as the bits of one number (False < True)
        p = n // 2
        ranks = np.empty(4, np.int64)
        best = 16
        for j in range(k):
            x = center[takes[j]]
            taken_by_opponent = False
            for r in range(1, n):
                if r != p and kept[r, x] > 0:
                    taken_by_opponent = True
            ranks[j] = (
                8 * (half >> takes[j] & 1 == 0)
                + 4 * (kept[p, x] > 0)
                + 2 * taken_by_opponent
                + (x == hand[give])
            )
            best = min(best, ranks[j])
        kept_takes = 0
        for j in range(k):
            if ranks[j] == best:
                takes[kept_takes] = takes[j]
                kept_takes += 1
        k = kept_takes
    else:
        for keep in range(2):  # first: a value other than the one given; then: my half; each if any
            kept_takes = 0
            for j in range(k):
                c = takes[j]
                if (center[c] != hand[give]) if keep == 0 else (half >> c & 1 == 1):
                    takes[kept_takes] = c
                    kept_takes += 1
            if kept_takes:
                k = kept_takes
    return act[A_EXCHANGE0] + 4 * give + takes[int(u[D_SWAP] * k)]


@njit(cache=True)
def in_my_half(o, fields, seats, act, n, v, sign, cov, action):
    """CoverBot._in_my_half (``split``): the exchange ``action`` moved to a slot of my half that shows
    the same value, or 0 if none does (the partner's half is its own this beat)."""
    give, take = divmod(action - act[A_EXCHANGE0], 4)
    half = my_half(o, seats, n, sign, True, cov)
    if half >> take & 1:
        return action
    center = np.empty(4, np.int64)
    cards_of(o, fields[F_CENTER], v, center)
    for c in range(4):
        if half >> c & 1 and center[c] == center[take]:
            return act[A_EXCHANGE0] + 4 * give + c
    return 0


@njit(cache=True)
def beat_exchange(o, m, u, fields, seats, act, n, v, st_i, order, params, complete, sign, split, cov, kept):
    """CoverBot._beat_exchange: the collector's exchange if it may complete (or does not), else a
    neutral swap."""
    if not m[act[A_EXCHANGE0]]:
        return 0
    if complete or not completes(o, fields, v):
        action = collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
        if action and split and not complete:  # the completing exchange takes the fourth card anywhere
            action = in_my_half(o, fields, seats, act, n, v, sign, cov, action)
        if action:
            return action
    return neutral_exchange(o, u, fields, seats, act, n, v, st_i[2], sign, split, cov, kept)


@njit(cache=True)
def cover_row(o, m, u, fields, seats, act, n, v, st_i, order, cov, kept, params, beat, split):
    """CoverBot.play: its own pulses noted (and, with ``split``, every seat's exchanges), then the
    beat's rhythm (``beat``, the default) or the channel-only cover (``beat=False``)."""
    age = int(o[seats[0, S_AGE]])
    if age == 0:  # _track_own_pulses
        cov[C_SHOWN] = 1
        if cov[C_LAST_AGE] >= 0 and cov[C_LAST_AGE] != NO_PULSE:
            cov[C_PERIOD] = cov[C_LAST_AGE] + 1
    cov[C_LAST_AGE] = age
    if split and not o[fields[F_RESHUFFLED]]:  # _track_exchanges (a reshuffle tick's came before it)
        for r in range(n):
            if o[seats[r, S_EXCHANGED]]:
                kept[r, argmax_at(o, seats[r, S_TAKEN], v)] += 1
                kept[r, argmax_at(o, seats[r, S_PLACED], v)] -= 1
    sign = first_set(o, fields[F_SIGN], E)
    if sign < 0:
        return collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
    if not beat:
        return channel_row(o, m, u, fields, seats, act, n, v, st_i, order, cov, params, sign)
    p = n // 2
    partner_pulsed = o[seats[p, S_AGE]] == 0 and first_set(o, seats[p, S_PULSE], E) == sign
    if cov[C_CALL_DUE] < 0 and partner_pulsed and o[seats[p, S_EXCHANGED]]:
        cov[C_CALL_DUE] = st_i[1] + int(params[P_PARTNER_DELAY])
    if cov[C_CALL_DUE] >= 0 and st_i[1] >= cov[C_CALL_DUE] and m[act[A_QUATRO]]:
        return act[A_QUATRO]
    if not o[seats[0, S_FLOOR]]:
        return act[A_TAKE] if m[act[A_TAKE]] else 0
    mine = first_set(o, fields[F_EMOJI], E)
    if holds_quartet(o, fields, v):
        return act[A_SHOW0] + sign if mine != sign else 0
    if mine < 0:
        return fresh_cover(sign, u, act, cov)
    if age == NO_PULSE:
        return 0
    period = cov[C_PERIOD]
    if age + 2 == period:  # the tick before my pulse: arm the sign if the beat completes
        if completes(o, fields, v):
            return act[A_SHOW0] + sign if mine != sign else 0
        return fresh_cover(sign, u, act, cov) if mine == sign or cov[C_SHOWN] else 0
    if age + 1 == period:  # my pulse's tick: the beat's exchange
        if mine == sign and not completes(o, fields, v):
            return fresh_cover(sign, u, act, cov)
        complete = mine == sign
        return beat_exchange(
            o, m, u, fields, seats, act, n, v, st_i, order, params, complete, sign, split, cov, kept
        )
    beats = int(params[P_BEATS])
    for j in range(1, beats):  # the beats between two pulses: never the completing exchange
        if age + 1 == period * j // beats:
            return beat_exchange(
                o, m, u, fields, seats, act, n, v, st_i, order, params, False, sign, split, cov, kept
            )
    return 0


@njit(cache=True)
def channel_row(o, m, u, fields, seats, act, n, v, st_i, order, cov, params, sign):
    """CoverBot._play_channel (``beat=False``, without ``pulse_timing``): the floor held and a fresh
    cover emoji whenever the last has pulsed; exchanges whenever the collector has one; the sign at the
    holder's next pulse, and the partner's «Quatro» on it."""
    p = n // 2
    partner_sign = first_set(o, seats[p, S_PULSE], E) == sign and o[seats[p, S_FLOOR]]
    if partner_sign and o[seats[p, S_AGE]] >= params[P_PARTNER_DELAY] and m[act[A_QUATRO]]:
        return act[A_QUATRO]
    patience = int(params[P_PATIENCE])
    if not o[seats[0, S_FLOOR]]:
        if m[act[A_TAKE]]:
            return act[A_TAKE]
        return collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, patience)
    mine = first_set(o, fields[F_EMOJI], E)
    if holds_quartet(o, fields, v):
        return act[A_SHOW0] + sign if mine != sign else 0
    if mine < 0:
        return fresh_cover(sign, u, act, cov)
    exchange = collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, patience)
    if exchange:
        return exchange
    return fresh_cover(sign, u, act, cov) if cov[C_SHOWN] else 0
