"""``arch: ledger`` (baselines/exchange_memory.py, issue 19 item 2): the public exchange and pulse counts a
counter-decoder reads. They add nothing hidden (Q26–Q28): private fields change nothing and every seat
computes the same ledger of the table; they count what was exchanged; the network carries them in its
memory through training, resume and the policy file, and starts as the structured policy it is loaded
from."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from baselines.config import TrainConfig
from baselines.exchange_memory import FEATURES_PER_SEAT, ExchangeLedger, LedgerActorCritic
from baselines.league import load_initial_weights
from baselines.policy import PPOPolicy, load_model
from quatro_env.batched import BatchedQuatroEngine
from quatro_env.quatro.cards import NUM_EMOJIS, card_value, num_values
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from tests.baselines.helpers import assert_same_weights, straight_and_resumed


def _played(num_players: int, ticks: int = 120, tables: int = 8) -> torch.Tensor:
    """Every seat's observations ``[ticks, tables, n, D]`` of random legal play (exchanges happen)."""
    engine = BatchedQuatroEngine(
        tables, config=QuatroConfig(num_players=num_players, round_seconds=20), seed=5
    )
    result = engine.reset(5)
    gen = torch.Generator().manual_seed(1)
    seen = []
    for _ in range(ticks):
        mask = result.masks.reshape(-1, result.masks.shape[-1]).float()
        action = torch.multinomial(mask, 1, generator=gen).reshape(tables, num_players)
        result = engine.step(action)
        seen.append(result.observations.clone())
    return torch.stack(seen)


def _features(ledger: ExchangeLedger, obs: torch.Tensor) -> torch.Tensor:
    steps, batch = obs.shape[:2]
    done = torch.zeros(steps, batch, dtype=torch.bool)
    feats, _ = ledger.run(obs, done, ledger.initial_state(batch))
    return feats


@pytest.mark.parametrize("num_players", [4, 6])
def test_the_ledger_reads_no_private_field(num_players):
    """Q26/Q28: scrambling the observer's private block (hand, sign, emoji, ...) changes nothing."""
    obs = _played(num_players)[:, :, 0]
    ledger = ExchangeLedger(num_players)
    private = ObservationEncoder(num_players).offsets["table.phase"]  # the private block comes first
    scrambled = obs.clone()
    scrambled[..., :private] = torch.randint(0, 2, scrambled[..., :private].shape, dtype=torch.uint8)
    assert torch.equal(_features(ledger, obs), _features(ledger, scrambled))


@pytest.mark.parametrize("num_players", [4, 6])
def test_every_seat_computes_the_same_public_ledger(num_players):
    """Q27: what the ledger says about absolute seat s is the same through every observer's eyes (an
    opponent's or the partner's): it holds public information only."""
    obs = _played(num_players)
    ledger, n = ExchangeLedger(num_players), num_players
    views = [_features(ledger, obs[:, :, i]).reshape(*obs.shape[:2], n, FEATURES_PER_SEAT) for i in range(n)]
    for seat in range(n):
        for i in range(1, n):
            assert torch.equal(views[0][:, :, seat], views[i][:, :, (seat - i) % n]), (seat, i)
    assert float(views[0][..., 5].amax()) > 0, "random play should exchange"


def test_net_counts_never_exceed_the_cards_a_seat_holds():
    """Taken minus placed of a value this round is at most what the seat now holds of it (its hand
    started with the rest): checked against every seat's true hand, every tick of random play."""
    n = 4
    obs = _played(n, ticks=150)
    off, v = ObservationEncoder(n).offsets, num_values(n)
    ledger = ExchangeLedger(n)
    for seat in range(n):
        state = ledger.initial_state(obs.shape[1])
        for t in range(obs.shape[0]):
            view = obs[t : t + 1, :, seat]
            _, state = ledger.run(view, torch.zeros(1, obs.shape[1], dtype=torch.bool), state)
            net = state.reshape(-1, n, v + 1 + NUM_EMOJIS)[:, 0, :v]  # egocentric seat 0: itself
            hand = view[0, :, off["self.hand"] : off["self.hand"] + 4 * v].float().reshape(-1, 4, v).sum(1)
            assert bool((net <= hand).all()), t
    assert float(state.abs().sum()) > 0


