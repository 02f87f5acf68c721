"""The reference rules engine of Quatro: a game state and a ``step`` that plays one tick (Q9).

This module is the executable specification. It knows nothing of PettingZoo or tensors; every
rule is cited by its id so that a reader can check the code against ``docs/quatro.md`` line by
line. Seats, teams and cards are absolute here (the egocentric view is the encoder's job).

Time: ``tick`` is the index of the next tick to be played. A tick ``t`` resolves the seats'
actions one by one in a random order, then runs the end-of-tick clock (pulses, vote deadline,
phase ends), then applies connection changes "between ticks" (Q6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from quatro_env.common.strict import as_int
from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS, deck_size, has_triple, is_quartet
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.events import Event
from quatro_env.quatro.phases import _KINDS_BY_PHASE, HOST_SEAT, Phase
from quatro_env.quatro.positions import Position, ScriptedPositions

#: Phase, HOST_SEAT and Position live in phases.py and positions.py; imported from here as before
__all__ = [
    "HOST_SEAT",
    "GameOverError",
    "IllegalActionError",
    "Phase",
    "Position",
    "QuatroEngine",
    "TickResult",
]
__all__ += ["Vote"]


class IllegalActionError(ValueError):
    """An action the rules do not allow this tick (Q29). The batched engine names its ``table`` too, and
    its vector env the ``slot`` the caller indexes."""

    def __init__(
        self,
        seat: int,
        action: int,
        description: str,
        reason: str,
        table: int | None = None,
        slot: int | None = None,
    ) -> None:
        self.seat, self.action, self.description, self.reason = seat, action, description, reason
        self.table, self.slot = table, slot
        where = f"seat {seat}" if table is None else f"table {table} seat {seat}"
        where = where if slot is None else f"slot {slot} ({where})"
        super().__init__(f"illegal action for {where}: {action} ({description}): {reason}")

    def __reduce__(self):  # pickled with its fields (a worker process's error reaches the driver whole)
        return type(self), (self.seat, self.action, self.description, self.reason, self.table, self.slot)


class GameOverError(RuntimeError):
    """``step`` after the match has ended (Q29)."""


@dataclass
class Vote:
    """An open reshuffle vote (Q20): the voter set is fixed at the proposal."""

    proposer: int
    voters: frozenset[int]
    deadline: int  # last tick at which an answer counts (window t+1..t+k, Q6)
    yes: set[int] = field(default_factory=set)
    absent: set[int] = field(default_factory=set)  # voters who disconnected: they cannot answer (Q20)


@dataclass
class CallRecord:
    """How the last round ended, kept for the observations until the next sign phase."""

    kind: str  # "quatro" | "contra" | "blank"
    caller: int | None
    target_team: int | None
    scoring_teams: tuple[int, ...]


@dataclass
class TickResult:
    """What one tick did: its events (in resolution order) and the points it gave."""

    tick: int
    order: tuple[int, ...]
    events: list[Event]
    points: list[int]  # points won this tick, per absolute team
    round_ended: bool = False
    match_over: bool = False


class QuatroEngine(ScriptedPositions):
    """One Quatro table. Create, :meth:`reset`, then :meth:`step` with one action per seat."""

    def __init__(self, config: QuatroConfig | None = None) -> None:
        self.config = config or QuatroConfig()
        self.n = self.config.num_players
        self.num_teams = self.n // 2
        self.durations = to_ticks(self.config)
        self.codec = ActionCodec(self.n)
        self.is_bot = [seat in self.config.bot_seats for seat in range(self.n)]
        self._schedule: dict[int, list[tuple[int, bool]]] = {}
        for tick, seat, connected in self.config.disconnect_schedule:
            self._schedule.setdefault(tick, []).append((seat, connected))
        self._kind_rules = {
            ActionKind.NOOP: self._why_not_noop,
            ActionKind.EXCHANGE: self._why_not_exchange,
            ActionKind.TAKE_FLOOR: self._why_not_take_floor,
            ActionKind.RELEASE_FLOOR: self._why_not_release_floor,
            ActionKind.SHOW_EMOJI: self._why_not_show_emoji,
            ActionKind.CHOOSE_SIGN: self._why_not_choose_sign,
            ActionKind.READY: self._why_not_ready,
            ActionKind.QUATRO: self._why_not_call,
            ActionKind.CONTRA: self._why_not_call,
            ActionKind.PROPOSE_RESHUFFLE: self._why_not_propose,
            ActionKind.VOTE_YES: self._why_not_vote,
            ActionKind.VOTE_NO: self._why_not_vote,
            ActionKind.START_ROUND: self._why_not_start_round,
        }
        #: for legal_mask: the rules of the kinds each phase allows, and the mask of each legal-kind set
        self._phase_rules = {
            phase: tuple((kind, self._kind_rules[kind]) for kind in kinds)
            for phase, kinds in _KINDS_BY_PHASE.items()
        }
        self._mask_rows: dict[tuple[ActionKind, ...], np.ndarray] = {}
        self.reset(0)

    # ------------------------------------------------------------------ set-up
    def reset(self, seed: int | None = None) -> list[Event]:
        """Start a new match at the sign phase of round 1 (Q7, Q8). Returns the opening events."""
        self.rng = np.random.default_rng(seed)  # Q30: every random draw comes from here
        n = self.n
        self.tick = 0
        self.scores = [0] * self.num_teams
        self.round_index = 0
        self.rounds_completed = 0
        self.winners: tuple[int, ...] = ()
        self.connected = [True] * n
        self._forced_deal: list[int] | None = None
        self._forced_order: tuple[int, ...] | None = None
        self.pending_events: list[Event] = []
        self._begin_sign_phase(start=0)
        self._apply_schedule(0)
        events, self.pending_events = self.pending_events, []
        return events

    def _clear_round_state(self) -> None:
        """Q11: between rounds floors, emojis, cooldowns, reminders and votes are cleared."""
        n = self.n
        self.floor = [False] * n
        self.emoji: list[int | None] = [None] * n
        self.pulse_anchor: list[int | None] = [None] * n
        self.last_pulse: list[tuple[int, int] | None] = [None] * n  # (emoji, tick)
        self.next_exchange_tick = [0] * n
        self.next_floor_tick = [0] * n
        self.reminder: list[tuple[int, int] | None] = [None] * n  # (opened, last tick of window)
        self.vote: Vote | None = None
        self.reshuffled_this_round = False
        self.next_proposal_tick = 0
        self.start_requested = False

    def _begin_sign_phase(self, start: int) -> None:
        """Q7, Q8: a new round begins with empty hands; signs are chosen afresh."""
        self._clear_round_state()
        self.round_index += 1
        self.phase = Phase.SIGN
        self.phase_start, self.phase_end = start, start + self.durations.sign_phase - 1
        self.team_sign: list[int | None] = [None] * self.num_teams
        self.ready = [self.is_bot[s] and self.connected[s] for s in range(self.n)]  # bots ready at once
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.center: list[int] = []
        self.revealed = False  # Q7, Q28: hands and signs are shown only from a round's end to the next
        self.last_call: CallRecord | None = None

    def _begin_play(self, now: int, events: list[Event]) -> None:
        """Q8: draw the missing signs, deal, start the 180 s clock."""
        for team in range(self.num_teams):
            if self.team_sign[team] is None:
                self.team_sign[team] = int(self.rng.integers(NUM_EMOJIS))
                events.append(
                    Event(
                        "sign_drawn",
                        None,
                        {"team": team, "sign": self.team_sign[team]},
                        frozenset(self.team_members(team)),
                    )
                )
        self._deal(events)
        self.phase = Phase.PLAY
        self.phase_start, self.phase_end = now + 1, now + self.durations.round
        events.append(Event("round_started", None, {"round": self.round_index}))

    def _deal(self, events: list[Event]) -> None:
        """Q4 deal, then Q5: a seat dealt a triple re-splits its cards with the center."""
        n = self.n
        order = (
            self._forced_deal
            if self._forced_deal is not None
            else self.rng.permutation(deck_size(n)).tolist()
        )
        self._forced_deal = None
        self.hands = [order[4 * s : 4 * s + 4] for s in range(n)]
        self.center = order[4 * n : 4 * n + 4]
        replaced = []
        for seat in range(n):  # seat order; a replacement never touches another hand
            if not has_triple(self.hands[seat]):
                continue
            replaced.append(seat)
            while has_triple(self.hands[seat]):
                pool = self.hands[seat] + self.center
                self.rng.shuffle(pool)
                self.hands[seat], self.center = pool[:4], pool[4:]
        if replaced:
            events.append(Event("hands_replaced", None, {"seats": tuple(replaced)}))

    # ------------------------------------------------------------------ helpers
    def team_of(self, seat: int) -> int:
        """Q2: team t is {t, t + n/2}."""
        return seat % self.num_teams

    def partner_of(self, seat: int) -> int:
        return (seat + self.num_teams) % self.n

    def team_members(self, team: int) -> tuple[int, int]:
        return team, team + self.num_teams

    @property
    def match_over(self) -> bool:
        return self.phase == Phase.OVER

    def reminder_active(self, seat: int, tick: int | None = None) -> bool:
        """Q18: the confirm window of a held-back call covers ticks opened+1 .. last."""
        tick = self.tick if tick is None else tick
        window = self.reminder[seat]
        return window is not None and window[0] < tick <= window[1]

    # ------------------------------------------------------------------ legality (Q9: judged at tick start)
    def illegal_reason(self, seat: int, action: int) -> str | None:
        """Why ``action`` is not legal for ``seat`` this tick, or None when it is."""
        if not 0 <= action < self.codec.num_actions:
            return f"action index outside 0..{self.codec.num_actions - 1}"
        kind = self.codec.kinds[action]
        if kind != ActionKind.NOOP and not self.connected[seat]:
            return "the seat is disconnected: only the no-op is legal (Q23)"
        return self._kind_rules[kind](seat)

    def legal_mask(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The exact legality of every action for ``seat`` this tick, as an int8 vector.

        Built from the same per-kind rules as :meth:`illegal_reason`; only the kinds that can be
        legal in the current phase are asked (the others all refuse outside their phase).
        """
        if self.connected[seat]:
            legal = tuple([kind for kind, rule in self._phase_rules[self.phase] if rule(seat) is None])
        else:
            legal = ()
        row = self._mask_rows.get(legal)
        if row is None:  # the mask of each set of legal kinds is built once, then copied
            row = np.zeros(self.codec.num_actions, np.int8)
            row[0] = 1  # the no-op is always legal
            for kind in legal:
                r = self.codec.ranges[kind]
                row[r.start : r.stop] = 1
            self._mask_rows[legal] = row
        if out is None:
            return row.copy()
        out[:] = row
        return out

    def _why_not_exchange(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY:
            return "exchanges happen only while a round is played (Q12)"
        if self.tick < self.next_exchange_tick[seat]:
            return f"exchange cooldown: next exchange from tick {self.next_exchange_tick[seat]} (Q13)"
        return None

    def _why_not_take_floor(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY:
            return "the channel exists only while a round is played (Q15)"
        if self.floor[seat]:
            return "you already hold the floor (Q15)"
        if self.tick < self.next_floor_tick[seat]:
            return f"floor gesture cooldown: next gesture from tick {self.next_floor_tick[seat]} (Q17)"
        return None

    def _why_not_release_floor(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY:
            return "the channel exists only while a round is played (Q15)"
        if not self.floor[seat]:
            return "you do not hold the floor (Q15)"
        if self.tick < self.next_floor_tick[seat]:
            return f"floor gesture cooldown: next gesture from tick {self.next_floor_tick[seat]} (Q17)"
        return None

    def _why_not_show_emoji(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY or not self.floor[seat]:
            return "an emoji can be chosen only while holding the floor (Q15)"
        return None

    def _why_not_choose_sign(self, seat: int) -> str | None:
        if self.phase != Phase.SIGN:
            return "signs are chosen only in the sign phase (Q7)"
        if self.team_sign[self.team_of(seat)] is not None:
            return "your team's sign is already fixed for this round (Q7)"
        return None

    def _why_not_ready(self, seat: int) -> str | None:
        if self.phase != Phase.SIGN:
            return "ready is confirmed only in the sign phase (Q8)"
        if self.ready[seat]:
            return "you already confirmed ready; it cannot be undone (Q8)"
        return None

    def _why_not_call(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY:
            return "calls are made only while a round is played (Q18, Q19)"
        return None

    def _why_not_propose(self, seat: int) -> str | None:
        if self.phase != Phase.PLAY:
            return "a reshuffle is proposed only while a round is played (Q20)"
        if self.reshuffled_this_round:
            return "at most one reshuffle per round (Q21)"
        if self.vote is not None:
            return "a vote is already open (Q21)"
        if self.tick < self.next_proposal_tick:
            return f"30 s between proposals: next proposal from tick {self.next_proposal_tick} (Q21)"
        return None

    def _why_not_vote(self, seat: int) -> str | None:
        vote = self.vote
        if self.phase != Phase.PLAY or vote is None:
            return "no reshuffle vote is open (Q20)"
        if seat not in vote.voters:
            return "you are not a voter of this reshuffle (Q20, Q22)"
        if seat in vote.yes:
            return "you already answered (Q20)"
        if seat in vote.absent:
            return "you disconnected during this vote and can no longer answer (Q20)"
        return None

    def _why_not_noop(self, seat: int) -> str | None:
        return None  # the no-op is always legal, even for a disconnected seat (Q23)

    def _why_not_start_round(self, seat: int) -> str | None:
        if self.phase != Phase.PAUSE:
            return "the next round can be started only during the pause (Q11)"
        if seat != HOST_SEAT:
            return "only the host (seat 0) starts the next round early (Q11)"
        if self.start_requested:
            return "the next round is already starting (Q11)"
        return None

    # ------------------------------------------------------------------ the tick (Q9)
    def step(self, actions: Sequence[int]) -> TickResult:
        """Play one tick: every seat's action (the no-op included), resolved in a random order."""
        if self.phase == Phase.OVER:
            raise GameOverError("the match is over: call reset() before step() (Q29)")
        if len(actions) != self.n:
            raise ValueError(f"step needs one action per seat ({self.n}), got {len(actions)}")
        actions = [a if type(a) is int else as_int(a, f"seat {s} action") for s, a in enumerate(actions)]
        for seat, action in enumerate(actions):  # legality is judged at the start of the tick
            reason = self.illegal_reason(seat, action)
            if reason is not None:
                described = self.codec.describe(action) if 0 <= action < self.codec.num_actions else "?"
                raise IllegalActionError(seat, action, described, reason)

        t = self.tick
        if self._forced_order is not None:
            order, self._forced_order = self._forced_order, None
        else:
            order = tuple(self.rng.permutation(self.n).tolist())
        result = TickResult(tick=t, order=order, events=self.pending_events, points=[0] * self.num_teams)
        self.pending_events = []
        self._changed_slots = [False] * 4  # Q14: center slots changed earlier in this tick
        phase_at_start = self.phase
        for seat in order:
            if actions[seat] and self.phase == phase_at_start and self.connected[seat]:
                self._resolve(seat, actions[seat], t, result)
        self._end_of_tick(t, result)
        self.tick = t + 1
        self._between_ticks(t + 1, result.events)
        return result

    def _resolve(self, seat: int, action: int, t: int, result: TickResult) -> None:
        kind, arg = self.codec.kinds[action], self.codec.args[action]
        events = result.events
        if kind == ActionKind.EXCHANGE:
            self._exchange(seat, arg[0], arg[1], t, events)
        elif kind == ActionKind.TAKE_FLOOR:  # Q15, Q17
            self.floor[seat], self.emoji[seat], self.pulse_anchor[seat] = True, None, None
            self.next_floor_tick[seat] = t + self.durations.floor_cooldown
            events.append(Event("floor_taken", seat))
        elif kind == ActionKind.RELEASE_FLOOR:
            self._release_floor(seat, events, "released")
            self.next_floor_tick[seat] = t + self.durations.floor_cooldown
        elif kind == ActionKind.SHOW_EMOJI:  # Q15: the first emoji after taking the floor pulses at once
            self.emoji[seat] = arg
            if self.pulse_anchor[seat] is None:
                self.pulse_anchor[seat] = t
            events.append(Event("emoji_chosen", seat, {"emoji": arg}, frozenset((seat,))))
        elif kind == ActionKind.CHOOSE_SIGN:  # Q7: the first teammate fixes it; later ones are moot
            team = self.team_of(seat)
            if self.team_sign[team] is None:
                self.team_sign[team] = arg
                events.append(
                    Event("sign_fixed", seat, {"team": team, "sign": arg}, frozenset(self.team_members(team)))
                )
        elif kind == ActionKind.READY:  # Q8
            self.ready[seat] = True
            events.append(Event("ready", seat))
        elif kind == ActionKind.QUATRO:
            self._quatro(seat, t, result)
        elif kind == ActionKind.CONTRA:
            target = (self.team_of(seat) + arg) % self.num_teams
            self._contra(seat, target, result)
        elif kind == ActionKind.PROPOSE_RESHUFFLE:
            self._propose(seat, t, events)
        elif kind == ActionKind.VOTE_YES:
            self._vote(seat, True, events)
        elif kind == ActionKind.VOTE_NO:
            self._vote(seat, False, events)
        elif kind == ActionKind.START_ROUND:  # Q11
            self.start_requested = True
            events.append(Event("start_requested", seat))

    # ------------------------------------------------------------------ exchanges (Q12–Q14)
    def _exchange(self, seat: int, hand_slot: int, center_slot: int, t: int, events: list[Event]) -> None:
        if self._changed_slots[center_slot]:  # Q14: contested, rejected at no cost, told privately
            events.append(Event("exchange_rejected", seat, {"center_slot": center_slot}, frozenset((seat,))))
            return
        hand = self.hands[seat]
        taken, placed = self.center[center_slot], hand[hand_slot]
        hand[hand_slot], self.center[center_slot] = taken, placed  # taken card lands in the freed slot
        self._changed_slots[center_slot] = True
        self.next_exchange_tick[seat] = t + self.durations.exchange_cooldown
        events.append(Event("exchange", seat, {"center_slot": center_slot, "taken": taken, "placed": placed}))

    # ------------------------------------------------------------------ the channel (Q15–Q17)
    def _release_floor(self, seat: int, events: list[Event], reason: str) -> None:
        """Releasing clears the emoji and its pulse cycle."""
        self.floor[seat], self.emoji[seat], self.pulse_anchor[seat] = False, None, None
        events.append(Event("floor_released", seat, {"reason": reason}))

    def _emit_pulses(self, t: int, events: list[Event]) -> None:
        """Q15: pulses are emitted at the end of the tick, every ``pulse`` ticks from the first emoji."""
        period = self.durations.pulse
        for seat in range(self.n):
            anchor = self.pulse_anchor[seat]
            if self.floor[seat] and anchor is not None and (t - anchor) % period == 0:
                self.last_pulse[seat] = (self.emoji[seat], t)
                events.append(Event("pulse", seat, {"emoji": self.emoji[seat]}))

    # ------------------------------------------------------------------ calls (Q18, Q19, Q10)
    def _quatro(self, seat: int, t: int, result: TickResult) -> None:
        guard = self.config.own_quartet_guard == "confirm"
        if guard and is_quartet(self.hands[seat]) and not self.reminder_active(seat, t):
            # Q18: held back, invisible to everyone else; the same call within the window goes through
            self.reminder[seat] = (t, t + self.durations.reminder_window)
            result.events.append(Event("quatro_held_back", seat, {}, frozenset((seat,))))
            return
        team = self.team_of(seat)
        correct = is_quartet(self.hands[self.partner_of(seat)])  # your partner's hand, never yours
        scoring = (team,) if correct else tuple(x for x in range(self.num_teams) if x != team)
        self._end_round(CallRecord("quatro", seat, None, scoring), correct, result)

    def _contra(self, seat: int, target: int, result: TickResult) -> None:
        correct = any(is_quartet(self.hands[m]) for m in self.team_members(target))
        scoring = (self.team_of(seat),) if correct else (target,)
        self._end_round(CallRecord("contra", seat, target, scoring), correct, result)

    def _end_round(self, record: CallRecord, correct: bool | None, result: TickResult) -> None:
        """Q10: the round ends at once; Q24: points are never taken away; Q25: shared wins."""
        t = result.tick
        events = result.events
        for team in record.scoring_teams:
            self.scores[team] += 1
            result.points[team] += 1
        events.append(
            Event(
                "call" if record.caller is not None else "blank_round",
                record.caller,
                {
                    "kind": record.kind,
                    "target_team": record.target_team,
                    "correct": correct,
                    "scoring_teams": record.scoring_teams,
                },
            )
        )
        if self.vote is not None:
            self.vote = None
            events.append(Event("vote_cancelled", None))
        for seat in range(self.n):
            if self.floor[seat]:
                self._release_floor(seat, events, "round_over")
        # Q11: between rounds every cooldown and reminder is cleared (from the end of the round on)
        self.next_exchange_tick = [0] * self.n
        self.next_floor_tick = [0] * self.n
        self.reminder = [None] * self.n
        self.revealed = True
        reveal = {
            "hands": [list(h) for h in self.hands],
            "quartets": tuple(s for s in range(self.n) if is_quartet(self.hands[s])),
        }
        if self.config.reveal_signs:
            reveal["signs"] = list(self.team_sign)
        events.append(Event("reveal", None, reveal))
        self.last_call = record
        self.rounds_completed += 1
        result.round_ended = True
        best = max(self.scores)
        if best >= self.config.points_to_win:
            self.winners = tuple(x for x in range(self.num_teams) if self.scores[x] == best)
            self.phase = Phase.OVER
            result.match_over = True
            events.append(Event("match_over", None, {"winners": self.winners, "scores": list(self.scores)}))
        else:
            self.phase = Phase.PAUSE
            self.phase_start, self.phase_end = t + 1, t + self.durations.pause
            self.start_requested = False

    # ------------------------------------------------------------------ reshuffle vote (Q20, Q21)
    def _propose(self, seat: int, t: int, events: list[Event]) -> None:
        if self.vote is not None or self.reshuffled_this_round:
            return  # overtaken earlier in this tick: moot, and it does not count (Q21)
        voters = frozenset(s for s in range(self.n) if s != seat and self.connected[s] and not self.is_bot[s])
        self.next_proposal_tick = t + self.durations.vote_interval
        events.append(Event("vote_proposed", seat, {"voters": tuple(sorted(voters))}))
        if not voters:
            self._reshuffle(events)
            return
        self.vote = Vote(seat, voters, t + self.durations.vote_window)

    def _vote(self, seat: int, yes: bool, events: list[Event]) -> None:
        vote = self.vote
        if vote is None:
            return  # the vote ended earlier in this tick
        events.append(Event("vote_answer", seat, {"yes": yes}))
        if not yes:  # [decision] a "no" ends the vote at once
            self.vote = None
            events.append(Event("vote_failed", None, {"reason": "no"}))
            return
        vote.yes.add(seat)
        if vote.yes == vote.voters:
            self.vote = None
            self._reshuffle(events)

    def _reshuffle(self, events: list[Event]) -> None:
        """Q20: everything is re-dealt; signs, clock, floors and cooldowns stay."""
        self.reshuffled_this_round = True
        self._changed_slots = [True] * 4  # Q14: every slot changed
        events.append(Event("reshuffle", None))
        self._deal(events)

    # ------------------------------------------------------------------ the clock
    def _end_of_tick(self, t: int, result: TickResult) -> None:
        events = result.events
        if self.phase == Phase.PLAY:
            self._emit_pulses(t, events)
            if self.vote is not None and t >= self.vote.deadline:  # silence is a no
                self.vote = None
                events.append(Event("vote_failed", None, {"reason": "deadline"}))
            if t >= self.phase_end:  # Q10: 180 s without a call
                self._end_round(CallRecord("blank", None, None, ()), None, result)
        elif self.phase == Phase.SIGN:
            if t >= self.phase_end or all(self.ready[s] for s in range(self.n) if self.connected[s]):
                self._begin_play(t, events)
        elif self.phase == Phase.PAUSE and (self.start_requested or t >= self.phase_end):
            self._begin_sign_phase(start=t + 1)
            events.append(Event("sign_phase_started", None, {"round": self.round_index}))

    def _between_ticks(self, next_tick: int, events: list[Event]) -> None:
        """Q23: simulated disconnections happen between ticks."""
        if self.phase == Phase.OVER:
            return
        scheduled = self._apply_schedule(next_tick)
        p_off, p_on = self.config.disconnect_prob, self.config.reconnect_prob
        if p_off > 0 or (p_on > 0 and not all(self.connected)):  # draws only when a change is possible
            draws = self.rng.random(self.n)
            for seat in range(self.n):
                if seat in scheduled:  # the schedule holds for its tick: one change per boundary
                    continue
                if self.connected[seat] and draws[seat] < p_off:
                    self.set_connected(seat, False)
                elif not self.connected[seat] and draws[seat] < p_on:
                    self.set_connected(seat, True)
        events.extend(self.pending_events)
        self.pending_events = []

    def _apply_schedule(self, tick: int) -> set[int]:
        """The schedule's entries for ``tick``; returns the seats it names (the random model leaves
        them alone at this boundary)."""
        entries = self._schedule.get(tick, ())
        for seat, connected in entries:
            self.set_connected(seat, connected)
        return {seat for seat, _ in entries}

    # ------------------------------------------------------------------ test control (Q31)
    def set_connected(self, seat: int, connected: bool) -> None:
        """Connect or disconnect a seat now (between ticks). Its events join the next tick's report.

        Under a ParallelEnv call ``env.force_connection`` instead: it also refreshes the env's
        observations and masks, which this engine call cannot reach."""
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is outside 0..{self.n - 1}")
        if self.connected[seat] == connected:
            return
        self.connected[seat] = connected
        if connected:
            self.pending_events.append(Event("reconnected", seat))
            if self.phase == Phase.SIGN and self.is_bot[seat]:
                self.ready[seat] = True
        else:
            self.pending_events.append(Event("disconnected", seat))
            if self.phase == Phase.PLAY and self.floor[seat]:  # Q23: nothing shown in an absent name
                self._release_floor(seat, self.pending_events, "disconnected")
            if self.vote is not None and seat in self.vote.voters:  # Q20: the vote can only fail now
                self.vote.absent.add(seat)
