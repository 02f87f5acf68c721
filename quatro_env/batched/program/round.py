"""The rounds of one table: deal (Q4, Q5), reshuffle, the end of a round, the sign phase, connections
and the fresh match (``reset_table``).

Each function takes the state (``S``), events (``V``), results (``R``) and recorded draws (``REC``)
whole, as the namedtuples of ``schema.py``, and reads its fields by name (``S.hands[b, s, j]``).
"""

from __future__ import annotations

from quatro_env.batched import constants as C
from quatro_env.batched.program.draws import _has_triple, _perm, table_key
from quatro_env.batched.program.target import rule


@rule
def _deal(b, prm, S, V, REC, W, slot):
    """Q4 deal and Q5 re-splits (seat by seat) on table b, from its draws for this tick."""
    n = prm.n
    deck = prm.deck
    u, perm = W.deal_draws[slot], W.deal_perm[slot]
    u8, p8, pool = W.q5_draws[slot], W.q5_perm[slot], W.q5_pool[slot]
    _perm(S.key[b], S.tick[b], C.P_DEAL, deck, u, perm)
    record = prm.record != 0
    if record:
        for i in range(deck):
            REC.deal[b, i] = perm[i]
        REC.deal_flag[b] = True
    for s in range(n):
        for j in range(4):
            S.hands[b, s, j] = perm[4 * s + j]
    for j in range(4):
        S.center[b, j] = perm[4 * n + j]
    for s in range(n):  # seat order; a re-split never touches another hand (Q5)
        if not _has_triple(S.hands, b, s):
            continue
        V.ev_replaced[b, s] = True
        it = 0
        while _has_triple(S.hands, b, s):
            _perm(S.key[b], S.tick[b], C.P_Q5 + it * 8 + s, 8, u8, p8)
            if record:  # the engine refuses a tick that overflows the record
                row = REC.q5_count[b]
                REC.q5_count[b] = row + 1
                if row < REC.q5.shape[1]:
                    for j in range(8):
                        REC.q5[b, row, j] = p8[j]
            for j in range(4):
                pool[j] = S.hands[b, s, j]
                pool[4 + j] = S.center[b, j]
            for j in range(4):
                S.hands[b, s, j] = pool[p8[j]]
                S.center[b, j] = pool[p8[4 + j]]
            it += 1


@rule
def _reshuffle(b, prm, changed, S, V, REC, W, slot):
    """Q20: everything re-dealt; signs, clock, floors, cooldowns stay; every slot changed (Q14)."""
    S.reshuffled[b] = True
    V.ev_reshuffled[b] = True
    for j in range(4):
        changed[j] = True
    _deal(b, prm, S, V, REC, W, slot)


@rule
def _release_floor(b, s, S, V):
    """Seat s lets go of the floor (Q15, Q17): its emoji and pulse stop; public this tick."""
    S.floor[b, s] = False
    S.emoji[b, s] = -1
    S.pulse_anchor[b, s] = -1
    V.ev_released[b, s] = True


@rule
def _end_round(b, scoring, kind, caller, target, t, prm, S, V, R):
    """Q10 the round ends at once; Q24 points never taken away; Q25 shared wins."""
    n, T = prm.n, prm.T
    best = -1
    for tm in range(T):
        if scoring[tm]:
            S.scores[b, tm] += 1
            R.points[b, tm] += 1
        best = max(best, S.scores[b, tm])
    S.vote_open[b] = False  # cancelled, no result
    for s in range(n):
        if S.floor[b, s]:  # every floor released (round over)
            _release_floor(b, s, S, V)
        S.next_exchange[b, s] = 0  # Q11: cooldowns and reminders cleared
        S.next_floor[b, s] = 0
        S.rem_open[b, s] = -1
        S.rem_last[b, s] = -1
    S.call_kind[b] = kind
    S.call_caller[b] = caller
    S.call_target[b] = target
    for tm in range(T):
        S.call_scoring[b, tm] = scoring[tm]
    S.rounds_completed[b] += 1
    R.round_ended[b] = True
    if best >= prm.points_to_win:
        R.match_ended[b] = True
        S.phase[b] = C.OVER
    else:
        S.phase[b] = C.PAUSE
        S.phase_end[b] = t + prm.pause
        S.start_requested[b] = False


