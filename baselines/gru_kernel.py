"""The GRU recurrence of the PPO update as two compiled loops (numba), forward and backward.

Why: on the CPU the update's recurrence is a few dozen columns wide and 64 ticks long, so written in
torch (``networks.recur``) it is ~40 tensor operations a tick, forward and backward, each costing
more in dispatch than in arithmetic; a third of an update at the recipe's minibatch, more in each
process of data-parallel training (half as many columns, as many ticks). Here a tick is one BLAS
product (``h @ W_hh``) and a loop over the gates; the products over all ticks (inputs, weight
gradients) stay in torch. The equations are ``nn.GRU``'s (one layer), the memory cleared where
``keep`` is 0, exactly as ``networks.recur`` (tested against it, and by ``gradcheck`` in float64).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
import torch


@nb.njit(cache=True)
def _forward(gx, keep, h0, w_hh, b_hh, out, h_prev, r, z, n, gh_n):  # noqa: PLR0913
    """``gx [T, N, 3H]``: the inputs' gate products (with ``b_ih``); writes ``out [T, N, H]`` and what
    backward needs: the memory each tick starts from, the gates and the hidden half of the new gate."""
    steps, batch, three = gx.shape
    hidden = three // 3
    one, two = gx.dtype.type(1.0), gx.dtype.type(2.0)
    h = h0.copy()
    w_t = np.ascontiguousarray(w_hh.T)
    for t in range(steps):
        for i in range(batch):
            for j in range(hidden):
                h[i, j] *= keep[t, i]
        h_prev[t] = h
        gh = np.dot(h, w_t)
        for i in range(batch):
            for j in range(hidden):
                rt = one / (one + math.exp(-(gx[t, i, j] + gh[i, j] + b_hh[j])))
                k = hidden + j
                zt = one / (one + math.exp(-(gx[t, i, k] + gh[i, k] + b_hh[k])))
                k += hidden
                ghn = gh[i, k] + b_hh[k]
                nt = two / (one + math.exp(-two * (gx[t, i, k] + rt * ghn))) - one  # tanh: 6x faster here
                out[t, i, j] = nt + zt * (h[i, j] - nt)
                r[t, i, j], z[t, i, j], n[t, i, j], gh_n[t, i, j] = rt, zt, nt, ghn
        h = out[t].copy()
    return h


@nb.njit(cache=True)
def _backward(d_out, d_last, keep, w_hh, h_prev, r, z, n, gh_n, d_gx, d_gh):
    """Walks the ticks backwards: ``d_gx [T, N, 3H]`` (the gates' pre-activation gradients from the
    input side), ``d_gh`` (from the hidden side: they differ in the new gate, scaled by r); returns the
    gradient of the first memory."""
    steps, batch, hidden = d_out.shape
    one = d_out.dtype.type(1.0)
    dh = d_last.copy()
    for t in range(steps - 1, -1, -1):
        for i in range(batch):
            for j in range(hidden):
                g = dh[i, j] + d_out[t, i, j]
                rt, zt, nt = r[t, i, j], z[t, i, j], n[t, i, j]
                d_pre_n = g * (one - zt) * (one - nt * nt)
                d_pre_r = d_pre_n * gh_n[t, i, j] * rt * (one - rt)
                d_pre_z = g * (h_prev[t, i, j] - nt) * zt * (one - zt)
                d_gx[t, i, j] = d_gh[t, i, j] = d_pre_r
                d_gx[t, i, hidden + j] = d_gh[t, i, hidden + j] = d_pre_z
                d_gx[t, i, 2 * hidden + j] = d_pre_n
                d_gh[t, i, 2 * hidden + j] = d_pre_n * rt
                dh[i, j] = g * zt
        dh += np.dot(d_gh[t], w_hh)
        for i in range(batch):
            for j in range(hidden):
                dh[i, j] *= keep[t, i]
    return dh


class CompiledGRU(torch.autograd.Function):
    """``(gx, keep, h0, w_hh, b_hh) -> (out [T, N, H], last memory [N, H])`` on CPU tensors."""

    @staticmethod
    def forward(ctx, gx, keep, h0, w_hh, b_hh):  # noqa: D102
        steps, batch, three = gx.shape
        shape = (steps, batch, three // 3)
        dtype = gx.dtype
        saved = [torch.empty(shape, dtype=dtype) for _ in range(5)]  # h_prev, r, z, n, gh_n
        out = torch.empty(shape, dtype=dtype)
        last = _forward(
            *(a.detach().contiguous().numpy() for a in (gx, keep, h0, w_hh, b_hh)),
            out.numpy(),
            *(s.numpy() for s in saved),
        )
        ctx.save_for_backward(keep, w_hh, *saved)
        return out, torch.from_numpy(last)

    @staticmethod
    def backward(ctx, d_out, d_last):  # noqa: D102
        keep, w_hh, h_prev, r, z, n, gh_n = ctx.saved_tensors
        steps, batch, hidden = h_prev.shape
        d_out = torch.zeros_like(h_prev) if d_out is None else d_out.contiguous()
        d_last = torch.zeros_like(h_prev[0]) if d_last is None else d_last.contiguous()
        d_gx = torch.empty(steps, batch, 3 * hidden, dtype=h_prev.dtype)
        d_gh = torch.empty_like(d_gx)
        d_h0 = _backward(
            d_out.numpy(),
            d_last.numpy(),
            *(a.detach().contiguous().numpy() for a in (keep, w_hh, h_prev, r, z, n, gh_n)),
            d_gx.numpy(),
            d_gh.numpy(),
        )
        flat_gh = d_gh.view(-1, 3 * hidden)
        d_w = flat_gh.T @ h_prev.view(-1, hidden)
        return d_gx, None, torch.from_numpy(d_h0), d_w, flat_gh.sum(0)
