"""The bot interface and the observation reader every scripted bot uses.

A bot sees exactly what an agent in its seat would see: its egocentric observation vector and its
legal-action mask (Q26, Q27; nothing of Q28). It reads fields by *name* through
:class:`ObservationView` (positions come from ``ObservationEncoder.offsets``, never hard-coded),
so the encoder may change its layout without breaking the bots.

Egocentric conventions (see ``encoding.py``): relative seat ``r`` is the seat ``r`` places
clockwise (``r = 0`` is me, ``r = n/2`` my partner); relative team ``k = r mod n/2`` (``k = 0`` is
my team), and «Contra» on relative team ``k`` is the action ``CONTRA`` with argument ``k``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.engine import Phase


class BotPolicy:
    """Base class: ``act(observation, mask) -> action``; randomness from the seed given to ``reset``.

    A policy instance drives one seat; ``reset(seed)`` is called at the start of every match, then
    ``act`` once per tick with that tick's observation (bots that track history rely on seeing
    every tick). Same seed + same observations = same actions.
    """

    def __init__(self, num_players: int, seed: int | None = None) -> None:
        self.num_players = num_players
        self.codec = ActionCodec(num_players)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError


@cache
def _offsets(num_players: int) -> dict[str, int]:
    from quatro_env.quatro.encoding import ObservationEncoder  # late: encoding imports the engine

    return dict(ObservationEncoder(num_players).offsets)


class ObservationView:
    """Named, decoded reads of one seat's egocentric observation vector."""

    def __init__(self, num_players: int) -> None:
        off = _offsets(num_players)
        n = self.n = num_players
        self.num_teams = n // 2
        self.partner = n // 2
        self.v = v = num_values(n)
        e = NUM_EMOJIS

        def sl(name: str, size: int) -> slice:
            return slice(off[name], off[name] + size)

        self._hand = sl("self.hand", 4 * v)
        self._sign = sl("self.sign", e)
        self._emoji = sl("self.emoji", e)
        self._phase = sl("table.phase", 4)
        self._center = sl("table.center", 4 * v)
        self._reshuffled = off["table.reshuffled"]
        self._floor = [off[f"seat[{r}].floor"] for r in range(n)]
        self._took_floor = [off[f"seat[{r}].took_floor"] for r in range(n)]
        self._pulse_emoji = [sl(f"seat[{r}].pulse_emoji", e) for r in range(n)]
        self._pulse_age = [off[f"seat[{r}].pulse_age"] for r in range(n)]
        self._exchanged = [off[f"seat[{r}].exchanged"] for r in range(n)]
        self._taken = [sl(f"seat[{r}].taken", v) for r in range(n)]
        self._placed = [sl(f"seat[{r}].placed", v) for r in range(n)]

    # --- private (Q26)
    def hand(self, obs: np.ndarray) -> list[int]:
        """My hand's values by slot (empty outside play)."""
        return [int(i) % self.v for i in np.flatnonzero(obs[self._hand])]

    def sign(self, obs: np.ndarray) -> int | None:
        nz = np.flatnonzero(obs[self._sign])
        return int(nz[0]) if nz.size else None

    def my_emoji(self, obs: np.ndarray) -> int | None:
        nz = np.flatnonzero(obs[self._emoji])
        return int(nz[0]) if nz.size else None

    # --- table (Q27)
    def phase(self, obs: np.ndarray) -> Phase:
        return Phase(int(np.argmax(obs[self._phase])))

    def center(self, obs: np.ndarray) -> list[int]:
        return [int(i) % self.v for i in np.flatnonzero(obs[self._center])]

    def reshuffled(self, obs: np.ndarray) -> bool:
        return bool(obs[self._reshuffled])

    # --- per relative seat (Q27)
    def floor(self, obs: np.ndarray, r: int) -> bool:
        return bool(obs[self._floor[r]])

    def took_floor(self, obs: np.ndarray, r: int) -> bool:
        return bool(obs[self._took_floor[r]])

    def pulse(self, obs: np.ndarray, r: int) -> tuple[int | None, int]:
        """(emoji of seat ``r``'s last pulse this round or None, ticks since it: 0 = the tick just played)."""
        nz = np.flatnonzero(obs[self._pulse_emoji[r]])
        return (int(nz[0]) if nz.size else None), int(obs[self._pulse_age[r]])

    def exchange(self, obs: np.ndarray, r: int) -> tuple[int, int] | None:
        """(value taken, value placed) if seat ``r`` exchanged in the tick just played (Q12)."""
        if not obs[self._exchanged[r]]:
            return None
        return int(np.argmax(obs[self._taken[r]])), int(np.argmax(obs[self._placed[r]]))


class ScriptedBot(BotPolicy):
    """Common skeleton: sign phase (choose a random sign, confirm ready), pause (the host starts the
    next round at once), play (``play``; subclasses). Every chosen action is checked against the mask:
    an illegal choice becomes the no-op, so a scripted bot never raises."""

    def __init__(self, num_players: int, seed: int | None = None) -> None:
        self.view = ObservationView(num_players)
        c = ActionCodec(num_players)
        self.A_TAKE = c.encode(ActionKind.TAKE_FLOOR)
        self.A_RELEASE = c.encode(ActionKind.RELEASE_FLOOR)
        self.A_READY = c.encode(ActionKind.READY)
        self.A_QUATRO = c.encode(ActionKind.QUATRO)
        self.A_START = c.encode(ActionKind.START_ROUND)
        self.A_SHOW0 = c.ranges[ActionKind.SHOW_EMOJI].start
        self.A_SIGN0 = c.ranges[ActionKind.CHOOSE_SIGN].start
        self.A_CONTRA1 = c.ranges[ActionKind.CONTRA].start  # CONTRA k  = A_CONTRA1 + k - 1
        self.A_EXCHANGE0 = c.ranges[ActionKind.EXCHANGE].start  # exchange(h, c) = A_EXCHANGE0 + 4h + c
        super().__init__(num_players, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._in_play = False
        self.tick_in_round = 0

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        phase = self.view.phase(observation)
        if phase == Phase.PLAY:
            if not self._in_play:
                self._in_play = True
                self.tick_in_round = 0
                self.new_round(observation)
            else:
                self.tick_in_round += 1
            if self.view.reshuffled(observation):
                self.on_reshuffle(observation)
            action = self.play(observation, mask)
        else:
            self._in_play = False
            if phase == Phase.SIGN:
                action = self.sign_phase(observation, mask)
            elif phase == Phase.PAUSE:
                action = self.A_START  # Q11: legal only for the host; nobody waits 30 s for nothing
            else:
                action = 0
        return int(action) if mask[action] else 0

    # --- hooks
    def sign_phase(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Q7/Q8: fix a uniformly random sign if the team has none, then confirm ready."""
        if mask[self.A_SIGN0]:
            return self.A_SIGN0 + int(self.rng.integers(NUM_EMOJIS))
        return self.A_READY

    def new_round(self, obs: np.ndarray) -> None:
        """Called on the first play tick of every round (hands are dealt)."""

    def on_reshuffle(self, obs: np.ndarray) -> None:
        """Called when a reshuffle re-dealt every hand (Q20)."""

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return 0

    # --- helpers
    def exchange_action(self, hand_slot: int, center_slot: int) -> int:
        return self.A_EXCHANGE0 + 4 * hand_slot + center_slot

    def contra_action(self, relative_team: int) -> int:
        return self.A_CONTRA1 + relative_team - 1
