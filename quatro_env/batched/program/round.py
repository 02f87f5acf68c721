"""The rounds of one table: deal (Q4, Q5), reshuffle, the end of a round, the sign phase, connections
and the fresh match (``reset_table``).

Helpers get the state (``S``), event (``V``) and result (``R``) tuples whole and take what they use.
These are the namedtuples of ``schema.py`` (State, Events, Results, Draws), so fields are read by
name, into locals once at the top of each function.
"""

from __future__ import annotations

from quatro_env.batched import constants as C
from quatro_env.batched.program import layout as L
from quatro_env.batched.program.draws import (
    _has_triple,
    _perm,
    table_key,
)
from quatro_env.batched.program.target import claim, rule

# ============================================================================ state helpers
# Helpers get the state (S), event (V) and result (R) tuples whole and take what they use.
# S, V, R and REC are the namedtuples of schema.py (State, Events, Results, Draws): fields by name,
# read into locals once at the top of each function (an access in a hot loop costs reference counts).


@rule
def _deal(b, prm, S, V, REC, W, slot):
    """Q4 deal and Q5 re-splits (seat by seat) on table b, from its draws for this tick."""
    key, tick, hands, center = S.key, S.tick, S.hands, S.center
    ev_replaced = V.ev_replaced
    rec_deal, rec_deal_flag, rec_q5_count, rec_q5_rows = REC.deal, REC.deal_flag, REC.q5_count, REC.q5_rows
    rec_q5 = REC.q5
    n = prm[L.I_N]
    deck = prm[L.I_DECK]
    u, perm = W.deal_draws[slot], W.deal_perm[slot]
    u8, p8, pool = W.q5_draws[slot], W.q5_perm[slot], W.q5_pool[slot]
    _perm(key[b], tick[b], C.P_DEAL, deck, u, perm)
    record = prm[L.I_RECORD] != 0
    if record:
        for i in range(deck):
            rec_deal[b, i] = perm[i]
        rec_deal_flag[b] = True
    for s in range(n):
        for j in range(4):
            hands[b, s, j] = perm[4 * s + j]
    for j in range(4):
        center[b, j] = perm[4 * n + j]
    for s in range(n):  # seat order; a re-split never touches another hand (Q5)
        if not _has_triple(hands, b, s):
            continue
        ev_replaced[b, s] = True
        it = 0
        while _has_triple(hands, b, s):
            _perm(key[b], tick[b], C.P_Q5 + it * 8 + s, 8, u8, p8)
            if record:
                row = claim(rec_q5_count)
                if row < rec_q5_rows.shape[0]:
                    rec_q5_rows[row] = b
                    for j in range(8):
                        rec_q5[row, j] = p8[j]
            for j in range(4):
                pool[j] = hands[b, s, j]
                pool[4 + j] = center[b, j]
            for j in range(4):
                hands[b, s, j] = pool[p8[j]]
                center[b, j] = pool[p8[4 + j]]
            it += 1


@rule
def _reshuffle(b, prm, changed, S, V, REC, W, slot):
    """Q20: everything re-dealt; signs, clock, floors, cooldowns stay; every slot changed (Q14)."""
    reshuffled = S.reshuffled
    ev_reshuffled = V.ev_reshuffled
    reshuffled[b] = True
    ev_reshuffled[b] = True
    for j in range(4):
        changed[j] = True
    _deal(b, prm, S, V, REC, W, slot)


@rule
def _end_round(b, scoring, kind, caller, target, t, prm, S, V, R):
    """Q10 the round ends at once; Q24 points never taken away; Q25 shared wins."""
    scores, vote_open, floor, emoji, pulse_anchor = S.scores, S.vote_open, S.floor, S.emoji, S.pulse_anchor
    next_exchange, next_floor, rem_open, rem_last = S.next_exchange, S.next_floor, S.rem_open, S.rem_last
    call_kind, call_caller, call_target = S.call_kind, S.call_caller, S.call_target
    call_scoring, rounds_completed, phase = S.call_scoring, S.rounds_completed, S.phase
    phase_end, start_requested = S.phase_end, S.start_requested
    ev_released = V.ev_released
    points, round_ended, match_ended = R.points, R.round_ended, R.match_ended
    n, T = prm[L.I_N], prm[L.I_T]
    best = -1
    for tm in range(T):
        if scoring[tm]:
            scores[b, tm] += 1
            points[b, tm] += 1
        best = max(best, scores[b, tm])
    vote_open[b] = False  # cancelled, no result
    for s in range(n):
        if floor[b, s]:  # every floor released (round over)
            ev_released[b, s] = True
            floor[b, s] = False
            emoji[b, s] = -1
            pulse_anchor[b, s] = -1
        next_exchange[b, s] = 0  # Q11: cooldowns and reminders cleared
        next_floor[b, s] = 0
        rem_open[b, s] = -1
        rem_last[b, s] = -1
    call_kind[b] = kind
    call_caller[b] = caller
    call_target[b] = target
    for tm in range(T):
        call_scoring[b, tm] = scoring[tm]
    rounds_completed[b] += 1
    round_ended[b] = True
    if best >= prm[L.I_POINTS_TO_WIN]:
        match_ended[b] = True
        phase[b] = C.OVER
    else:
        phase[b] = C.PAUSE
        phase_end[b] = t + prm[L.I_PAUSE]
        start_requested[b] = False


