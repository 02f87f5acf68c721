"""The opponent pool: a snapshot per table, kept for its whole episode (baselines/opponent_pool.py)."""

from __future__ import annotations

import pytest
import torch

from baselines.config import load_config
from baselines.opponent_pool import OpponentPool
from baselines.ppo import VS_POOL, PPOTrainer

SMOKE = "configs/smoke.yaml"


def snapshot(value: float) -> dict[str, torch.Tensor]:
    return {"weight": torch.full((2, 2), value)}


def pool(tables: int = 6) -> OpponentPool:
    return OpponentPool(torch.nn.Linear(2, 2, bias=False), tables, torch.device("cpu"))


def test_tables_draw_only_drawable_snapshots_and_keep_a_retired_one_while_they_play_it():
    p = pool()
    p.add(snapshot(0), keep=2)
    torch.manual_seed(0)
    p.seat(torch.arange(6), torch.tensor([True, True, True, False, False, True]))
    assert p.table.tolist() == [0, 0, 0, -1, -1, 0]
    p.add(snapshot(1), keep=2)
    p.add(snapshot(2), keep=2)  # snapshot 0 is no longer drawable, but four tables still play it
    assert len(p.snapshots) == 3 and p.draw_from == 1
    assert [p.net(k).weight[0, 0].item() for k in p.table[[0, 5]].tolist()] == [0.0, 0.0]
    assert not p.current(torch.tensor([0, 5])).any()
    p.seat(torch.arange(6), torch.ones(6, dtype=torch.bool))  # every table starts a new episode
    assert (p.table >= 1).all() and p.current(torch.arange(6)).all()
    value = lambda: [p.snapshots[k]["weight"][0, 0].item() for k in p.table.tolist()]  # noqa: E731
    played = value()
    p.add(snapshot(3), keep=2)  # nobody plays 0 any more: dropped, the tables' indices renumbered
    assert value() == played  # every table plays what it played
    assert [s["weight"][0, 0].item() for s in p.snapshots[p.draw_from :]] == [2.0, 3.0]
    assert 0.0 not in [s["weight"][0, 0].item() for s in p.snapshots]
    assert len(p.snapshots) == 2 + (1.0 in played)  # snapshot 1 stays only while a table plays it


def test_a_replaced_pool_draws_only_the_new_snapshots():
    p = pool(4)
    p.replace([snapshot(7)])
    p.seat(torch.arange(4), torch.ones(4, dtype=torch.bool))
    p.replace([snapshot(8)])  # a league's next block
    assert p.draw_from == 1 and not p.current(torch.arange(4)).any()
    p.seat(torch.tensor([1, 2]), torch.ones(2, dtype=torch.bool))
    assert p.table.tolist() == [0, 1, 1, 0] and p.current(torch.arange(4)).tolist() == [
        False,
        True,
        True,
        False,
    ]


def test_a_checkpoints_pool_is_checked_and_an_older_one_plays_its_opponent_on():
    p = pool(3)
    vs_pool = torch.tensor([True, False, True])
    good = {"pool": [snapshot(1), snapshot(2)], "pool_table": torch.tensor([1, -1, 0]), "pool_draw_from": 1}
    p.load_state_dict(good, snapshot(9), vs_pool)
    assert p.table.tolist() == [1, -1, 0] and p.draw_from == 1
    for bad, message in (
        ({**good, "pool_table": torch.tensor([2, -1, 0])}, "outside"),
        ({**good, "pool_table": torch.tensor([1, 0, 0])}, "mode"),
        ({**good, "pool_table": torch.tensor([1.0, -1.0, 0.0])}, "int64"),
        ({**good, "pool_draw_from": 3}, "pool_draw_from"),
        ({**good, "pool_draw_from": True}, "pool_draw_from"),
    ):
        with pytest.raises(ValueError, match=message):
            pool(3).load_state_dict(bad, snapshot(9), vs_pool)
    old = pool(3)  # written before the per-table snapshots: the one opponent plays on, then the pool
    old.load_state_dict({"pool": [snapshot(1), snapshot(2)]}, snapshot(9), vs_pool)
    assert old.table.tolist() == [0, -1, 0] and old.draw_from == 1
    assert old.net(0).weight[0, 0].item() == 9.0 and len(old.snapshots) == 3