@rule
def _begin_sign_phase(b, start, prm, K, S):
    """Q7, Q8, Q11: a new round: round state cleared, signs afresh, hands empty."""
    n, T = prm.n, prm.T
    for s in range(n):
        S.floor[b, s] = False
        S.emoji[b, s] = -1
        S.pulse_anchor[b, s] = -1
        S.pulse_emoji[b, s] = -1
        S.pulse_tick[b, s] = -1
        S.rem_open[b, s] = -1
        S.rem_last[b, s] = -1
        S.next_exchange[b, s] = 0
        S.next_floor[b, s] = 0
        S.voters[b, s] = False
        S.yes[b, s] = False
        S.absent[b, s] = False
        S.ready[b, s] = K.is_bot[s] and S.connected[b, s]  # bots are ready at once (Q22)
        for j in range(4):
            S.hands[b, s, j] = -1
    S.vote_open[b] = False
    S.reshuffled[b] = False
    S.next_proposal[b] = 0
    S.start_requested[b] = False
    S.round_index[b] += 1
    S.phase[b] = C.SIGN
    S.phase_end[b] = start + (prm.sign_phase - 1)
    for tm in range(T):
        S.team_sign[b, tm] = -1
        S.call_scoring[b, tm] = False
    for j in range(4):
        S.center[b, j] = -1
    S.call_kind[b] = C.NONE_CALL
    S.call_caller[b] = -1
    S.call_target[b] = -1


@rule
def _set_connected(b, s, on, K, S, V):
    """Q23: a disconnection releases the floor at once (public); a reconnecting bot is ready."""
    if on:
        S.connected[b, s] = True
        if K.is_bot[s] and S.phase[b] == C.SIGN:
            S.ready[b, s] = True
    else:
        S.connected[b, s] = False
        if S.floor[b, s] and S.phase[b] == C.PLAY:
            _release_floor(b, s, S, V)
        if S.voters[b, s] and S.vote_open[b]:
            S.absent[b, s] = True  # Q20: the vote can only fail now


@rule
def _apply_schedule(b, when_tick, K, S, V):
    """The configured (tick, seat, connected) entries of ``when_tick``, in order."""
    for i in range(K.sched.shape[0]):
        if K.sched[i, 0] != when_tick:
            continue
        s = K.sched[i, 1]
        on = K.sched[i, 2] != 0
        if S.connected[b, s] != on:
            _set_connected(b, s, on, K, S, V)


@rule
def _scheduled(when_tick, s, K):
    """Whether the schedule names seat ``s`` for ``when_tick`` (it holds for that tick: the random model
    leaves the seat alone at this boundary)."""
    named = False
    for i in range(K.sched.shape[0]):  # a loop, not any(): the CUDA kernels compile no generator
        named = named or (K.sched[i, 0] == when_tick and K.sched[i, 1] == s)
    return named


@rule
def _clear_events(b, n, V):
    for s in range(n):
        V.ev_act[b, s] = False
        V.ev_took[b, s] = False
        V.ev_released[b, s] = False
        V.ev_proposed[b, s] = False
        V.ev_replaced[b, s] = False
        V.ev_vote[b, s] = 0
        V.ev_slot[b, s] = -1
        V.ev_taken[b, s] = -1
        V.ev_placed[b, s] = -1
        V.ev_rejected[b, s] = -1
    V.ev_vote_failed[b] = False
    V.ev_reshuffled[b] = False


# ============================================================================ reset
@rule
def reset_table(b, prm, K, S, V):
    """A fresh match on table b (QuatroEngine.reset)."""
    n, T = prm.n, prm.T
    S.key[b] = table_key(S.seeds[b], S.episode[b])
    S.tick[b] = 0
    for tm in range(T):
        S.scores[b, tm] = 0
    S.round_index[b] = 0
    S.rounds_completed[b] = 0
    for s in range(n):
        S.connected[b, s] = True
    _clear_events(b, n, V)
    _begin_sign_phase(b, 0, prm, K, S)
    _apply_schedule(b, 0, K, S, V)
