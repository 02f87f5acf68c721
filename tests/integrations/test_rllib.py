"""RLlib (new API stack): masked module, env pre-check, PPO with a shared policy, checkpoints,
evaluation, the training script locally and on a local Ray cluster, and the docs' snippets."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from tests.extras import integration_module

integration_module("ray.rllib")
torch = integration_module("torch")

import ray  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

import quatro_env  # noqa: E402
from quatro_env.common.aec_tournament import play_aec_games  # noqa: E402
from quatro_env.integrations.gym_single import QuatroSingleAgentEnv  # noqa: E402
from quatro_env.integrations.rllib import (  # noqa: E402
    CHECKED_STEPS_METRIC,
    ILLEGAL_ACTIONS_METRIC,
    MASKED_MODULE_KEY,
    MaskedPPOTorchRLModule,
    QuatroRLlibEnv,
    RLlibCheckpointPolicy,
    build_ppo_config,
    check_rllib_env,
    export_torchscript,
    load_rllib_policy,
)

from .conftest import ROOT, SHORT_TABLE, run_doc  # noqa: E402

CONFIG = ROOT / "configs" / "rllib_ppo_4p.yaml"


@pytest.fixture
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _module(inference_only: bool = False) -> MaskedPPOTorchRLModule:
    env = quatro_env.parallel_env()
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"hidden": [32]},
        inference_only=inference_only,
    )
    return spec.build()


def test_module_puts_no_mass_on_illegal_actions():
    module = _module()
    gen = torch.Generator().manual_seed(0)
    obs = torch.randint(0, 256, (64, 467), generator=gen, dtype=torch.uint8)
    mask = (torch.rand(64, 74, generator=gen) < 0.1).to(torch.int8)
    mask[:, 0] = 1  # the no-op is always legal
    batch = {Columns.OBS: {"observation": obs, "action_mask": mask}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        assert logits.shape == (64, 74)
        probs = torch.softmax(logits, -1)
        assert float(probs.detach()[mask == 0].max()) == 0.0
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        for _ in range(20):
            actions = dist.sample()
            assert bool(mask.gather(1, actions[:, None]).all())
        assert torch.isfinite(dist.entropy()).all()
    assert module.compute_values(batch).shape == (64,)
    slim = _module(inference_only=True)
    assert not hasattr(slim, "_vf")
    slim.set_state(module.get_state(inference_only=True))


def test_module_rejects_observation_without_mask():
    import gymnasium as gym

    with pytest.raises(ValueError, match="action_mask"):
        RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            observation_space=gym.spaces.Dict({"observations": gym.spaces.Box(0, 1, (3,))}),
            action_space=gym.spaces.Discrete(2),
        ).build()


def test_rllib_precheck_replaced_by_masked_check():
    # RLlib's own check steps with unmasked random actions, which the env's default
    # illegal_action="raise" rightly rejects (seeded, so this is deterministic). If RLlib ever
    # masks its check, disable_env_checking in build_ppo_config can go.
    env = QuatroRLlibEnv(SHORT_TABLE)
    for i, space in enumerate(env.action_spaces.values()):
        space.seed(i)
    with pytest.raises(ValueError, match="step"):
        check_multiagent_environments(env)
    check_rllib_env(QuatroRLlibEnv(SHORT_TABLE), steps=60)  # across an episode end and a reset
    config = build_ppo_config(SHORT_TABLE)
    assert config.disable_env_checking
    # the env's default (raise) is untouched; the only key added marks the masked module's config
    assert config.env_config == {**SHORT_TABLE, MASKED_MODULE_KEY: True}


def test_masked_check_catches_a_malformed_env():
    class Broken(QuatroRLlibEnv):
        def step(self, action_dict):
            obs, rew, term, trunc, info = super().step(action_dict)
            return obs, {a: "1" for a in rew}, term, trunc, info

    with pytest.raises(ValueError, match="reward"):
        check_rllib_env(Broken(SHORT_TABLE))


def test_ppo_two_iterations_shared_policy_never_illegal(local_ray, tmp_path):
    # illegal_action="noop": an illegal action would be counted (and flagged) instead of raising.
    env_config = dict(SHORT_TABLE, num_players=4, illegal_action="noop")
    batch = 256
    config = build_ppo_config(
        env_config,
        training=dict(train_batch_size_per_learner=batch, minibatch_size=128, num_epochs=1),
        model=dict(hidden=[64]),
        seed=0,
    )
    algo = config.build_algo()
    try:
        assert set(algo.env_runner.module.keys()) == {"shared"}  # one policy for every seat
        assert isinstance(algo.get_module("shared"), MaskedPPOTorchRLModule)
        for _ in range(2):
            result = algo.train()
        runners = result["env_runners"]
        assert runners[ILLEGAL_ACTIONS_METRIC] == 0
        assert runners[CHECKED_STEPS_METRIC] >= 2 * batch * 4  # every agent step of both iterations
        assert algo.env_runner.env.envs[0].unwrapped.illegal_actions == 0
        assert result["learners"]["shared"]["num_module_steps_trained"] > 0
        checkpoint = algo.save_to_path(str(tmp_path / "ckpt"))
    finally:
        algo.stop()

    # The evaluation harness plays the loaded policy in every seat of the AEC env, whose default
    # illegal_action="raise" would stop on an illegal action.
    policy = load_rllib_policy(checkpoint)
    table = dict(SHORT_TABLE, max_rounds=3)
    returns = play_aec_games(
        lambda: quatro_env.env(**table), lambda seed: {f"player_{s}": policy for s in range(4)}, 2
    )
    assert len(returns) == 2
    # The evaluation harness: as a seat-actor factory, and as the exported TorchScript file.
    obs, _ = quatro_env.parallel_env(**SHORT_TABLE).reset(seed=3)
    ob, mask = obs["player_0"]["observation"], obs["player_0"]["action_mask"]
    greedy = policy.act(ob, mask)
    assert mask[greedy]
    actor = RLlibCheckpointPolicy(4, 0, path=checkpoint)
    assert actor.act(ob, mask) == greedy
    scripted = export_torchscript(checkpoint, tmp_path / "policy.pt")
    import quatro_env.eval as harness  # the project's own: never a skip

    assert harness.as_policy(f"torchscript:{scripted}").build(4, 0).act(ob, mask) == greedy
    spec = harness.PolicySpec("ppo", "factory", RLlibCheckpointPolicy, (("path", checkpoint),))
    assert spec.build(4, 0).act(ob, mask) == greedy
    # ... and it can be the frozen policy of the other seats in the single-agent view.
    sampled = load_rllib_policy(checkpoint, explore=True)
    env = QuatroSingleAgentEnv(seat=1, others=sampled, **table)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done = term or trunc


def test_rllib_doc_snippets():
    ns = run_doc("rllib.md")
    try:
        assert ns["result"]["env_runners"][ILLEGAL_ACTIONS_METRIC] == 0
        assert len(ns["returns"]) == 2
        assert Path(ns["scripted"]).is_file()
        assert not ray.is_initialized()
    finally:
        shutil.rmtree(ns["checkpoint"], ignore_errors=True)
        shutil.rmtree(Path(ns["scripted"]).parent, ignore_errors=True)


def test_yaml_config_builds():
    from quatro_env.integrations import train_rllib

    sections = train_rllib.load_config(CONFIG)
    assert sections == train_rllib.load_config("rllib_ppo_4p"), "the shipped config, by name"
    assert sections["env_runners"]["num_env_runners"] == 0
    config = train_rllib.ppo_config_from(sections)
    config.validate()
    assert config.num_env_runners == 0
    assert config.env_config.get("illegal_action", "raise") == "raise"


# ------------------------------------------------------------------------------- script and cluster
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_trainer_overrides_are_key_value_and_checked():
    from quatro_env.integrations.train_rllib import load_config

    sections = load_config(
        "rllib_ppo_4p", ["run.iterations=3", "env_runners.num_env_runners=2", "training.lr=1e-4"]
    )
    assert sections["run"]["iterations"] == 3 and sections["env_runners"]["num_env_runners"] == 2
    assert sections["training"]["lr"] == 1e-4 and sections["training"]["num_epochs"] == 4  # merged
    with pytest.raises(ValueError, match="name a section entry"):
        load_config("rllib_ppo_4p", ["iterations=3"])
    with pytest.raises(ValueError, match="unknown sections"):
        load_config("rllib_ppo_4p", ["trainig.lr=1"])
    with pytest.raises(ValueError, match="run section: unknown keys"):
        load_config("rllib_ppo_4p", ["run.iteration=1"])
    with pytest.raises(ValueError, match="shipped: .*rllib_ppo_4p"):
        load_config("no_such_config")
    # the table is checked before Ray starts: a typo is one line, not a traceback from a worker
    with pytest.raises(ValueError, match="env section: num_player: Extra inputs"):
        load_config("rllib_ppo_4p", ["env.num_player=4"])
    with pytest.raises(ValueError, match="env section: max_cycles"):
        load_config("rllib_ppo_4p", ["env.max_cycles=0"])
    with pytest.raises(ValueError, match="run.tensorboard: must be True or False"):  # bool('false') is True
        load_config("rllib_ppo_4p", ["run.tensorboard='false'"])
    with pytest.raises(ValueError, match="run.seed"):
        load_config("rllib_ppo_4p", ["run.seed=-3"])


def test_render_draws_the_table_in_its_mode():
    """RLlib's wrapper passes the mode to ``render``; Quatro's ``render()`` takes none."""
    env = QuatroRLlibEnv(dict(SHORT_TABLE, render_mode="ansi"))
    env.reset(seed=0)
    assert "tick" in env.render().lower()


def test_agents_are_the_acting_ones_and_none_after_the_end():
    """``MultiAgentEnv.agents`` lists the agents still acting: all of them during play, none once
    the match is over (it stayed full, so a loop on ``env.agents`` never saw the end)."""
    env = QuatroRLlibEnv(dict(SHORT_TABLE))
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        assert env.agents == env.possible_agents
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, _, terminateds, truncateds, _ = env.step(actions)
        done = terminateds["__all__"] or truncateds["__all__"]
    assert env.agents == []
    env.reset(seed=4)
    assert env.agents == env.possible_agents


def test_plain_rllib_says_what_to_use(local_ray):
    """A plain PPOConfig ignores the mask; the env's error then names the project's config builder."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from quatro_env.integrations.rllib import register_quatro_env

    name = register_quatro_env()
    config = PPOConfig().environment(name, env_config=dict(SHORT_TABLE)).env_runners(num_env_runners=0)
    with pytest.raises(Exception, match="build_ppo_config") as info:
        config.build_algo()
    assert "plain PPOConfig" in str(info.value) and "quatro-train-rllib" in str(info.value)


