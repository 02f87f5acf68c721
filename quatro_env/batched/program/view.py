"""What the seats see of one table: the observation rows (Q26–Q28), the action masks and uniform
legal sampling.
"""

from __future__ import annotations

import numpy as np

from quatro_env.batched import constants as C
from quatro_env.batched.program.target import rule


# ============================================================================ observations (Q26–Q28)
@rule
def _clip(x):
    return 0 if x < 0 else (C.CLIP if x > C.CLIP else x)


@rule
def _hot(w, at, x):
    """A one-hot field: ``w[at + x] = 1`` for a value ``x >= 0``; -1 (none) leaves the field zero."""
    if x >= 0:
        w[at + x] = 1


@rule
def _feature_blocks(prm):
    """Where the team blocks and the seat blocks start in a feature row (after every private block and
    the table block; ``layout.encode_width`` is its length)."""
    team_blocks = prm.n * prm.P + prm.G
    return team_blocks, team_blocks + prm.T * prm.TB


@rule
def spread_row(row, w, prm, i, first, step):
    """Observer ``i``'s row out of its table's feature row ``w`` (``features_table``), bytes ``first,
    first + step, ...`` (one thread on the CPU; on a GPU a warp's lanes, writing neighbouring bytes):
    its own private block, the table block, then the team and seat blocks starting at its own and
    wrapping around, like ``ObservationEncoder.encode``."""
    n, P, TB, SB, T0, S0 = prm.n, prm.P, prm.TB, prm.SB, prm.T0, prm.S0
    TM, ST = _feature_blocks(prm)
    team, seat = (i % prm.T) * TB, i * SB  # the observer's own blocks, first in its row
    _spread(row, 0, P, w, i * P, first, step)
    _spread(row, P, T0, w, n * P, first, step)
    _spread(row, T0, S0 - team, w, TM + team, first, step)
    _spread(row, S0 - team, S0, w, TM, first, step)
    _spread(row, S0, row.shape[0] - seat, w, ST + seat, first, step)
    _spread(row, row.shape[0] - seat, row.shape[0], w, ST, first, step)


@rule
def _spread(row, lo, hi, w, src, first, step):
    """``row[lo:hi] = w[src:...]``, bytes ``first, first + step, ...`` of the row (views from 0: LLVM
    vectorises the CPU's copy)."""
    dst, from_ = row[lo:hi], w[src : src + hi - lo]
    for k in range((first - lo) % step, dst.shape[0], step):
        dst[k] = from_[k]


@rule
def features_table(b, prm, offs, S, V, w):
    """The table's absolute features into ``w`` (zeroed by the caller): every seat's private block,
    the table block, the team blocks and the seat blocks in observer 0's order, from which
    ``spread_row`` writes each observer's row."""
    n, T, v = prm.n, prm.T, prm.v
    P, TB, SB = prm.P, prm.TB, prm.SB
    TAB = n * P
    TM, ST = _feature_blocks(prm)
    now = np.int64(S.tick[b])
    ph = S.phase[b]
    play = ph == C.PLAY
    revealed = ph in (C.PAUSE, C.OVER)
    # ---- private blocks (Q26)
    for s in range(n):
        PV = s * P
        for j in range(4):
            _hot(w, PV + offs.hand + j * v, S.hands[b, s, j] >> 2)  # a card's value is its id >> 2
        _hot(w, PV + offs.sign, S.team_sign[b, s % T])
        _hot(w, PV + offs.emoji, S.emoji[b, s])
        rl = np.int64(S.rem_last[b, s])
        if S.rem_open[b, s] < now and now <= rl:
            w[PV + offs.reminder] = 1
            w[PV + offs.reminder_left] = _clip(rl - now + 1)
        _hot(w, PV + offs.rejected_slot, V.ev_rejected[b, s])
    # ---- table block (Q27)
    w[TAB + offs.phase + ph] = 1
    if ph != C.OVER:
        w[TAB + offs.phase_left] = _clip(np.int64(S.phase_end[b]) - now + 1)
    w[TAB + offs.round] = _clip(np.int64(S.round_index[b]))
    for j in range(4):
        _hot(w, TAB + offs.center + j * v, S.center[b, j] >> 2)
    vo = S.vote_open[b]
    if vo:
        w[TAB + offs.vote_open] = 1
        w[TAB + offs.vote_left] = _clip(np.int64(S.vote_deadline[b]) - now + 1)
    if S.reshuffled[b]:
        w[TAB + offs.reshuffle_used] = 1
    npr = np.int64(S.next_proposal[b])
    if play and npr > now:
        w[TAB + offs.proposal_wait] = _clip(npr - now)
    if V.ev_vote_failed[b]:
        w[TAB + offs.vote_failed] = 1
    if V.ev_reshuffled[b]:
        w[TAB + offs.reshuffled] = 1
    _hot(w, TAB + offs.last_call, S.call_kind[b])
    # ---- team blocks (absolute order, observer 0)
    for tm in range(T):
        o = TM + tm * TB
        sc = S.scores[b, tm]
        w[o + offs.score] = sc if sc > 0 else 0
        if S.call_target[b] == tm:
            w[o + offs.accused] = 1
        if S.call_scoring[b, tm]:
            w[o + offs.scored] = 1
        ts = S.team_sign[b, tm]
        if prm.reveal_signs and revealed and ts >= 0:
            w[o + offs.revealed_sign + ts] = 1
    # ---- seat blocks (absolute order, observer 0)
    for s in range(n):
        o = ST + s * SB
        if S.connected[b, s]:
            w[o + offs.connected] = 1
        if S.ready[b, s]:
            w[o + offs.ready] = 1
        if play:
            if S.floor[b, s]:
                w[o + offs.floor] = 1
            w[o + offs.exchange_wait] = _clip(np.int64(S.next_exchange[b, s]) - now)
            w[o + offs.floor_wait] = _clip(np.int64(S.next_floor[b, s]) - now)
        pe = S.pulse_emoji[b, s]
        if pe >= 0:
            w[o + offs.pulse_emoji + pe] = 1
            w[o + offs.pulse_age] = _clip(now - 1 - np.int64(S.pulse_tick[b, s]))
        else:
            w[o + offs.pulse_age] = C.NO_PULSE_AGE
        sl = V.ev_slot[b, s]
        if sl >= 0:
            w[o + offs.exchanged] = 1
            w[o + offs.exchange_slot + sl] = 1
        _hot(w, o + offs.taken, V.ev_taken[b, s])
        _hot(w, o + offs.placed, V.ev_placed[b, s])
        if V.ev_act[b, s]:
            x = V.ev_pos[b, s]
            w[o + offs.order] = x if x > 0 else 0
        if V.ev_took[b, s]:
            w[o + offs.took_floor] = 1
        if V.ev_released[b, s]:
            w[o + offs.released_floor] = 1
        x = V.ev_vote[b, s]
        if x == 1:
            w[o + offs.voted_yes] = 1
        elif x == 2:
            w[o + offs.voted_no] = 1
        if V.ev_proposed[b, s]:
            w[o + offs.proposed] = 1
        if vo and S.voters[b, s]:
            w[o + offs.voter] = 1
        if vo and S.yes[b, s]:
            w[o + offs.said_yes] = 1
        if V.ev_replaced[b, s]:
            w[o + offs.hand_replaced] = 1
        if vo and S.vote_proposer[b] == s:
            w[o + offs.proposer] = 1
        if S.call_caller[b] == s:
            w[o + offs.caller] = 1
        if revealed:
            for j in range(4):
                _hot(w, o + offs.revealed_hand + j * v, S.hands[b, s, j] >> 2)


