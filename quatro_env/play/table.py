"""A live Quatro table: one person's seat, every other seat played by a bot or a checkpoint.

Knows nothing of the web: :meth:`LiveTable.submit` takes a message from the person's page (already
parsed JSON) and queues the action for the next tick, or raises :class:`MessageError` saying why
not; :meth:`LiveTable.step` plays one tick; :meth:`LiveTable.frame` is what the person's page may
show — built from that seat's observation and legal mask only (Q26–Q28).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Any

import numpy as np

from quatro_env.eval.policies import as_policy
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import EMOJIS, NUM_EMOJIS
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.engine import QuatroEngine, TickResult
from quatro_env.quatro.events import Event
from quatro_env.replay.views import decode_observation, engine_state, seat_frame

#: message kinds without an argument, and the action kind each one plays
_SIMPLE = {
    "noop": ActionKind.NOOP,
    "take_floor": ActionKind.TAKE_FLOOR,
    "release_floor": ActionKind.RELEASE_FLOOR,
    "ready": ActionKind.READY,
    "quatro": ActionKind.QUATRO,
    "propose_reshuffle": ActionKind.PROPOSE_RESHUFFLE,
    "vote_yes": ActionKind.VOTE_YES,
    "vote_no": ActionKind.VOTE_NO,
    "start_round": ActionKind.START_ROUND,
}
MESSAGE_KINDS = (*_SIMPLE, "exchange", "show_emoji", "choose_sign", "contra")
HISTORY = 400  # omniscient states kept for tests and logs (never sent to the page)


class MessageError(ValueError):
    """A message from the page that is malformed or asks for an action not legal now."""


def _int_field(message: dict[str, Any], key: str, low: int, high: int) -> int:
    value = message.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MessageError(f"field {key!r}: expected an integer in {low}..{high}, got {value!r}")
    return value


class LiveTable:
    """One match at one table; ``human_seat`` is the person's, the rest are built from policy names."""

    def __init__(
        self,
        config: QuatroConfig,
        human_seat: int = 0,
        partner: str = "honest",
        opponents: str = "counter",
        seed: int = 0,
    ) -> None:
        n = config.num_players
        if not 0 <= human_seat < n:
            raise ValueError(f"seat: {human_seat} is outside 0..{n - 1}")
        if config.bot_seats:
            raise ValueError("bot_seats: the live table plays every other seat itself; leave bot_seats empty")
        self.config, self.n, self.seat = config, n, human_seat
        self.engine = QuatroEngine(config)
        self.codec = self.engine.codec
        self.encoder = ObservationEncoder(n)
        self.num_teams = n // 2
        self.obs = np.zeros((n, self.encoder.obs_dim), np.uint8)
        self.masks = np.zeros((n, self.codec.num_actions), np.int8)
        self.lock = threading.Lock()  # the server's loop steps; tests read from another thread
        seeds = np.random.SeedSequence([seed]).generate_state(n + 1)
        partner_seat = self.engine.partner_of(human_seat)
        self.policy_names: dict[int, str] = {}
        self.actors: dict[int, Any] = {}
        for s in range(n):
            if s == human_seat:
                continue
            name = partner if s == partner_seat else opponents
            spec = as_policy(name)
            self.policy_names[s] = spec.label
            self.actors[s] = spec.build(n, int(seeds[s + 1]), member=s // self.num_teams)
            self.actors[s].reset(int(seeds[s + 1]))
        events = self.engine.reset(int(seeds[0]))
        self.encoder.encode(self.engine, events, (), self.obs)
        self._refresh_masks()
        self.pending: int | None = None
        self.last_error: str | None = None
        self.states: OrderedDict[int, dict[str, Any]] = OrderedDict()
        #: every event of the match so far (the server log and the tests; never sent to the page)
        self.engine_events: deque[Event] = deque(events, maxlen=20_000)
        self._remember()

    # ------------------------------------------------------------------ the person's messages
    def parse(self, message: Any) -> int:
        """The action index a page message asks for; :class:`MessageError` if malformed."""
        if not isinstance(message, dict):
            raise MessageError('a message is a JSON object such as {"type": "action", "kind": "quatro"}')
        if message.get("type") != "action":
            raise MessageError(f"field 'type': expected 'action', got {message.get('type')!r}")
        kind = message.get("kind")
        if not isinstance(kind, str):  # a list or an object is not a name (nor hashable)
            raise MessageError(f"field 'kind': expected an action name such as 'quatro', got {kind!r}")
        if kind in _SIMPLE:
            return self.codec.encode(_SIMPLE[kind])
        if kind == "exchange":
            hand, center = _int_field(message, "hand", 0, 3), _int_field(message, "center", 0, 3)
            return self.codec.encode(ActionKind.EXCHANGE, (hand, center))
        if kind in ("show_emoji", "choose_sign"):
            emoji = _int_field(message, "emoji", 0, NUM_EMOJIS - 1)
            return self.codec.encode(
                ActionKind.SHOW_EMOJI if kind == "show_emoji" else ActionKind.CHOOSE_SIGN, emoji
            )
        if kind == "contra":
            team = _int_field(message, "team", 0, self.num_teams - 1)
            relative = (team - self.engine.team_of(self.seat)) % self.num_teams
            if relative == 0:
                raise MessageError("«Contra!» is called on another team, not your own (Q19)")
            return self.codec.encode(ActionKind.CONTRA, relative)
        raise MessageError(f"field 'kind': unknown action {kind!r}; known: {', '.join(MESSAGE_KINDS)}")

    def submit(self, message: Any) -> str:
        """Queue the person's action for the next tick (the last one sent wins); returns its name."""
        with self.lock:
            if self.engine.match_over:
                raise MessageError("the match is over")
            action = self.parse(message)
            if not self.masks[self.seat, action]:
                reason = self.engine.illegal_reason(self.seat, action) or "not legal now"
                raise MessageError(f"{self.codec.describe(action)}: {reason}")
            self.pending = action
            return self.codec.describe(action)

    # ------------------------------------------------------------------ connection (Q23)
    def set_connected(self, connected: bool) -> None:
        """The page connected or its connection dropped: a Q23 (re)connection, between ticks."""
        with self.lock:
            if not self.engine.match_over:
                self.engine.set_connected(self.seat, connected)
                if not connected:
                    self.pending = None
                self._refresh_masks()

    # ------------------------------------------------------------------ the clock
    def step(self) -> TickResult:
        """Play one tick: the bots' actions and the person's queued one (a no-op if none)."""
        with self.lock:
            engine, obs, masks = self.engine, self.obs, self.masks
            actions = [0] * self.n
            for s, actor in self.actors.items():
                a = int(actor.act(obs[s], masks[s]))
                actions[s] = a if 0 <= a < masks.shape[1] and masks[s, a] else 0
            self.last_error = None
            if self.pending is not None:
                if masks[self.seat, self.pending]:
                    actions[self.seat] = self.pending
                else:  # cannot happen: nothing changes the table between submit and step
                    self.last_error = f"{self.codec.describe(self.pending)} is no longer legal"
                self.pending = None
            result = engine.step(actions)
            self.engine_events.extend(result.events)
            self.encoder.encode(engine, result.events, result.order, obs)
            self._refresh_masks()
            self._remember()
            return result

    def _refresh_masks(self) -> None:
        for s in range(self.n):
            self.engine.legal_mask(s, self.masks[s])

    def _remember(self) -> None:
        self.states[self.engine.tick] = engine_state(self.engine)
        while len(self.states) > HISTORY:
            self.states.popitem(last=False)

    # ------------------------------------------------------------------ what the page may show
    def frame(self) -> dict[str, Any]:
        """The person's view: decoded from their observation; the legal actions from their mask."""
        with self.lock:
            view = decode_observation(self.obs[self.seat], self.seat, self.n)
            frame = seat_frame(view, self.n)
            frame["tick"] = self.engine.tick  # the table clock is public
            legal = np.flatnonzero(self.masks[self.seat]).tolist()
            frame["legal"] = sorted({self.codec.kinds[a].name.lower() for a in legal})
            frame["legal_exchanges"] = [
                list(self.codec.args[a]) for a in legal if self.codec.kinds[a] == ActionKind.EXCHANGE
            ]
            frame["over"] = self.engine.match_over
            return frame

    def page_config(self) -> dict[str, Any]:
        """Public facts for the page: the seat, the table size, the clock, the emojis, who plays where."""
        return {
            "seat": self.seat,
            "num_players": self.n,
            "num_teams": self.num_teams,
            "tick_seconds": self.config.tick_seconds,
            "emojis": list(EMOJIS),
            "policies": {str(s): name for s, name in self.policy_names.items()},
        }
