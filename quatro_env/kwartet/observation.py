"""Observation encoding (K10): one flat int8 vector, egocentric, built from public facts + own hand.

Players are encoded relative to the observer: index ``r`` is the seat ``r`` places clockwise
(``r = 0`` is the observer). :class:`ObservationLayout` lists the sections in order with their
offsets; ``docs/kwartet.md`` shows the table. Nothing in it depends on another player's hidden
cards: hand contents come only from the observer's hand, everything else from
:class:`~quatro_env.kwartet.knowledge.PublicKnowledge` and the public event log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from quatro_env.kwartet.cards import MEMBERS
from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.events import DRAW, EVENT_WIDTH
from quatro_env.kwartet.game import KwartetGame


@dataclass(frozen=True)
class Section:
    name: str
    shape: tuple[int, ...]
    high: int | tuple[int, ...]  # per element, or per last-axis column
    offset: int
    size: int
    doc: str

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


class ObservationLayout:
    """Names, shapes, bounds and offsets of the observation sections for one config."""

    def __init__(self, config: KwartetConfig) -> None:
        n, k, c = config.num_players, config.num_families, config.num_cards
        specs: list[tuple[str, tuple[int, ...], int | tuple[int, ...], str]] = [
            ("hand", (c,), 1, "1 if the observer holds card c"),
            ("hand_sizes", (n,), c, "cards in the hand of relative player r"),
            ("to_move", (n,), 1, "one-hot: relative player to move (all 0 once the game is over)"),
            ("scores", (n,), k, "families exposed by relative player r"),
            ("exposed_by", (k, n), 1, "one-hot per family: relative player who exposed it (0s: in play)"),
            ("stock_size", (1,), c, "cards left in the stock (0 without the stock variant)"),
            ("known_holds", (n, c), 1, "public record proves relative player r holds card c"),
            ("known_lacks", (n, c), 1, "public record proves relative player r does not hold card c"),
            ("min_family_count", (n, k), MEMBERS - 1, "public record proves r holds >= m cards of family f"),
            ("dealer", (n,), 1, "one-hot: relative player who dealt (K2; all 0 in a scripted position)"),
        ]
        if config.raw_history:
            specs.append(
                (
                    "history",
                    (config.history_length, EVENT_WIDTH),
                    (DRAW, n - 1, n - 1, c - 1),
                    "public events, most recent first, zero rows = padding: "
                    "(kind 1 hit/2 miss/3 expose/4 draw, relative actor, relative target, card or family)",
                )
            )
        self.sections: dict[str, Section] = {}
        offset = 0
        for name, shape, high, doc in specs:
            self.sections[name] = Section(name, shape, high, offset, math.prod(shape), doc)
            offset += self.sections[name].size
        self.size = offset
        high_vec = np.zeros(self.size, dtype=np.int8)
        for section in self.sections.values():
            high_vec[section.offset : section.offset + section.size] = np.broadcast_to(
                np.asarray(section.high, dtype=np.int8), section.shape
            ).ravel()
        self.high = high_vec
        self._views = [(name, s.slice, s.shape) for name, s in self.sections.items()]

    def space(self) -> spaces.Box:
        return spaces.Box(low=np.zeros(self.size, dtype=np.int8), high=self.high, dtype=np.int8)

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named, shaped views into an observation vector (for policies and tests)."""
        if vector.shape != (self.size,):
            raise ValueError(f"observation has shape {vector.shape}, this layout expects ({self.size},)")
        return {name: vector[where].reshape(shape) for name, where, shape in self._views}


class ObservationEncoder:
    """Builds observation vectors for a game; keeps per-observer rotation indices to avoid churn."""

    def __init__(self, config: KwartetConfig) -> None:
        self.config = config
        self.layout = ObservationLayout(config)
        n = config.num_players
        self._rotations = [(observer + np.arange(n)) % n for observer in range(n)]

    def encode(self, game: KwartetGame, observer: int) -> np.ndarray:
        n, rot = self.config.num_players, self._rotations[observer]
        obs = np.zeros(self.layout.size, dtype=np.int8)
        view = self.layout.split(obs)
        knowledge = game.knowledge
        view["hand"][:] = game.hands[observer]
        view["hand_sizes"][:] = game.hand_sizes[rot]
        if not (game.over or game.truncated):
            view["to_move"][(game.to_move - observer) % n] = 1
        view["scores"][:] = game.scores[rot]
        exposed = np.flatnonzero(game.exposed_by >= 0)
        view["exposed_by"][exposed, (game.exposed_by[exposed] - observer) % n] = 1
        view["stock_size"][0] = len(game.stock)
        view["known_holds"][:] = knowledge.holds[rot]
        view["known_lacks"][:] = knowledge.lacks[rot]
        view["min_family_count"][:] = knowledge.min_count[rot]
        if game.dealer is not None:  # K2: the dealer is public; a scripted position has none
            view["dealer"][(game.dealer - observer) % n] = 1
        if self.config.raw_history:
            recent = game.events.rows[::-1][: self.config.history_length]
            history = view["history"]
            history[: len(recent)] = recent
            history[: len(recent), 1:3] = (recent[:, 1:3] - observer) % n
        return obs
