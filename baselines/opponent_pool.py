"""The frozen snapshots a learner plays against: one per table, kept for the table's whole episode.

A table that starts an episode against the pool draws one of the *drawable* snapshots (the last
``pool_size`` the trainer took, or the ones a caller put there: a league block's opponent, the policy
``quatro-exploit`` attacks) and plays it, with the GRU memory that snapshot builds, until the episode
ends. A snapshot that is no longer drawable stays until no table plays it, so an episode never changes
opponent half-way (it once did: one snapshot was drawn per rollout for every pool table).

Layout: ``snapshots`` is a list of state dicts; ``table[b]`` is table b's index into it (-1: the table
does not play the pool); ``snapshots[draw_from:]`` are the drawable ones.
"""

from __future__ import annotations

import copy
from typing import Any

import torch

Snapshot = dict[str, torch.Tensor]


class OpponentPool:
    def __init__(self, template: torch.nn.Module, num_tables: int, device: torch.device) -> None:
        self.template = template  # a frozen copy of the policy network: each snapshot's network is one
        self.snapshots: list[Snapshot] = []
        self.draw_from = 0
        self.table = torch.full((num_tables,), -1, dtype=torch.long, device=device)
        self._nets: dict[int, torch.nn.Module] = {}  # id(snapshot) -> its network, built when first played
        self.played: list[int] = []  # the snapshots some table plays, ascending (kept on the host)

    @property
    def drawable(self) -> bool:
        return len(self.snapshots) > self.draw_from

    def add(self, snapshot: Snapshot, keep: int) -> None:
        """The trainer's new snapshot; the last ``keep`` are drawable."""
        self.snapshots.append(snapshot)
        self.draw_from = max(0, len(self.snapshots) - keep)
        self._prune()

    def replace(self, snapshots: list[Snapshot]) -> None:
        """From now on only ``snapshots`` are drawn (the tables playing older ones finish with them)."""
        self.snapshots += list(snapshots)
        self.draw_from = len(self.snapshots) - len(snapshots)
        self._prune()

    def seat(self, tables: torch.Tensor, vs_pool: torch.Tensor) -> None:
        """``tables`` start an episode: those against the pool (``vs_pool``) draw a drawable snapshot."""
        if not self.drawable:
            self.table[tables] = -1
        else:
            drawn = torch.randint(
                self.draw_from, len(self.snapshots), (int(tables.numel()),), device=self.table.device
            )
            self.table[tables] = torch.where(vs_pool, drawn, torch.full_like(drawn, -1))
        self._note_played()

    def _note_played(self) -> None:
        """Which snapshots are played, read once when the seating changes rather than on every tick."""
        self.played = [k for k in torch.unique(self.table).tolist() if k >= 0]

    def current(self, tables: torch.Tensor) -> torch.Tensor:
        """Whether each of ``tables`` plays a drawable snapshot (a league credits only those: a block's
        opponent, not the one of an episode begun before the block)."""
        return self.table[tables] >= self.draw_from

    def net(self, k: int) -> torch.nn.Module:
        snapshot = self.snapshots[k]
        net = self._nets.get(id(snapshot))
        if net is None:
            net = copy.deepcopy(self.template).requires_grad_(False)
            net.load_state_dict(snapshot)
            self._nets[id(snapshot)] = net
        return net

    def act_rows(self, seats: torch.Tensor, n: int, act: Any) -> None:
        """Run each snapshot on its tables' ``seats`` (slot mask): ``act(net, slot_indices)``."""
        by_slot = self.table.repeat_interleave(n)
        for k in self.played:
            rows = (seats & (by_slot == k)).nonzero().squeeze(1)
            if rows.numel():
                act(self.net(k), rows)

    def act_all(
        self, seats: torch.Tensor, n: int, inputs: tuple, action: torch.Tensor, memory: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Every played snapshot on every row (a GPU has width to spare, and picking rows would ask the host),
        each row keeping its own table's snapshot's action and memory where ``seats``. ``inputs``:
        the observations, masks, done flags and critic state of the networks' ``act``."""
        obs, mask, done, state = inputs
        by_slot = self.table.repeat_interleave(n)
        for k in self.played:  # not the retired or unplayed snapshots: a forward pass each, every tick
            out = self.net(k).act(obs, mask, done, memory, state)
            mine = seats & (by_slot == k)
            action = torch.where(mine, out[0], action)
            memory = torch.where(mine.view(1, -1, 1), out[3], memory)
        return action, memory

    def _prune(self) -> None:
        """Drop the snapshots neither drawable nor played, and renumber the tables' indices."""
        played = set(torch.unique(self.table).tolist())
        keep = [k for k in range(len(self.snapshots)) if k >= self.draw_from or k in played]
        renumber = torch.full((len(self.snapshots) + 1,), -1, dtype=torch.long)
        renumber[torch.tensor(keep, dtype=torch.long)] = torch.arange(len(keep))
        self.table = torch.where(self.table >= 0, renumber.to(self.table.device)[self.table], self.table)
        self.draw_from = sum(1 for k in keep if k < self.draw_from)
        self.snapshots = [self.snapshots[k] for k in keep]
        self._nets = {id(s): self._nets[id(s)] for s in self.snapshots if id(s) in self._nets}
        self._note_played()

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {
            "pool": list(self.snapshots),
            "pool_table": self.table.clone(),
            "pool_draw_from": self.draw_from,
        }

    def load_state_dict(self, state: dict[str, Any], opponent: Snapshot, vs_pool: torch.Tensor) -> None:
        """Restore :meth:`state_dict`, checked. A checkpoint from before the per-table snapshots has only
        ``pool`` and the one ``opponent`` every pool table played: that one plays on until their
        episodes end, then new episodes draw from ``pool``."""
        snapshots = list(state["pool"])
        if "pool_table" not in state:
            table = torch.where(vs_pool, 0, -1).to(self.table)
            snapshots, draw_from = [opponent, *snapshots], 1
        else:
            table, draw_from = state["pool_table"], state["pool_draw_from"]
            if (
                not isinstance(table, torch.Tensor)
                or table.shape != self.table.shape
                or table.dtype != torch.long
            ):
                raise ValueError(f"pool_table must be int64{list(self.table.shape)}")
            if (
                isinstance(draw_from, bool)
                or not isinstance(draw_from, int)
                or not 0 <= draw_from <= len(snapshots)
            ):
                raise ValueError(
                    f"pool_draw_from must be an integer in 0..{len(snapshots)}, got {draw_from!r}"
                )
            if bool(((table < -1) | (table >= len(snapshots))).any()):
                raise ValueError(f"pool_table holds indices outside -1..{len(snapshots) - 1}")
            if not torch.equal(table.to(vs_pool.device) >= 0, vs_pool):
                raise ValueError("pool_table does not match the tables playing the pool (mode)")
        self.snapshots, self.draw_from = snapshots, draw_from
        self.table = table.to(self.table.device).clone()
        self._nets = {}
        self._note_played()
