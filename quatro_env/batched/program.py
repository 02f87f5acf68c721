"""The batched rules, written once as scalar programs over one table, for the CPU and the GPU.

Every function here plays one table ``b`` (deal, a tick resolved in its order, the end of a round,
clocks, connections, rewards, masks, the observation rows, sampling), exactly as the reference
engine ``quatro/engine.py`` does for its one table. No rule loops over tables or allocates: the
CPU loops at the end of this file run them table after table, ``cuda.py`` as one GPU thread per
table, and the caller hands in the work space (``Scratch``: one row per table being played at
once, one on the CPU, one per table on the GPU).

How it is compiled: a plain import compiles every function with numba for the CPU (inlined into the
table loops, without reference counting, which costs more than the rules themselves when every
table unpacks ~60 arrays); ``cuda.py`` executes this same file a second time with ``rule`` bound to
numba-cuda's device-function decorator. So the GPU runs this very source, and numba-cuda is
imported only there.

The tensors come as the namedtuples of ``schema.py`` (``S``: State, ``V``: Events, ``R``: Results,
``REC``: Draws), so every field is read by its declared name (``S.hands[b, s, j]``), once per
function into a local. Phases, action kinds, call kinds and the host seat are the reference's
(``constants.py``). Sizes and durations come in ``prm`` (int64, indices ``I_*``) and the
observation field offsets in ``offs`` (int64, indices ``O_*``: the encoder's field names, offsets
filled from ``make_blocks``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from quatro_env.batched.constants import (
    BLANK_CALL,
    CLIP,
    CONTRA_CALL,
    HOST_SEAT,
    K_CONTRA,
    K_EMOJI,
    K_EXCHANGE,
    K_NO,
    K_NOOP,
    K_PROPOSE,
    K_QUATRO,
    K_READY,
    K_RELEASE,
    K_SIGN,
    K_START,
    K_TAKE,
    K_YES,
    M32,
    NONE_CALL,
    NUM_EMOJIS,
    NUM_KINDS,
    OVER,
    P_CONNECT,
    P_DEAL,
    P_ORDER,
    P_Q5,
    P_SIGN,
    PAUSE,
    PLAY,
    QUATRO_CALL,
    SIGN,
)
from quatro_env.quatro.encoding import make_blocks

# ---- prm: integer parameters
(
    I_N,
    I_T,
    I_V,
    I_DECK,
    I_A,
    I_D,
    I_P,
    I_G,
    I_TB,
    I_SB,
    I_T0,
    I_S0,
    I_SIGN_PHASE,
    I_ROUND,
    I_PAUSE,
    I_XCD,
    I_FCD,
    I_PULSE,
    I_REMINDER,
    I_VOTE_WINDOW,
    I_VOTE_INTERVAL,
    I_POINTS_TO_WIN,
    I_MAX_ROUNDS,
    I_GUARD,
    I_REVEAL_SIGNS,
    I_EPISODE_ROUND,
    I_ZERO_SUM,
    I_RECORD,
    I_NUM_PRM,
) = range(29)

# ---- offs: observation field offsets inside their block, in the encoder's order (make_blocks); the
# names are the encoder's (the same at every player count), the offsets are filled per engine
OBS_FIELDS = tuple(name for block in make_blocks(4) for name, _ in block.fields)
NUM_OFFS = len(OBS_FIELDS)
_at = OBS_FIELDS.index
O_HAND, O_SIGN, O_EMOJI = _at("hand"), _at("sign"), _at("emoji")
O_REMINDER, O_REMINDER_LEFT, O_REJECTED = _at("reminder"), _at("reminder_left"), _at("rejected_slot")
O_PHASE, O_PHASE_LEFT, O_ROUND, O_CENTER = _at("phase"), _at("phase_left"), _at("round"), _at("center")
O_VOTE_OPEN, O_VOTE_LEFT, O_RESHUFFLE_USED = _at("vote_open"), _at("vote_left"), _at("reshuffle_used")
O_PROPOSAL_WAIT, O_VOTE_FAILED = _at("proposal_wait"), _at("vote_failed")
O_RESHUFFLED, O_LAST_CALL = _at("reshuffled"), _at("last_call")
O_SCORE, O_ACCUSED, O_SCORED, O_REVEALED_SIGN = (
    _at("score"),
    _at("accused"),
    _at("scored"),
    _at("revealed_sign"),
)
O_CONNECTED, O_READY, O_FLOOR = _at("connected"), _at("ready"), _at("floor")
O_EXCHANGE_WAIT, O_FLOOR_WAIT = _at("exchange_wait"), _at("floor_wait")
O_PULSE_EMOJI, O_PULSE_AGE, O_EXCHANGED = _at("pulse_emoji"), _at("pulse_age"), _at("exchanged")
O_EXCHANGE_SLOT, O_TAKEN, O_PLACED, O_ORDER = _at("exchange_slot"), _at("taken"), _at("placed"), _at("order")
O_TOOK, O_RELEASED = _at("took_floor"), _at("released_floor")
O_VOTED_YES, O_VOTED_NO, O_PROPOSED = _at("voted_yes"), _at("voted_no"), _at("proposed")
O_VOTER, O_SAID_YES, O_HAND_REPLACED = _at("voter"), _at("said_yes"), _at("hand_replaced")
O_PROPOSER, O_CALLER, O_REVEALED_HAND = _at("proposer"), _at("caller"), _at("revealed_hand")


#: how the functions below are compiled: numba for the CPU unless a loader (``cuda.py``) set
#: ``rule`` (and ``claim``) before executing this file
CPU = "rule" not in globals()
if CPU:
    rule = njit(cache=True, _nrt=False, inline="always")

    @rule
    def claim(counter):
        """The next free row of a record buffer shared by the tables (``cuda.py``: an atomic add)."""
        row = counter[0]
        counter[0] = row + 1
        return row


#: one table's work space, a row per table played at once (device code cannot allocate)
Scratch = namedtuple(
    "Scratch",
    [
        "u",  # [rows, 8] int64: this tick's draws (order, signs, connections)
        "order",  # [rows, n] int64: the seat at each resolution position (Q9)
        "changed",  # [rows, 4] bool: center slots changed this tick (Q14)
        "scoring",  # [rows, T] bool: teams scoring at the round's end
        "connected0",  # [rows, n] bool: connections before this tick's random changes
        "per_seat",  # [rows, n] float32: each seat's team points
        "deal_draws",  # [rows, deck] int64: the deal's draws ...
        "deal_perm",  # ... and permutation (Q4)
        "q5_draws",  # [rows, 8] int64: a Q5 re-split's draws, permutation and 8 cards
        "q5_perm",
        "q5_pool",
        "encode",  # [rows, width] uint8: a table's absolute features (encode_table)
        "cum",  # [rows, NUM_KINDS] float32: cumulative kind weights (sample_table)
    ],
)


def make_scratch(rows: int, n: int, T: int, deck: int, width: int) -> Scratch:
    """A work space for ``rows`` tables at once (numpy; ``cuda.py`` copies it to the device)."""
    i64, b8 = np.int64, np.bool_
    return Scratch(
        np.zeros((rows, 8), i64),
        np.zeros((rows, n), i64),
        np.zeros((rows, 4), b8),
        np.zeros((rows, T), b8),
        np.zeros((rows, n), b8),
        np.zeros((rows, n), np.float32),
        np.zeros((rows, deck), i64),
        np.zeros((rows, deck), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, 8), i64),
        np.zeros((rows, width), np.uint8),
        np.zeros((rows, NUM_KINDS), np.float32),
    )


def encode_width(n: int, T: int, P: int, G: int, TB: int, SB: int) -> int:
    """Length of ``encode_table``'s row: private blocks, table, team blocks twice, seat blocks twice."""
    return n * P + G + 2 * T * TB + 2 * n * SB


