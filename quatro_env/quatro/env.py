"""Quatro as a PettingZoo ``ParallelEnv``: every agent acts in every tick (Q9).

Agents are ``player_<seat>`` for every seat not driven by a built-in bot (Q22); every one of them
stays in ``agents`` for the whole episode (a disconnected seat is masked down to the no-op),
and ``agents`` is empty once the episode ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from quatro_env.common.strict import as_int
from quatro_env.quatro.bots import build_bot
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.engine import GameOverError, IllegalActionError, QuatroEngine, TickResult
from quatro_env.quatro.render import render_table
from quatro_env.quatro.scripted import SUIT_STREAM, apply_script, parse_options

RENDER_MODES = ("ansi", "human", "rgb_array")


class QuatroParallelEnv(ParallelEnv):
    """Quatro for 4, 6 or 8 players; keyword arguments are the fields of :class:`QuatroConfig`."""

    metadata = {
        "name": "quatro_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode: must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.config = QuatroConfig(**config)
        self.engine = QuatroEngine(self.config)
        self.codec = self.engine.codec
        self.encoder = ObservationEncoder(self.config.num_players)
        n = self.n = self.config.num_players
        self.agent_seat = {f"player_{s}": s for s in range(n) if s not in self.config.bot_seats}
        self.possible_agents = list(self.agent_seat)
        self.agents: list[str] = []
        # one space object per agent (its boxes too): seeding one agent's sampler leaves the others' alone
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 255, (self.encoder.obs_dim,), np.uint8),
                    "action_mask": spaces.Box(0, 1, (self.codec.num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.codec.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(0, 255, (n * self.encoder.obs_dim,), np.uint8)
        self.bots = {s: build_bot(self.config.bot_policy, n) for s in self.config.bot_seats}
        self.bots_silenced = False
        self._driven: dict[int, int] = {}
        self._obs = np.zeros((n, self.encoder.obs_dim), np.uint8)
        self._masks = np.zeros((n, self.codec.num_actions), np.int8)
        self._seed_rng = np.random.default_rng()
        self.last_tick: TickResult | None = None
        self._team_of_seat = [self.engine.team_of(s) for s in range(n)]  # for rewards and infos

    # ---------------------------------------------------------------- spaces (cached objects)
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]  # KeyError for a bot seat or an unknown name

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None):
        """Deterministic per ``seed`` (Q30); ``options`` is a scripted position (see ``scripted.py``).

        Everything is validated before anything changes: a refused reset leaves the env exactly
        as it was (still steppable where it was).
        """
        script = parse_options(self.engine, options)
        if seed is not None:
            self._seed_rng = np.random.default_rng(as_int(seed, "seed", low=0))
        engine_seed, *bot_seeds = self._seed_rng.integers(2**63 - 1, size=1 + len(self.bots)).tolist()
        events = self.engine.reset(engine_seed)
        for bot, bot_seed in zip(self.bots.values(), bot_seeds, strict=True):
            bot.reset(bot_seed)
        suits = None if script.position is None else np.random.default_rng([engine_seed, SUIT_STREAM])
        apply_script(self.engine, script, suits)  # a plain reset builds no generator for the suits
        self._driven.clear()
        self.agents = list(self.possible_agents)
        self.last_tick = TickResult(tick=-1, order=(), events=events, points=[0] * self.engine.num_teams)
        self._refresh()
        return self._observations(), self._infos([False] * self.n)

    def step(self, actions: Mapping[str, int]):
        if not self.agents:
            raise GameOverError("the episode is over: call reset() before step() (Q29)")
        missing = [a for a in self.agents if a not in actions]
        unknown = [a for a in actions if a not in self.agent_seat]
        if missing or unknown:
            raise ValueError(f"step needs one action per live agent; missing {missing}, unknown {unknown}")
        joint = [0] * self.n
        flagged = [False] * self.n
        for agent, action in actions.items():
            seat = self.agent_seat[agent]
            if self.check_action(agent, action):
                joint[seat] = int(action)
            else:
                flagged[seat] = True  # illegal_action="noop": played as the no-op, and flagged
        for seat, bot in self.bots.items():
            joint[seat] = self._bot_action(seat, bot)

        result = self.engine.step(joint)
        self.last_tick = result
        self._refresh()
        rewards = self._rewards(result.points)
        engine = self.engine
        terminated = result.match_over or (self.config.episode == "round" and result.round_ended)
        truncated = (
            not terminated and result.round_ended and engine.rounds_completed >= self.config.max_rounds
        )
        observations, infos = self._observations(), self._infos(flagged)
        terminations = dict.fromkeys(self.agents, terminated)
        truncations = dict.fromkeys(self.agents, truncated)
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def check_action(self, agent: str, action: Any) -> bool:
        """Whether ``agent`` may play ``action`` this tick (Q29), judged on the env's own masks.

        A non-integer action is a ``ValueError``; an illegal one raises ``IllegalActionError``
        naming the agent and the reason, or returns False when ``illegal_action="noop"``.
        """
        seat = self.agent_seat[agent]
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"{agent}: an action is an int index, got {action!r} ({type(action).__name__})")
        action = int(action)
        if 0 <= action < self.codec.num_actions and self._masks[seat, action]:
            return True
        if self.config.illegal_action == "noop":
            return False
        reason = self.engine.illegal_reason(seat, action)
        described = self.codec.describe(action) if 0 <= action < self.codec.num_actions else "?"
        raise IllegalActionError(seat, action, described, f"{agent}: {reason}")

    def _bot_action(self, seat: int, bot) -> int:
        """A bot sees every tick, as in the batched env and the harness; offline or silenced, its
        action is dropped. (Skipped ticks left a bot offline across a round end in its old round.)"""
        action = bot.act(self._obs[seat], self._masks[seat])
        if seat in self._driven:
            return self._driven.pop(seat)
        return 0 if self.bots_silenced or not self.engine.connected[seat] else action

    def _rewards(self, points: list[int]) -> dict[str, float]:
        """Zero-sum: +1 a member per point; the non-scoring seats share the loss. Else team points."""
        if not any(points):  # most ticks: nobody scored
            return dict.fromkeys(self.agent_seat, 0.0)
        per_seat = [float(points[team]) for team in self._team_of_seat]
        if self.config.reward_mode == "zero_sum":
            gained = sum(per_seat)
            losers = [s for s in range(self.n) if per_seat[s] == 0]
            if gained and losers:
                for s in losers:
                    per_seat[s] = -gained / len(losers)
        return {a: per_seat[s] for a, s in self.agent_seat.items()}

    # ---------------------------------------------------------------- views
    def _refresh(self) -> None:
        tick = self.last_tick
        self.encoder.encode(self.engine, tick.events, tick.order, self._obs)
        for seat in range(self.n):
            self.engine.legal_mask(seat, self._masks[seat])

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        obs, masks = self._obs.copy(), self._masks.copy()
        return {a: {"observation": obs[s], "action_mask": masks[s]} for a, s in self.agent_seat.items()}

    def _infos(self, flagged: list[bool]) -> dict[str, dict[str, Any]]:
        tick, events, team_of = self.engine.tick, self.last_tick.events, self._team_of_seat
        return {
            a: {
                "seat": s,
                "team": team_of[s],
                "tick": tick,
                "events": [ev for ev in events if ev.visible_to is None or s in ev.visible_to],  # seen_by
                "illegal_action": flagged[s],
            }
            for a, s in self.agent_seat.items()
        }

    def state(self) -> np.ndarray:
        """Global state for centralised critics: every seat's observation, in absolute seat order."""
        return self._obs.reshape(-1).copy()

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the table as text; ``rgb_array``: a picture (Pillow); ``human``: a window or text."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        events = self.last_tick.events if self.last_tick else ()
        if self.render_mode == "rgb_array":
            from quatro_env.render.quatro import render_rgb

            return render_rgb(self.engine, events)
        if self.render_mode == "human":
            from quatro_env.render.quatro import render_rgb
            from quatro_env.render.window import show_or_print

            self._window = show_or_print(
                getattr(self, "_window", None),
                lambda: render_rgb(self.engine, events),
                lambda: render_table(self.engine, events),
            )
            return None
        return render_table(self.engine, events)

    def close(self) -> None:
        window = getattr(self, "_window", None)
        if window is not None:
            window.close()
            self._window = None

    # ---------------------------------------------------------------- test control (Q31)
    def force_connection(self, seat: int, connected: bool) -> dict[str, dict[str, np.ndarray]]:
        """(Dis)connect a seat between ticks; returns the refreshed observations."""
        self.engine.set_connected(seat, connected)
        self._refresh()
        return self._observations()

    def drive_bot(self, seat: int, action: int) -> None:
        """Make bot ``seat`` play ``action`` next tick (it must be legal then)."""
        if seat not in self.bots:
            raise ValueError(f"seat {seat} is not a bot seat; bot seats: {sorted(self.bots)}")
        self._driven[seat] = int(action)

    def silence_bots(self, silenced: bool = True) -> None:
        """Silenced bots play only the no-op (they stay ready at once, Q8)."""
        self.bots_silenced = silenced
