"""The shipped checkpoint loads by name, plays only legal actions, and is deterministic per seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from baselines.checkpoint_io import load_checkpoint
from baselines.policy import CHECKPOINT_DIR, PPOPolicy, resolve_checkpoint, shipped_checkpoints
from quatro_env import parallel_env
from quatro_env.eval import as_policy


def test_ppo_4p_ships_with_its_provenance():
    assert "ppo_4p" in shipped_checkpoints()
    meta = json.loads((CHECKPOINT_DIR / "ppo_4p.json").read_text())
    for key in ("command", "seed", "agent_steps", "wall_seconds", "config"):
        assert key in meta
    assert (CHECKPOINT_DIR / "ppo_4p.pt").stat().st_size < 5_000_000, "a small file"


def _play(seed: int, name: str = "ppo_4p", num_players: int = 4) -> list[int]:
    env = parallel_env(num_players=num_players, round_seconds=10, points_to_win=1, max_rounds=2)
    obs, _ = env.reset(seed=seed)
    seats = {a: PPOPolicy(num_players, seed + i, path=name) for i, a in enumerate(env.agents)}
    chosen = []
    while env.agents:
        actions = {a: seats[a].act(o["observation"], o["action_mask"]) for a, o in obs.items()}
        for a, action in actions.items():
            assert obs[a]["action_mask"][action] == 1
        chosen += list(actions.values())
        obs, *_ = env.step(actions)
    return chosen


def test_shipped_policy_plays_legal_actions_deterministically():
    assert _play(3) == _play(3)


@pytest.mark.parametrize("name", sorted(shipped_checkpoints()))
def test_every_shipped_checkpoint_has_provenance_and_plays_at_its_player_count(name):
    meta = json.loads((CHECKPOINT_DIR / f"{name}.json").read_text())
    for key in ("command", "seed", "agent_steps", "updates", "wall_seconds", "config"):
        assert meta[key] not in (None, ""), key
    players = meta["config"]["env"]["num_players"]
    assert len(_play(0, name, players)) > 0


@pytest.mark.parametrize("name", sorted(shipped_checkpoints()))
def test_every_shipped_checkpoint_is_in_the_safe_format(name):
    """Converted by quatro-convert (issue #15): plain data read with weights_only=True, tagged."""
    import torch

    payload = torch.load(CHECKPOINT_DIR / f"{name}.pt", weights_only=True)
    assert payload["format"] == "quatro-policy/1"
    assert all(isinstance(v, torch.Tensor) for v in payload["model"].values())


def test_harness_and_errors_know_the_shipped_name():
    spec = as_policy("ppo_4p")
    assert isinstance(spec.build(4, 0), PPOPolicy)
    with pytest.raises(ValueError, match="trained for 4 players"):
        PPOPolicy(6, 0, path="ppo_4p")
    with pytest.raises(ValueError, match="not a file"):
        resolve_checkpoint("no_such_policy")
    assert np.isfinite(PPOPolicy(4, 0).act(np.zeros(467, np.uint8), np.eye(74, dtype=np.int8)[0]))


@pytest.fixture
def ship(tmp_path, monkeypatch):
    """scripts/ship_checkpoint.py as a module, shipping into tmp_path/checkpoints."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship", "scripts/ship_checkpoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "CHECKPOINT_DIR", tmp_path / "checkpoints")
    return module


def _smoke_trainer(tmp_path, command: str):
    from baselines.config import load_config
    from baselines.ppo import PPOTrainer

    trainer = PPOTrainer(load_config("configs/smoke.yaml", [f"out_dir={tmp_path}", "eval_every=100"]))
    trainer.train(updates=2, command=command)
    return trainer


def test_ship_checkpoint_reads_provenance_from_the_file(tmp_path, ship):
    """The shipped numbers come from the checkpoint itself, never typed in."""

    trainer = _smoke_trainer(tmp_path, "quatro-train --config configs/smoke.yaml")
    ship.main([str(tmp_path / "smoke" / "policy.pt"), "tiny", "--stopped", "test"])
    meta = json.loads((tmp_path / "checkpoints" / "tiny.json").read_text())
    assert meta["agent_steps"] == trainer.agent_steps == 2 * 16 * 32 * 4
    assert meta["updates"] == 2 and meta["command"] == "quatro-train --config configs/smoke.yaml"
    assert load_checkpoint(tmp_path / "checkpoints" / "tiny.pt")["arch"] == "structured"


def test_ship_checkpoint_takes_the_policy_out_of_a_trainer_checkpoint(tmp_path, ship):
    """A numbered trainer checkpoint ships as the same policy file policy.pt would have been."""
    import torch

    trainer = _smoke_trainer(tmp_path, "cmd")
    trainer.save(tmp_path / "state.pt")
    ship.main([str(tmp_path / "state.pt"), "from_state", "--command", "cmd"])
    ship.main([str(tmp_path / "smoke" / "policy.pt"), "from_policy"])
    a = load_checkpoint(tmp_path / "checkpoints" / "from_state.pt")
    b = load_checkpoint(tmp_path / "checkpoints" / "from_policy.pt")
    assert a.keys() == b.keys() and "optimizer" not in a
    for key in a:
        if key == "model":
            assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
        elif key not in ("wall_seconds", "command"):
            assert a[key] == b[key], key
    policy = PPOPolicy(4, 0, path=str(tmp_path / "checkpoints" / "from_state.pt"))
    mask = np.zeros(a["num_actions"], np.int8)
    mask[0] = 1
    assert policy.act(np.zeros(a["obs_dim"], np.uint8), mask) == 0
