"""The fast PPO update computes the same objective (issue #17 item 2): the written-out GRU equals
``nn.GRU`` tick by tick, packing keeps every learner row exactly once, and the packed minibatch
gives the loss and gradients of the unpacked one on a fixed batch."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.config import TrainConfig
from baselines.networks import recur
from baselines.packing import learner_segments, pack
from baselines.ppo import PPOTrainer
from baselines.ppo_update import gae, packed_minibatch, ppo_loss, table_minibatch


def _stepwise_gru(gru, x, done, h0):
    """The recurrence as it was: ``nn.GRU`` called once per tick (the reference)."""
    h, outs = h0, []
    for t in range(x.shape[0]):
        h = h * (1.0 - done[t].float()).view(1, -1, 1)
        out, h = gru(x[t].unsqueeze(0), h)
        outs.append(out[0])
    return torch.stack(outs), h


def test_recur_equals_nn_gru_with_resets_outputs_and_gradients():
    torch.manual_seed(0)
    gru = torch.nn.GRU(12, 7)
    x = torch.randn(9, 5, 12, requires_grad=True)
    done = torch.rand(9, 5) < 0.2
    h0 = torch.randn(1, 5, 7)
    out_fast, h_fast = recur(gru, x, done, h0)
    out_ref, h_ref = _stepwise_gru(gru, x, done, h0)
    torch.testing.assert_close(out_fast, out_ref, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(h_fast, h_ref, rtol=1e-5, atol=1e-6)
    weights = torch.randn_like(out_ref)
    grads_fast = torch.autograd.grad((out_fast * weights).sum(), [x, *gru.parameters()])
    grads_ref = torch.autograd.grad((out_ref * weights).sum(), [x, *gru.parameters()])
    for a, b in zip(grads_fast, grads_ref, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_split_pair_scorer_equals_the_concatenated_one():
    from baselines.features import PAIR_DIM
    from baselines.networks import StructuredActorCritic

    torch.manual_seed(1)
    model = StructuredActorCritic(300, 72, hidden=32, rnn=16)
    mem, pairs = torch.randn(7, 16, requires_grad=True), torch.randn(7, 16, PAIR_DIM)
    ctx = model.pair_context(mem).unsqueeze(1).expand(-1, 16, -1)
    reference = model.pair_scorer(torch.cat([pairs, ctx], dim=-1)).squeeze(-1)
    fast = model._pair_logits(mem, pairs)
    torch.testing.assert_close(fast, reference, rtol=1e-5, atol=1e-6)
    g_fast = torch.autograd.grad(fast.sum(), [mem, *model.pair_scorer.parameters()])
    g_ref = torch.autograd.grad(reference.sum(), [mem, *model.pair_scorer.parameters()])
    for a, b in zip(g_fast, g_ref, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_pair_scores_skipped_where_no_exchange_is_legal_change_no_probability_or_gradient():
    """Issue 17: the pair scorer runs only on rows where an exchange is legal; the other rows' exchange
    logits are masked, so log-probabilities, entropy, value and every gradient equal the full head's."""
    from baselines.networks import StructuredActorCritic
    from quatro_env.quatro.actions import ActionCodec, ActionKind
    from quatro_env.quatro.encoding import ObservationEncoder

    torch.manual_seed(2)
    codec, obs_dim = ActionCodec(4), ObservationEncoder(4).obs_dim
    model = StructuredActorCritic(obs_dim, codec.num_actions, hidden=32, rnn=16)
    obs = torch.randint(0, 2, (5, 6, obs_dim), dtype=torch.uint8)
    mask = torch.randint(0, 2, (5, 6, codec.num_actions), dtype=torch.int8)
    ex = codec.ranges[ActionKind.EXCHANGE]
    legal_rows = torch.rand(5, 6) < 0.4
    mask[..., ex.start : ex.stop] = legal_rows.unsqueeze(-1).to(torch.int8)  # a kind is legal whole
    mask[..., 0] = 1
    memory, _ = model.unroll(obs, torch.zeros(5, 6, dtype=torch.bool), model.initial_state(6))
    action = torch.where(mask.bool(), torch.rand(mask.shape), -1.0).argmax(-1)

    def outputs(skip: bool):
        model.score_every_pair = not skip
        dist, value = model.heads(memory, mask)
        out = (dist.log_prob(action).sum() + dist.entropy().sum() + value.sum(), dist.probs)
        return (
            out[0],
            out[1],
            torch.autograd.grad(out[0], list(model.parameters()), allow_unused=True, retain_graph=True),
        )

    loss_a, probs_a, grads_a = outputs(True)
    loss_b, probs_b, grads_b = outputs(False)
    assert 0 < int(legal_rows.sum()) < legal_rows.numel()
    torch.testing.assert_close(probs_a, probs_b, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(loss_a, loss_b, rtol=1e-5, atol=1e-5)
    for a, b in zip(grads_a, grads_b, strict=True):
        if a is None or b is None:
            assert a is None and b is None
        else:
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


@st.composite
def _rollout_flags(draw):
    steps, slots = draw(st.integers(1, 12)), draw(st.integers(1, 6))
    done = np.array(draw(st.lists(st.booleans(), min_size=steps * slots, max_size=steps * slots)))
    done = done.reshape(steps, slots)
    # who learns changes only where an episode starts (a done), as in the trainer
    learn = np.zeros((steps, slots), bool)
    flips = draw(st.lists(st.booleans(), min_size=steps * slots, max_size=steps * slots))
    for s in range(slots):
        current = flips[s]
        for t in range(steps):
            if done[t, s] or t == 0:
                current = flips[t * slots + s]
            learn[t, s] = current
    return torch.from_numpy(done), torch.from_numpy(learn)


@settings(max_examples=200, deadline=None)
@given(_rollout_flags())
def test_packing_keeps_each_learner_row_once_and_each_segment_whole(flags):
    done, learn = flags
    steps, slots = done.shape
    segments = learner_segments(done, learn)
    index, h0_slot = pack(segments, steps, slots)
    packed = index[index >= 0].numpy()
    assert len(packed) == len(set(packed.tolist())), "a row packed twice"
    flat_learn = learn.reshape(-1).numpy()
    assert set(np.flatnonzero(flat_learn)) <= set(packed.tolist()), "a learner row left out"
    for c in range(index.shape[1]):
        rows = index[:, c][index[:, c] >= 0].numpy()
        t, s = rows // slots, rows % slots
        assert np.all(index[: len(rows), c].numpy() >= 0), "padding before a segment"
        # each segment keeps its ticks in order; a new segment starts at a memory reset or from h0
        for j in range(len(rows)):
            continues = j > 0 and s[j] == s[j - 1] and t[j] == t[j - 1] + 1 and not done[t[j], s[j]]
            if not continues:
                assert done[t[j], s[j]] or (j == 0 and t[j] == 0 and int(h0_slot[c]) == s[j])


def _cfg(tmp_path, **kw) -> TrainConfig:
    base = dict(
        out_dir=str(tmp_path),
        env={"num_players": 4, "round_seconds": 6, "sign_phase_seconds": 1, "pause_seconds": 0.5},
        num_envs=8,
        num_steps=24,
        total_agent_steps=8 * 4 * 24 * 10,
        num_minibatches=2,
        update_epochs=1,
        hidden_size=32,
        rnn_size=16,
        pool_size=2,
        snapshot_every=1,
        pool_prob=0.3,
        bot_prob=0.4,
        partner_bot_prob=0.5,
        bot_opponents=["honest", "random"],
        tensorboard=False,
        progress_bar=False,
        eval_every=0,
        checkpoint_every=1000,
    )
    return TrainConfig(**(base | kw))


def _grads(trainer: PPOTrainer, mb) -> tuple[torch.Tensor, list[torch.Tensor]]:
    trainer.model.zero_grad()
    loss, _ = ppo_loss(trainer.model, mb, trainer.cfg, ent_coef=0.01)
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in trainer.model.parameters()]


