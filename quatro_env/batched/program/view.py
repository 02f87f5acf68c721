"""What the seats see of one table: the observation rows (Q26–Q28), the action masks and uniform
legal sampling.
"""

from __future__ import annotations

import numpy as np

from quatro_env.batched import constants as C
from quatro_env.batched.program import layout as L
from quatro_env.batched.program.target import rule


# ============================================================================ observations (Q26–Q28)
@rule
def _clip(x):
    return 0 if x < 0 else (C.CLIP if x > C.CLIP else x)


@rule
def encode_table(b, obs, prm, offs, reveal_signs, S, V, W, slot):
    """Every seat's egocentric observation, exactly as ``ObservationEncoder.encode``.

    Like the reference encoder, the table's absolute features are written into a small scratch
    row (private blocks, table block, team and seat blocks, the last two twice in a row); every
    observer's row is then four contiguous copies out of it (its private block, the table block,
    the team and seat blocks starting at its own).
    """
    tick, phase, hands, team_sign, emoji = S.tick, S.phase, S.hands, S.team_sign, S.emoji
    rem_last, rem_open, phase_end, round_index = S.rem_last, S.rem_open, S.phase_end, S.round_index
    center, vote_open, vote_deadline, reshuffled = S.center, S.vote_open, S.vote_deadline, S.reshuffled
    next_proposal, call_kind, scores, call_target = S.next_proposal, S.call_kind, S.scores, S.call_target
    call_scoring, connected, ready, floor = S.call_scoring, S.connected, S.ready, S.floor
    next_exchange, next_floor, pulse_emoji = S.next_exchange, S.next_floor, S.pulse_emoji
    pulse_tick, voters, yes, vote_proposer = S.pulse_tick, S.voters, S.yes, S.vote_proposer
    call_caller = S.call_caller
    ev_rejected, ev_vote_failed, ev_reshuffled = V.ev_rejected, V.ev_vote_failed, V.ev_reshuffled
    ev_slot, ev_taken, ev_placed, ev_act, ev_pos = V.ev_slot, V.ev_taken, V.ev_placed, V.ev_act, V.ev_pos
    ev_took, ev_released, ev_vote, ev_proposed = V.ev_took, V.ev_released, V.ev_vote, V.ev_proposed
    ev_replaced = V.ev_replaced
    n, T, v = prm[L.I_N], prm[L.I_T], prm[L.I_V]
    P, G, TB, SB, T0, S0 = prm[L.I_P], prm[L.I_G], prm[L.I_TB], prm[L.I_SB], prm[L.I_T0], prm[L.I_S0]
    TAB = n * P  # scratch layout: private blocks, table, teams twice, seats twice
    TM = TAB + G
    ST = TM + 2 * T * TB
    w = W.encode[slot]
    ob = obs[b]
    now = np.int64(tick[b])
    ph = phase[b]
    play = ph == C.PLAY
    revealed = ph in (C.PAUSE, C.OVER)
    _zero(w, 0, TM + T * TB)
    _zero(w, ST, ST + n * SB)
    # ---- private blocks (Q26)
    for s in range(n):
        PV = s * P
        for j in range(4):
            c = hands[b, s, j]
            if c >= 0:
                w[PV + offs[L.O_HAND] + j * v + (c >> 2)] = 1
        ts = team_sign[b, s % T]
        if ts >= 0:
            w[PV + offs[L.O_SIGN] + ts] = 1
        e = emoji[b, s]
        if e >= 0:
            w[PV + offs[L.O_EMOJI] + e] = 1
        rl = np.int64(rem_last[b, s])
        if rem_open[b, s] < now and now <= rl:
            w[PV + offs[L.O_REMINDER]] = 1
            w[PV + offs[L.O_REMINDER_LEFT]] = _clip(rl - now + 1)
        r = ev_rejected[b, s]
        if r >= 0:
            w[PV + offs[L.O_REJECTED] + r] = 1
    # ---- table block (Q27)
    w[TAB + offs[L.O_PHASE] + ph] = 1
    if ph != C.OVER:
        w[TAB + offs[L.O_PHASE_LEFT]] = _clip(np.int64(phase_end[b]) - now + 1)
    w[TAB + offs[L.O_ROUND]] = _clip(np.int64(round_index[b]))
    for j in range(4):
        c = center[b, j]
        if c >= 0:
            w[TAB + offs[L.O_CENTER] + j * v + (c >> 2)] = 1
    vo = vote_open[b]
    if vo:
        w[TAB + offs[L.O_VOTE_OPEN]] = 1
        w[TAB + offs[L.O_VOTE_LEFT]] = _clip(np.int64(vote_deadline[b]) - now + 1)
    if reshuffled[b]:
        w[TAB + offs[L.O_RESHUFFLE_USED]] = 1
    npr = np.int64(next_proposal[b])
    if play and npr > now:
        w[TAB + offs[L.O_PROPOSAL_WAIT]] = _clip(npr - now)
    if ev_vote_failed[b]:
        w[TAB + offs[L.O_VOTE_FAILED]] = 1
    if ev_reshuffled[b]:
        w[TAB + offs[L.O_RESHUFFLED]] = 1
    ck = call_kind[b]
    if ck >= 0:
        w[TAB + offs[L.O_LAST_CALL] + ck] = 1
    # ---- team blocks (absolute order, observer 0)
    for tm in range(T):
        o = TM + tm * TB
        sc = scores[b, tm]
        w[o + offs[L.O_SCORE]] = sc if sc > 0 else 0
        if call_target[b] == tm:
            w[o + offs[L.O_ACCUSED]] = 1
        if call_scoring[b, tm]:
            w[o + offs[L.O_SCORED]] = 1
        ts = team_sign[b, tm]
        if reveal_signs and revealed and ts >= 0:
            w[o + offs[L.O_REVEALED_SIGN] + ts] = 1
    # ---- seat blocks (absolute order, observer 0)
    for s in range(n):
        o = ST + s * SB
        if connected[b, s]:
            w[o + offs[L.O_CONNECTED]] = 1
        if ready[b, s]:
            w[o + offs[L.O_READY]] = 1
        if play:
            if floor[b, s]:
                w[o + offs[L.O_FLOOR]] = 1
            w[o + offs[L.O_EXCHANGE_WAIT]] = _clip(np.int64(next_exchange[b, s]) - now)
            w[o + offs[L.O_FLOOR_WAIT]] = _clip(np.int64(next_floor[b, s]) - now)
        pe = pulse_emoji[b, s]
        if pe >= 0:
            w[o + offs[L.O_PULSE_EMOJI] + pe] = 1
            w[o + offs[L.O_PULSE_AGE]] = _clip(now - 1 - np.int64(pulse_tick[b, s]))
        else:
            w[o + offs[L.O_PULSE_AGE]] = C.CLIP
        sl = ev_slot[b, s]
        if sl >= 0:
            w[o + offs[L.O_EXCHANGED]] = 1
            w[o + offs[L.O_EXCHANGE_SLOT] + sl] = 1
        x = ev_taken[b, s]
        if x >= 0:
            w[o + offs[L.O_TAKEN] + x] = 1
        x = ev_placed[b, s]
        if x >= 0:
            w[o + offs[L.O_PLACED] + x] = 1
        if ev_act[b, s]:
            x = ev_pos[b, s]
            w[o + offs[L.O_ORDER]] = x if x > 0 else 0
        if ev_took[b, s]:
            w[o + offs[L.O_TOOK]] = 1
        if ev_released[b, s]:
            w[o + offs[L.O_RELEASED]] = 1
        x = ev_vote[b, s]
        if x == 1:
            w[o + offs[L.O_VOTED_YES]] = 1
        elif x == 2:
            w[o + offs[L.O_VOTED_NO]] = 1
        if ev_proposed[b, s]:
            w[o + offs[L.O_PROPOSED]] = 1
        if vo and voters[b, s]:
            w[o + offs[L.O_VOTER]] = 1
        if vo and yes[b, s]:
            w[o + offs[L.O_SAID_YES]] = 1
        if ev_replaced[b, s]:
            w[o + offs[L.O_HAND_REPLACED]] = 1
        if vo and vote_proposer[b] == s:
            w[o + offs[L.O_PROPOSER]] = 1
        if call_caller[b] == s:
            w[o + offs[L.O_CALLER]] = 1
        if revealed:
            for j in range(4):
                c = hands[b, s, j]
                if c >= 0:
                    w[o + offs[L.O_REVEALED_HAND] + j * v + (c >> 2)] = 1
    # ---- every observer's row: own private block, the table, teams and seats from its own
    # (copies between views indexed from 0, which LLVM vectorises)
    tb, sb = T * TB, n * SB
    _copy(w[TM + tb : TM + 2 * tb], w[TM : TM + tb])
    _copy(w[ST + sb : ST + 2 * sb], w[ST : ST + sb])
    for i in range(n):
        row = ob[i]
        _copy(row[:P], w[i * P : (i + 1) * P])
        _copy(row[P:T0], w[TAB:TM])
        src = TM + (i % T) * TB
        _copy(row[T0:S0], w[src : src + tb])
        src = ST + i * SB
        _copy(row[S0:], w[src : src + sb])


