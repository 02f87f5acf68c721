"""The bottom of the ladder: idle, random (with or without calls) and the collector."""

from __future__ import annotations

import numpy as np

from quatro_env.bots.base import BotPolicy, ScriptedBot
from quatro_env.quatro.actions import ActionKind


class IdleBot(BotPolicy):
    """Does nothing (bot seats are ready at once, Q8); a placeholder seat."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return 0


class RandomBot(BotPolicy):
    """Uniform over legal actions; never calls «Quatro»/«Contra» unless ``calls=True``.

    Without calls the only way a round ends is the clock (a blank round, Q10), so a match between
    two non-calling policies is decided by the harness's round limit (a draw).
    """

    calls = False

    def __init__(self, num_players: int, seed: int | None = None) -> None:
        super().__init__(num_players, seed)
        self._no_calls = np.ones(self.codec.num_actions, bool)
        for kind in (ActionKind.QUATRO, ActionKind.CONTRA):
            r = self.codec.ranges[kind]
            self._no_calls[r.start : r.stop] = self.calls

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask.astype(bool) & self._no_calls)
        return int(self.rng.choice(legal)) if legal.size else 0


class RandomCallerBot(RandomBot):
    """Uniform over every legal action, calls included."""

    calls = True


class CollectorBot(ScriptedBot):
    """Swaps toward the value it holds most of; never signals, never calls.

    Each play tick, when its exchange cooldown allows (Q13):

    1. target = the value it holds most of; ties go to the value with more copies in the center,
       then to the current target (no flip-flopping), then to a per-round random order (seeded);
    2. if the center shows the target, take it (a random such slot) and give the non-target card
       of the value it holds fewest of;
    3. holding a quartet, it stops exchanging;
    4. *patience*: after ``patience`` ticks without a target card in the center (another seat may be
       sitting on the other copies), it also accepts a center value it already holds, giving a card
       of a value it holds no more of — so two collectors on one value do not freeze a round.
    """

    patience = 12

    def new_round(self, obs: np.ndarray) -> None:
        self.target: int | None = None
        self.waited = 0
        self._order = self.rng.permutation(self.view.v)  # tie-break order for this round

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return self.collect(obs, mask)

    def collect(self, obs: np.ndarray, mask: np.ndarray) -> int:
        hand, center = self.view.hand(obs), self.view.center(obs)
        if len(hand) != 4 or len(center) != 4:
            return 0
        v = self.view.v
        counts = np.bincount(hand, minlength=v)
        best = int(counts.max())
        if best == 4:
            return 0  # a quartet: keep it
        in_center = np.bincount(center, minlength=v)
        order = self._order
        target = max(
            (x for x in range(v) if counts[x] == best),
            key=lambda x: (in_center[x], x == self.target, -order[x]),
        )
        self.target = target
        if in_center[target] == 0:
            self.waited += 1
            if self.waited < self.patience:
                return 0
            # patience: take a center value I hold, giving one I hold no more of
            options = [x for x in range(v) if in_center[x] and counts[x] >= 1]
            if not options or not mask[self.A_EXCHANGE0]:
                return 0
            take_value = max(options, key=lambda x: (counts[x], in_center[x], -order[x]))
            give = [h for h in range(4) if hand[h] != take_value and counts[hand[h]] <= counts[take_value]]
            if not give:
                return 0
            self.waited = 0
            give_slot = min(give, key=lambda h: (counts[hand[h]], order[hand[h]], h))
            return self._swap(give_slot, center, take_value)
        self.waited = 0
        if not mask[self.A_EXCHANGE0]:  # cooldown: every exchange shares one legality
            return 0
        give_slot = min(
            (h for h in range(4) if hand[h] != target),
            key=lambda h: (counts[hand[h]], order[hand[h]], h),
        )
        return self._swap(give_slot, center, target)

    def _swap(self, give_slot: int, center: list[int], value: int) -> int:
        slots = [c for c in range(4) if center[c] == value]
        take_slot = slots[int(self.rng.integers(len(slots)))] if len(slots) > 1 else slots[0]
        return self.exchange_action(give_slot, take_slot)
