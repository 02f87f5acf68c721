"""The scripts behind the league's results page (issue 19): snapshots exported from a league file play
as the league's frozen players, and the code-behaviour reading gives the known answers for codes
whose behaviour is fixed by construction."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from baselines.checkpoint_io import load_checkpoint
from baselines.league import LEAGUE_FILE, League
from baselines.league_config import load_league_config
from baselines.policy import PPOPolicy

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _script(name: str):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # as when the script runs: its sibling modules import
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def smoke_league(tmp_path_factory) -> League:
    out = tmp_path_factory.mktemp("league")
    league = League(load_league_config("configs/league_smoke.yaml", [f"out_dir={out}"]))
    assert league.run() is True
    return league


def test_exported_snapshots_are_the_frozen_players_and_play(smoke_league):
    curves = _script("league_curves")
    made = curves.export_snapshots(smoke_league.dir / LEAGUE_FILE, "main0")
    frozen = {p["id"]: p for p in smoke_league.players if p["agent"] == "main0"}
    assert [pid for _, pid, _ in made][: len(frozen)] == sorted(
        frozen, key=lambda i: frozen[i]["agent_steps"]
    )
    for steps, pid, path in made:
        payload = load_checkpoint(path)
        if pid in frozen:  # a snapshot: exactly the frozen weights
            assert all(torch.equal(payload["model"][k], v) for k, v in frozen[pid]["params"].items())
        else:  # the latest weights: the main's trainer as it stands
            latest = smoke_league.trainers["main0"].model.state_dict()
            assert all(torch.equal(payload["model"][k], v) for k, v in latest.items())
        assert payload["agent_steps"] == steps
        policy = PPOPolicy(4, 0, path=str(path))
        mask = np.zeros(payload["num_actions"], np.int8)
        mask[[0, 3]] = 1
        assert policy.act(np.zeros(payload["obs_dim"], np.uint8), mask) in (0, 3)
    with pytest.raises(ValueError, match="--agent 'nobody'"):
        curves.export_snapshots(smoke_league.dir / LEAGUE_FILE, "nobody")


def test_code_behaviour_reads_cover_and_honest_as_built():
    """cover holds the floor all round and pulses the sign in the tick its quartet forms; honest takes
    the floor only once it holds one and shows no sign without one."""
    behaviour = _script("code_behaviour").behaviour
    cover = behaviour("cover", "counter", matches=6, seed=0)
    honest = behaviour("honest", "counter", matches=6, seed=0)
    assert cover["quartets"] > 0 and honest["quartets"] > 0
    assert cover["floor_before_quartet"] == 1.0 and cover["floor_share_not_holding"] == 1.0
    assert cover["median_ticks_quartet_to_sign"] == 0.0 and cover["distinct_emojis_per_round"] > 1
    assert honest["floor_before_quartet"] == 0.0 and honest["floor_share_not_holding"] == 0.0
    assert honest["sign_share_of_pulses_not_holding"] == 0.0
