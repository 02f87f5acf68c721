"""Quatro on RLlib's new API stack (``pip install -e '.[rllib]'``).

- :class:`QuatroRLlibEnv`: the ParallelEnv behind RLlib's ``ParallelPettingZooEnv``, configured by a
  plain dict of :class:`~quatro_env.quatro.config.QuatroConfig` fields; registered under
  ``"quatro_v0"`` by :func:`register_quatro_env`.
- :class:`MaskedPPOTorchRLModule`: a project-owned PPO RLModule that reads PettingZoo's
  ``{"observation", "action_mask"}`` observation directly (RLlib's action-masking module is only
  an example, expects the key ``"observations"`` and is not imported here) and pushes the logits
  of illegal actions to the float minimum, so exploration, inference and training never put
  probability on an illegal action.
- :func:`build_ppo_config`: a ``PPOConfig`` with one policy (``"shared"``) shared by every seat.
- :func:`load_rllib_policy`: a trained policy from a checkpoint, as a callable that the
  AEC tournament runner, the single-agent Gymnasium view and the bot interface
  (``act(observation, mask)``) all accept; :class:`RLlibCheckpointPolicy` is the same as a
  seat-actor factory ``cls(num_players, seed, path=...)`` for the evaluation harness, and
  :func:`export_torchscript` writes the policy as a TorchScript file (``quatro-eval
  torchscript:PATH``), which needs neither Ray nor this module to play.

RLlib's env pre-check steps the env with *unmasked* random actions, which Quatro's default
``illegal_action="raise"`` rejects. This module keeps that default (an illegal action during
training is a bug and must stop the run) and instead disables RLlib's check
(``disable_env_checking=True``) and runs :func:`check_rllib_env`, the same check with actions
sampled from the mask, when the config is built.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
from ray.tune.registry import register_env
from torch import nn

from quatro_env.quatro.engine import IllegalActionError
from quatro_env.quatro_v0 import parallel_env

__all__ = [
    "ENV_NAME",
    "ILLEGAL_ACTIONS_METRIC",
    "MASKED_MODULE_KEY",
    "POLICY_ID",
    "MaskedPPOTorchRLModule",
    "QuatroMetricsCallback",
    "QuatroRLlibEnv",
    "RLlibCheckpointPolicy",
    "RLlibPolicy",
    "build_ppo_config",
    "check_rllib_env",
    "export_torchscript",
    "load_rllib_policy",
    "register_quatro_env",
    "shared_policy_mapping",
]

ENV_NAME = "quatro_v0"
POLICY_ID = "shared"
OBS_KEY = "observation"
MASK_KEY = "action_mask"
ILLEGAL_ACTIONS_METRIC = "quatro_illegal_actions"
CHECKED_STEPS_METRIC = "quatro_checked_agent_steps"
# build_ppo_config sets this env_config key; the registered env refuses to start without it.
MASKED_MODULE_KEY = "masked_module"
PLAIN_RLLIB_HINT = (
    "Quatro's RLlib env gives Dict observations {'observation', 'action_mask'}; a plain PPOConfig "
    "(RLlib's default modules, its unmasked env pre-check) cannot use them and would pick illegal "
    "actions. Build the config with quatro_env.integrations.rllib.build_ppo_config(env_config, ...) "
    "(MaskedPPOTorchRLModule and a masked pre-check) or run quatro-train-rllib; see "
    f"docs/integrations/rllib.md. With a masked module of your own, put {MASKED_MODULE_KEY}=True in "
    "the env config."
)


# ---------------------------------------------------------------------------------------------- env
class QuatroRLlibEnv(ParallelPettingZooEnv):
    """Quatro's ParallelEnv as an RLlib ``MultiAgentEnv``; ``env_config`` holds QuatroConfig fields.

    On top of RLlib's wrapper it keeps the agent order and the per-agent space dicts that the new
    API stack reads, keeps ``agents`` to the agents still acting (empty once the match ends, as
    ``MultiAgentEnv`` defines it), and counts the actions the env flagged as illegal (only possible
    with ``illegal_action="noop"``; with the default ``"raise"`` an illegal action stops the run).
    """

    def __init__(self, env_config: Mapping[str, Any] | None = None) -> None:
        super().__init__(parallel_env(**dict(env_config or {})))
        self.possible_agents = list(self.par_env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.par_env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.par_env.action_space(a) for a in self.possible_agents}
        self.illegal_actions = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.agents = list(self.possible_agents)
        return super().reset(seed=seed, options=options)

    def step(self, action_dict):
        try:
            result = super().step(action_dict)
        except IllegalActionError as err:  # same error, with what to use instead in its message
            err.args = (f"{err.args[0]}\n{PLAIN_RLLIB_HINT}",)
            raise
        self.agents = list(self.par_env.agents)
        self.illegal_actions += sum(bool(info.get("illegal_action")) for info in result[4].values())
        return result

    def render(self):
        """The table's picture in its ``render_mode`` (RLlib's wrapper passes the mode as an argument,
        which PettingZoo's ``render()`` does not take)."""
        return self.par_env.render()


