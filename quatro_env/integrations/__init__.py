"""Bridges from Quatro to third-party trainers, one module per ecosystem.

Each module imports its library at import time, so import only the one you use; each library is
behind an extra of the project (``pip install -e '.[rllib]'``, ``[torchrl]``, ``[sb3]``,
``[supersuit]``). ``gym_single`` needs nothing beyond the core install.

- :mod:`quatro_env.integrations.gym_single`: a Gymnasium single-agent view (one learning seat,
  the other seats played by built-in bots or frozen policies).
- :mod:`quatro_env.integrations.rllib`: RLlib (new API stack): masked PPO RLModule, env
  registration, PPO config builder, checkpoint loading for evaluation.
- :mod:`quatro_env.integrations.train_rllib`: the ``quatro-train-rllib`` command (imports Ray in ``main``).
- :mod:`quatro_env.integrations.supersuit_vec`: SuperSuit vector envs (CleanRL style) with masks.
- :mod:`quatro_env.integrations.torchrl`: TorchRL's ``PettingZooWrapper`` with masks and state.
- :mod:`quatro_env.integrations.torchrl_ppo`: a complete masked multi-agent PPO on TorchRL.

The flat observation option for SuperSuit's observation wrappers is a core piece:
:func:`quatro_env.common.wrappers.flat_observation`.

See ``docs/integrations/``.
"""