@rule
def zero(dst):
    for k in range(dst.shape[0]):  # LLVM turns it into a memset
        dst[k] = 0


# ============================================================================ masks and sampling
@rule
def spread_mask(row, legal, K, first, step):
    """A seat's mask out of its legal kinds (an action is legal iff its kind is, Q9), bytes ``first,
    first + step, ...`` as in ``spread_row``: the row of the kind-pattern table for this set of kinds."""
    code = 0
    for k in range(legal.shape[0]):
        if legal[k]:
            code |= 1 << k
    src = K.lut[code]
    for j in range(first, row.shape[0], step):
        row[j] = src[j]


@rule
def kinds_table(b, kind_legal, prm, S):
    """Which action kinds each seat may play this tick (Q9): an action is legal iff its kind is."""
    n, T = prm.n, prm.T
    ph = S.phase[b]
    now = S.tick[b]
    play, sign, pause = ph == C.PLAY, ph == C.SIGN, ph == C.PAUSE
    prop = play and not S.reshuffled[b] and not S.vote_open[b] and now >= S.next_proposal[b]
    for s in range(n):
        conn = S.connected[b, s]
        fl = S.floor[b, s]
        floor_ok = play and now >= S.next_floor[b, s] and conn
        kl = kind_legal[b, s]
        kl[C.K_NOOP] = True
        kl[C.K_EXCHANGE] = play and now >= S.next_exchange[b, s] and conn
        kl[C.K_TAKE] = floor_ok and not fl
        kl[C.K_RELEASE] = floor_ok and fl
        kl[C.K_EMOJI] = play and fl and conn
        kl[C.K_SIGN] = sign and S.team_sign[b, s % T] < 0 and conn
        kl[C.K_READY] = sign and not S.ready[b, s] and conn
        kl[C.K_QUATRO] = play and conn
        kl[C.K_CONTRA] = play and conn
        kl[C.K_PROPOSE] = prop and conn
        vote = play and S.vote_open[b] and S.voters[b, s] and not S.yes[b, s] and not S.absent[b, s] and conn
        kl[C.K_YES] = vote
        kl[C.K_NO] = vote
        kl[C.K_START] = s == C.HOST_SEAT and pause and not S.start_requested[b] and conn


@rule
def sample_table(b, u, kind_legal, K, out, W, slot):
    """Uniform legal actions: a kind weighted by its legal count, then an index inside it (float32
    arithmetic: the same actions for the same ``u`` on every device)."""
    n, kinds = kind_legal.shape[1], kind_legal.shape[2]
    cum = W.cum[slot]
    for s in range(n):
        acc = np.float32(0.0)
        kl = kind_legal[b, s]
        for k in range(kinds):
            if kl[k]:
                acc = np.float32(acc + K.size[k])
            cum[k] = acc
        r = np.float32(u[b, s, 0] * acc)
        kind = 0
        for k in range(kinds):
            if cum[k] <= r:
                kind += 1
        if kind > kinds - 1:
            kind = kinds - 1
        sz = K.size[kind]
        off = np.int64(np.float32(u[b, s, 1] * sz))
        lim = np.int64(sz) - 1
        out[b, s] = K.start[kind] + (off if off < lim else lim)
