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
from quatro_env.quatro.actions import ActionKind
from quatro_env.quatro.cards import NUM_EMOJIS, num_values
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


@pytest.mark.parametrize("num_players", [4, 6])
def test_the_partner_reader_reads_eves_inputs_plus_the_team_sign_and_where_it_shows(num_players):
    """``secrecy_partner_coef``'s reader (the team's Bob): Eve's inputs unchanged, then the team's sign
    (one-hot, none before it is fixed) and, per team seat, whether its last pulse shows that sign —
    recomputed here from seat 0's absolute frame and the engine's signs."""
    engine = BatchedQuatroEngine(16, config=QuatroConfig(num_players=num_players), seed=5)
    result, gen = engine.reset(5), torch.Generator().manual_seed(1)
    eve = ChannelEavesdropper(num_players, reads="public")
    bob = ChannelEavesdropper(num_players, reads="public", partner=True)
    assert bob.input_dim == eve.input_dim + NUM_EMOJIS + 2
    off, teams = ObservationEncoder(num_players).offsets, num_players // 2
    state, shown = eve.initial_ledger(16), 0
    show = engine.codec.ranges[ActionKind.SHOW_EMOJI].start
    calls = [a for k in (ActionKind.QUATRO, ActionKind.CONTRA) for a in engine.codec.ranges[k]]
    for _ in range(120):  # random play without calls, showing the team sign whenever it may
        mask = result.masks.reshape(16, num_players, -1).float()
        mask[..., calls] = 0
        action = torch.multinomial(mask.reshape(16 * num_players, -1), 1, generator=gen).reshape(16, -1)
        sign_action = show + engine.seat_signs().long().clamp(min=0)
        may_show = mask.gather(-1, sign_action.unsqueeze(-1)).squeeze(-1) > 0
        result = engine.step(torch.where(may_show & (engine.seat_signs() >= 0), sign_action, action))
        obs, signs = result.observations, engine.team_sign
        counts, state = eve.read_ledger(obs, torch.zeros(16, dtype=torch.bool), state)
        e, b = eve.view(obs, counts), bob.view(obs, counts, signs)
        cut = eve.input_dim - eve.clock_dim
        assert torch.equal(b[..., :cut], e[..., :cut]) and torch.equal(
            b[..., -eve.clock_dim :], e[..., -eve.clock_dim :]
        )
        key = b[..., cut : cut + NUM_EMOJIS + 2]
        for k in range(teams):
            sign = signs[:, k].long()
            expected_sign = torch.zeros(16, NUM_EMOJIS)
            fixed = sign >= 0
            expected_sign[fixed, sign[fixed]] = 1.0
            assert torch.equal(key[:, k, :NUM_EMOJIS], expected_sign)
            for i, s in enumerate((k, k + teams)):
                at = off[f"seat[{s}].pulse_emoji"]
                pulses = obs[:, 0, at : at + NUM_EMOJIS].float()
                expected = (pulses * expected_sign).sum(-1)
                assert torch.equal(key[:, k, NUM_EMOJIS + i], expected)
                shown += int(expected.sum())
    assert shown > 0, "random play should pulse a team's sign now and then"
    with pytest.raises(ValueError, match="team signs"):
        bob.view(obs, counts)
    with pytest.raises(ValueError, match="team signs"):
        eve.view(obs, counts, signs)


def test_the_gap_cost_is_eves_leak_less_the_partners(tmp_path):
    """cost = secrecy_coef × Eve's nats − secrecy_partner_coef × the partner's, per team, both seats."""
    cfg = load_config(
        SMOKE,
        [f"out_dir={tmp_path}", "secrecy_coef=0.5", "secrecy_partner_coef=0.2", "eavesdropper_reads=public"],
    )
    trainer = PPOTrainer(cfg)
    secrecy = trainer.secrecy
    eve_nats, bob_nats = torch.full((cfg.num_envs, 2), 1.5), torch.full((cfg.num_envs, 2), 4.0)
    eve_nats[:, 1], bob_nats[:, 1] = -0.5, 1.0
    secrecy.eavesdropper.leak = lambda *args: eve_nats
    secrecy.partner.leak = lambda *args: bob_nats
    stats: dict = {}
    secrecy.start(stats)
    obs, play = trainer.next_obs, torch.ones(cfg.num_envs, dtype=torch.bool)
    secrecy.eavesdropper.playing = lambda view: play.unsqueeze(-1).expand(-1, 2)
    secrecy.partner.playing = secrecy.eavesdropper.playing
    holders = torch.zeros(cfg.num_envs * 4)
    cost = secrecy.read(0, obs, holders, ~play, trainer.learner, stats, trainer.engine.team_sign)
    per_seat = cost.view(cfg.num_envs, 4)
    assert torch.allclose(per_seat[:, [0, 2]], torch.full((cfg.num_envs, 2), 0.5 * 1.5 - 0.2 * 4.0))
    assert torch.allclose(per_seat[:, [1, 3]], torch.full((cfg.num_envs, 2), 0.5 * -0.5 - 0.2 * 1.0))
    with pytest.raises(ValueError, match="team signs"):
        secrecy.read(1, obs, holders, ~play, trainer.learner, stats)


