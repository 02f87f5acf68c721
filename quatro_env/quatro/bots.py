"""Built-in bot policies for bot seats (Q22).

A bot sees exactly what an agent in its seat would see (its egocentric observation and mask)
and returns one action index. Bots never vote: the engine never makes them voters.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from quatro_env.quatro.actions import ActionCodec, ActionKind


class BotPolicy:
    """Base class: ``act(observation, mask) -> action``; randomness from the seed given to ``reset``."""

    def __init__(self, num_players: int, seed: int | None = None) -> None:
        self.codec = ActionCodec(num_players)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError


class IdleBot(BotPolicy):
    """Does nothing (bot seats are ready at once, Q8); a placeholder seat."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return 0


class RandomBot(BotPolicy):
    """Uniform over legal actions; never calls «Quatro»/«Contra» unless ``calls=True``."""

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


BOT_POLICIES: dict[str, Callable[..., BotPolicy]] = {
    "idle": IdleBot,
    "random": RandomBot,
    "random_caller": RandomCallerBot,
}