def _make_env(env_config: Mapping[str, Any]) -> QuatroRLlibEnv:
    config = dict(env_config)
    if not config.pop(MASKED_MODULE_KEY, False):
        raise ValueError(PLAIN_RLLIB_HINT)
    return QuatroRLlibEnv(config)


def register_quatro_env(name: str = ENV_NAME) -> str:
    """Register the env creator with Ray Tune's registry (reaches every process of a cluster)."""
    register_env(name, _make_env)
    return name


def check_rllib_env(env: QuatroRLlibEnv, seed: int = 42, steps: int = 3) -> None:
    """RLlib's multi-agent env pre-check, with actions sampled from the action mask.

    Raises ``ValueError`` on a malformed reset/step result.
    """
    obs, infos = env.reset(seed=seed)
    _check_agent_dict(env, obs, "reset() observations")
    _check_agent_dict(env, infos, "reset() infos")
    for _ in range(steps):
        actions = {
            aid: int(env.get_action_space(aid).sample(mask=np.asarray(o[MASK_KEY], np.int8)))
            for aid, o in obs.items()
        }
        obs, rewards, terminateds, truncateds, infos = env.step(actions)
        for what, d in (("observations", obs), ("rewards", rewards), ("infos", infos)):
            _check_agent_dict(env, d, f"step() {what}")
        for what, d in (("terminateds", terminateds), ("truncateds", truncateds)):
            if "__all__" not in d:
                raise ValueError(f"step() {what} lacks the '__all__' key")
            _check_agent_dict(env, {k: v for k, v in d.items() if k != "__all__"}, f"step() {what}")
            if not all(isinstance(v, (bool, np.bool_)) for v in d.values()):
                raise ValueError(f"step() {what} must be booleans, got {d}")
        for aid, r in rewards.items():
            if isinstance(r, bool) or not np.isscalar(r) or not np.isreal(r):
                raise ValueError(f"step() reward of {aid} must be a number, got {r!r}")
        for aid, o in obs.items():
            if not env.get_observation_space(aid).contains(o):
                raise ValueError(f"step() observation of {aid} is outside its space")
        if terminateds["__all__"] or truncateds["__all__"]:
            obs, _ = env.reset()


def _check_agent_dict(env: QuatroRLlibEnv, d: Any, what: str) -> None:
    if not isinstance(d, dict):
        raise ValueError(f"{what} must be a dict keyed by agent id, got {type(d).__name__}")
    unknown = set(d) - set(env.possible_agents)
    if unknown:
        raise ValueError(f"{what} has keys that are not agent ids: {sorted(unknown)}")