def test_an_episode_keeps_its_snapshot_from_start_to_end(tmp_path):
    """Every pool table plays one snapshot per episode, across rollout boundaries (one snapshot was
    drawn per rollout for every table, so an episode crossing a boundary met two, found by an audit)."""
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "num_steps=8", "pool_prob=1.0", "bot_prob=0.0"])
    trainer = PPOTrainer(cfg)
    torch.manual_seed(3)
    trainer.pool.replace([{k: v + 0.01 * i for k, v in trainer.model.state_dict().items()} for i in range(4)])
    trainer.reseat_opponents()
    assert bool((trainer.mode == VS_POOL).all())
    seen: list[tuple[list[int], list[bool]]] = []
    play = trainer.pool.act_rows

    def recording(seats, n, act):
        starts = trainer.next_done.view(trainer.num_envs, n)[:, 0].tolist()
        seen.append(([id(trainer.pool.snapshots[k]) for k in trainer.pool.table.tolist()], starts))
        return play(seats, n, act)

    trainer.pool.act_rows = recording
    for _ in range(6):  # 48 ticks: episodes of several ticks cross the rollout boundaries
        trainer.rollout()
    kept = changed = 0
    for (before, _), (after, starts) in zip(seen, seen[1:], strict=False):
        for table, start in enumerate(starts):
            if start:
                changed += before[table] != after[table]
            else:
                assert before[table] == after[table], "a snapshot changed in the middle of an episode"
                kept += 1
    assert kept > 100 and changed > 0  # episodes went on, and new ones drew other snapshots


def test_the_gpu_paths_every_snapshot_on_every_row_gives_each_row_its_own_snapshots_memory(tmp_path):
    """``act_all`` (the GPU rollout: each snapshot on every row, then a pick per row) leaves each pool
    seat the memory its own table's snapshot computes, as ``act_rows`` (the CPU rollout) does; other
    rows keep theirs. Checked on the CPU: the GRU memory is deterministic, sampled actions are not."""
    cfg = load_config(SMOKE, [f"out_dir={tmp_path}", "pool_prob=0.6", "bot_prob=0.0"])
    trainer = PPOTrainer(cfg)
    trainer.pool.replace([{k: v + 0.05 * i for k, v in trainer.model.state_dict().items()} for i in range(3)])
    trainer.reseat_opponents()
    trainer.rollout()  # memories that differ from zero
    n, learn = trainer.n, trainer.learner.reshape(-1)
    seats = (trainer.mode == VS_POOL).repeat_interleave(n) & ~learn
    assert seats.any() and len(set(trainer.pool.table[trainer.mode == VS_POOL].tolist())) > 1
    obs, mask = trainer.next_obs.reshape(trainer.slots, -1), trainer.next_mask.reshape(trainer.slots, -1)
    done, state = trainer.next_done, trainer._state(trainer.next_obs)
    by_rows = trainer.h_opp.clone()

    def act(net, rows):
        sub = None if state is None else state[rows]
        by_rows[:, rows] = net.act(obs[rows], mask[rows], done[rows], by_rows[:, rows], sub)[3]

    trainer.pool.act_rows(seats, n, act)
    action = torch.full((trainer.slots,), -1, dtype=torch.long)
    action, by_all = trainer.pool.act_all(seats, n, (obs, mask, done, state), action, trainer.h_opp.clone())
    torch.testing.assert_close(by_all[:, seats], by_rows[:, seats])
    assert torch.equal(by_all[:, ~seats], trainer.h_opp[:, ~seats]) and (action[seats] >= 0).all()
    assert (action[~seats] == -1).all()