@rule
def _copy(dst, src):
    for k in range(dst.shape[0]):
        dst[k] = src[k]


@rule
def _zero(dst, start, stop):
    d = dst[start:stop]  # indexed from 0, like _copy: LLVM turns it into a memset (4x faster encode fill)
    for k in range(d.shape[0]):
        d[k] = 0


# ============================================================================ masks and sampling
@rule
def masks_table(b, masks, kind_legal, lut, prm, S):
    """Exact legality per action kind (Q9), expanded to actions through the kind-pattern table."""
    phase, tick, reshuffled, vote_open = S.phase, S.tick, S.reshuffled, S.vote_open
    next_proposal, connected, floor, next_floor = S.next_proposal, S.connected, S.floor, S.next_floor
    next_exchange, team_sign, ready, voters, yes = S.next_exchange, S.team_sign, S.ready, S.voters, S.yes
    absent, start_requested = S.absent, S.start_requested
    n, T, A = prm[L.I_N], prm[L.I_T], prm[L.I_A]
    ph = phase[b]
    now = tick[b]
    play, sign, pause = ph == C.PLAY, ph == C.SIGN, ph == C.PAUSE
    prop = play and not reshuffled[b] and not vote_open[b] and now >= next_proposal[b]
    for s in range(n):
        conn = connected[b, s]
        fl = floor[b, s]
        floor_ok = play and now >= next_floor[b, s] and conn
        kl = kind_legal[b, s]
        kl[C.K_NOOP] = True
        kl[C.K_EXCHANGE] = play and now >= next_exchange[b, s] and conn
        kl[C.K_TAKE] = floor_ok and not fl
        kl[C.K_RELEASE] = floor_ok and fl
        kl[C.K_EMOJI] = play and fl and conn
        kl[C.K_SIGN] = sign and team_sign[b, s % T] < 0 and conn
        kl[C.K_READY] = sign and not ready[b, s] and conn
        kl[C.K_QUATRO] = play and conn
        kl[C.K_CONTRA] = play and conn
        kl[C.K_PROPOSE] = prop and conn
        vote = play and vote_open[b] and voters[b, s] and not yes[b, s] and not absent[b, s] and conn
        kl[C.K_YES] = vote
        kl[C.K_NO] = vote
        kl[C.K_START] = s == C.HOST_SEAT and pause and not start_requested[b] and conn
        code = 0
        for k in range(C.NUM_KINDS):
            if kl[k]:
                code |= 1 << k
        row = masks[b, s]
        src = lut[code]
        for j in range(A):
            row[j] = src[j]


@rule
def sample_table(b, u, kind_legal, size, start, out, W, slot):
    """Uniform legal actions: a kind weighted by its legal count, then an index inside it (float32,
    the very arithmetic of the torch path, so both give the same actions for the same ``u``)."""
    n, K = kind_legal.shape[1], kind_legal.shape[2]
    cum = W.cum[slot]
    for s in range(n):
        acc = np.float32(0.0)
        kl = kind_legal[b, s]
        for k in range(K):
            if kl[k]:
                acc = np.float32(acc + size[k])
            cum[k] = acc
        r = np.float32(u[b, s, 0] * acc)
        kind = 0
        for k in range(K):
            if cum[k] <= r:
                kind += 1
        if kind > K - 1:
            kind = K - 1
        sz = size[kind]
        off = np.int64(np.float32(u[b, s, 1] * sz))
        lim = np.int64(sz) - 1
        out[b, s] = start[kind] + (off if off < lim else lim)
