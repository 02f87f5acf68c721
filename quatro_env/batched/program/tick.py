"""One tick of one table (Q9): the actions resolved in the tick's order, the clock, connections,
rewards and terminations (``tick_table``); and the legality check that comes first (``check_table``).
"""

from __future__ import annotations

import numpy as np

from quatro_env.batched import constants as C
from quatro_env.batched.program.draws import _draws, _is_quartet, _perm
from quatro_env.batched.program.round import (
    _apply_schedule,
    _begin_sign_phase,
    _clear_events,
    _deal,
    _end_round,
    _release_floor,
    _reshuffle,
    _scheduled,
    _set_connected,
)
from quatro_env.batched.program.target import rule


# ============================================================================ the tick (Q9)
@rule
def check_table(b, actions, masks, num_actions, illegal, out):
    """Legality at the start of the tick (Q29: the engine's own masks); an illegal action plays the no-op."""
    for s in range(actions.shape[1]):
        a = actions[b, s]
        bad = a < 0 or a >= num_actions or masks[b, s, a] == 0
        illegal[b, s] = bad
        out[b, s] = 0 if bad else a


@rule
def tick_table(b, actions, prm, K, S, V, R, REC, W, slot):
    """One tick on table b: resolution (Q9), clock, connections, rewards, terminations (``slot``: the
    table's row of the work space ``W``)."""
    n, T = prm.n, prm.T
    record = prm.record != 0
    u, order, changed, scoring = W.u[slot], W.order[slot], W.changed[slot], W.scoring[slot]
    c0, per_seat = W.connected0[slot], W.per_seat[slot]
    _clear_events(b, n, V)
    t = np.int64(S.tick[b])
    _perm(S.key[b], t, C.P_ORDER, n, u, order)
    for k in range(n):
        V.ev_pos[b, order[k]] = k + 1
        if record:
            REC.order[b, k] = order[k]
    for tm in range(T):
        R.points[b, tm] = 0
    R.round_ended[b] = False
    R.match_ended[b] = False
    for j in range(4):
        changed[j] = False
    phase0 = S.phase[b]
    for k in range(n):
        if S.phase[b] != phase0:
            break  # the round ended earlier in this tick (Q10)
        s = order[k]
        a = actions[b, s]
        kind = K.kind_of[a]
        if kind == C.K_NOOP:
            continue
        arg = K.arg_of[a]
        if kind == C.K_EXCHANGE:  # Q12–Q14
            h, c = arg >> 2, arg & 3
            if changed[c]:
                V.ev_rejected[b, s] = c
            else:
                taken = S.center[b, c]
                placed = S.hands[b, s, h]
                S.center[b, c] = placed
                S.hands[b, s, h] = taken
                changed[c] = True
                S.next_exchange[b, s] = t + prm.exchange_cooldown
                V.ev_slot[b, s] = c
                V.ev_taken[b, s] = taken >> 2
                V.ev_placed[b, s] = placed >> 2
                V.ev_act[b, s] = True
        elif kind in (C.K_TAKE, C.K_RELEASE):  # Q15, Q17: a floor taken has no emoji nor pulse yet
            if kind == C.K_TAKE:
                S.floor[b, s], S.emoji[b, s], S.pulse_anchor[b, s] = True, -1, -1
                V.ev_took[b, s] = True
            else:
                _release_floor(b, s, S, V)
            S.next_floor[b, s] = t + prm.floor_cooldown
            V.ev_act[b, s] = True
        elif kind == C.K_EMOJI:
            S.emoji[b, s] = arg
            if S.pulse_anchor[b, s] < 0:
                S.pulse_anchor[b, s] = t
        elif kind == C.K_SIGN:  # Q7: the first teammate fixes it
            if S.team_sign[b, s % T] < 0:
                S.team_sign[b, s % T] = arg
        elif kind == C.K_READY:  # Q8
            S.ready[b, s] = True
            V.ev_act[b, s] = True
        elif kind == C.K_START:  # Q11
            S.start_requested[b] = True
            V.ev_act[b, s] = True
        elif kind == C.K_PROPOSE:  # Q20, Q21
            if S.vote_open[b] or S.reshuffled[b]:
                continue  # overtaken earlier in this tick: moot
            has_voters = False
            for x in range(n):
                if S.connected[b, x] and not K.is_bot[x] and x != s:
                    has_voters = True
            S.next_proposal[b] = t + prm.vote_interval
            V.ev_proposed[b, s] = True
            V.ev_act[b, s] = True
            if has_voters:
                S.vote_open[b] = True
                S.vote_proposer[b] = s
                for x in range(n):
                    S.voters[b, x] = S.connected[b, x] and not K.is_bot[x] and x != s
                    S.yes[b, x] = False
                    S.absent[b, x] = False
                S.vote_deadline[b] = t + prm.vote_window
            else:
                _reshuffle(b, prm, changed, S, V, REC, W, slot)
        elif kind in (C.K_YES, C.K_NO):  # Q20: a "no" ends the vote at once
            if not S.vote_open[b]:
                continue
            V.ev_act[b, s] = True
            if kind == C.K_NO:
                V.ev_vote[b, s] = 2
                S.vote_open[b] = False
                V.ev_vote_failed[b] = True
            else:
                V.ev_vote[b, s] = 1
                S.yes[b, s] = True
                complete = True
                for x in range(n):
                    if S.yes[b, x] != S.voters[b, x]:
                        complete = False
                if complete:
                    S.vote_open[b] = False
                    _reshuffle(b, prm, changed, S, V, REC, W, slot)
        elif kind in (C.K_QUATRO, C.K_CONTRA):  # Q18, Q19
            own = kind == C.K_QUATRO and prm.guard != 0 and _is_quartet(S.hands, b, s)
            if own and not (S.rem_open[b, s] < t and t <= S.rem_last[b, s]):
                S.rem_open[b, s] = t  # held back: the reminder (Q18)
                S.rem_last[b, s] = t + prm.reminder_window
                continue
            my_team = s % T
            if kind == C.K_QUATRO:
                right = _is_quartet(S.hands, b, (s + T) % n)
                for tm in range(T):
                    scoring[tm] = (tm == my_team) == right
                target = -1
                call = C.QUATRO_CALL
            else:
                target = (my_team + arg) % T
                right = _is_quartet(S.hands, b, target) or _is_quartet(S.hands, b, target + T)
                for tm in range(T):
                    scoring[tm] = tm == my_team if right else tm == target
                call = C.CONTRA_CALL
            V.ev_act[b, s] = True
            _end_round(b, scoring, call, s, target, t, prm, S, V, R)

    # ---- the clock
    ph = S.phase[b]
    if ph == C.PLAY:
        pulse = prm.pulse
        for s in range(n):  # pulses (Q15)
            anchor = S.pulse_anchor[b, s]
            if S.floor[b, s] and anchor >= 0 and (t - anchor) % pulse == 0:
                S.pulse_emoji[b, s] = S.emoji[b, s]
                S.pulse_tick[b, s] = t
        if S.vote_open[b] and t >= S.vote_deadline[b]:  # silence is a no (Q20)
            S.vote_open[b] = False
            V.ev_vote_failed[b] = True
        if t >= S.phase_end[b]:  # Q10: a blank round
            for tm in range(T):
                scoring[tm] = False
            _end_round(b, scoring, C.BLANK_CALL, -1, -1, t, prm, S, V, R)
    elif ph == C.SIGN:
        go = t >= S.phase_end[b]
        if not go:
            go = True
            for s in range(n):
                if S.connected[b, s] and not S.ready[b, s]:
                    go = False
        if go:  # Q8: missing signs drawn, deal, the clock
            _draws(S.key[b], t, C.P_SIGN, T, u)
            for tm in range(T):
                need = S.team_sign[b, tm] < 0
                if record:
                    REC.sign[b, tm] = u[tm] % C.NUM_EMOJIS if need else -1
                if need:
                    S.team_sign[b, tm] = u[tm] % C.NUM_EMOJIS
            if record:
                REC.sign_flag[b] = True
            _deal(b, prm, S, V, REC, W, slot)
            S.phase[b] = C.PLAY
            S.phase_end[b] = t + prm.round
    elif ph == C.PAUSE and (S.start_requested[b] or t >= S.phase_end[b]):  # Q11
        _begin_sign_phase(b, t + 1, prm, K, S)
    S.tick[b] = t + 1

    # ---- between ticks (Q23): schedule, then random connection changes
    if S.phase[b] != C.OVER:
        _apply_schedule(b, t + 1, K, S, V)
        if prm.p_disconnect > 0 or prm.p_reconnect > 0:
            drawn = prm.p_disconnect > 0
            if not drawn:
                for s in range(n):
                    if not S.connected[b, s]:
                        drawn = True
            if drawn:
                _draws(S.key[b], t + 1, C.P_CONNECT, n, u)
                for s in range(n):
                    c0[s] = S.connected[b, s]
                for s in range(n):
                    x = np.float64(u[s]) / 4294967296.0
                    if record:
                        REC.random[b, s] = x
                    if c0[s] and x < prm.p_disconnect and not _scheduled(t + 1, s, K):
                        _set_connected(b, s, False, K, S, V)
                for s in range(n):
                    x = np.float64(u[s]) / 4294967296.0
                    if not c0[s] and x < prm.p_reconnect and not _scheduled(t + 1, s, K):
                        _set_connected(b, s, True, K, S, V)
                if record:
                    REC.random_flag[b] = True

    # ---- rewards, terminations (QuatroParallelEnv.step)
    gained = np.float32(0.0)
    losers = 0
    for s in range(n):
        per_seat[s] = np.float32(R.points[b, s % T])
        gained += per_seat[s]
        if per_seat[s] == 0:
            losers += 1
    share = np.float32(-gained) / np.float32(max(losers, 1))
    for s in range(n):
        if prm.zero_sum != 0 and per_seat[s] == 0 and gained != 0 and losers > 0:
            R.rewards[b, s] = share
        else:
            R.rewards[b, s] = per_seat[s]
    te = R.match_ended[b] or (prm.episode_round != 0 and R.round_ended[b])
    tr = (not te) and R.round_ended[b] and S.rounds_completed[b] >= prm.max_rounds
    R.terminated[b] = te
    R.truncated[b] = tr
    R.done[b] = te or tr
    for tm in range(T):
        R.final_scores[b, tm] = S.scores[b, tm]
    R.final_rounds[b] = S.rounds_completed[b]