def _check_packed_equals_unpacked(cfg: TrainConfig) -> None:
    trainer = PPOTrainer(cfg)
    trainer.train(updates=2)  # a pool snapshot and bot tables exist
    buf = trainer.rollout()
    learn_share = float(buf["learn"].float().mean())
    assert 0.1 < learn_share < 0.9, f"the batch should mix learner and other rows, got {learn_share}"
    segments = learner_segments(buf["done"], buf["learn"])
    for tables in (torch.arange(0, 4), torch.tensor([7, 2, 5, 0]), torch.arange(8)):
        plain = table_minibatch(buf, tables, trainer.n, trainer.cfg.central_critic)
        packed = packed_minibatch(buf, tables, segments, trainer.n, trainer.cfg.central_critic)
        assert int(packed["w"].sum()) == int(plain["w"].sum())
        assert packed["w"].numel() < plain["w"].numel(), "packing should drop rows"
        loss_plain, grads_plain = _grads(trainer, plain)
        loss_packed, grads_packed = _grads(trainer, packed)
        torch.testing.assert_close(loss_packed, loss_plain, rtol=1e-5, atol=1e-6)
        for (name, _), a, b in zip(trainer.model.named_parameters(), grads_packed, grads_plain, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6, msg=name)


def test_packed_minibatch_gives_the_unpacked_loss_and_gradients_structured(tmp_path):
    _check_packed_equals_unpacked(_cfg(tmp_path, arch="structured"))


