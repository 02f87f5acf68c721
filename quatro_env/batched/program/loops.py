"""The loops over the tables: every table program of this package, for the CPU and the GPU alike.

On the CPU (``target.py``) a loop walks every table, table after table, in work-space row 0; on a GPU
(``cuda.py``) the same loop is a kernel whose threads each walk their own table in their own row.
"""

from __future__ import annotations

from quatro_env.batched.program.round import reset_table
from quatro_env.batched.program.target import first_table, loop, table_step, work_row
from quatro_env.batched.program.tick import check_table, tick_table
from quatro_env.batched.program.view import encode_table, masks_table, sample_table


@loop
def reset_rows(rows, prm, K, S, V):
    """A fresh match on the tables where ``rows``."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if rows[b]:
            reset_table(b, prm, K, S, V)


@loop
def check_actions(actions, masks, num_actions, illegal, out):
    """Legality at the start of the tick: ``illegal`` per seat, ``out`` the actions played (no-op if not)."""
    for b in range(first_table(), actions.shape[0], table_step()):
        check_table(b, actions, masks, num_actions, illegal, out)


@loop
def tick_all(actions, prm, K, S, V, R, REC, W):
    """One tick on every table."""
    for b in range(first_table(), actions.shape[0], table_step()):
        tick_table(b, actions, prm, K, S, V, R, REC, W, work_row(b))


@loop
def encode(rows, all_rows, obs, prm, offs, S, V, W):
    """Every seat's observation on the tables where ``rows`` (all of them if ``all_rows``)."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            encode_table(b, obs, prm, offs, S, V, W, work_row(b))


@loop
def compute_masks(rows, all_rows, masks, kind_legal, prm, K, S):
    """Every seat's mask on the tables where ``rows`` (all of them if ``all_rows``)."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            masks_table(b, masks, kind_legal, prm, K, S)


@loop
def sample(u, kind_legal, K, out, W):
    """Uniformly random legal actions on every table."""
    for b in range(first_table(), u.shape[0], table_step()):
        sample_table(b, u, kind_legal, K, out, W, work_row(b))


@loop
def copy_rows_not(rows, src, dst):
    """dst[b] = src[b] where not rows[b] (the terminal view of tables that did not finish)."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if not rows[b]:
            for i in range(src.shape[1]):
                for j in range(src.shape[2]):
                    dst[b, i, j] = src[b, i, j]
