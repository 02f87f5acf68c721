"""The Cuatrola PettingZoo AEC environment (``raw_env``); ``cuatrola_v0.env`` wraps it.

One episode is a whole match (C11). Agents ``player_0 .. player_3`` sit at seats ``0 .. 3``;
``player_0``/``player_2`` and ``player_1``/``player_3`` are partners (C1). A player sitting out
a hand (C4) stays in ``agents`` but is never selected until the next hand; it still receives
its pair's rewards, accumulated until its next turn as PettingZoo prescribes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from quatro_env.common.strict import as_int
from quatro_env.cuatrola.actions import NUM_ACTIONS, as_index, describe
from quatro_env.cuatrola.config import CuatrolaConfig
from quatro_env.cuatrola.observation import OBS_SIZE, encode_observation
from quatro_env.cuatrola.position import parse_reset_options
from quatro_env.cuatrola.render import render_ansi
from quatro_env.cuatrola.scoring import HandResult
from quatro_env.cuatrola.state import CuatrolaGame

AGENTS: tuple[str, ...] = tuple(f"player_{i}" for i in range(4))


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming convention)
    """Cuatrola as an AEC env. Build with keyword options or a ``CuatrolaConfig``, not both."""

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "cuatrola_v0",
        "is_parallelizable": False,
        "render_fps": 1,  # "human" draws every turn; Gymnasium's convention pairs it with a pace
    }

    def __init__(self, config: CuatrolaConfig | None = None, **options: Any) -> None:
        super().__init__()
        if config is not None and options:
            raise ValueError("pass either a CuatrolaConfig or keyword options, not both")
        self.config = config if config is not None else CuatrolaConfig(**options)
        self.render_mode = self.config.render_mode
        self.possible_agents = list(AGENTS)
        self.agents = []
        # One space object per agent, so that seeding one does not seed the others.
        self.observation_spaces = {a: _observation_space() for a in AGENTS}
        self.action_spaces = {a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.game = CuatrolaGame(self.config.target_score, self.config.cantes)
        self._rng: np.random.Generator | None = None
        self._seat = {a: i for i, a in enumerate(AGENTS)}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Start a match; the same seed gives the same match. See ``position`` for ``options``."""
        position = parse_reset_options(options, self.config.target_score)  # validate before any change
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(None if seed is None else as_int(seed, "seed", low=0))
        self.game.start_match(
            self._rng,
            dealer=position.dealer,
            scores=position.scores or (0, 0),
            hands=position.hands,
            shown_card=position.trump_card,
            contract=position.contract_enum,
            declarer=-1 if position.declarer is None else position.declarer,
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_act]

    # ------------------------------------------------------------------ step
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if seat == self.game.to_act:
            for action in self.game.legal_actions():  # a handful: faster than fancy indexing
                mask[action] = 1
        return {"observation": encode_observation(self.game, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._check_legal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        result = self.game.apply(index)
        if result is not None:
            self._reward(result)
        if self.game.over:
            for a in self.agents:
                self.terminations[a] = True
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) & 3]
        else:
            self.agent_selection = self.possible_agents[self.game.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_legal(self, agent: str, action: Any) -> int:
        """The action as an index, or a ``ValueError`` naming the agent, the action and why not."""
        try:
            index = as_index(action)
        except ValueError as err:
            raise ValueError(f"illegal action by {agent}: {err}") from None
        if index in self.game.legal_actions():
            return index
        reason = self.game.illegal_reason(index) or "not legal now"  # the tests keep both in step
        legal = ", ".join(describe(a) for a in self.game.legal_actions())
        raise ValueError(
            f"illegal action by {agent}: {describe(index)} (action {index}): {reason}. Legal now: {legal}"
        )

    def _reward(self, result: HandResult) -> None:
        if self.config.reward == "hand":
            value, winner = float(result.match_points), result.winner_pair
        elif self.game.over:
            value, winner = 1.0, self.game.winner
        else:
            return
        for a in self.agents:
            self.rewards[a] = value if (self._seat[a] & 1) == winner else -value

    # ---------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.render_mode == "rgb_array":
            from quatro_env.render.cuatrola import draw_cuatrola

            return draw_cuatrola(self.game, self.possible_agents)
        if self.render_mode == "human":
            from quatro_env.render.cuatrola import draw_cuatrola
            from quatro_env.render.window import show_or_print

            game, names = self.game, self.possible_agents
            self._window = show_or_print(
                getattr(self, "_window", None),
                lambda: draw_cuatrola(game, names),
                lambda: render_ansi(game, names),
            )
            return None
        return render_ansi(self.game, self.possible_agents)

    def close(self) -> None:
        """Closes the ``human`` window, if one was opened."""
        window = getattr(self, "_window", None)
        if window is not None:
            window.close()
            self._window = None


def _observation_space() -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )
