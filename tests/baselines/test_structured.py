"""The structured network's parsed features and heads, and the scripted-bot tables of the trainer."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from baselines.config import Stage, TrainConfig, load_config
from baselines.features import PAIR_DIM, ObsFeatures
from baselines.networks import StructuredActorCritic, build_model
from baselines.ppo import VS_BOTS, PPOTrainer
from quatro_env.batched import BatchedQuatroEngine
from quatro_env.quatro.actions import ActionCodec, ActionKind
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from tests.baselines.helpers import assert_same_weights, straight_and_resumed

SMOKE = "configs/smoke.yaml"


def _played_engine(n: int, ticks: int = 30) -> BatchedQuatroEngine:
    """Tables a few random legal ticks into play, so hands and center are dealt and mixed."""
    engine = BatchedQuatroEngine(16, config=QuatroConfig(num_players=n, sign_phase_seconds=1), seed=3)
    result = engine.reset(3)
    gen = torch.Generator().manual_seed(0)
    codec = ActionCodec(n)
    calls = [codec.encode(ActionKind.QUATRO), *codec.ranges[ActionKind.CONTRA]]
    for _ in range(ticks):
        mask = result.masks.clone().float()
        mask[..., calls] = 0  # no calls: keep every table in play
        mask[..., 0] = torch.maximum(mask[..., 0], (mask.sum(-1) == 0).float())
        result = engine.step(
            torch.multinomial(mask.reshape(-1, mask.shape[-1]), 1, generator=gen).view(16, n)
        )
    return engine, result


@pytest.mark.parametrize("n", [4, 6, 8])
def test_pair_features_count_the_given_and_taken_values(n):
    """Row 4h + c describes exchange(h, c) by my counts of the given and the taken value (Q12)."""
    engine, result = _played_engine(n)
    feats = ObsFeatures(n)
    table, pairs = feats(result.observations.reshape(16 * n, -1))
    v = feats.v
    hands = (engine.hands.long() // 4).reshape(16 * n, 4).numpy()
    center = (engine.center.long() // 4).repeat_interleave(n, 0).numpy()
    playing = (engine.phase == 1).repeat_interleave(n).numpy()
    assert playing.all()
    for i in range(16 * n):
        counts = np.bincount(hands[i], minlength=v)
        seen = np.bincount(center[i], minlength=v)
        assert np.allclose(table[i, :v].numpy() * 4, counts)
        assert np.allclose(table[i, v : 2 * v].numpy() * 4, seen)
        for h in range(4):
            for c in range(4):
                row = pairs[i, 4 * h + c].numpy()
                assert row.shape == (PAIR_DIM,)
                assert row[0:5].argmax() == counts[hands[i, h]]
                assert row[5:10].argmax() == seen[hands[i, h]]
                assert row[10:15].argmax() == counts[center[i, c]]
                assert row[15:20].argmax() == seen[center[i, c]]
                assert row[20] == (hands[i, h] == center[i, c])


def test_sign_features_read_the_partners_pulse():
    """'Last pulse of seat r is our sign' is the dot product of two one-hot blocks of my own view."""
    feats = ObsFeatures(4)
    obs = torch.zeros(1, ObservationEncoder(4).obs_dim, dtype=torch.uint8)
    sign = 5
    obs[0, feats.sign[sign]] = 1
    obs[0, feats.pulse[2, sign]] = 1  # partner (relative seat 2) pulsed our sign
    obs[0, feats.pulse[1, sign + 1]] = 1  # an opponent pulsed another emoji
    obs[0, feats.pulse_age] = torch.tensor([255, 0, 0, 255], dtype=torch.uint8)
    table, _ = feats(obs)
    n = 4
    is_sign = table[0, -2 * n : -n]
    fresh_sign = table[0, -n:]
    assert is_sign.tolist() == [0, 0, 1, 0]
    assert fresh_sign.tolist() == [0, 0, 1, 0]


def test_exchange_logits_have_no_per_slot_bias():
    """Slots carry no meaning: with identical pair rows, all 16 exchanges get the same logit."""
    model = StructuredActorCritic(467, 74, hidden=32, rnn=16, num_players=4)
    for p in model.parameters():
        torch.nn.init.normal_(p)  # any weights at all
    r, f = model.rnn_size, model.features.table_dim
    memory = torch.randn(3, r)
    table = torch.rand(3, f)
    pair_row = torch.rand(3, 1, PAIR_DIM)
    pointers = torch.rand(3, 2, 24)
    parsed = torch.cat([memory, table, pair_row.expand(-1, 16, -1).flatten(1), pointers.flatten(1)], dim=-1)
    dist, _ = model.heads(parsed, torch.ones(3, 74, dtype=torch.int8))
    ex = dist.logits[:, 1:17]
    assert torch.allclose(ex, ex[:, :1].expand_as(ex), atol=1e-5)


@pytest.mark.parametrize("arch", ["flat", "structured"])
def test_both_architectures_never_sample_illegal_actions(arch, tmp_path):
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", f"arch={arch}", "bot_prob=0.5"])
    trainer = PPOTrainer(cfg)
    buf = trainer.rollout()
    chosen = buf["mask"].gather(-1, buf["action"].unsqueeze(-1)).squeeze(-1)
    assert bool((chosen == 1).all())
    assert isinstance(trainer.model, StructuredActorCritic) == (arch == "structured")


def test_bot_tables_train_only_the_learner_seat(tmp_path):
    """bot_prob=1, partner_bot_prob=1: one learner seat per table, three scripted bots that act."""
    cfg = load_config(
        SMOKE,
        [f"out_dir={tmp_path}", "pool_prob=0", "bot_prob=1", "partner_bot_prob=1", "bot_opponents=[honest]"],
    )
    trainer = PPOTrainer(cfg)
    assert bool((trainer.mode == VS_BOTS).all())
    assert trainer.learner.sum(1).tolist() == [1] * cfg.num_envs
    assert trainer.bots.active_rows().size == 3 * cfg.num_envs
    buf = trainer.rollout()
    learn = buf["learn"].view(cfg.num_steps, cfg.num_envs, 4)
    assert bool((learn.sum(-1) == 1).all())
    bot_actions = buf["action"].view(cfg.num_steps, cfg.num_envs, 4)[~learn]
    assert bool((bot_actions > 0).any()), "bots play (ready, sign, exchanges), they are not idle"
    chosen = buf["mask"].gather(-1, buf["action"].unsqueeze(-1)).squeeze(-1)
    assert bool((chosen == 1).all())


def test_resume_is_exact_with_bots_and_pool(tmp_path):
    """The scripted bots' state (knowledge, RNG) is part of the checkpoint."""
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "total_agent_steps=8192", "bot_prob=0.5"])
    straight, resumed = straight_and_resumed(cfg, tmp_path)
    assert_same_weights(straight.model, resumed.model)


def test_opponent_config_errors_name_the_field():
    base = {"env": {"num_players": 4}, "num_envs": 8, "num_minibatches": 2}
    with pytest.raises(ValueError, match="pool_prob \\+ bot_prob"):
        TrainConfig(**base, pool_prob=0.6, bot_prob=0.6)
    with pytest.raises(ValueError, match="honnest"):
        TrainConfig(**base, bot_opponents=["honnest"])
    with pytest.raises(ValueError, match="arch"):
        TrainConfig(**base, arch="transformer")
    with pytest.raises(ValueError, match="arch"):
        build_model("transformer", 10, 5, 8, 8)


def test_training_bots_take_any_spelling_of_a_row_and_keep_its_name():
    """bot_opponents / bot_partners name a compiled row however its options are spelled, as the vector
    env and the eval line-ups do; the config keeps the row's own name (what the trainer looks up)."""
    from quatro_env.bots.batched import KINDS

    base = {"env": {"num_players": 4}, "num_envs": 8, "num_minibatches": 2}
    spelled = ["cover:split=True", "cover:split=false", "cover:beat=true,split=true", "cover:beat=False"]
    cfg = TrainConfig(**base, bot_opponents=spelled, bot_partners=["honest", "cover:split=TRUE"])
    assert cfg.bot_opponents == ("cover:split=true", "cover", "cover:split=true", "cover:beat=false")
    assert cfg.bot_partners == ("honest", "cover:split=true")
    assert TrainConfig(**base, bot_opponents=list(KINDS)).bot_opponents == KINDS  # a row's name is itself
    stage = Stage(until_agent_steps=8, bot_opponents=["cover:split=True"])
    assert stage.bot_opponents == ("cover:split=true",)
    refusals = {
        "counter:threshold=0.6": "no batched version of counter with {'threshold': 0.6}",
        "cover:splt=true": "cover has no parameter 'splt'",
        "cover:split=1": "split must be bool",
        "ppo_4p": "unknown training bot",
    }
    for name, message in refusals.items():
        with pytest.raises(ValueError, match=re.escape(message)) as err:
            TrainConfig(**base, bot_partners=[name])
        assert "bot_partners" in str(err.value)


