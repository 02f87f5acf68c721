"""The learned eavesdropper of ``secrecy_coef``: it reads only the team's public channel through an
opponent's eyes (Q26–Q28, Q15), its cost is the team's leak beyond the clock, and resume stays exact."""

from __future__ import annotations

import pytest
import torch

from baselines.config import load_config
from baselines.eavesdropper import SEAT_FIELDS, ChannelEavesdropper
from baselines.exchange_memory import FEATURES_PER_SEAT, ExchangeLedger
from baselines.ppo import PPOTrainer
from quatro_env.batched import BatchedQuatroEngine
from quatro_env.quatro.cards import num_values
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from tests.baselines.helpers import assert_same_weights, straight_and_resumed

SMOKE = "configs/smoke.yaml"


def _played_observations(num_players: int, ticks: int = 80) -> torch.Tensor:
    """Every tick's observations ``[ticks * 16, n, D]`` of random legal play (floors get taken)."""
    return _played_ticks(num_players, ticks).flatten(0, 1)


def _played_ticks(num_players: int, ticks: int = 80) -> torch.Tensor:
    """The same as ``[ticks, 16, n, D]``: tick by tick, for readers with memory."""
    engine = BatchedQuatroEngine(16, config=QuatroConfig(num_players=num_players), seed=3)
    result = engine.reset(3)
    gen = torch.Generator().manual_seed(0)
    seen = []
    for _ in range(ticks):
        mask = result.masks.reshape(-1, result.masks.shape[-1]).float()
        action = torch.multinomial(mask, 1, generator=gen).reshape(16, num_players)
        result = engine.step(action)
        seen.append(result.observations.clone())
    return torch.stack(seen)


@pytest.mark.parametrize("num_players", [4, 6, 8])
def test_the_eavesdropper_reads_the_teams_public_channel_through_an_opponents_eyes(num_players):
    """Q27: floors and pulses are public. Team k's inputs (seen by seat k + 1, an opponent) equal the
    channel fields of seats k and k + n/2 in seat 0's observation, whose frame is absolute."""
    obs = _played_observations(num_players)
    eaves = ChannelEavesdropper(num_players)
    off = ObservationEncoder(num_players).offsets
    teams = num_players // 2
    width = sum(size for _, size in SEAT_FIELDS)
    view = eaves.view(obs)
    assert view.shape == (obs.shape[0], teams, eaves.input_dim)
    for k in range(teams):
        expected = torch.cat(
            [
                obs[:, 0, off[f"seat[{s}].{name}"] : off[f"seat[{s}].{name}"] + size]
                for s in (k, k + teams)
                for name, size in SEAT_FIELDS
            ],
            dim=-1,
        ).float()
        assert torch.equal(view[:, k, : 2 * width], expected)
    assert float(view[..., : 2 * width].sum()) > 0, "random play should take some floors"


def test_the_eavesdropper_never_sees_a_hand_or_a_sign():
    """Q26/Q28: changing any private field of the observer (own hand, sign, emoji) changes nothing."""
    obs = _played_observations(4)
    eaves = ChannelEavesdropper(4)
    off = ObservationEncoder(4).offsets
    scrambled = obs.clone()
    private = off["table.phase"]  # the private block comes first: hand, sign, emoji, reminder, ...
    scrambled[:, :, :private] = torch.randint(0, 2, scrambled[:, :, :private].shape, dtype=torch.uint8)
    assert torch.equal(eaves.view(obs), eaves.view(scrambled))


@pytest.mark.parametrize("num_players", [4, 6])
def test_the_public_eavesdropper_also_reads_the_teams_exchanges_and_their_counts(num_players):
    """``eavesdropper_reads: public``: beside the channel, team k's inputs hold the taken and placed
    values and the exchange flags of seats k and k + n/2 (Q12, Q27; seat 0's absolute frame again), and
    the counts an opponent's :class:`ExchangeLedger` keeps of those two seats (Q5: a holder has taken two
    copies of its value in public, the tell the evaluation's Eve reads)."""
    ticks = _played_ticks(num_players)
    eaves = ChannelEavesdropper(num_players, reads="public")
    off, teams = ObservationEncoder(num_players).offsets, num_players // 2
    v = num_values(num_players)
    fields = [*SEAT_FIELDS, ("taken", v), ("placed", v), ("exchanged", 1), ("hand_replaced", 1)]
    width = sum(size for _, size in fields)
    none = torch.zeros(ticks.shape[1], dtype=torch.bool)
    state, views = eaves.initial_ledger(ticks.shape[1]), []
    for tick in ticks:
        counts, state = eaves.read_ledger(tick, none, state)
        views.append(eaves.view(tick, counts))
    views = torch.stack(views)
    assert views.shape == (ticks.shape[0], 16, teams, eaves.input_dim)
    ledger = ExchangeLedger(num_players)
    for k in range(teams):
        expected = torch.cat(
            [
                ticks[:, :, 0, off[f"seat[{s}].{name}"] : off[f"seat[{s}].{name}"] + size]
                for s in (k, k + teams)
                for name, size in fields
            ],
            dim=-1,
        ).float()
        assert torch.equal(views[:, :, k, : 2 * width], expected)
        seen = ledger.run(ticks[:, :, k + 1], none.expand(ticks.shape[:2]), ledger.initial_state(16))[0]
        seen = seen.reshape(*ticks.shape[:2], num_players, FEATURES_PER_SEAT)
        seats = seen[:, :, [num_players - 1, teams - 1]].flatten(2)  # seats k, k + n/2 seen by k + 1
        at = 2 * width + 2 * 2
        assert torch.equal(views[:, :, k, at : at + eaves.ledger_dim], seats)
    assert float(state.sum()) > 0, "random play should exchange"
    with pytest.raises(ValueError, match="reads='public'"):
        eaves.view(ticks[0])
    with pytest.raises(ValueError, match="eavesdropper_reads"):
        ChannelEavesdropper(num_players, reads="everything")


