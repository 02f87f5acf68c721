"""Learner-only rows for the PPO update: the rollout's learner segments, packed into few columns.

Why: on tables with bots or a past snapshot most seats do not learn (on the ppo_4p recipe 71% of
rollout rows carry zero weight), yet the update ran the network over every seat of every tick.

A *segment* is one slot's run of ticks between two memory resets (``done`` marks the tick before
which the memory is cleared; tick 0 starts with the rollout's ``h0``). Who learns at a seat changes
only when its table starts an episode, i.e. at a segment boundary, so a segment that holds any
learner tick can be cut out whole and nothing else influences it. Segments are laid end to end in
columns of the rollout's length (first fit, longest first); a segment that starts at tick 0 opens
its own column, which starts from that slot's ``h0``; every other one starts with ``done`` set, so
the memory it inherits is cleared anyway. The loss over the packed rows is the loss over the
learner rows of the unpacked batch: the same rows, the same recurrences.
"""

from __future__ import annotations

import numpy as np
import torch


def learner_segments(done: torch.Tensor, learn: torch.Tensor) -> np.ndarray:
    """``[S, 3]`` int64 rows ``(slot, start, length)``: the segments of ``[T, N]`` ticks that hold a
    learner tick, ordered by slot then start."""
    done_np, learn_np = done.cpu().numpy(), learn.cpu().numpy()
    steps = done_np.shape[0]
    starts = done_np.T.copy()  # [N, T]
    starts[:, 0] = True
    slot, start = np.nonzero(starts)
    following = np.append(start[1:], steps)
    following[np.append(slot[1:] != slot[:-1], True)] = steps  # the slot's last segment ends at T
    length = following - start
    learned = np.concatenate([np.zeros((learn_np.shape[1], 1), np.int64), learn_np.T.cumsum(1)], axis=1)
    holds = learned[slot, start + length] > learned[slot, start]
    return np.stack([slot, start, length], axis=1)[holds].astype(np.int64)


def pack(segments: np.ndarray, steps: int, num_slots: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Lay ``segments`` into columns of ``steps`` ticks.

    Returns ``index`` ``[steps, C]``: for each packed row the flat rollout row ``t * num_slots + slot``
    (-1: padding), and ``h0_slot`` ``[C]``: the slot whose ``h0`` starts the column (-1: zeros).
    """
    columns: list[list[tuple[int, int, int]]] = []
    free: list[int] = []
    h0_slot: list[int] = []
    for slot, start, length in segments[segments[:, 1] == 0].tolist():  # from h0: a column each
        columns.append([(slot, start, length)])
        free.append(steps - length)
        h0_slot.append(slot)
    rest = segments[segments[:, 1] > 0]
    for slot, start, length in rest[np.argsort(-rest[:, 2], kind="stable")].tolist():
        for c, room in enumerate(free):
            if room >= length:
                columns[c].append((slot, start, length))
                free[c] -= length
                break
        else:
            columns.append([(slot, start, length)])
            free.append(steps - length)
            h0_slot.append(-1)
    index = np.full((steps, len(columns)), -1, np.int64)
    for c, column in enumerate(columns):
        at = 0
        for slot, start, length in column:
            index[at : at + length, c] = np.arange(start, start + length) * num_slots + slot
            at += length
    return torch.from_numpy(index), torch.tensor(h0_slot, dtype=torch.long)