def test_periodic_evaluation_goes_through_the_harness(tmp_path):
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "eval_every=2", "eval_bots=[random, honest]"])
    PPOTrainer(cfg).train(updates=2)
    rows = (tmp_path / "smoke" / "eval.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert "win_rate_vs_random" in header and "win_rate_vs_honest" in header
    assert len(rows) == 2


def test_periodic_evaluation_on_the_batched_engine_writes_the_same_columns(tmp_path, monkeypatch):
    """``eval_batched``: the same eval.csv columns, played by ``batch_play.play_lineup`` with the policy
    file on slot 0 (as a checkpoint) and the bot on the other team, on the harness's seed."""
    from quatro_env.eval import batch_play, harness

    seen = []
    real = batch_play.play_lineup

    def recording(policies, **kwargs):
        seen.append((list(policies), kwargs["matches"], kwargs["seed"]))
        return real(policies, **kwargs)

    monkeypatch.setattr(batch_play, "play_lineup", recording)
    monkeypatch.setattr(harness, "evaluate", lambda *a, **k: pytest.fail("the harness was asked"))
    overrides = ["eval_every=2", "eval_matches=6", "eval_bots=[random, honest]", "eval_batched=true"]
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", *overrides])
    PPOTrainer(cfg).train(updates=2)
    rows = (tmp_path / "smoke" / "eval.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert {"win_rate_vs_random", "points_per_round_vs_random", "win_rate_vs_honest"} <= set(header)
    assert len(rows) == 2
    assert [(p[1], m) for p, m, _ in seen] == [("random", 6), ("honest", 6)]
    assert all(p[0].startswith("checkpoint:") and p[0].endswith(".pt") for p, _, _ in seen)


@pytest.mark.parametrize("kind", ["bot option", "torchscript"])
def test_a_batched_evaluation_refuses_what_it_cannot_play_when_the_config_is_read(kind, tmp_path):
    """A bot option without a compiled row, or a TorchScript file, is refused by name at once, not at
    the first evaluation hours into a run; the harness plays both, so without eval_batched they pass."""
    script = tmp_path / "policy.ts"
    script.write_bytes(b"")
    other = "cover:partner_delay=4" if kind == "bot option" else f"torchscript:{script}"
    bots = ["honest", other]
    with pytest.raises(
        ValueError, match=r"eval_bots: with eval_batched, .*no batched version of \['" + other
    ):
        TrainConfig(eval_bots=bots, eval_batched=True)
    assert TrainConfig(eval_bots=bots).eval_bots == tuple(bots)


def test_partner_bot_and_opponent_bots_are_chosen_apart(tmp_path):
    """bot_partner: the learner's partner is that bot, the opponents are drawn from bot_opponents."""
    overrides = ["pool_prob=0", "bot_prob=1", "partner_bot_prob=1", "bot_opponents=[collector]"]
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", *overrides, "bot_partners=[honest]"])
    trainer = PPOTrainer(cfg)
    for table in range(cfg.num_envs):
        learner_seat = int(trainer.learner[table].nonzero())
        partner = (learner_seat + 2) % 4
        assert trainer.bots.name(4 * table + partner) == "honest"
        for seat in {0, 1, 2, 3} - {learner_seat, partner}:
            assert trainer.bots.name(4 * table + seat) == "collector"


def test_a_curriculum_stage_can_change_the_bots(tmp_path):
    stage = {
        "until_agent_steps": 1000,
        "bot_opponents": ["collector"],
        "bot_partners": ["honest", "listener"],
    }
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "bot_opponents=[decoy]"])
    cfg = TrainConfig(**{**cfg.model_dump(), "curriculum": [stage]})
    assert cfg.bots(0) == (("collector",), ("honest", "listener"))
    assert cfg.bots(1000) == (("decoy",), None)
    with pytest.raises(ValueError, match="bot_partners"):
        TrainConfig(**{**cfg.model_dump(), "curriculum": [{**stage, "bot_partners": ["honnest"]}]})
    with pytest.raises(ValueError, match="bot_partners"):
        TrainConfig(**{**cfg.model_dump(), "bot_partners": ["honnest"]})


