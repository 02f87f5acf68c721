"""PPO baseline: the smoke config trains end to end, masking holds, resume is exact, configs are strict."""

from __future__ import annotations

import json
import time

import pytest
import torch

from baselines.config import TrainConfig, load_config, parse_overrides
from baselines.policy import CHECKPOINT_DIR
from baselines.ppo import PPOTrainer
from baselines.train_cli import main
from baselines.trainer_state import load_trainer_checkpoint
from quatro_env.common.configs import shipped_configs
from tests.baselines.helpers import assert_same_weights, interrupt_the_second_update, straight_and_resumed

SMOKE = "configs/smoke.yaml"


@pytest.fixture
def cfg(tmp_path) -> TrainConfig:
    return load_config(SMOKE, [f"out_dir={tmp_path}", "total_agent_steps=8192"])


def test_smoke_config_trains_end_to_end_quickly(tmp_path):
    start = time.perf_counter()
    main(["--config", SMOKE, f"out_dir={tmp_path}"])
    assert time.perf_counter() - start < 60
    run = tmp_path / "smoke"
    assert (run / "latest.pt").exists() and (run / "policy.pt").exists()
    rows = (run / "progress.csv").read_text().splitlines()
    assert len(rows) == 1 + 5, "one CSV row per update"


def test_an_update_lowers_the_loss_on_its_batch(cfg):
    """The optimiser does its job: the PPO loss of a rollout falls after the update on it."""
    trainer = PPOTrainer(cfg)
    buf = trainer.rollout()

    def value_loss() -> float:
        with torch.no_grad():
            memory, _ = trainer.model.unroll(buf["obs"], buf["done"], buf["h0"])
            _, value = trainer.model.heads(memory, buf["mask"])
            return float(((value - buf["ret"]) ** 2).mean())

    before = value_loss()
    trainer.optimise(buf)
    assert value_loss() < before


def test_masking_never_samples_an_illegal_action(cfg):
    trainer = PPOTrainer(cfg)
    for _ in range(3):
        buf = trainer.rollout()
        chosen = buf["mask"].gather(-1, buf["action"].unsqueeze(-1)).squeeze(-1)
        assert bool((chosen == 1).all())


def test_resume_continues_identically(cfg, tmp_path):
    straight, resumed = straight_and_resumed(cfg, tmp_path)
    assert_same_weights(straight.model, resumed.model)
    keys = ("agent_steps", "episode_return", "pg_loss", "v_loss")
    assert [[r[k] for k in keys] for r in straight.history] == [[r[k] for k in keys] for r in resumed.history]


