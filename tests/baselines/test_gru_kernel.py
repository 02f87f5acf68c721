"""The compiled GRU recurrence (``baselines/gru_kernel.py``, issue #17) is the GRU: its gradients pass
``gradcheck`` in float64 (resets, first and last memory included), and it gives ``networks.recur``'s
torch loop (the GPU's) the same outputs and gradients; ``MaskedCategorical`` is the masked softmax."""

from __future__ import annotations

import torch

from baselines.gru_kernel import CompiledGRU
from baselines.networks import recur


def _inputs(steps: int, batch: int, hidden: int, dtype: torch.dtype, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    gx = torch.randn(steps, batch, 3 * hidden, dtype=dtype, generator=gen, requires_grad=True)
    keep = (torch.rand(steps, batch, generator=gen) > 0.25).to(dtype)
    h0 = torch.randn(batch, hidden, dtype=dtype, generator=gen, requires_grad=True)
    w_hh = (0.5 * torch.randn(3 * hidden, hidden, dtype=dtype, generator=gen)).requires_grad_()
    b_hh = torch.randn(3 * hidden, dtype=dtype, generator=gen, requires_grad=True)
    return gx, keep, h0, w_hh, b_hh


def test_compiled_gru_gradients_pass_gradcheck_in_float64():
    inputs = _inputs(steps=6, batch=3, hidden=4, dtype=torch.float64)
    assert inputs[1].min() == 0  # a reset inside the window
    assert torch.autograd.gradcheck(CompiledGRU.apply, inputs, eps=1e-6, atol=1e-7)


def test_compiled_gru_gradient_of_the_last_memory_alone():
    """Only the final memory used (the rollout's next value reads it): backward gets no output gradient."""
    gx, keep, h0, w_hh, b_hh = _inputs(steps=5, batch=2, hidden=3, dtype=torch.float64, seed=1)
    assert torch.autograd.gradcheck(lambda *a: CompiledGRU.apply(*a)[1], (gx, keep, h0, w_hh, b_hh))


def test_recur_compiled_equals_its_torch_loop_outputs_and_gradients():
    """``recur`` runs the compiled loops over many ticks on the CPU, its torch loop for one tick and on
    a GPU: forced either way, the same outputs, last memory and gradients, resets included, many
    ticks and one."""
    torch.manual_seed(3)
    gru = torch.nn.GRU(10, 6)
    for steps in (12, 1):
        x = torch.randn(steps, 4, 10, requires_grad=True)
        done = torch.rand(steps, 4) < 0.2
        h0 = torch.randn(1, 4, 6, requires_grad=True)
        wanted = [x, h0, *gru.parameters()]
        runs = []
        for compiled in (True, False):
            out, last = recur(gru, x, done, h0, compiled=compiled)
            weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(steps))
            loss = (out * weights).sum() + last.sum()
            runs.append((out, last, torch.autograd.grad(loss, wanted)))
        (out_c, last_c, grads_c), (out_t, last_t, grads_t) = runs
        torch.testing.assert_close(out_c, out_t, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(last_c, last_t, rtol=1e-5, atol=1e-6)
        for a, b in zip(grads_c, grads_t, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_masked_categorical_is_the_masked_softmax_without_exp_of_the_illegal_logits():
    """``MaskedCategorical`` (the policy's distribution) equals torch's Categorical over logits masked
    to MASKED_LOGIT: log-probs, probabilities (exactly 0 where illegal), entropy and their gradients."""
    from torch.distributions import Categorical

    from baselines.networks import MASKED_LOGIT, MaskedCategorical

    gen = torch.Generator().manual_seed(4)
    raw = (3 * torch.randn(6, 5, 11, generator=gen)).requires_grad_()
    legal = (torch.rand(6, 5, 11, generator=gen) < 0.4).to(torch.int8)
    legal[0, 0] = 0  # a row with nothing legal: uniform, as the masked logits made it
    legal[1, 1] = 0
    legal[1, 1, 3] = 1  # one legal action: probability 1, entropy 0
    some = legal.ne(0).any(-1)  # rows with a legal action (log-probs compared there)
    actions = torch.multinomial((legal + ~some.unsqueeze(-1)).view(-1, 11).float(), 1).view(6, 5)
    ours = MaskedCategorical(raw, legal)
    theirs = Categorical(logits=raw.masked_fill(legal == 0, MASKED_LOGIT))
    assert bool((ours.probs[legal.ne(0)] > 0).all())
    assert bool((ours.probs[(legal == 0) & some.unsqueeze(-1)] == 0).all())
    torch.testing.assert_close(ours.probs, theirs.probs)
    torch.testing.assert_close(ours.log_prob(actions)[some], theirs.log_prob(actions)[some])
    torch.testing.assert_close(ours.entropy()[some], theirs.entropy()[some])
    assert float(ours.entropy()[1, 1].detach()) == 0.0
    weights = torch.randn(6, 5, generator=gen)
    for make in (lambda d: d.log_prob(actions), lambda d: d.entropy()):
        (g_ours,) = torch.autograd.grad((make(ours) * weights)[some].sum(), raw, retain_graph=True)
        (g_theirs,) = torch.autograd.grad((make(theirs) * weights)[some].sum(), raw, retain_graph=True)
        torch.testing.assert_close(g_ours, g_theirs)
        assert bool((g_ours[legal == 0] == 0).all())