def make_offsets(blocks) -> np.ndarray:
    """``offs`` from the encoder's blocks (private, table, team, seat), indexed by the ``O_*`` names."""
    return np.asarray([block.offset(name) for block in blocks for name, _ in block.fields], dtype=np.int64)


# ============================================================================ randomness (Q30)
@rule
def _mix(x):
    x = x & M32
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & M32
    x = x ^ (x >> 15)
    x = (x * 0x2C1B3C6D) & M32
    return x ^ (x >> 16)


@rule
def table_key(seed, episode):
    lo = seed & M32
    hi = (seed >> 32) & M32
    return _mix(_mix(lo ^ 0x3C6EF372) ^ _mix(hi ^ 0x1B873593) ^ _mix(episode ^ 0x68E31DA4))


@rule
def _draws(key, tick, purpose, m, out):
    base = _mix(key ^ _mix(np.int64(tick) ^ (np.int64(purpose) << 20)))
    for i in range(m):
        out[i] = _mix(base + np.int64(i) * 0x9E3779B1)


@rule
def _perm(key, tick, purpose, m, u, out):
    """A stable argsort of m hashed draws (the torch path's ``_perm``)."""
    _draws(key, tick, purpose, m, u)
    for i in range(m):
        out[i] = i
    for i in range(1, m):
        cur = out[i]
        cv = u[cur]
        j = i
        while j > 0 and u[out[j - 1]] > cv:
            out[j] = out[j - 1]
            j -= 1
        out[j] = cur


