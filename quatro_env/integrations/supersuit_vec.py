"""Quatro as a SuperSuit vector env, the CleanRL way (``pip install -e '.[supersuit]'``).

``pettingzoo_env_to_vec_env_v1`` makes one table a vector env with one slot per agent (every
Quatro agent stays for the whole episode, so no black death is needed); ``concat_vec_envs_v1``
stacks ``num_tables`` copies. Observations stay a Dict: ``obs["observation"]`` is
``[num_tables * num_agents, obs_dim]`` uint8 and ``obs["action_mask"]`` is
``[num_tables * num_agents, num_actions]`` int8; slot ``k`` is table ``k // num_agents``, agent
``possible_agents[k % num_agents]``. A finished table resets itself inside ``step``.

Two pitfalls of SuperSuit 3.11, and how :func:`make_vec_env` keeps you clear of them:

1. The tables are pickled copies of one env, random state included, so until they are reset with
   a seed **every table plays the same game**. Always call ``reset(seed=...)`` once after building.
2. ``reset(seed=s)`` seeds table ``i`` with ``s + i`` in one process; with ``num_cpus > 1``
   process ``p`` gets ``s + p`` and seeds its ``j``-th table with ``s + p + j``, so tables of
   different processes overlap (4 tables on 2 processes: tables 1 and 2 play the same games).
   Safe: ``num_cpus`` of 0 or 1, or ``num_cpus == num_tables`` (one table per process);
   :func:`make_vec_env` refuses the overlapping layouts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import supersuit as ss

from quatro_env.common.strict import as_int
from quatro_env.quatro_v0 import parallel_env

__all__ = ["make_vec_env", "sample_masked"]


def make_vec_env(num_tables: int = 1, num_cpus: int = 0, base_class: str = "gymnasium", **config: Any):
    """``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(parallel_env(**config)), num_tables, ...)``.

    Sets ``single_observation_space``/``single_action_space`` (the per-slot spaces, as CleanRL
    expects) and ``num_agents``. Remember ``reset(seed=...)`` before the first step.
    """
    num_tables = as_int(num_tables, "num_tables", low=1)
    num_cpus = as_int(num_cpus, "num_cpus", low=0)  # SuperSuit loops forever on a negative count
    procs = min(num_cpus, num_tables)
    if procs > 1 and num_tables != procs:
        raise ValueError(
            f"num_cpus={num_cpus} with num_tables={num_tables}: SuperSuit would give tables of different "
            "processes the same seeds; use num_cpus in (0, 1) or num_cpus == num_tables"
        )
    table = parallel_env(**config)
    vec = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(table), num_tables, num_cpus=num_cpus, base_class=base_class
    )
    vec.single_observation_space = table.observation_space(table.possible_agents[0])
    vec.single_action_space = table.action_space(table.possible_agents[0])
    vec.num_agents = len(table.possible_agents)
    return vec


def sample_masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` ([N, num_actions], 0/1)."""
    masks = np.asarray(masks).astype(bool)
    scores = rng.random(masks.shape)
    scores[~masks] = -1.0
    return scores.argmax(axis=1)
