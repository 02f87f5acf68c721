"""The Kwartet PettingZoo AEC environment (``raw_env``); ``quatro_env.kwartet_v0.env`` wraps it."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from quatro_env.common.strict import as_int
from quatro_env.kwartet.actions import ActionCodec
from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.game import KwartetGame
from quatro_env.kwartet.observation import ObservationEncoder, ObservationLayout
from quatro_env.kwartet.position import load_position
from quatro_env.kwartet.render import render_ansi

RESET_OPTIONS = ("position",)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Kwartet for 3-6 players (2 with the stock variant); see ``docs/kwartet.md``.

    Construct with keyword arguments of :class:`KwartetConfig` or with ``config=``. Actions are
    ``Discrete`` (see :class:`ActionCodec`); observations are ``{"observation", "action_mask"}``
    (see :class:`ObservationLayout`). ``reset(options={"position": {...}})`` starts from a scripted
    position (see :class:`ScriptedPosition`).
    """

    metadata = {
        "name": "kwartet_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,  # "human" draws every turn; Gymnasium's convention pairs it with a pace
    }

    def __init__(self, config: KwartetConfig | None = None, **kwargs: Any) -> None:
        super().__init__()
        if config is not None and kwargs:
            raise ValueError(f"pass either config= or keyword options, not both (got {sorted(kwargs)})")
        self.config = config if config is not None else KwartetConfig(**kwargs)
        self.render_mode = self.config.render_mode
        self.codec = ActionCodec(self.config.num_players, self.config.num_families)
        self._encoder = ObservationEncoder(self.config)
        self.possible_agents = [f"player_{seat}" for seat in range(self.config.num_players)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []  # none before the first reset, as the other games' envs
        mask_space = spaces.Box(0, 1, shape=(self.codec.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": self._encoder.layout.space(), "action_mask": mask_space})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.codec.num_actions) for agent in self.possible_agents
        }
        self._rng: np.random.Generator | None = None
        self.game: KwartetGame | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def observation_layout(self) -> ObservationLayout:
        return self._encoder.layout

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new game (deterministic per ``seed``) or set up ``options["position"]``."""
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"reset options: must be a dict or None, got {type(options).__name__}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            warnings.warn(
                f"kwartet reset ignores unknown options {unknown}; known: {list(RESET_OPTIONS)}",
                stacklevel=2,
            )
        position = load_position(options["position"], self.config) if "position" in options else None
        if seed is not None or self._rng is None:  # validated above: a refused reset changes nothing
            self._rng = np.random.default_rng(None if seed is None else as_int(seed, "seed", low=0))
        self.game = KwartetGame(self.config)
        if position is None:
            self.game.deal(self._rng)
        else:
            self.game.setup(position)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move]
        if self.game.over:  # every family was complete in the starting hands
            self._finish()
            self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        game = self._require_game()
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        if seat == game.to_move:
            mask[:] = game.legal_mask().ravel()
        return {"observation": self._encoder.encode(game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        game = self._require_game()
        if not self.agents:
            raise ValueError("the game is over and every agent has been removed; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent}: the game is over; a finished agent may only step with None")
            self._was_dead_step(action)
            return
        if action is None or isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(
                f"{agent}: action {action!r} is not an integer in 0..{self.codec.num_actions - 1}"
            )
        try:
            offset, card = self.codec.decode(int(action))
        except ValueError as err:
            raise ValueError(f"{agent}: {err}") from None
        reason = game.illegal_reason(offset, card)
        if reason is not None:
            raise ValueError(
                f"{agent}: illegal action {action} ({self.codec.describe(action, game.to_move)}): {reason}"
            )
        exposers = game.request(offset, card)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.config.reward_mode == "per_family":
            for seat in exposers:
                self.rewards[self.possible_agents[seat]] += 1.0
        if game.over:
            self._finish()
        elif game.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        """K8/K9b: mark every agent terminated, record the result, pay win/loss rewards."""
        game = self._require_game()
        winners = game.winners()
        n, w = game.num_players, len(winners)
        for seat, agent in enumerate(self.possible_agents):
            self.terminations[agent] = True
            self.infos[agent] = {"score": int(game.scores[seat]), "winner": seat in winners}
            if self.config.reward_mode == "win_loss" and w < n:
                self.rewards[agent] += 1.0 / w if seat in winners else -1.0 / (n - w)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        game = self._require_game()
        if self.render_mode == "rgb_array":
            from quatro_env.render.kwartet import draw_kwartet

            return draw_kwartet(game)
        if self.render_mode == "human":
            from quatro_env.render.kwartet import draw_kwartet
            from quatro_env.render.window import show_or_print

            self._window = show_or_print(
                getattr(self, "_window", None), lambda: draw_kwartet(game), lambda: render_ansi(game)
            )
            return None
        return render_ansi(game)

    def close(self) -> None:
        window = getattr(self, "_window", None)
        if window is not None:
            window.close()
            self._window = None

    def _require_game(self) -> KwartetGame:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game