# ============================================================================ cards
@rule
def _is_quartet(hands, b, s):
    v0 = hands[b, s, 0] >> 2
    return (hands[b, s, 1] >> 2) == v0 and (hands[b, s, 2] >> 2) == v0 and (hands[b, s, 3] >> 2) == v0


@rule
def _has_triple(hands, b, s):
    for i in range(4):
        vi = hands[b, s, i] >> 2
        cnt = 0
        for j in range(4):
            if (hands[b, s, j] >> 2) == vi:
                cnt += 1
        if cnt >= 3:
            return True
    return False


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
    n = prm[I_N]
    deck = prm[I_DECK]
    u, perm = W.deal_draws[slot], W.deal_perm[slot]
    u8, p8, pool = W.q5_draws[slot], W.q5_perm[slot], W.q5_pool[slot]
    _perm(key[b], tick[b], P_DEAL, deck, u, perm)
    record = prm[I_RECORD] != 0
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
            _perm(key[b], tick[b], P_Q5 + it * 8 + s, 8, u8, p8)
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
    n, T = prm[I_N], prm[I_T]
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
    if best >= prm[I_POINTS_TO_WIN]:
        match_ended[b] = True
        phase[b] = OVER
    else:
        phase[b] = PAUSE
        phase_end[b] = t + prm[I_PAUSE]
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
    n, T = prm[I_N], prm[I_T]
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
    phase[b] = SIGN
    phase_end[b] = start + (prm[I_SIGN_PHASE] - 1)
    for tm in range(T):
        team_sign[b, tm] = -1
        call_scoring[b, tm] = False
    for j in range(4):
        center[b, j] = -1
    call_kind[b] = NONE_CALL
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
        if is_bot[s] and phase[b] == SIGN:
            ready[b, s] = True
    else:
        connected[b, s] = False
        if floor[b, s] and phase[b] == PLAY:
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
    n, T = prm[I_N], prm[I_T]
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
    n, T = prm[I_N], prm[I_T]
    p_off, p_on = fprm[0], fprm[1]
    record = prm[I_RECORD] != 0
    guard = prm[I_GUARD] != 0
    zero_sum = prm[I_ZERO_SUM] != 0
    has_schedule = sched.shape[0] > 0
    d_xcd, d_fcd, d_vint, d_vwin = prm[I_XCD], prm[I_FCD], prm[I_VOTE_INTERVAL], prm[I_VOTE_WINDOW]
    u, order, changed, scoring = W.u[slot], W.order[slot], W.changed[slot], W.scoring[slot]
    c0, per_seat = W.connected0[slot], W.per_seat[slot]
    _clear_events(b, n, V)
    t = np.int64(tick[b])
    _perm(key[b], t, P_ORDER, n, u, order)
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
        if kind == K_NOOP:
            continue
        arg = arg_of[a]
        if kind == K_EXCHANGE:  # Q12–Q14
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
        elif kind in (K_TAKE, K_RELEASE):  # Q15, Q17
            floor[b, s] = kind == K_TAKE
            emoji[b, s] = -1
            pulse_anchor[b, s] = -1
            next_floor[b, s] = t + d_fcd
            if kind == K_TAKE:
                ev_took[b, s] = True
            else:
                ev_released[b, s] = True
            ev_act[b, s] = True
        elif kind == K_EMOJI:
            emoji[b, s] = arg
            if pulse_anchor[b, s] < 0:
                pulse_anchor[b, s] = t
        elif kind == K_SIGN:  # Q7: the first teammate fixes it
            if team_sign[b, s % T] < 0:
                team_sign[b, s % T] = arg
        elif kind == K_READY:  # Q8
            ready[b, s] = True
            ev_act[b, s] = True
        elif kind == K_START:  # Q11
            start_requested[b] = True
            ev_act[b, s] = True
        elif kind == K_PROPOSE:  # Q20, Q21
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
        elif kind in (K_YES, K_NO):  # Q20: a "no" ends the vote at once
            if not vote_open[b]:
                continue
            ev_act[b, s] = True
            if kind == K_NO:
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
        elif kind in (K_QUATRO, K_CONTRA):  # Q18, Q19
            own = kind == K_QUATRO and guard and _is_quartet(hands, b, s)
            if own and not (rem_open[b, s] < t and t <= rem_last[b, s]):
                rem_open[b, s] = t  # held back: the reminder (Q18)
                rem_last[b, s] = t + prm[I_REMINDER]
                continue
            my_team = s % T
            if kind == K_QUATRO:
                right = _is_quartet(hands, b, (s + T) % n)
                for tm in range(T):
                    scoring[tm] = (tm == my_team) == right
                target = -1
                call = QUATRO_CALL
            else:
                target = (my_team + arg) % T
                right = _is_quartet(hands, b, target) or _is_quartet(hands, b, target + T)
                for tm in range(T):
                    scoring[tm] = tm == my_team if right else tm == target
                call = CONTRA_CALL
            ev_act[b, s] = True
            _end_round(b, scoring, call, s, target, t, prm, S, V, R)

    # ---- the clock
    ph = phase[b]
    if ph == PLAY:
        pulse = prm[I_PULSE]
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
            _end_round(b, scoring, BLANK_CALL, -1, -1, t, prm, S, V, R)
    elif ph == SIGN:
        go = t >= phase_end[b]
        if not go:
            go = True
            for s in range(n):
                if connected[b, s] and not ready[b, s]:
                    go = False
        if go:  # Q8: missing signs drawn, deal, the clock
            _draws(key[b], t, P_SIGN, T, u)
            for tm in range(T):
                need = team_sign[b, tm] < 0
                if record:
                    rec_sign[b, tm] = u[tm] % NUM_EMOJIS if need else -1
                if need:
                    team_sign[b, tm] = u[tm] % NUM_EMOJIS
            if record:
                rec_sign_flag[b] = True
            _deal(b, prm, S, V, REC, W, slot)
            phase[b] = PLAY
            phase_end[b] = t + prm[I_ROUND]
    elif ph == PAUSE and (start_requested[b] or t >= phase_end[b]):  # Q11
        _begin_sign_phase(b, t + 1, prm, is_bot, S)
    tick[b] = t + 1

    # ---- between ticks (Q23): schedule, then random connection changes
    if phase[b] != OVER:
        if has_schedule:
            _apply_schedule(b, t + 1, sched, is_bot, S, V)
        if p_off > 0 or p_on > 0:
            drawn = p_off > 0
            if not drawn:
                for s in range(n):
                    if not connected[b, s]:
                        drawn = True
            if drawn:
                _draws(key[b], t + 1, P_CONNECT, n, u)
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
    te = match_ended[b] or (prm[I_EPISODE_ROUND] != 0 and round_ended[b])
    tr = (not te) and round_ended[b] and rounds_completed[b] >= prm[I_MAX_ROUNDS]
    terminated[b] = te
    truncated[b] = tr
    done[b] = te or tr
    for tm in range(T):
        final_scores[b, tm] = scores[b, tm]
    final_rounds[b] = rounds_completed[b]


