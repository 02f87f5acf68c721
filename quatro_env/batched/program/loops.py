"""The loops over the tables: every table program of this package, for the CPU and the GPU alike.

On the CPU (``target.py``) a loop walks every table, table after table, in work-space row 0; on a GPU
(``cuda.py``) the same loop is a kernel whose threads each walk their own table in their own row.
Observations and masks are written in two steps by the same rules on both: a table's features and
legal kinds (``features_table``, ``kinds_table``), then each seat's row out of them (``spread_row``,
``spread_mask``). The CPU does both in one pass per table (``encode``, ``compute_masks``); a GPU in two
loops, the second walking rows of output with a group of threads each (a warp), so that neighbouring
threads write neighbouring bytes (coalesced).
"""

from __future__ import annotations

from quatro_env.batched.program.round import reset_table
from quatro_env.batched.program.target import (
    first_group,
    first_table,
    group_step,
    lane,
    lanes,
    loop,
    table_step,
    work_row,
)
from quatro_env.batched.program.tick import check_table, tick_table
from quatro_env.batched.program.view import (
    features_table,
    kinds_table,
    sample_table,
    spread_mask,
    spread_row,
    zero,
)


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
    """Every seat's observation on the tables where ``rows`` (all of them if ``all_rows``): the CPU's."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            w = W.encode[work_row(b)]
            zero(w)
            features_table(b, prm, offs, S, V, w)
            for i in range(obs.shape[1]):
                spread_row(obs[b, i], w, prm, i, 0, 1)


@loop
def encode_features(rows, all_rows, prm, offs, S, V, W):
    """The absolute features of the tables where ``rows`` into their work-space rows (a row per table,
    zeroed by the caller), for ``spread_observations``: a GPU's encode, first half."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            features_table(b, prm, offs, S, V, W.encode[b])


@loop
def spread_observations(obs, rows, all_rows, prm, W):
    """Every observer's row out of its table's feature row (a work-space row per table): a row per
    group of threads, whose lanes write neighbouring bytes (a warp on a GPU)."""
    n = obs.shape[1]
    for r in range(first_group(), obs.shape[0] * n, group_step()):
        b = r // n
        if all_rows or rows[b]:
            spread_row(obs[b, r - b * n], W.encode[b], prm, r - b * n, lane(), lanes())


@loop
def legal_kinds(rows, all_rows, kind_legal, prm, S):
    """Each seat's legal action kinds on the tables where ``rows``: a GPU's masks, first half."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            kinds_table(b, kind_legal, prm, S)


@loop
def spread_masks(masks, rows, all_rows, kind_legal, K):
    """Every seat's mask out of its legal kinds (an action is legal iff its kind is), a row per group of
    threads as in ``spread_observations``."""
    n = masks.shape[1]
    for r in range(first_group(), masks.shape[0] * n, group_step()):
        b = r // n
        if all_rows or rows[b]:
            spread_mask(masks[b, r - b * n], kind_legal[b, r - b * n], K, lane(), lanes())


@loop
def compute_masks(rows, all_rows, masks, kind_legal, prm, K, S):
    """Every seat's mask on the tables where ``rows`` (all of them if ``all_rows``): the CPU's."""
    for b in range(first_table(), rows.shape[0], table_step()):
        if all_rows or rows[b]:
            kinds_table(b, kind_legal, prm, S)
            for i in range(masks.shape[1]):
                spread_mask(masks[b, i], kind_legal[b, i], K, 0, 1)


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