def test_the_ledger_counts_exchanges_and_pulses_and_forgets_them_at_the_deal():
    n, v, e = 4, num_values(4), NUM_EMOJIS
    off = ObservationEncoder(n).offsets
    ledger = ExchangeLedger(n)
    dim = ObservationEncoder(n).obs_dim
    ticks = torch.zeros(6, 1, dim, dtype=torch.uint8)
    ticks[:5, 0, off["table.phase"] + 1] = 1  # play
    ticks[:, 0, [off[f"seat[{r}].pulse_age"] for r in range(n)]] = 255
    for t in range(3):  # seat 1 takes a 2, gives a 0, three times
        ticks[t, 0, off["seat[1].exchanged"]] = 1
        ticks[t, 0, off["seat[1].taken"] + 2] = 1
        ticks[t, 0, off["seat[1].placed"] + 0] = 1
    for t, emoji in ((0, 5), (2, 7), (4, 5)):  # seat 2 pulses 5, 7, 5 (seen at age 0 once each)
        ticks[t:, 0, off["seat[2].pulse_emoji"] : off["seat[2].pulse_emoji"] + e] = 0
        ticks[t:, 0, off["seat[2].pulse_emoji"] + emoji] = 1
        ticks[t, 0, off["seat[2].pulse_age"]] = 0
        ticks[t + 1 :, 0, off["seat[2].pulse_age"]] = 1
    ticks[5, 0, off["table.phase"] + 0] = 1  # the next deal
    feats = _features(ledger, ticks).reshape(6, n, FEATURES_PER_SEAT)
    assert feats[4, 1, :5].tolist() == [0, 0, 0, 1, 0]  # largest net count 3 (value 2)
    assert feats[4, 1, 5] == pytest.approx(3 / 8)
    assert feats[4, 2, 6:].tolist() == pytest.approx([3 / 8, 2 / 8, 2 / 3])  # pulses, distinct, repeat
    assert feats[5, :, 5:8].abs().sum() == 0 and feats[5, :, 0].tolist() == [1, 1, 1, 1]  # forgotten
    assert v == 5


def test_a_ledger_network_starts_as_the_structured_policy_it_is_loaded_from():
    structured, payload = load_model("ppo_4p")
    model = LedgerActorCritic(
        payload["obs_dim"], payload["num_actions"], payload["hidden_size"], payload["rnn_size"], num_players=4
    )
    load_initial_weights(model, "ppo_4p")
    obs = _played(4, ticks=40, tables=4).reshape(40, 16, -1)
    done = torch.zeros(40, 16, dtype=torch.bool)
    mask = torch.ones(40, 16, payload["num_actions"], dtype=torch.int8)
    with torch.no_grad():
        a, _ = structured.unroll(obs, done, structured.initial_state(16))
        b, h = model.unroll(obs, done, model.initial_state(16))
        dist_a, value_a = structured.heads(a, mask)
        dist_b, value_b = model.heads(b, mask)
    assert torch.allclose(dist_a.probs, dist_b.probs, atol=1e-6)
    assert torch.allclose(value_a, value_b, atol=1e-5)
    assert h.shape[-1] == payload["rnn_size"] + model.ledger.state_dim


def test_the_trainer_carries_the_ledger_through_resume_and_the_policy_file(tmp_path):
    cfg = TrainConfig(
        run_name="ledger",
        out_dir=str(tmp_path),
        env={"num_players": 4, "round_seconds": 6, "sign_phase_seconds": 1, "pause_seconds": 0.5},
        num_envs=4,
        num_steps=8,
        total_agent_steps=4 * 8 * 4 * 4,
        num_minibatches=2,
        update_epochs=1,
        arch="ledger",
        hidden_size=16,
        rnn_size=8,
        pool_size=1,
        snapshot_every=1,
        pool_prob=0.5,
        bot_prob=0.25,
        progress_bar=False,
        tensorboard=False,
    )
    straight, resumed = straight_and_resumed(cfg, tmp_path)
    assert_same_weights(straight.model, resumed.model)
    assert any(
        float(p.detach().abs().sum()) > 0
        for name, p in straight.model.named_parameters()
        if name.startswith("ledger_")
    )
    straight.export_policy(tmp_path / "policy.pt", "test")
    policy = PPOPolicy(4, seed=0, path=tmp_path / "policy.pt")
    engine = BatchedQuatroEngine(1, config=QuatroConfig(num_players=4), seed=0)
    result = engine.reset(0)
    action = policy.act(result.observations[0, 0].numpy(), result.masks[0, 0].numpy())
    assert result.masks[0, 0, action] == 1 and isinstance(action, int)
    assert policy.h.shape[-1] == 8 + policy.model.ledger.state_dim
    assert np.isfinite(float(policy.h.sum()))