def shared_policy_mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared policy (observations are egocentric, so seats are alike)."""
    return POLICY_ID


# ------------------------------------------------------------------------------------------ module
def _mlp(in_dim: int, hidden: list[int], out_dim: int, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(in_dim, width), nn.Tanh()]
        in_dim = width
    layers.append(nn.Linear(in_dim, out_dim))
    for layer in layers:
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=out_gain if layer is layers[-1] else np.sqrt(2))
            nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


class MaskedPPOTorchRLModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor-critic MLP over ``obs["observation"]``; logits of actions with mask 0 set to float min.

    ``model_config`` keys: ``hidden`` (widths of the hidden layers, default ``[256, 256]``).
    Observations are uint8 (flags, counts, tick counters clipped at 255); they enter the network
    as ``log1p(x)``, which keeps flags near 1 and squashes the counters.
    On env runners (``inference_only``) the value head is dropped.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not (isinstance(space, gym.spaces.Dict) and {OBS_KEY, MASK_KEY} <= set(space.spaces)):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                f"{MASK_KEY!r} (PettingZoo's convention), got {space}"
            )
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise ValueError(f"MaskedPPOTorchRLModule needs a Discrete action space, got {self.action_space}")
        config = dict(self.model_config or {})
        hidden = [int(w) for w in config.get("hidden", (256, 256))]
        obs_dim = int(np.prod(space[OBS_KEY].shape))
        self._pi = _mlp(obs_dim, hidden, int(self.action_space.n), out_gain=0.01)
        self._vf = _mlp(obs_dim, hidden, 1, out_gain=1.0)

    @staticmethod
    def _features(obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = obs[OBS_KEY]
        return torch.log1p(x.reshape(x.shape[0], -1).float())

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self._pi(self._features(obs))
        legal = obs[MASK_KEY].reshape(logits.shape).bool()
        masked = logits.masked_fill(~legal, torch.finfo(logits.dtype).min)
        return {Columns.ACTION_DIST_INPUTS: masked}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self._vf(self._features(batch[Columns.OBS])).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["_vf"]


# --------------------------------------------------------------------------------------- callbacks
class QuatroMetricsCallback(RLlibCallback):
    """Logs, over the whole run, the agent steps seen and the env's illegal-action flags.

    Results carry them as ``result["env_runners"]["quatro_illegal_actions"]`` and
    ``["quatro_checked_agent_steps"]`` (lifetime sums over every env runner).
    """

    def on_episode_step(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        infos = episode.get_infos(-1)
        illegal = sum(bool(info.get("illegal_action")) for info in infos.values())
        metrics_logger.log_value(ILLEGAL_ACTIONS_METRIC, illegal, reduce="lifetime_sum")
        metrics_logger.log_value(CHECKED_STEPS_METRIC, len(infos), reduce="lifetime_sum")


# ------------------------------------------------------------------------------------------ config
def build_ppo_config(
    env_config: Mapping[str, Any] | None = None,
    *,
    env_runners: Mapping[str, Any] | None = None,
    training: Mapping[str, Any] | None = None,
    model: Mapping[str, Any] | None = None,
    learners: Mapping[str, Any] | None = None,
    seed: int | None = None,
    check_env: bool = True,
) -> PPOConfig:
    """A PPO config (new API stack) for Quatro with one masked policy shared by every seat.

    ``env_runners``, ``training`` and ``learners`` are keyword arguments of the ``PPOConfig``
    methods of the same names; ``num_env_runners`` defaults to 0 (sampling in the driver, the
    right choice on a 2-core machine); on a cluster raise it. ``model`` is the RLModule's
    ``model_config``.
    """
    env_config = dict(env_config or {})
    name = register_quatro_env()
    if check_env:
        check_env_instance = QuatroRLlibEnv(env_config)
        check_rllib_env(check_env_instance)
        check_env_instance.close()
    module_spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=dict(model or {}))
    config = (
        PPOConfig()
        .environment(name, env_config={**env_config, MASKED_MODULE_KEY: True}, disable_env_checking=True)
        .env_runners(**{"num_env_runners": 0, **dict(env_runners or {})})
        .learners(**dict(learners or {}))
        .training(**dict(training or {}))
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=shared_policy_mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module_spec}))
        .callbacks(QuatroMetricsCallback)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


# -------------------------------------------------------------------------------------- evaluation
def module_checkpoint_path(checkpoint: str | Path, policy_id: str = POLICY_ID) -> Path:
    """The RLModule folder inside an algorithm checkpoint (or ``checkpoint`` itself if it is one)."""
    path = Path(checkpoint)
    inside = path / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / policy_id
    return inside if inside.is_dir() else path


class RLlibPolicy:
    """A trained masked module as a policy: ``act(observation, mask)`` or ``policy(obs_dict, agent)``.

    Greedy (argmax over legal actions) unless ``explore=True``, which samples from the masked
    softmax with the generator seeded by ``reset(seed)``.
    """

    def __init__(self, module: RLModule, explore: bool = False, seed: int | None = None) -> None:
        self.module = module.eval() if hasattr(module, "eval") else module
        self.explore = explore
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked logits for a batch (``observations`` [B, obs_dim], ``masks`` [B, num_actions])."""
        batch = {
            Columns.OBS: {
                OBS_KEY: torch.as_tensor(np.asarray(observations)),
                MASK_KEY: torch.as_tensor(np.asarray(masks)),
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS].numpy()

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        mask = np.asarray(mask)
        if not mask.any():
            return 0
        logits = self.logits(np.asarray(observation)[None], mask[None])[0].astype(np.float64)
        legal = np.flatnonzero(mask)
        if not self.explore:
            return int(legal[np.argmax(logits[legal])])
        z = logits[legal] - logits[legal].max()
        p = np.exp(z) / np.exp(z).sum()
        return int(self.rng.choice(legal, p=p))

    def __call__(self, observation: Mapping[str, np.ndarray], agent: str | None = None) -> int:
        return self.act(observation[OBS_KEY], observation[MASK_KEY])


def load_rllib_policy(
    checkpoint: str | Path, policy_id: str = POLICY_ID, explore: bool = False, seed: int | None = None
) -> RLlibPolicy:
    """Load the policy trained by ``quatro-train-rllib`` (or any algorithm checkpoint of
    :func:`build_ppo_config`) from its checkpoint folder; no Ray cluster is needed.

    RLlib's checkpoints pickle the module's class and arguments: load only a folder you trust."""
    module = RLModule.from_checkpoint(module_checkpoint_path(checkpoint, policy_id))
    return RLlibPolicy(module, explore=explore, seed=seed)


class RLlibCheckpointPolicy(RLlibPolicy):
    """Seat-actor factory for the evaluation harness: ``cls(num_players, seed, path=CHECKPOINT)``.

    E.g. ``PolicySpec("ppo", "factory", RLlibCheckpointPolicy, (("path", checkpoint),))``. The
    module is loaded once per checkpoint and process and shared by the seats.
    """

    _modules: dict[tuple[str, str], RLModule] = {}

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        *,
        path: str,
        policy_id: str = POLICY_ID,
        explore: bool = False,
    ) -> None:
        key = (str(Path(path).resolve()), policy_id)
        if key not in self._modules:
            torch.set_num_threads(1)
            self._modules[key] = RLModule.from_checkpoint(module_checkpoint_path(path, policy_id))
        super().__init__(self._modules[key], explore=explore, seed=seed)


class _Log1p(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log1p(x.float())


def export_torchscript(checkpoint: str | Path, out_path: str | Path, policy_id: str = POLICY_ID) -> Path:
    """Write the policy head as TorchScript: float observations ``[B, obs_dim]`` -> logits (unmasked).

    The evaluation harness's ``TorchPolicy`` (``quatro-eval torchscript:PATH``) masks and plays it.
    """
    module = RLModule.from_checkpoint(module_checkpoint_path(checkpoint, policy_id))
    if not isinstance(module, MaskedPPOTorchRLModule):
        raise TypeError(f"{checkpoint}: expected a MaskedPPOTorchRLModule, got {type(module).__name__}")
    net = nn.Sequential(_Log1p(), *[layer for layer in module._pi]).eval()
    with warnings.catch_warnings():
        # torch 2.13 marks TorchScript deprecated; it is the harness's checkpoint format.
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = torch.jit.script(net)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    scripted.save(str(out_path))
    return out_path
