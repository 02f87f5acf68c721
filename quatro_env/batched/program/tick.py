"""One tick of one table (Q9): the actions resolved in the tick's order, the clock, connections,
rewards and terminations (``tick_table``); and the legality check that comes first (``check_table``).
"""

from __future__ import annotations

import numpy as np

from quatro_env.batched import constants as C
from quatro_env.batched.program import layout as L
from quatro_env.batched.program.draws import (
    _draws,
    _is_quartet,
    _perm,
)
from quatro_env.batched.program.round import (
    _apply_schedule,
    _begin_sign_phase,
    _clear_events,
    _deal,
    _end_round,
    _reshuffle,
    _set_connected,
)
from quatro_env.batched.program.target import rule


# ============================================================================ the tick (Q9)
@rule
def check_table(b, actions, masks, num_actions, illegal, out):
    """Legality at the start of the tick (Q29: the engine's own masks); True if a seat's action is illegal."""
    n = actions.shape[1]
    any_bad = False
    for s in range(n):
        a = actions[b, s]
        bad = a < 0 or a >= num_actions or masks[b, s, a] == 0
        illegal[b, s] = bad
        out[b, s] = 0 if bad else a
        any_bad = any_bad or bad
    return any_bad


@rule
def tick_table(b, actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W, slot):
    """One tick on table b: resolution (Q9), clock, connections, rewards, terminations.

    ``W`` is the work space and ``slot`` this table's row in it.
    """
    tick, key, phase, center, hands = S.tick, S.key, S.phase, S.center, S.hands
    next_exchange, floor, emoji, pulse_anchor = S.next_exchange, S.floor, S.emoji, S.pulse_anchor
    next_floor, team_sign, ready, start_requested = S.next_floor, S.team_sign, S.ready, S.start_requested
    vote_open, reshuffled, connected = S.vote_open, S.reshuffled, S.connected
    next_proposal, vote_proposer, voters, yes = S.next_proposal, S.vote_proposer, S.voters, S.yes
    absent, vote_deadline, rem_open, rem_last = S.absent, S.vote_deadline, S.rem_open, S.rem_last
    pulse_emoji, pulse_tick, phase_end = S.pulse_emoji, S.pulse_tick, S.phase_end
    rounds_completed, scores = S.rounds_completed, S.scores
    ev_pos, ev_rejected, ev_slot, ev_taken = V.ev_pos, V.ev_rejected, V.ev_slot, V.ev_taken
    ev_placed, ev_act, ev_took, ev_released = V.ev_placed, V.ev_act, V.ev_took, V.ev_released
    ev_proposed, ev_vote, ev_vote_failed = V.ev_proposed, V.ev_vote, V.ev_vote_failed
    points, round_ended, match_ended, rewards = R.points, R.round_ended, R.match_ended, R.rewards
    terminated, truncated, done, final_scores = R.terminated, R.truncated, R.done, R.final_scores
    final_rounds = R.final_rounds
    rec_order, rec_sign, rec_sign_flag, rec_random = REC.order, REC.sign, REC.sign_flag, REC.random
    rec_random_flag = REC.random_flag
    n, T = prm[L.I_N], prm[L.I_T]
    p_off, p_on = fprm[0], fprm[1]
    record = prm[L.I_RECORD] != 0
    guard = prm[L.I_GUARD] != 0
    zero_sum = prm[L.I_ZERO_SUM] != 0
    has_schedule = sched.shape[0] > 0
    d_xcd, d_fcd, d_vint, d_vwin = prm[L.I_XCD], prm[L.I_FCD], prm[L.I_VOTE_INTERVAL], prm[L.I_VOTE_WINDOW]
    u, order, changed, scoring = W.u[slot], W.order[slot], W.changed[slot], W.scoring[slot]
    c0, per_seat = W.connected0[slot], W.per_seat[slot]
    _clear_events(b, n, V)
    t = np.int64(tick[b])
    _perm(key[b], t, C.P_ORDER, n, u, order)
    for k in range(n):
        ev_pos[b, order[k]] = k + 1
        if record:
            rec_order[b, k] = order[k]
    for tm in range(T):
        points[b, tm] = 0
    round_ended[b] = False
    match_ended[b] = False
    for j in range(4):
        changed[j] = False
    phase0 = phase[b]
    for k in range(n):
        if phase[b] != phase0:
            break  # the round ended earlier in this tick (Q10)
        s = order[k]
        a = actions[b, s]
        kind = kind_of[a]
        if kind == C.K_NOOP:
            continue
        arg = arg_of[a]
        if kind == C.K_EXCHANGE:  # Q12–Q14
            h, c = arg >> 2, arg & 3
            if changed[c]:
                ev_rejected[b, s] = c
            else:
                taken = center[b, c]
                placed = hands[b, s, h]
                center[b, c] = placed
                hands[b, s, h] = taken
                changed[c] = True
                next_exchange[b, s] = t + d_xcd
                ev_slot[b, s] = c
                ev_taken[b, s] = taken >> 2
                ev_placed[b, s] = placed >> 2
                ev_act[b, s] = True
        elif kind in (C.K_TAKE, C.K_RELEASE):  # Q15, Q17
            floor[b, s] = kind == C.K_TAKE
            emoji[b, s] = -1
            pulse_anchor[b, s] = -1
            next_floor[b, s] = t + d_fcd
            if kind == C.K_TAKE:
                ev_took[b, s] = True
            else:
                ev_released[b, s] = True
            ev_act[b, s] = True
        elif kind == C.K_EMOJI:
            emoji[b, s] = arg
            if pulse_anchor[b, s] < 0:
                pulse_anchor[b, s] = t
        elif kind == C.K_SIGN:  # Q7: the first teammate fixes it
            if team_sign[b, s % T] < 0:
                team_sign[b, s % T] = arg
        elif kind == C.K_READY:  # Q8
            ready[b, s] = True
            ev_act[b, s] = True
        elif kind == C.K_START:  # Q11
            start_requested[b] = True
            ev_act[b, s] = True
        elif kind == C.K_PROPOSE:  # Q20, Q21
            if vote_open[b] or reshuffled[b]:
                continue  # overtaken earlier in this tick: moot
            has_voters = False
            for x in range(n):
                if connected[b, x] and not is_bot[x] and x != s:
                    has_voters = True
            next_proposal[b] = t + d_vint
            ev_proposed[b, s] = True
            ev_act[b, s] = True
            if has_voters:
                vote_open[b] = True
                vote_proposer[b] = s
                for x in range(n):
                    voters[b, x] = connected[b, x] and not is_bot[x] and x != s
                    yes[b, x] = False
                    absent[b, x] = False
                vote_deadline[b] = t + d_vwin
            else:
                _reshuffle(b, prm, changed, S, V, REC, W, slot)
        elif kind in (C.K_YES, C.K_NO):  # Q20: a "no" ends the vote at once
            if not vote_open[b]:
                continue
            ev_act[b, s] = True
            if kind == C.K_NO:
                ev_vote[b, s] = 2
                vote_open[b] = False
                ev_vote_failed[b] = True
            else:
                ev_vote[b, s] = 1
                yes[b, s] = True
                complete = True
                for x in range(n):
                    if yes[b, x] != voters[b, x]:
                        complete = False
                if complete:
                    vote_open[b] = False
                    _reshuffle(b, prm, changed, S, V, REC, W, slot)
        elif kind in (C.K_QUATRO, C.K_CONTRA):  # Q18, Q19
            own = kind == C.K_QUATRO and guard and _is_quartet(hands, b, s)
            if own and not (rem_open[b, s] < t and t <= rem_last[b, s]):
                rem_open[b, s] = t  # held back: the reminder (Q18)
                rem_last[b, s] = t + prm[L.I_REMINDER]
                continue
            my_team = s % T
            if kind == C.K_QUATRO:
                right = _is_quartet(hands, b, (s + T) % n)
                for tm in range(T):
                    scoring[tm] = (tm == my_team) == right
                target = -1
                call = C.QUATRO_CALL
            else:
                target = (my_team + arg) % T
                right = _is_quartet(hands, b, target) or _is_quartet(hands, b, target + T)
                for tm in range(T):
                    scoring[tm] = tm == my_team if right else tm == target
                call = C.CONTRA_CALL
            ev_act[b, s] = True
            _end_round(b, scoring, call, s, target, t, prm, S, V, R)

    # ---- the clock
    ph = phase[b]
    if ph == C.PLAY:
        pulse = prm[L.I_PULSE]
        for s in range(n):  # pulses (Q15)
            anchor = pulse_anchor[b, s]
            if floor[b, s] and anchor >= 0 and (t - anchor) % pulse == 0:
                pulse_emoji[b, s] = emoji[b, s]
                pulse_tick[b, s] = t
        if vote_open[b] and t >= vote_deadline[b]:  # silence is a no (Q20)
            vote_open[b] = False
            ev_vote_failed[b] = True
        if t >= phase_end[b]:  # Q10: a blank round
            for tm in range(T):
                scoring[tm] = False
            _end_round(b, scoring, C.BLANK_CALL, -1, -1, t, prm, S, V, R)
    elif ph == C.SIGN:
        go = t >= phase_end[b]
        if not go:
            go = True
            for s in range(n):
                if connected[b, s] and not ready[b, s]:
                    go = False
        if go:  # Q8: missing signs drawn, deal, the clock
            _draws(key[b], t, C.P_SIGN, T, u)
            for tm in range(T):
                need = team_sign[b, tm] < 0
                if record:
                    rec_sign[b, tm] = u[tm] % C.NUM_EMOJIS if need else -1
                if need:
                    team_sign[b, tm] = u[tm] % C.NUM_EMOJIS
            if record:
                rec_sign_flag[b] = True
            _deal(b, prm, S, V, REC, W, slot)
            phase[b] = C.PLAY
            phase_end[b] = t + prm[L.I_ROUND]
    elif ph == C.PAUSE and (start_requested[b] or t >= phase_end[b]):  # Q11
        _begin_sign_phase(b, t + 1, prm, is_bot, S)
    tick[b] = t + 1

    # ---- between ticks (Q23): schedule, then random connection changes
    if phase[b] != C.OVER:
        if has_schedule:
            _apply_schedule(b, t + 1, sched, is_bot, S, V)
        if p_off > 0 or p_on > 0:
            drawn = p_off > 0
            if not drawn:
                for s in range(n):
                    if not connected[b, s]:
                        drawn = True
            if drawn:
                _draws(key[b], t + 1, C.P_CONNECT, n, u)
                for s in range(n):
                    c0[s] = connected[b, s]
                for s in range(n):
                    x = np.float64(u[s]) / 4294967296.0
                    if record:
                        rec_random[b, s] = x
                    if c0[s] and x < p_off:
                        _set_connected(b, s, False, is_bot, S, V)
                for s in range(n):
                    x = np.float64(u[s]) / 4294967296.0
                    if not c0[s] and x < p_on:
                        _set_connected(b, s, True, is_bot, S, V)
                if record:
                    rec_random_flag[b] = True

    # ---- rewards, terminations (QuatroParallelEnv.step)
    gained = np.float32(0.0)
    losers = 0
    for s in range(n):
        per_seat[s] = np.float32(points[b, s % T])
        gained += per_seat[s]
        if per_seat[s] == 0:
            losers += 1
    share = np.float32(-gained) / np.float32(max(losers, 1))
    for s in range(n):
        if zero_sum and per_seat[s] == 0 and gained != 0 and losers > 0:
            rewards[b, s] = share
        else:
            rewards[b, s] = per_seat[s]
    te = match_ended[b] or (prm[L.I_EPISODE_ROUND] != 0 and round_ended[b])
    tr = (not te) and round_ended[b] and rounds_completed[b] >= prm[L.I_MAX_ROUNDS]
    terminated[b] = te
    truncated[b] = tr
    done[b] = te or tr
    for tm in range(T):
        final_scores[b, tm] = scores[b, tm]
    final_rounds[b] = rounds_completed[b]