def test_paid_at_the_call_the_partner_term_is_last_ticks_edge_at_a_scored_quatro_only(tmp_path):
    """secrecy_partner_pay='call': Eve's nats are charged every tick; the partner is paid only where the
    team's «Quatro» scored, as (partner − Eve) read the tick before, so holding and showing earn nothing."""
    cfg = load_config(
        SMOKE,
        [
            f"out_dir={tmp_path}",
            "secrecy_coef=0.5",
            "secrecy_partner_coef=0.2",
            "eavesdropper_reads=public",
            "secrecy_partner_pay=call",
        ],  # fmt: skip
    )
    trainer = PPOTrainer(cfg)
    secrecy, B = trainer.secrecy, cfg.num_envs
    eve = iter([torch.full((B, 2), 1.0), torch.full((B, 2), 0.5)])
    bob = iter([torch.full((B, 2), 3.0), torch.full((B, 2), 2.0)])
    secrecy.eavesdropper.leak = lambda *args: next(eve)
    secrecy.partner.leak = lambda *args: next(bob)
    play = torch.ones(B, dtype=torch.bool)
    secrecy.eavesdropper.playing = lambda view: play.unsqueeze(-1).expand(-1, 2)
    secrecy.partner.playing = secrecy.eavesdropper.playing
    stats: dict = {}
    secrecy.start(stats)
    obs, holders, signs = trainer.next_obs, torch.zeros(B * 4), trainer.engine.team_sign
    paid = torch.zeros(B, 2, dtype=torch.bool)
    first = secrecy.read(0, obs, holders, ~play, trainer.learner, stats, signs, paid).view(B, 4)
    assert torch.allclose(first, torch.full((B, 4), 0.5 * 1.0))  # no call: Eve's charge alone
    paid[:, 0] = True  # team 0 (seats 0 and 2) scores its «Quatro» on the second tick
    second = secrecy.read(1, obs, holders, ~play, trainer.learner, stats, signs, paid).view(B, 4)
    assert torch.allclose(second[:, [0, 2]], torch.full((B, 2), 0.5 * 0.5 - 0.2 * (3.0 - 1.0)))
    assert torch.allclose(second[:, [1, 3]], torch.full((B, 2), 0.5 * 0.5))
    assert torch.allclose(secrecy.edge, torch.full((B, 2), 2.0 - 0.5))
    with pytest.raises(ValueError, match="needs paid_calls"):
        secrecy.read(2, obs, holders, ~play, trainer.learner, stats, signs)
    with pytest.raises(ValueError, match="secrecy_partner_pay: 'call' needs secrecy_partner_coef"):
        load_config(SMOKE, ["secrecy_coef=0.3", "secrecy_partner_pay=call"])
    with pytest.raises(ValueError, match="secrecy_partner_pay"):
        load_config(SMOKE, ["secrecy_coef=0.3", "secrecy_partner_coef=0.3", "secrecy_partner_pay=always"])


def test_the_partner_coefficient_needs_an_eavesdropper():
    with pytest.raises(ValueError, match="secrecy_partner_coef"):
        load_config(SMOKE, ["secrecy_partner_coef=0.3"])
    with pytest.raises(ValueError, match="secrecy_partner_coef"):
        load_config(SMOKE, ["secrecy_coef=0.3", "secrecy_partner_coef=-1"])


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

    def spy(t, holders, done_tables, paid_calls):
        cost = eavesdrop(t, holders, done_tables, paid_calls)
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


@pytest.mark.parametrize(
    ("reads", "partner", "pay"),
    [("channel", 0.0, "tick"), ("public", 0.0, "tick"), ("public", 0.3, "tick"), ("public", 0.3, "call")],
)
def test_resume_with_the_eavesdropper_continues_identically(tmp_path, reads, partner, pay):
    cfg = load_config(
        SMOKE,
        [
            f"out_dir={tmp_path}",
            "total_agent_steps=8192",
            "secrecy_coef=0.5",
            "secrecy_warmup_updates=1",
            f"eavesdropper_reads={reads}",
            f"secrecy_partner_coef={partner}",
            f"secrecy_partner_pay={pay}",
        ],
    )
    straight, resumed = straight_and_resumed(cfg, tmp_path)
    assert_same_weights(straight.eavesdropper, resumed.eavesdropper)
    assert_same_weights(straight.model, resumed.model)
    keys = ("agent_steps", "episode_return", "learner_leak_nats", "eavesdropper_bce")
    if partner:
        assert_same_weights(straight.secrecy.partner, resumed.secrecy.partner)
        keys += ("partner_leak_nats", "partner_bce")
    assert [[r[k] for k in keys] for r in straight.history] == [[r[k] for k in keys] for r in resumed.history]