def test_config_errors_name_the_field(tmp_path):
    with pytest.raises(ValueError, match="learning_rate"):
        load_config(SMOKE, ["learning_rate=-1"])
    with pytest.raises(ValueError, match="lerning_rate"):
        load_config(SMOKE, ["lerning_rate=0.1"])
    with pytest.raises(ValueError, match="num_players"):
        load_config(SMOKE, ["env.num_players=5"])
    with pytest.raises(ValueError, match="num_minibatches"):
        load_config(SMOKE, ["num_minibatches=3"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(bad)


def test_overrides_are_nested_and_typed():
    assert parse_overrides(["a=1", "env.round_seconds=60.5", "x.y=true"]) == {
        "a": 1,
        "env": {"round_seconds": 60.5},
        "x": {"y": True},
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["nonsense"])


@pytest.mark.parametrize("name", [n for n in shipped_configs() if n == "smoke" or n.startswith("ppo_")])
def test_shipped_configs_validate(name):
    cfg = load_config(f"configs/{name}.yaml")
    assert cfg.env_config().num_players == int(name[4]) if name != "smoke" else 4


def test_shipped_ppo_4p_was_trained_by_its_config_in_the_repo():
    """The checkpoint's recorded config is configs/ppo_4p_20min_random.yaml (issue 17), so its one
    training command reproduces it; `random` enters the ladder only after run 4's 200 updates."""
    meta = json.loads((CHECKPOINT_DIR / "ppo_4p.json").read_text())
    assert "configs/ppo_4p_20min_random.yaml" in meta["command"]
    cfg = load_config("configs/ppo_4p_20min_random.yaml", ["progress_bar=false"])
    # fields added to TrainConfig after the run, whose defaults are what it trained with
    added_since = {
        "eavesdropper_reads": "channel",
        "secrecy_partner_coef": 0.0,
        "secrecy_partner_pay": "tick",
        "processes": 1,
        "eval_batched": False,
    }
    current = cfg.model_dump(mode="json")
    assert {k: current[k] for k in added_since} == added_since
    assert meta["config"] == {k: v for k, v in current.items() if k not in added_since}
    assert "random" not in cfg.bots(6_553_599)[0] and cfg.bots(6_553_600)[0].count("random") == 2
    assert meta["wall_seconds"] <= 1200, "the 20-minute budget"


def test_curriculum_stage_changes_the_opponent_mix_then_hands_back():
    """ppo_4p_blocker's stage 1: a bot partner at most tables; afterwards the config's own mix applies."""
    cfg = load_config("configs/ppo_4p_blocker.yaml")
    end = cfg.curriculum[0].until_agent_steps
    assert cfg.opponent_mix(0) == (0.1, 0.8, 1.0)
    assert cfg.opponent_mix(end) == (cfg.pool_prob, cfg.bot_prob, cfg.partner_bot_prob)
    with pytest.raises(ValueError, match="pool_prob \\+ bot_prob"):
        TrainConfig(
            env={"num_players": 4},
            num_envs=8,
            num_minibatches=2,
            curriculum=[{"until_agent_steps": 10, "pool_prob": 0.7, "bot_prob": 0.7}],
        )


def test_curriculum_stages_apply_in_training_only():
    cfg = TrainConfig(
        env={"num_players": 4},
        num_envs=8,
        num_minibatches=2,
        curriculum=[{"until_agent_steps": 1000, "env": {"round_seconds": 20}}],
    )
    assert cfg.env_config(0).round_seconds == 20
    assert cfg.env_config(1000).round_seconds == 180
    assert cfg.env_config(0, evaluation=True).round_seconds == 180
    with pytest.raises(ValueError, match="num_players"):
        TrainConfig(
            env={"num_players": 4},
            num_envs=8,
            num_minibatches=2,
            curriculum=[{"until_agent_steps": 10, "env": {"num_players": 6}}],
        )


def test_a_curriculum_stage_that_changes_the_rules_starts_every_episode_afresh(tmp_path):
    """A stage that changes ``env`` builds new tables: their first tick is paid no shaping against the
    old tables' potential, and no old partial return or eavesdropper memory carries over (it was
    γ·0 − Φ_old on tick 0 with ``shaping_at_round_end: zero``, found by an audit)."""
    over = ["num_envs=4", "num_steps=32", "num_minibatches=2", "update_epochs=1", "eval_every=0"]
    over += ["quartet_bonus=0.0", "collect_shaping=1.0", "shaping_at_round_end=zero", "pool_prob=0"]
    over += ["bot_prob=0", "env.round_seconds=30", "secrecy_coef=0.1", "eavesdropper_reads=public"]
    over += ["curriculum=[{until_agent_steps: 512, env: {pulse_seconds: 0.5}}]", f"out_dir={tmp_path}"]
    trainer = PPOTrainer(load_config(SMOKE, over))
    trainer.train(updates=1)  # 4 tables x 4 seats x 32 ticks = 512 agent-steps: the stage ends
    assert trainer.potential.any() and trainer.running_return.any() and trainer.secrecy.h.any()
    trainer._maybe_switch_stage()
    assert trainer.env_cfg.pulse_seconds == 5 and not trainer.engine.in_play.any()
    assert not trainer.potential.any() and not trainer.running_return.any()
    assert not trainer.secrecy.h.any()
    fresh = trainer.secrecy.eavesdropper.initial_ledger(4, trainer.device)
    assert torch.equal(trainer.secrecy.ledger, fresh)
    buf = trainer.rollout()
    assert not buf["reward"][0].any()  # the sign phase: Φ = 0 before and after


def test_a_resumed_leg_trains_at_its_configs_learning_rates(cfg, tmp_path):
    """``--resume FILE learning_rate=…`` without annealing: the optimizer state loaded from the file
    brought the old rate, and the new leg trained at it (found by an audit); the eavesdropper's too."""
    leg = [f"out_dir={tmp_path}", "anneal_lr=false", "secrecy_coef=0.1"]
    first = PPOTrainer(load_config(SMOKE, [*leg, "learning_rate=0.001", "eavesdropper_lr=0.01"]))
    first.train(updates=1)
    resumed = PPOTrainer(load_config(SMOKE, [*leg, "learning_rate=0.0001", "eavesdropper_lr=0.002"]))
    resumed.load_state_dict(first.state_dict())
    assert resumed.optimizer.param_groups[0]["lr"] == 0.0001
    assert resumed.secrecy.optimizer.param_groups[0]["lr"] == 0.002
    resumed.train(updates=1)
    assert resumed.history[-1]["lr"] == 0.0001


def test_resume_with_overrides_starts_a_new_leg_from_the_state(cfg, tmp_path):
    """--resume with key=value: the state (model, tables, counters) is kept, the config changes."""
    first = PPOTrainer(cfg)
    first.train(updates=1)
    first.save(tmp_path / "mid.pt")
    main(["--resume", str(tmp_path / "mid.pt"), "--updates", "1", "bot_prob=0.5", "bot_opponents=[random]"])
    state = load_trainer_checkpoint(tmp_path / "smoke" / "latest.pt")
    assert state["update"] == 2
    assert state["config"]["bot_opponents"] == ["random"] and state["config"]["bot_prob"] == 0.5
    with pytest.raises(SystemExit) as stop:  # one line naming the field, exit code 2
        main(["--resume", str(tmp_path / "mid.pt"), "--updates", "1", "bot_opponents=[randum]"])
    assert stop.value.code == 2


def test_an_interrupt_inside_an_update_counts_only_completed_updates(cfg, monkeypatch):
    """Ctrl-C during the optimisation: the checkpoint's agent-steps are those of the updates done
    (the interrupted update's rollout is discarded, not counted)."""
    trainer = PPOTrainer(cfg)
    interrupt_the_second_update(trainer, monkeypatch)
    trainer.train(updates=3)
    state = load_trainer_checkpoint(trainer.run_dir / "latest.pt")
    assert state["update"] == 1
    assert state["agent_steps"] == cfg.num_steps * cfg.num_envs * 4


def test_a_second_ctrl_c_while_stopping_does_not_cut_the_save_short(cfg, monkeypatch):
    """Two SIGINTs (a second Ctrl-C, or ``pkill`` reaching both ``timeout`` and the trainer): the
    checkpoint of the completed updates is still written, and SIGINT works again afterwards."""
    import os
    import signal

    # Python's own Ctrl-C handler, even if the suite was started with SIGINT ignored (``nohup``),
    # and the suite's own back afterwards
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        trainer = PPOTrainer(cfg)
        interrupt_the_second_update(trainer, monkeypatch)
        real_export = trainer.export_policy

        def export_after_a_second_sigint(path, command):
            os.kill(os.getpid(), signal.SIGINT)  # arrives while the trainer is writing its checkpoint
            real_export(path, command)

        monkeypatch.setattr(trainer, "export_policy", export_after_a_second_sigint)
        trainer.train(updates=3)
        assert load_trainer_checkpoint(trainer.run_dir / "latest.pt")["update"] == 1
        assert (trainer.run_dir / "policy.pt").exists()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_central_critic_run_exports_a_policy_that_loads_and_plays(tmp_path):
    """A central critic's value head reads the whole table: its policy file still loads (strictly, the
    critic included) and plays a seat; it once failed at the run's first periodic evaluation."""
    from baselines.policy import PPOPolicy, load_model
    from quatro_env.batched import BatchedQuatroEngine

    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "central_critic=true", "total_agent_steps=8192"])
    trainer = PPOTrainer(cfg)
    trainer.train(updates=1)
    path = tmp_path / "policy.pt"
    trainer.export_policy(path, "test")
    model, payload = load_model(path)
    assert model.state_encoder is not None
    assert_same_weights(model, trainer.model)
    engine = BatchedQuatroEngine(num_envs=1, num_players=payload["num_players"])
    result = engine.reset(seed=0)
    seat = PPOPolicy(payload["num_players"], seed=0, path=path)
    action = seat.act(result.observations[0, 0].numpy(), result.masks[0, 0].numpy())
    assert result.masks[0, 0, action]
