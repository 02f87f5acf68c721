"""Counter-based randomness (Q30) and card tests of the table programs.

Every draw is a hash of (table key, tick, purpose, index), so a table's trajectory depends on its seed
and its actions only (not on the batch, the other tables or the device).
"""

from __future__ import annotations

import numpy as np

from quatro_env.batched.constants import M32
from quatro_env.batched.program.target import rule


# ============================================================================ randomness (Q30)
@rule
def _mix(x):
    x = x & M32
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & M32
    x = x ^ (x >> 15)
    x = (x * 0x2C1B3C6D) & M32
    return x ^ (x >> 16)


@rule
def table_key(seed, episode):
    lo = seed & M32
    hi = (seed >> 32) & M32
    return _mix(_mix(lo ^ 0x3C6EF372) ^ _mix(hi ^ 0x1B873593) ^ _mix(episode ^ 0x68E31DA4))


@rule
def _draws(key, tick, purpose, m, out):
    base = _mix(key ^ _mix(np.int64(tick) ^ (np.int64(purpose) << 20)))
    for i in range(m):
        out[i] = _mix(base + np.int64(i) * 0x9E3779B1)


@rule
def _perm(key, tick, purpose, m, u, out):
    """A stable argsort of m hashed draws (the torch path's ``_perm``)."""
    _draws(key, tick, purpose, m, u)
    for i in range(m):
        out[i] = i
    for i in range(1, m):
        cur = out[i]
        cv = u[cur]
        j = i
        while j > 0 and u[out[j - 1]] > cv:
            out[j] = out[j - 1]
            j -= 1
        out[j] = cur


# ============================================================================ cards
@rule
def _is_quartet(hands, b, s):
    v0 = hands[b, s, 0] >> 2
    return (hands[b, s, 1] >> 2) == v0 and (hands[b, s, 2] >> 2) == v0 and (hands[b, s, 3] >> 2) == v0


@rule
def _has_triple(hands, b, s):
    for i in range(4):
        vi = hands[b, s, i] >> 2
        cnt = 0
        for j in range(4):
            if (hands[b, s, j] >> 2) == vi:
                cnt += 1
        if cnt >= 3:
            return True
    return False
