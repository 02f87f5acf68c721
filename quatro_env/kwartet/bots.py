"""Baseline Kwartet policies: ``policy(observation, agent) -> action``, deterministic per seed.

* :class:`RandomBot` picks uniformly among the legal requests.
* :class:`MemoryBot` remembers through the observation's public-knowledge summary: it asks for a
  card the record proves someone holds; otherwise for the card most likely to be where it asks.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from quatro_env.kwartet.cards import MEMBERS
from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.observation import ObservationLayout


def _legal_actions(observation: Mapping[str, np.ndarray], agent: str) -> np.ndarray:
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError(f"{agent}: no legal action in the mask (is it this agent's turn?)")
    return legal


class RandomBot:
    """Uniform over legal actions."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def __call__(self, observation: Mapping[str, np.ndarray], agent: str) -> int:
        legal = _legal_actions(observation, agent)
        return int(legal[self._rng.integers(legal.size)])


class MemoryBot:
    """Asks where the public record (plus its own hand) says the card is, else where it most likely is.

    For every legal (relative player r, card c) it estimates P(r holds c):

    * 1 if the record proves it, or if r is the only opponent not proven to lack c (no stock);
    * 0 if the record proves r lacks c;
    * otherwise the larger of r's share of the unexplained cards among everyone who may hold c, and
      r's proven-but-unlocated members of c's family spread over r's candidate cards of that family.

    Ties go to the family the bot holds most of (closest to a quartet), then to its seeded RNG.
    The observation must come from an environment with the same ``config`` (checked by size).
    """

    def __init__(self, seed: int = 0, config: KwartetConfig | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.config = config if config is not None else KwartetConfig()
        self._layout = ObservationLayout(self.config)

    def __call__(self, observation: Mapping[str, np.ndarray], agent: str) -> int:
        legal = _legal_actions(observation, agent)
        scores = self.request_scores(observation).ravel()[legal]
        best = legal[scores >= scores.max() - 1e-9]
        return int(best[self._rng.integers(best.size)])

    def request_scores(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """(num_players - 1, num_cards) preference of each request; higher is better."""
        view = self._layout.split(np.asarray(observation["observation"]))
        n, k = self.config.num_players, self.config.num_families
        hand = view["hand"].astype(bool)
        holds = view["known_holds"].astype(bool).copy()
        lacks = view["known_lacks"].astype(bool).copy()
        holds[0], lacks[0] = hand, ~hand  # private knowledge: the bot knows its own hand exactly
        lacks[1:, hand] = True
        sizes = view["hand_sizes"].astype(np.float64)
        stock = float(view["stock_size"][0])
        may_hold = ~lacks & ~holds
        # Share of unexplained cards: hidden slots of r over hidden slots of all who may hold c.
        hidden = np.maximum(sizes - holds.sum(axis=1), 0.0)
        weight = hidden[:, None] * may_hold
        total = weight.sum(axis=0) + stock
        share = np.divide(weight, total, out=np.zeros_like(weight), where=total > 0)
        # Family evidence: r provably holds `need` more members of f among its `open` candidates.
        need = view["min_family_count"] - holds.reshape(n, k, MEMBERS).sum(axis=2)
        open_ = may_hold.reshape(n, k, MEMBERS).sum(axis=2)
        family_p = np.divide(need, open_, out=np.zeros((n, k)), where=(need > 0) & (open_ > 0))
        p = np.maximum(share, np.repeat(family_p, MEMBERS, axis=1) * may_hold)
        p[holds] = 1.0
        if stock == 0:  # elimination: the only possible holder holds it
            only = may_hold.sum(axis=0) == 1
            p[:, only] = np.where(may_hold[:, only], 1.0, p[:, only])
        closeness = np.repeat(hand.reshape(k, MEMBERS).sum(axis=1), MEMBERS) / (10.0 * MEMBERS)
        return p[1:] + closeness[None, :] * 1e-3


BOTS = {"random": RandomBot, "memory": MemoryBot}


def make_bot(name: str, seed: int, config: KwartetConfig | None = None) -> RandomBot | MemoryBot:
    """Build a bot by name (``"random"`` or ``"memory"``)."""
    if name == "random":
        return RandomBot(seed)
    if name == "memory":
        return MemoryBot(seed, config)
    raise ValueError(f"unknown bot {name!r}; choose from {sorted(BOTS)}")