@rule
def _begin_sign_phase(b, start, prm, is_bot, S):
    """Q7, Q8, Q11: a new round: round state cleared, signs afresh, hands empty."""
    floor, emoji, pulse_anchor, pulse_emoji = S.floor, S.emoji, S.pulse_anchor, S.pulse_emoji
    pulse_tick, rem_open, rem_last, next_exchange = S.pulse_tick, S.rem_open, S.rem_last, S.next_exchange
    next_floor, voters, yes, absent, ready = S.next_floor, S.voters, S.yes, S.absent, S.ready
    connected, hands, vote_open, reshuffled = S.connected, S.hands, S.vote_open, S.reshuffled
    next_proposal, start_requested, round_index = S.next_proposal, S.start_requested, S.round_index
    phase, phase_end, team_sign, call_scoring = S.phase, S.phase_end, S.team_sign, S.call_scoring
    center, call_kind, call_caller, call_target = S.center, S.call_kind, S.call_caller, S.call_target
    n, T = prm[L.I_N], prm[L.I_T]
    for s in range(n):
        floor[b, s] = False
        emoji[b, s] = -1
        pulse_anchor[b, s] = -1
        pulse_emoji[b, s] = -1
        pulse_tick[b, s] = -1
        rem_open[b, s] = -1
        rem_last[b, s] = -1
        next_exchange[b, s] = 0
        next_floor[b, s] = 0
        voters[b, s] = False
        yes[b, s] = False
        absent[b, s] = False
        ready[b, s] = is_bot[s] and connected[b, s]  # bots are ready at once (Q22)
        for j in range(4):
            hands[b, s, j] = -1
    vote_open[b] = False
    reshuffled[b] = False
    next_proposal[b] = 0
    start_requested[b] = False
    round_index[b] += 1
    phase[b] = C.SIGN
    phase_end[b] = start + (prm[L.I_SIGN_PHASE] - 1)
    for tm in range(T):
        team_sign[b, tm] = -1
        call_scoring[b, tm] = False
    for j in range(4):
        center[b, j] = -1
    call_kind[b] = C.NONE_CALL
    call_caller[b] = -1
    call_target[b] = -1


@rule
def _set_connected(b, s, on, is_bot, S, V):
    """Q23: a disconnection releases the floor at once (public); a reconnecting bot is ready."""
    connected, phase, ready, floor, emoji = S.connected, S.phase, S.ready, S.floor, S.emoji
    pulse_anchor, voters, vote_open, absent = S.pulse_anchor, S.voters, S.vote_open, S.absent
    ev_released = V.ev_released
    if on:
        connected[b, s] = True
        if is_bot[s] and phase[b] == C.SIGN:
            ready[b, s] = True
    else:
        connected[b, s] = False
        if floor[b, s] and phase[b] == C.PLAY:
            ev_released[b, s] = True
            floor[b, s] = False
            emoji[b, s] = -1
            pulse_anchor[b, s] = -1
        if voters[b, s] and vote_open[b]:
            absent[b, s] = True  # Q20: the vote can only fail now


@rule
def _apply_schedule(b, when_tick, sched, is_bot, S, V):
    """The configured (tick, seat, connected) entries of ``when_tick``, in order."""
    connected = S.connected
    for i in range(sched.shape[0]):
        if sched[i, 0] != when_tick:
            continue
        s = sched[i, 1]
        on = sched[i, 2] != 0
        if connected[b, s] != on:
            _set_connected(b, s, on, is_bot, S, V)


@rule
def _clear_events(b, n, V):
    ev_act, ev_took, ev_released, ev_proposed = V.ev_act, V.ev_took, V.ev_released, V.ev_proposed
    ev_replaced, ev_vote, ev_slot, ev_taken = V.ev_replaced, V.ev_vote, V.ev_slot, V.ev_taken
    ev_placed, ev_rejected, ev_vote_failed = V.ev_placed, V.ev_rejected, V.ev_vote_failed
    ev_reshuffled = V.ev_reshuffled
    for s in range(n):
        ev_act[b, s] = False
        ev_took[b, s] = False
        ev_released[b, s] = False
        ev_proposed[b, s] = False
        ev_replaced[b, s] = False
        ev_vote[b, s] = 0
        ev_slot[b, s] = -1
        ev_taken[b, s] = -1
        ev_placed[b, s] = -1
        ev_rejected[b, s] = -1
    ev_vote_failed[b] = False
    ev_reshuffled[b] = False


# ============================================================================ reset
@rule
def reset_table(b, prm, sched, is_bot, S, V):
    """A fresh match on table b (QuatroEngine.reset)."""
    key, seeds, episode, tick, scores = S.key, S.seeds, S.episode, S.tick, S.scores
    round_index, rounds_completed, connected = S.round_index, S.rounds_completed, S.connected
    n, T = prm[L.I_N], prm[L.I_T]
    key[b] = table_key(seeds[b], episode[b])
    tick[b] = 0
    for tm in range(T):
        scores[b, tm] = 0
    round_index[b] = 0
    rounds_completed[b] = 0
    for s in range(n):
        connected[b, s] = True
    _clear_events(b, n, V)
    _begin_sign_phase(b, 0, prm, is_bot, S)
    _apply_schedule(b, 0, sched, is_bot, S, V)