# ============================================================================ observations (Q26–Q28)
@rule
def _clip(x):
    return 0 if x < 0 else (CLIP if x > CLIP else x)


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
    n, T, v = prm[I_N], prm[I_T], prm[I_V]
    P, G, TB, SB, T0, S0 = prm[I_P], prm[I_G], prm[I_TB], prm[I_SB], prm[I_T0], prm[I_S0]
    TAB = n * P  # scratch layout: private blocks, table, teams twice, seats twice
    TM = TAB + G
    ST = TM + 2 * T * TB
    w = W.encode[slot]
    ob = obs[b]
    now = np.int64(tick[b])
    ph = phase[b]
    play = ph == PLAY
    revealed = ph in (PAUSE, OVER)
    _zero(w, 0, TM + T * TB)
    _zero(w, ST, ST + n * SB)
    # ---- private blocks (Q26)
    for s in range(n):
        PV = s * P
        for j in range(4):
            c = hands[b, s, j]
            if c >= 0:
                w[PV + offs[O_HAND] + j * v + (c >> 2)] = 1
        ts = team_sign[b, s % T]
        if ts >= 0:
            w[PV + offs[O_SIGN] + ts] = 1
        e = emoji[b, s]
        if e >= 0:
            w[PV + offs[O_EMOJI] + e] = 1
        rl = np.int64(rem_last[b, s])
        if rem_open[b, s] < now and now <= rl:
            w[PV + offs[O_REMINDER]] = 1
            w[PV + offs[O_REMINDER_LEFT]] = _clip(rl - now + 1)
        r = ev_rejected[b, s]
        if r >= 0:
            w[PV + offs[O_REJECTED] + r] = 1
    # ---- table block (Q27)
    w[TAB + offs[O_PHASE] + ph] = 1
    if ph != OVER:
        w[TAB + offs[O_PHASE_LEFT]] = _clip(np.int64(phase_end[b]) - now + 1)
    w[TAB + offs[O_ROUND]] = _clip(np.int64(round_index[b]))
    for j in range(4):
        c = center[b, j]
        if c >= 0:
            w[TAB + offs[O_CENTER] + j * v + (c >> 2)] = 1
    vo = vote_open[b]
    if vo:
        w[TAB + offs[O_VOTE_OPEN]] = 1
        w[TAB + offs[O_VOTE_LEFT]] = _clip(np.int64(vote_deadline[b]) - now + 1)
    if reshuffled[b]:
        w[TAB + offs[O_RESHUFFLE_USED]] = 1
    npr = np.int64(next_proposal[b])
    if play and npr > now:
        w[TAB + offs[O_PROPOSAL_WAIT]] = _clip(npr - now)
    if ev_vote_failed[b]:
        w[TAB + offs[O_VOTE_FAILED]] = 1
    if ev_reshuffled[b]:
        w[TAB + offs[O_RESHUFFLED]] = 1
    ck = call_kind[b]
    if ck >= 0:
        w[TAB + offs[O_LAST_CALL] + ck] = 1
    # ---- team blocks (absolute order, observer 0)
    for tm in range(T):
        o = TM + tm * TB
        sc = scores[b, tm]
        w[o + offs[O_SCORE]] = sc if sc > 0 else 0
        if call_target[b] == tm:
            w[o + offs[O_ACCUSED]] = 1
        if call_scoring[b, tm]:
            w[o + offs[O_SCORED]] = 1
        ts = team_sign[b, tm]
        if reveal_signs and revealed and ts >= 0:
            w[o + offs[O_REVEALED_SIGN] + ts] = 1
    # ---- seat blocks (absolute order, observer 0)
    for s in range(n):
        o = ST + s * SB
        if connected[b, s]:
            w[o + offs[O_CONNECTED]] = 1
        if ready[b, s]:
            w[o + offs[O_READY]] = 1
        if play:
            if floor[b, s]:
                w[o + offs[O_FLOOR]] = 1
            w[o + offs[O_EXCHANGE_WAIT]] = _clip(np.int64(next_exchange[b, s]) - now)
            w[o + offs[O_FLOOR_WAIT]] = _clip(np.int64(next_floor[b, s]) - now)
        pe = pulse_emoji[b, s]
        if pe >= 0:
            w[o + offs[O_PULSE_EMOJI] + pe] = 1
            w[o + offs[O_PULSE_AGE]] = _clip(now - 1 - np.int64(pulse_tick[b, s]))
        else:
            w[o + offs[O_PULSE_AGE]] = CLIP
        sl = ev_slot[b, s]
        if sl >= 0:
            w[o + offs[O_EXCHANGED]] = 1
            w[o + offs[O_EXCHANGE_SLOT] + sl] = 1
        x = ev_taken[b, s]
        if x >= 0:
            w[o + offs[O_TAKEN] + x] = 1
        x = ev_placed[b, s]
        if x >= 0:
            w[o + offs[O_PLACED] + x] = 1
        if ev_act[b, s]:
            x = ev_pos[b, s]
            w[o + offs[O_ORDER]] = x if x > 0 else 0
        if ev_took[b, s]:
            w[o + offs[O_TOOK]] = 1
        if ev_released[b, s]:
            w[o + offs[O_RELEASED]] = 1
        x = ev_vote[b, s]
        if x == 1:
            w[o + offs[O_VOTED_YES]] = 1
        elif x == 2:
            w[o + offs[O_VOTED_NO]] = 1
        if ev_proposed[b, s]:
            w[o + offs[O_PROPOSED]] = 1
        if vo and voters[b, s]:
            w[o + offs[O_VOTER]] = 1
        if vo and yes[b, s]:
            w[o + offs[O_SAID_YES]] = 1
        if ev_replaced[b, s]:
            w[o + offs[O_HAND_REPLACED]] = 1
        if vo and vote_proposer[b] == s:
            w[o + offs[O_PROPOSER]] = 1
        if call_caller[b] == s:
            w[o + offs[O_CALLER]] = 1
        if revealed:
            for j in range(4):
                c = hands[b, s, j]
                if c >= 0:
                    w[o + offs[O_REVEALED_HAND] + j * v + (c >> 2)] = 1
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
    n, T, A = prm[I_N], prm[I_T], prm[I_A]
    ph = phase[b]
    now = tick[b]
    play, sign, pause = ph == PLAY, ph == SIGN, ph == PAUSE
    prop = play and not reshuffled[b] and not vote_open[b] and now >= next_proposal[b]
    for s in range(n):
        conn = connected[b, s]
        fl = floor[b, s]
        floor_ok = play and now >= next_floor[b, s] and conn
        kl = kind_legal[b, s]
        kl[K_NOOP] = True
        kl[K_EXCHANGE] = play and now >= next_exchange[b, s] and conn
        kl[K_TAKE] = floor_ok and not fl
        kl[K_RELEASE] = floor_ok and fl
        kl[K_EMOJI] = play and fl and conn
        kl[K_SIGN] = sign and team_sign[b, s % T] < 0 and conn
        kl[K_READY] = sign and not ready[b, s] and conn
        kl[K_QUATRO] = play and conn
        kl[K_CONTRA] = play and conn
        kl[K_PROPOSE] = prop and conn
        vote = play and vote_open[b] and voters[b, s] and not yes[b, s] and not absent[b, s] and conn
        kl[K_YES] = vote
        kl[K_NO] = vote
        kl[K_START] = s == HOST_SEAT and pause and not start_requested[b] and conn
        code = 0
        for k in range(NUM_KINDS):
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