def test_packed_minibatch_gives_the_unpacked_loss_and_gradients_flat_central_critic(tmp_path):
    _check_packed_equals_unpacked(_cfg(tmp_path, arch="flat", central_critic=True))


def test_gae_matches_the_recursion_written_out_and_stops_at_episode_ends():
    """Three ticks, two slots; slot 1's memory resets before tick 2 (its episode ended at tick 1),
    and slot 0's episode ends after the last tick (next_done)."""
    gamma, lam = 0.9, 0.5
    buf = {
        "reward": torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]),
        "value": torch.tensor([[0.5, 0.1], [0.2, 0.3], [0.4, 0.6]]),
        "done": torch.tensor([[False, False], [False, False], [False, True]]),
    }
    next_value, next_done = torch.tensor([10.0, 1.0]), torch.tensor([True, False])
    adv, ret = gae(buf, next_value, next_done, gamma, lam)
    r, v = buf["reward"], buf["value"]
    # slot 0: the episode ends after tick 2, so tick 2 bootstraps nothing
    d2 = r[2, 0] - v[2, 0]
    d1 = r[1, 0] + gamma * v[2, 0] - v[1, 0]
    d0 = r[0, 0] + gamma * v[1, 0] - v[0, 0]
    a2 = d2
    a1 = d1 + gamma * lam * a2
    a0 = d0 + gamma * lam * a1
    torch.testing.assert_close(adv[:, 0], torch.stack([a0, a1, a2]))
    # slot 1: tick 1 ends its episode (done before tick 2): no bootstrap from tick 2 into tick 1
    b2 = r[2, 1] + gamma * next_value[1] - v[2, 1]
    b1 = r[1, 1] - v[1, 1]
    b0 = r[0, 1] + gamma * v[1, 1] - v[0, 1] + gamma * lam * b1
    torch.testing.assert_close(adv[:, 1], torch.stack([b0, b1, b2]))
    torch.testing.assert_close(ret, adv + v)


def test_a_max_rounds_truncation_is_seen_coming_so_the_trainer_does_not_bootstrap_past_it():
    """Project decision (docs/ppo.md, "Truncation"): the trainer cuts GAE at a table that ends by
    ``max_rounds`` (a truncation) as at a terminated one. That is right only if the end is a function of
    what a seat observes: the round number is in every observation (Q27's table block) and the limit is
    the config's, so the last round is seen as the last, and nothing beyond the table's end is its value."""
    from quatro_env import quatro_v0

    max_rounds = 2
    env = quatro_v0.parallel_env(episode="match", max_rounds=max_rounds, points_to_win=3, round_seconds=5)
    at = env.encoder.offsets["table.round"]
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen: list[int] = []
    for _ in range(10_000):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, _, terms, truncs, _ = env.step(actions)
        rounds = {int(o["observation"][at]) for o in obs.values()}
        assert rounds == {env.engine.round_index}  # every seat sees the round it is in
        seen.append(rounds.pop())
        if any(truncs.values()) or any(terms.values()):
            break
    assert all(truncs.values()) and not any(terms.values())  # 3 points cannot be reached in 2 rounds
    assert seen[-1] == max_rounds and max_rounds - 1 in seen  # the last round is observed as the last
    from quatro_env.quatro.config import QuatroConfig
    from quatro_env.quatro.encoding import CLIP

    assert QuatroConfig().max_rounds <= CLIP  # the field is a byte, clipped: the default limit fits it
