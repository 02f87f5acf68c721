"""Quatro's AEC view: PettingZoo's parallel-to-AEC conversion, with each action judged when made.

PettingZoo's ``parallel_to_aec_wrapper`` stores each agent's action and hands the whole tick to the
parallel env after the last agent. An illegal action was then refused three calls later, under
another agent's name, and the stored action wedged every later step until reset. Here an action is
checked by the parallel env's own rule (Q29) in the call that makes it; a refused call changes
nothing, so the same agent can act again.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from quatro_env.quatro.env import QuatroParallelEnv


class QuatroAECEnv(parallel_to_aec_wrapper):
    """The AEC version of a :class:`QuatroParallelEnv`; an agent's tick waits for every agent."""

    def __init__(self, parallel_env: QuatroParallelEnv) -> None:
        super().__init__(parallel_env)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            self.env.check_action(agent, action)  # raises now, naming this agent (Q29)
        super().step(action)
