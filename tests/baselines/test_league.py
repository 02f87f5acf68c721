"""League training (baselines/league.py, issue 19): PFSP, who plays whom, the win-rate table, snapshots,
resets, and exact resume between legs and after Ctrl-C (the smoke league, seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from baselines.league import (
    LEAGUE_FILE,
    League,
    load_league,
    outcomes,
    pfsp_probabilities,
    pfsp_weights,
    smoothed_win_rate,
)
from baselines.league_config import load_league_config
from baselines.ppo import VS_POOL
from tests.baselines.helpers import interrupt_a_cli_run

SMOKE = "configs/league_smoke.yaml"


def smoke(tmp_path: Path, *overrides: str):
    return load_league_config(SMOKE, [f"out_dir={tmp_path}", *overrides])


# ---------------------------------------------------------------------- PFSP
def test_pfsp_weightings_are_the_stated_functions_of_the_win_rate():
    p = torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0])
    assert torch.allclose(pfsp_weights(p, "hard"), ((1 - p) ** 2).double())
    assert torch.allclose(pfsp_weights(p, "variance"), (p * (1 - p)).double())
    assert torch.allclose(pfsp_weights(p, "linear"), (1 - p).double())
    assert torch.equal(pfsp_weights(p, "uniform"), torch.ones(5, dtype=torch.float64))
    with pytest.raises(ValueError, match="weighting"):
        pfsp_weights(p, "harder")


def test_pfsp_hard_plays_what_beats_you_and_never_what_you_always_beat():
    rates = torch.tensor([0.2, 0.5, 1.0])  # the learner's win rates against three opponents
    probs = pfsp_probabilities(rates, "hard")
    assert torch.allclose(probs, torch.tensor([0.64, 0.25, 0.0], dtype=torch.float64) / 0.89)
    gen = torch.Generator().manual_seed(0)
    draws = torch.multinomial(probs.float(), 20_000, replacement=True, generator=gen)
    share = torch.bincount(draws, minlength=3).double() / 20_000
    assert torch.allclose(share, probs, atol=0.015)
    assert share[2] == 0
    # every opponent always beaten: all weights 0, the draw falls back to uniform
    assert torch.allclose(
        pfsp_probabilities(torch.ones(4), "hard"), torch.full((4,), 0.25, dtype=torch.float64)
    )


def test_win_rates_are_smoothed_towards_one_half_and_outcomes_are_the_sign_of_the_return():
    assert smoothed_win_rate(None, 1.0) == 0.5  # an opponent never played
    assert smoothed_win_rate([3.0, 2.0, 0.0], 2.0) == pytest.approx((3 + 1 + 1) / 7)
    assert outcomes([1.0, 0.0, -2.0, 3.0, -0.5]) == [2.0, 1.0, 2.0]


# ---------------------------------------------------------------------- who plays whom
def test_each_role_draws_its_opponents_from_its_own_set(tmp_path):
    league = League(smoke(tmp_path))
    assert [p["id"] for p in league.players] == ["main0@0"]  # the league starts with the main's init
    league.players.append({"id": "lexp0@9", "agent": "lexp0", "role": "league_exploiter", "params": {}})
    exploiter = league.candidates("mexp0")
    assert [pid for pid, _ in exploiter] == ["main0"]  # the current main, nothing else
    main_params = league.trainers["main0"].model.state_dict()
    assert all(torch.equal(exploiter[0][1][k], v) for k, v in main_params.items())
    assert [pid for pid, _ in league.candidates("lexp0")] == ["main0@0", "lexp0@9"]  # frozen only
    assert [pid for pid, _ in league.candidates("main0")] == ["main0@0", "lexp0@9", "mexp0", "lexp0"]
    # PFSP over the main's candidates: an opponent the main always beats is not drawn
    league.wins["main0"] = {"main0@0": [1e6, 0.0, 0.0], "lexp0@9": [1e6, 0.0, 0.0], "mexp0": [1e6, 0, 0]}
    drawn = {league.choose_opponent("main0")[0] for _ in range(30)}
    assert drawn == {"lexp0"}


def test_a_block_trains_against_its_opponent_and_fills_the_win_rate_table(tmp_path):
    league = League(smoke(tmp_path))
    trainer = league.trainers["mexp0"]
    episodes = trainer.episodes
    row = league.play_block("mexp0")
    assert row["opponent"] == "main0" and trainer.update == league.cfg.updates_per_block
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            trainer.pool.snapshots[trainer.pool.draw_from].values(),
            league.init_params["main0"].values(),
            strict=True,
        )
    )
    assert bool((trainer.mode == VS_POOL).all()), "an exploiter's every table plays the league opponent"
    record = league.wins["mexp0"]["main0"]
    # every seat-episode the exploiter ended against main0 is counted (the trainer's own count), not the
    # first episode of each table, begun against the placeholder before the block (it keeps its opponent)
    begun_before = trainer.num_envs * int(trainer.learner[0].sum())
    assert sum(record) == row["seat_episodes"] == trainer.episodes - episodes - begun_before > 0
    assert trainer.pool_record is None, "the block's record is the league's, handed back at its end"


def test_the_trainer_records_every_pool_return_the_league_asks_for(tmp_path):
    """The trainer keeps its last 1000 pool returns; ``pool_record`` gets every one (an exploiter's
    update ends more seat-episodes than that), and the win-rate row is their outcomes."""
    league = League(smoke(tmp_path))
    trainer = league.trainers["mexp0"]
    trainer.pool_record = record = []
    trainer.pool_returns = [9.0] * 1000  # full: each new return pushes one of these out
    trainer.train(updates=1)
    assert record and trainer.pool_returns[-len(record) :] == record
    assert 9.0 not in record and sum(outcomes(record)) == len(record)


def test_snapshots_join_on_schedule_and_an_exploiter_resets_to_its_start(tmp_path):
    cfg = smoke(tmp_path, "exploiter_beat_rate=0.51", "exploiter_min_games=1")
    league = League(cfg)
    for name in ("main0", "mexp0"):
        league.play_block(name)  # 2 updates x 256 agent-steps: one snapshot each (every 512)
    ids = [p["id"] for p in league.players]
    assert ids[:2] == ["main0@0", "main0@512"] and "mexp0@512" in ids
    league.wins["main0"]["mexp0"] = [0.0, 0.0, 100.0]  # the main lost 100 of 100 to the exploiter
    league.reset_agent("mexp0")
    trainer = league.trainers["mexp0"]
    for key, value in league.init_params["mexp0"].items():
        assert torch.equal(trainer.model.state_dict()[key], value), key
    assert league.wins["mexp0"] == {} and not trainer.optimizer.state
    # the restarted exploiter is another policy: the main's record against the old one is not its
    assert "mexp0" not in league.wins["main0"]


# ---------------------------------------------------------------------- exact resume
def assert_same_league(a: League, b: League) -> None:
    assert a.turn == b.turn and a.legs == b.legs
    assert [p["id"] for p in a.players] == [p["id"] for p in b.players]
    for pa, pb in zip(a.players, b.players, strict=True):
        assert all(torch.equal(pa["params"][k], pb["params"][k]) for k in pa["params"])
    assert a.wins == b.wins and a.since_reset == b.since_reset
    assert torch.equal(a.rng.get_state(), b.rng.get_state())
    for name, ta in a.trainers.items():
        tb = b.trainers[name]
        assert ta.update == tb.update and ta.agent_steps == tb.agent_steps
        for (key, x), (_, y) in zip(
            ta.model.state_dict().items(), tb.model.state_dict().items(), strict=True
        ):
            assert torch.equal(x, y), f"{name}.{key}"
        for x, y in zip(ta.optimizer.state.values(), tb.optimizer.state.values(), strict=True):
            assert torch.equal(x["exp_avg"], y["exp_avg"]) and torch.equal(x["exp_avg_sq"], y["exp_avg_sq"])


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> League:
    league = League(smoke(tmp_path_factory.mktemp("straight")))
    assert league.run() is True  # the smoke league is two legs
    assert league.legs == 2
    return league


def test_a_league_stopped_between_legs_resumes_bit_for_bit(straight, tmp_path):
    first = League(smoke(tmp_path))
    assert first.run(legs=1) is False and first.legs == 1
    resumed = load_league(tmp_path / "league_smoke" / LEAGUE_FILE)
    assert resumed.turn == first.turn
    assert resumed.run() is True
    assert_same_league(straight, resumed)
    assert (tmp_path / "league_smoke" / "win_rates.json").is_file()


def test_ctrl_c_in_a_block_drops_it_and_the_resume_is_still_exact(straight, tmp_path, monkeypatch):
    league = League(smoke(tmp_path))
    trainer = league.trainers["lexp0"]
    real, calls = trainer.optimise, []

    def optimise_then_interrupt(buf):
        calls.append(1)
        if len(calls) == 5:  # lexp0's third block (turn 8), its first update
            raise KeyboardInterrupt
        return real(buf)

    monkeypatch.setattr(trainer, "optimise", optimise_then_interrupt)
    assert league.run() is False
    saved = load_league(tmp_path / "league_smoke" / LEAGUE_FILE)
    assert saved.turn == 8, "the block in progress is dropped whole"
    assert saved.run() is True
    assert_same_league(straight, saved)


def test_a_real_sigint_to_quatro_league_saves_a_league_that_resumes_exactly(straight, tmp_path):
    """SIGINT at an arbitrary instant of a ``quatro-league`` process, once it has played a block: it
    writes league.pt (no traceback), and resuming from it ends where the straight run ends."""
    csv_file = tmp_path / "league_smoke" / "league.csv"

    def two_blocks_logged() -> bool:
        return csv_file.exists() and len(csv_file.read_text().splitlines()) >= 3

    league = ["baselines.league", "--config", SMOKE, f"out_dir={tmp_path}"]
    interrupt_a_cli_run(league, two_blocks_logged, pause=0.37, wait=120)
    saved = load_league(tmp_path / "league_smoke" / LEAGUE_FILE)
    assert 2 <= saved.turn < 12
    assert saved.run() is True
    assert_same_league(straight, saved)