def test_the_public_eavesdropper_never_sees_a_hand_or_a_sign():
    """Q26/Q28 for ``reads="public"``: scrambling the observers' private block changes neither its
    inputs nor the counts it keeps."""
    ticks = _played_ticks(4, 40)
    eaves = ChannelEavesdropper(4, reads="public")
    private = ObservationEncoder(4).offsets["table.phase"]
    scrambled = ticks.clone()
    scrambled[..., :private] = torch.randint(0, 2, scrambled[..., :private].shape, dtype=torch.uint8)
    none = torch.zeros(16, dtype=torch.bool)
    a, b = eaves.initial_ledger(16), eaves.initial_ledger(16)
    for t in range(ticks.shape[0]):
        ca, a = eaves.read_ledger(ticks[t], none, a)
        cb, b = eaves.read_ledger(scrambled[t], none, b)
        assert torch.equal(eaves.view(ticks[t], ca), eaves.view(scrambled[t], cb))


def test_leak_is_the_eavesdroppers_gain_over_the_clock():
    label = torch.tensor([1.0, 0.0, 1.0])
    clock = torch.zeros(3)  # p = 0.5 everywhere
    assert torch.equal(ChannelEavesdropper.leak(clock, clock, label), torch.zeros(3))
    sure_right = torch.tensor([4.0, -4.0, 4.0])
    assert bool((ChannelEavesdropper.leak(sure_right, clock, label) > 0.6).all())
    sure_wrong = -sure_right
    assert bool((ChannelEavesdropper.leak(sure_wrong, clock, label) < -3.0 + 1e-6).all())  # clipped


def test_both_seats_of_a_team_pay_its_leak_and_only_after_the_warmup(tmp_path):
    cfg = load_config(
        SMOKE, [f"out_dir={tmp_path}", "secrecy_coef=1.0", "secrecy_warmup_updates=1", "num_steps=16"]
    )
    trainer = PPOTrainer(cfg)
    seen: list[torch.Tensor] = []
    eavesdrop = trainer._eavesdrop

    def spy(t, holders, done_tables):
        cost = eavesdrop(t, holders, done_tables)
        seen.append(cost.view(cfg.num_envs, 4))
        return cost

    trainer._eavesdrop = spy
    trainer.train(updates=2)
    costs = torch.stack(seen)
    assert torch.equal(costs[..., 0], costs[..., 2]) and torch.equal(costs[..., 1], costs[..., 3])
    assert float(costs.abs().sum()) > 0
    row = trainer.history[-1]
    for key in ("eavesdropper_bce", "clock_bce", "channel_leak_nats", "learner_leak_nats"):
        assert key in row
    assert trainer.eaves_updates == 2


def test_secrecy_is_off_by_default_and_a_bad_coefficient_is_refused(tmp_path):
    assert PPOTrainer(load_config(SMOKE, [f"out_dir={tmp_path}"])).eavesdropper is None
    with pytest.raises(ValueError, match="secrecy_coef"):
        load_config(SMOKE, ["secrecy_coef=-0.1"])


@pytest.mark.parametrize("reads", ["channel", "public"])
def test_resume_with_the_eavesdropper_continues_identically(tmp_path, reads):
    cfg = load_config(
        SMOKE,
        [
            f"out_dir={tmp_path}",
            "total_agent_steps=8192",
            "secrecy_coef=0.5",
            "secrecy_warmup_updates=1",
            f"eavesdropper_reads={reads}",
        ],
    )
    straight, resumed = straight_and_resumed(cfg, tmp_path)
    assert_same_weights(straight.eavesdropper, resumed.eavesdropper)
    assert_same_weights(straight.model, resumed.model)
    keys = ("agent_steps", "episode_return", "learner_leak_nats", "eavesdropper_bce")
    assert [[r[k] for k in keys] for r in straight.history] == [[r[k] for k in keys] for r in resumed.history]
