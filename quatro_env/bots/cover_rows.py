"""The batched ``cover`` (:class:`~quatro_env.bots.cover.CoverBot` in its default options, ``beat`` and
no ``split``) as compiled row functions: the floor held, a fresh cover emoji every pulse, one exchange per
beat, the completing one on a pulse tick with the sign armed the tick before. :mod:`quatro_env.bots.batched`
dispatches a cover row here; the numpy bot is the reference (``tests/baselines/test_fast_bots.py``).
"""

from __future__ import annotations

import numpy as np

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
    F_SIGN,
    NO_CARD,
    P_BEATS,
    P_PARTNER_DELAY,
    P_PATIENCE,
    S_AGE,
    S_EXCHANGED,
    S_FLOOR,
    S_PULSE,
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
# round to call «Quatro» from (-1: no sign seen)
C_SHOWN, C_PERIOD, C_LAST_AGE, C_CALL_DUE = range(4)


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
def neutral_exchange(o, u, fields, seats, act, n, v, target):
    """CoverBot._neutral_exchange (no ``split``): give a card of a value I hold fewest of, take one
    that is not the target, preferring another value than the one given and my half of the center."""
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
    mine, theirs = first_set(o, seats[0, S_PULSE], E), first_set(o, seats[n // 2, S_PULSE], E)
    lo, hi = 0, 4  # my half: slots lo..hi-1, the lower emoji of the two last pulses takes 0-1
    if mine >= 0 and theirs >= 0 and mine != theirs:
        lo, hi = (0, 2) if mine < theirs else (2, 4)
    for keep in range(2):  # first: a value other than the one given; then: my half; each if any
        kept = 0
        for j in range(k):
            c = takes[j]
            if (center[c] != hand[give]) if keep == 0 else (lo <= c < hi):
                takes[kept] = c
                kept += 1
        if kept:
            k = kept
    return act[A_EXCHANGE0] + 4 * give + takes[int(u[D_SWAP] * k)]


@njit(cache=True)
def beat_exchange(o, m, u, fields, seats, act, n, v, st_i, order, params, complete):
    """CoverBot._beat_exchange: the collector's exchange if it may complete (or does not), else a
    neutral swap."""
    if not m[act[A_EXCHANGE0]]:
        return 0
    if complete or not completes(o, fields, v):
        action = collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
        if action:
            return action
    return neutral_exchange(o, u, fields, seats, act, n, v, st_i[2])


@njit(cache=True)
def cover_row(o, m, u, fields, seats, act, n, v, st_i, order, cov, params):
    """CoverBot.play with its default options (``beat``, no ``split``): the floor held, a fresh cover
    emoji every pulse, one exchange per beat, the completing one on a pulse tick with the sign armed."""
    age = int(o[seats[0, S_AGE]])
    if age == 0:  # _track_own_pulses
        cov[C_SHOWN] = 1
        if cov[C_LAST_AGE] >= 0 and cov[C_LAST_AGE] != NO_PULSE:
            cov[C_PERIOD] = cov[C_LAST_AGE] + 1
    cov[C_LAST_AGE] = age
    sign = first_set(o, fields[F_SIGN], E)
    if sign < 0:
        return collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
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
        return beat_exchange(o, m, u, fields, seats, act, n, v, st_i, order, params, mine == sign)
    beats = int(params[P_BEATS])
    for j in range(1, beats):  # the beats between two pulses: never the completing exchange
        if age + 1 == period * j // beats:
            return beat_exchange(o, m, u, fields, seats, act, n, v, st_i, order, params, False)
    return 0