@pytest.mark.parametrize("mode", ["zero", "keep"])
def test_shaping_at_round_end(mode, tmp_path):
    """zero: potential-based, the holder loses Φ when the round ends (a called quartet's point is
    cancelled in that tick); keep: the tick that ends the round adds no shaping."""
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", f"shaping_at_round_end={mode}"])
    trainer = PPOTrainer(cfg)
    trainer.potential = torch.full((trainer.slots,), 1.0)
    in_play = torch.full((trainer.slots,), 0.75)
    ended = torch.zeros(trainer.slots)
    assert torch.allclose(trainer._shaping(in_play), torch.full_like(in_play, cfg.gamma * 0.75 - 1.0))
    expected = 0.0 if mode == "keep" else -1.0
    assert torch.allclose(trainer._shaping(ended), torch.full_like(ended, expected))


def test_sign_probability_script_reports_probabilities(tmp_path):
    """scripts/sign_probability.py (the diagnosis in docs/ppo.md) runs on a trainer and returns
    probabilities: P(show the sign) <= P(show any emoji), both in [0, 1], seat-ticks counted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sign_probability", "scripts/sign_probability.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "pool_prob=0", "bot_prob=0", "num_steps=40"])
    trainer = PPOTrainer(cfg)
    result = module.sign_probabilities(trainer, rollouts=1)
    assert result, "self-play seats take the floor within 40 ticks under a random policy"
    for count, p_sign, p_any in result.values():
        assert count > 0 and 0 <= p_sign <= p_any <= 1


def test_sign_probability_plays_a_policy_trained_in_two_processes(tmp_path, capsys):
    """A policy of ``quatro-train --config ppo_4p processes=2`` (the README's command) was refused:
    ``processes: 2, but this trainer is one of 1 process(es)``; the script plays it in one process."""
    import importlib.util

    from baselines.checkpoint_io import save_checkpoint
    from baselines.policy import load_policy_file

    spec = importlib.util.spec_from_file_location("sign_probability", "scripts/sign_probability.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    payload = load_policy_file("ppo_4p")
    payload["config"] = {**payload["config"], "processes": 2}
    save_checkpoint(payload, tmp_path / "two.pt")
    module.main(
        [str(tmp_path / "two.pt"), "--rollouts", "1", "num_envs=8", "num_minibatches=1", "num_steps=20"]
    )
    assert "seat-ticks on the floor" in capsys.readouterr().out