def test_the_ledger_counts_kept_cards_again_from_a_reshuffle():
    """Q20: a reshuffle deals every hand again, so what a seat took before it says nothing of its new
    hand, and neither do the reshuffle tick's own exchanges (they came before the re-deal, Q14). The net
    counts start from nothing after that tick, as the bots' counters and the yardstick's
    ``eval.readers.kept_copies`` do; they had kept counting across it. Played on the reference engine:
    seat 1 swaps cards of different values, then seat 0 (the only voter) re-deals after one more swap."""
    from quatro_env.quatro.actions import ActionKind as K
    from quatro_env.quatro.engine import Phase, QuatroEngine

    n, v = 4, num_values(4)
    engine, encoder = QuatroEngine(QuatroConfig(bot_seats=(1, 2, 3))), ObservationEncoder(n)
    obs = np.zeros((n, encoder.obs_dim), np.uint8)
    encoder.encode(engine, engine.reset(2), (), obs)
    ledger = ExchangeLedger(n)
    state, nets, hands = ledger.initial_state(1), [], []

    def tick(actions, order=None):
        nonlocal state
        if order is not None:
            engine.force_next_order(order)
        result = engine.step(actions)
        encoder.encode(engine, result.events, result.order, obs)
        view = torch.from_numpy(obs[0].copy()).reshape(1, 1, -1)
        _, state = ledger.run(view, torch.zeros(1, 1, dtype=torch.bool), state)
        nets.append(state.reshape(n, -1)[:, :v].clone())
        hands.append(
            torch.tensor(
                [[sum(card_value(c) == x for c in engine.hands[s]) for x in range(v)] for s in range(n)]
            )
        )
        return result

    ready = engine.codec.encode(K.READY)
    while engine.phase != Phase.PLAY:
        tick([ready if engine.legal_mask(0)[ready] else 0, 0, 0, 0])

    def seat_1_swap() -> int:  # once its cooldown ends (Q13), the swap that leaves it keeping the most
        while not engine.legal_mask(1)[engine.codec.encode(K.EXCHANGE, (0, 0))]:
            tick([0, 0, 0, 0])
        hand, center, kept = engine.hands[1], engine.center, nets[-1][1].clone()

        def kept_after(h: int, c: int) -> float:
            after = kept.clone()
            after[card_value(center[c])] += 1
            after[card_value(hand[h])] -= 1
            return float(after.abs().sum())

        h, c = max(((h, c) for h in range(4) for c in range(4)), key=lambda pair: kept_after(*pair))
        return engine.codec.encode(K.EXCHANGE, (h, c))

    for _ in range(3):
        tick([0, seat_1_swap(), 0, 0])
    assert nets[-1][1].abs().sum() > 0  # seat 1's swaps are counted
    swap = seat_1_swap()
    result = tick([engine.codec.encode(K.PROPOSE_RESHUFFLE), swap, 0, 0], order=(1, 0, 2, 3))
    assert {"exchange", "reshuffle"} <= {e.kind for e in result.events}
    assert nets[-1].abs().sum() == 0  # forgotten, the tick's own swap too
    for _ in range(3):
        tick([0, seat_1_swap(), 0, 0])
    taken = nets[-1][1]
    assert taken.abs().sum() > 0 and taken.clamp(min=0).sum() <= 3  # the three swaps since, no more
    for net, hand in zip(nets, hands, strict=True):
        assert bool((net <= hand).all())  # never more kept copies of a value than the seat holds