def test_an_unmasked_action_names_what_to_use():
    """With masked_module=True but a policy that ignores the mask, the env's error says the same."""
    from quatro_env.quatro.engine import IllegalActionError

    env = QuatroRLlibEnv(SHORT_TABLE)
    obs, _ = env.reset(seed=0)
    illegal = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    with pytest.raises(IllegalActionError, match="build_ppo_config"):
        env.step(illegal)


def _run_script(args: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "quatro_env.integrations.train_rllib", "--config", str(CONFIG), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _check_summary(summary_path: Path, runners: int) -> dict:
    summary = json.loads(summary_path.read_text())
    assert summary["num_env_runners"] == runners
    assert len(summary["iterations"]) == 1
    row = summary["iterations"][0]
    assert row["illegal_actions"] == 0 and row["checked_agent_steps"] > 0
    checkpoint = summary["checkpoints"][-1]
    policy = load_rllib_policy(checkpoint)
    obs, _ = quatro_env.parallel_env().reset(seed=0)
    assert policy(obs["player_0"]) in np.flatnonzero(obs["player_0"]["action_mask"])
    assert Path(summary["torchscript"]).is_file()
    return summary


def test_script_runs_locally(tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    args = ["run.iterations=1", "--num-cpus", "2"]
    args += [f"run.checkpoint_dir={tmp_path / 'ck'}", "--summary", str(tmp_path / "s.json")]
    proc = _run_script(args, env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    _check_summary(tmp_path / "s.json", runners=0)
    events = list((tmp_path / "ck").glob("events.out.tfevents.*"))
    assert events and events[0].stat().st_size > 0, "TensorBoard scalars beside the checkpoints"


@pytest.mark.slow
def test_script_on_local_cluster(tmp_path):
    """A Ray head on 127.0.0.1 only; the script joins it with --address and 2 env runners."""
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        ray_cli = Path(shutil.which("ray") or "ray")
    temp_dir = Path(tempfile.mkdtemp(prefix="qray", dir="/tmp"))  # short: Ray's socket paths
    token = temp_dir / "token"
    token.write_text(secrets.token_hex(32))
    env = dict(
        os.environ,
        OMP_NUM_THREADS="1",
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN_PATH=str(token),
        # Single-node mode: Ray keeps 127.0.0.1 instead of switching to the machine's address.
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
        RAY_USAGE_STATS_ENABLED="0",
    )
    env.pop("RAY_ADDRESS", None)
    port = _free_port()
    head_log_path = temp_dir / "head.log"
    with open(head_log_path, "w") as head_log:
        head = subprocess.Popen(
            [
                str(ray_cli), "start", "--head", "--block",
                "--node-ip-address=127.0.0.1", f"--port={port}",
                "--num-cpus=4", "--include-dashboard=false", "--disable-usage-stats",
                f"--temp-dir={temp_dir}", "--object-store-memory=200000000",
                f"--dashboard-agent-listen-port={_free_port()}",
                f"--metrics-export-port={_free_port()}",
            ],
            env=env,
            stdout=head_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "block forever" not in head_log_path.read_text():
            assert head.poll() is None, head_log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "Ray head did not start in 120 s"
            time.sleep(0.5)
        args = [
            "--address", f"127.0.0.1:{port}", "env_runners.num_env_runners=2", "run.iterations=1",
            f"run.checkpoint_dir={tmp_path / 'ck'}", "--summary", str(tmp_path / "s.json"),
        ]  # fmt: skip
        proc = _run_script(args, env, timeout=400)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
        summary = _check_summary(tmp_path / "s.json", runners=2)
        assert summary["address"] == f"127.0.0.1:{port}"
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops its own processes on SIGTERM
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)  # the process group this test started
            head.wait(timeout=30)
        shutil.rmtree(temp_dir, ignore_errors=True)