# ============================================================================ the CPU loops
# Compiled only for the CPU build (``cuda.py`` launches one thread per table instead). They live in
# this file because numba's cache knows a function's own file only: a loop cached elsewhere would
# keep an inlined rule that has since changed.
if CPU:
    _loop = njit(cache=True, _nrt=False)

    @_loop
    def reset_rows(rows, prm, sched, is_bot, S, V):
        """A fresh match on the tables where ``rows``."""
        for b in range(rows.shape[0]):
            if rows[b]:
                reset_table(b, prm, sched, is_bot, S, V)

    @_loop
    def check_actions(actions, masks, num_actions, illegal, out):
        """Legality at the start of the tick; returns the flat index of the first illegal action or -1."""
        first = -1
        for b in range(actions.shape[0]):
            if check_table(b, actions, masks, num_actions, illegal, out) and first < 0:
                for s in range(actions.shape[1]):
                    if illegal[b, s] and first < 0:
                        first = b * actions.shape[1] + s
        return first

    @_loop
    def tick_all(actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W):
        """One tick on every table (scratch row 0, reused table after table)."""
        for b in range(actions.shape[0]):
            tick_table(b, actions, prm, fprm, kind_of, arg_of, sched, is_bot, S, V, R, REC, W, 0)

    @_loop
    def encode(rows, all_rows, obs, prm, offs, reveal_signs, S, V, W):
        """Every seat's observation on the tables where ``rows`` (all of them if ``all_rows``)."""
        for b in range(obs.shape[0]):
            if all_rows or rows[b]:
                encode_table(b, obs, prm, offs, reveal_signs, S, V, W, 0)

    @_loop
    def compute_masks(rows, all_rows, masks, kind_legal, lut, prm, S):
        """Every seat's mask on the tables where ``rows`` (all of them if ``all_rows``)."""
        for b in range(masks.shape[0]):
            if all_rows or rows[b]:
                masks_table(b, masks, kind_legal, lut, prm, S)

    @_loop
    def sample(u, kind_legal, size, start, out, W):
        """Uniformly random legal actions on every table."""
        for b in range(kind_legal.shape[0]):
            sample_table(b, u, kind_legal, size, start, out, W, 0)

    @_loop
    def copy_rows_not(rows, src, dst):
        """dst[b] = src[b] where not rows[b] (the terminal view of tables that did not finish)."""
        for b in range(rows.shape[0]):
            if not rows[b]:
                for i in range(src.shape[1]):
                    for j in range(src.shape[2]):
                        dst[b, i, j] = src[b, i, j]
