"""The recurrent, masked actor-critic shared by every seat.

Observations are egocentric, so one set of weights plays any seat. A GRU over ticks gives the
policy the memory that decoding needs (the channel shows a sign once per 5 s; exchanges are
seen once). Illegal actions get a logit of -1e9 before the softmax: they are never sampled and
carry no gradient.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.distributions import Categorical

from baselines.features import PAIR_DIM, ObsFeatures
from baselines.gru_kernel import CompiledGRU
from quatro_env.quatro.actions import ActionCodec, ActionKind

#: the networks a config's (or a policy file's) ``arch`` names
ARCHS = ("flat", "structured", "ledger")
#: the logit of an illegal action: its probability is exactly 0 and it gets no gradient
MASKED_LOGIT = -1e9


class MaskedCategorical(Categorical):
    """The policy's distribution over legal actions, built without exponentiating the illegal ones.

    The same distribution as ``Categorical(logits=logits.masked_fill(~legal, MASKED_LOGIT))``: ``logits``
    normalised (an illegal action's is ``MASKED_LOGIT``), ``probs`` exactly 0 for an illegal action, no
    gradient through it. Why: ``exp`` of a number below ~-87 underflows, and the CPU's vectorised exp
    takes a slow path on underflow (0.86 ms against 0.08 for a ``[64, 20, 74]`` tensor); the update
    exponentiates its logits three times a minibatch (issue #17). A row with no legal action (never
    dealt by the engine) is uniform over all actions, as the masked logits made it.
    """

    def __init__(self, logits: torch.Tensor, legal: torch.Tensor) -> None:
        legal = legal.ne(0)
        top = logits.detach().masked_fill(~legal, float("-inf")).amax(-1, keepdim=True)
        shifted = torch.where(legal, logits - top, 0.0)  # illegal: exp(0), then weighed by 0
        counted = legal | ~legal.any(-1, keepdim=True)  # a row with nothing legal: all, equal
        weight = shifted.exp() * counted
        total = weight.sum(-1, keepdim=True)
        self.probs = weight / total
        self.logits = torch.where(counted, shifted - total.log(), MASKED_LOGIT)
        self._param, self._num_events = self.logits, logits.shape[-1]
        torch.distributions.Distribution.__init__(self, logits.shape[:-1], validate_args=False)


def _layer(inp: int, out: int, gain: float = 2**0.5) -> nn.Linear:
    layer = nn.Linear(inp, out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def recur(
    gru: nn.GRU, x: torch.Tensor, done: torch.Tensor, h0: torch.Tensor, compiled: bool | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """A GRU over ``[T, N, features]`` ticks, its memory cleared where an episode starts
    (``done[t]``: before tick t); returns the outputs ``[T, N, hidden]`` and the last memory.

    The equations of ``nn.GRU`` (one layer, its own weights), written out so that the input half of
    every gate is one matrix product over all ticks and only ``h @ W_hh`` stays in the loop. Over many
    ticks on the CPU (``compiled`` None) the ticks run in compiled loops (``gru_kernel.py``: a tick's
    ~40 tensor operations cost more in dispatch than in arithmetic); one tick (the rollout's step: the
    compiled call's own overhead, ~0.3 ms, is twice torch's ~0.15), a GPU, or ``compiled=False`` run
    them in torch, walked with ``unbind`` (indexing ``x[t]`` made backward zero-fill and add the whole
    ``[T, N, H]`` gradient once per tick).
    """
    steps, batch = x.shape[:2]
    gates_x = nn.functional.linear(x.reshape(steps * batch, -1), gru.weight_ih_l0, gru.bias_ih_l0)
    if compiled if compiled is not None else (x.device.type == "cpu" and steps > 1):
        keep = (~done).to(x.dtype)
        args = (gates_x.view(steps, batch, -1), keep, h0[0], gru.weight_hh_l0, gru.bias_hh_l0)
        out, last = CompiledGRU.apply(*args)
        return out, last.unsqueeze(0)
    keep = (~done).to(x.dtype).unsqueeze(-1)  # [T, N, 1]
    h, outs = h0[0], []
    w_hh, b_hh = gru.weight_hh_l0, gru.bias_hh_l0
    for gx, k in zip(gates_x.view(steps, batch, -1).unbind(0), keep.unbind(0), strict=True):
        h = h * k
        xr, xz, xn = gx.chunk(3, dim=-1)
        hr, hz, hn = nn.functional.linear(h, w_hh, b_hh).chunk(3, dim=-1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        h = n + z * (h - n)  # (1 - z) * n + z * h
        outs.append(h)
    return torch.stack(outs), h.unsqueeze(0)


class RecurrentActorCritic(nn.Module):
    def __init__(
        self, obs_dim: int, num_actions: int, hidden: int = 256, rnn: int = 128, state_dim: int | None = None
    ) -> None:
        super().__init__()
        self.obs_dim, self.num_actions, self.rnn_size = obs_dim, num_actions, rnn
        self.encoder = nn.Sequential(_layer(obs_dim, hidden), nn.ReLU(), _layer(hidden, hidden), nn.ReLU())
        self.gru = nn.GRU(hidden, rnn)
        for name, param in self.gru.named_parameters():
            if "weight" in name:
                nn.init.orthogonal_(param)
            else:
                nn.init.zeros_(param)
        self.actor = _layer(rnn, num_actions, gain=0.01)
        critic_in = rnn + (hidden if state_dim else 0)
        self.state_encoder = nn.Sequential(_layer(state_dim, hidden), nn.ReLU()) if state_dim else None
        self.critic = nn.Sequential(_layer(critic_in, hidden), nn.ReLU(), _layer(hidden, 1, gain=1.0))

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> torch.Tensor:
        return torch.zeros(1, batch, self.rnn_size, device=device)

    def _features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(obs.float() * (1.0 / 255.0) if obs.dtype == torch.uint8 else obs.float())

    def unroll(
        self, obs: torch.Tensor, done: torch.Tensor, h0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the GRU over ``[T, N, ...]`` observations; ``done[t]`` resets the memory before step t."""
        steps, batch = obs.shape[:2]
        x = self._features(obs.reshape(steps * batch, -1)).reshape(steps, batch, -1)
        return self._recur(x, done, h0)

    def _recur(
        self, x: torch.Tensor, done: torch.Tensor, h0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return recur(self.gru, x, done, h0)

    def heads(
        self, memory: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[Categorical, torch.Tensor | None]:
        dist = MaskedCategorical(self.actor(memory), mask)
        critic_in = memory
        if self.state_encoder is not None:
            if state is None:  # a seat played alone: the actor only (the central value needs the table)
                return dist, None
            critic_in = torch.cat([memory, self.state_encoder(state.float() * (1.0 / 255.0))], dim=-1)
        return dist, self.critic(critic_in).squeeze(-1)

    @torch.no_grad()
    def act(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        done: torch.Tensor,
        h: torch.Tensor,
        state: torch.Tensor | None = None,
        greedy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """One tick for ``N`` seats: returns (action, log-prob, value, new memory)."""
        memory, h = self.unroll(obs.unsqueeze(0), done.unsqueeze(0), h)
        dist, value = self.heads(memory[0], mask, state)
        action = dist.probs.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), value, h


class StructuredActorCritic(RecurrentActorCritic):
    """The recurrent actor-critic with the game's structure built into its heads (``arch: structured``).

    Same trunk (MLP → GRU, now also fed :class:`~baselines.features.ObsFeatures`' table features),
    plus three inductive biases, each a shortcut to a fact the flat network had to discover:

    * **exchanges** are scored by one small network shared by all 16 ``(hand slot, center slot)``
      swaps, from count features of the given and the taken value and the memory — so learning
      "give what I hold least, take what I collect" for one value holds for every value;
    * **emojis**: the logit of showing emoji ``e`` gets learned, memory-dependent weights on "``e`` is
      our sign" and "``e`` is what I show now" (a pointer), so "show the sign" is one weight, not 24;
    * **calls and floor gestures** see the table features directly (a linear skip): "partner's
      last pulse is our sign" → «Quatro» needs no memory at all.

    ``unroll`` returns the GRU output with this tick's parsed features appended; ``heads`` splits them.
    """

    #: score the exchanges of every row, not only where one is legal (the same distribution, more work:
    #: what ``scripts/bench_update.py``'s ``all_pairs`` times and the equality test compares against)
    score_every_pair = False

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: int = 256,
        rnn: int = 128,
        state_dim: int | None = None,
        num_players: int = 4,
    ) -> None:
        feats = ObsFeatures(num_players)
        super().__init__(obs_dim + feats.table_dim, num_actions, hidden, rnn, state_dim)
        self.obs_dim = obs_dim
        self.features = feats
        codec = ActionCodec(num_players)
        self.exchange = codec.ranges[ActionKind.EXCHANGE]
        self.show = codec.ranges[ActionKind.SHOW_EMOJI]
        self.context = 32
        self.pair_context = _layer(rnn, self.context)
        self.pair_scorer = nn.Sequential(
            _layer(PAIR_DIM + self.context, 64), nn.ReLU(), _layer(64, 1, gain=0.1)
        )
        self.pointer = _layer(rnn + feats.table_dim, 2, gain=0.01)
        self.skip = _layer(feats.table_dim, num_actions, gain=0.01)
        self.critic = nn.Sequential(
            _layer(rnn + feats.table_dim + (hidden if state_dim else 0), hidden),
            nn.ReLU(),
            _layer(hidden, 1, gain=1.0),
        )
        self._sign = feats.sign
        self._emoji = feats.emoji

    def _parse(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        table, pairs = self.features(obs)
        o = obs.float()
        pointers = torch.stack([o[:, self._sign], o[:, self._emoji]], dim=1)  # [B, 2, e]
        return table, pairs, pointers

    def unroll(
        self, obs: torch.Tensor, done: torch.Tensor, h0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        steps, batch = obs.shape[:2]
        flat = obs.reshape(steps * batch, -1)
        table, pairs, pointers = self._parse(flat)
        x = torch.cat([flat.float() * (1.0 / 255.0), table], dim=-1)
        memory, h = self._recur(self.encoder(x).reshape(steps, batch, -1), done, h0)
        memory = memory.reshape(steps * batch, -1)
        parsed = torch.cat([memory, table, pairs.flatten(1), pointers.flatten(1)], dim=-1)
        return parsed.reshape(steps, batch, -1), h

    def _pair_logits(self, mem: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """``pair_scorer(cat([pair, context(mem)]))`` for the 16 pairs of each row, its first layer
        split: the context half once per row, not once per pair (the same sum, less work)."""
        first, rest = self.pair_scorer[0], self.pair_scorer[1:]
        w_pair, w_ctx = first.weight[:, :PAIR_DIM], first.weight[:, PAIR_DIM:]
        ctx = nn.functional.linear(self.pair_context(mem), w_ctx, first.bias)
        return rest(nn.functional.linear(pairs, w_pair) + ctx.unsqueeze(1)).squeeze(-1)

    def _legal_pair_logits(self, mem: torch.Tensor, pairs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """:meth:`_pair_logits` on the rows where some exchange is legal, 0 elsewhere. Those rows'
        exchange logits are masked to -1e9 anyway (probability 0, gradient 0), so the distribution and
        the loss are the same; the pair scorer's ``[rows, 16, 64]`` layer is most of the head's work,
        and an exchange is legal on a quarter to a third of the rows (Q13's cooldown, issue 17)."""
        if self.score_every_pair or mem.device.type != "cpu":  # finding the rows asks the host
            return self._pair_logits(mem, pairs)
        rows = legal.ne(0).any(-1).nonzero().squeeze(1)
        if rows.numel() == legal.shape[0]:
            return self._pair_logits(mem, pairs)
        out = mem.new_zeros(legal.shape[0], pairs.shape[1])
        return out.index_copy(
            0, rows, self._pair_logits(mem.index_select(0, rows), pairs.index_select(0, rows))
        )

    def heads(
        self, memory: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[Categorical, torch.Tensor | None]:
        lead = memory.shape[:-1]
        parsed = memory.reshape(-1, memory.shape[-1])
        r, f = self.rnn_size, self.features.table_dim
        # Only the memory carries gradient: the parsed features are functions of the observation
        # alone, and detached they cost backward no zero-filled [rows, width] gradient per slice.
        mem, features = parsed[:, :r], parsed[:, r:].detach()
        table = features[:, :f]
        pairs = features[:, f : f + 16 * PAIR_DIM].reshape(-1, 16, PAIR_DIM)
        pointers = features[:, f + 16 * PAIR_DIM :].reshape(parsed.shape[0], 2, -1)
        logits = self.actor(mem) + self.skip(table)
        ex = self.exchange
        pair_logits = self._legal_pair_logits(
            mem, pairs, mask.reshape(-1, mask.shape[-1])[:, ex.start : ex.stop]
        )
        weights = self.pointer(torch.cat([mem, table], dim=-1))  # [B, 2]
        emoji_logits = (weights.unsqueeze(-1) * pointers).sum(1)
        # an exchange's logit: one shared "exchange now" logit + the pair score (no per-slot biases:
        # slots carry no meaning, only their cards do)
        logits = torch.cat(
            [
                logits[:, : ex.start],
                logits[:, ex.start : ex.start + 1] + pair_logits,
                logits[:, ex.stop : self.show.start],
                logits[:, self.show.start : self.show.stop] + emoji_logits,
                logits[:, self.show.stop :],
            ],
            dim=-1,
        )
        dist = MaskedCategorical(logits.reshape(*lead, -1), mask)
        critic_in = torch.cat([mem, table], dim=-1)
        if self.state_encoder is not None:
            if state is None:  # a seat played alone: the actor only (the central value needs the table)
                return dist, None
            critic_in = torch.cat(
                [critic_in, self.state_encoder(state.reshape(-1, state.shape[-1]).float() / 255.0)], -1
            )
        value = self.critic(critic_in).reshape(lead)
        return dist, value


def build_model(
    arch: str,
    obs_dim: int,
    num_actions: int,
    hidden: int,
    rnn: int,
    state_dim: int | None = None,
    num_players: int = 4,
) -> RecurrentActorCritic:
    """The network named by a config's ``arch``: ``"flat"``, ``"structured"`` or ``"ledger"``."""
    if arch == "flat":
        return RecurrentActorCritic(obs_dim, num_actions, hidden, rnn, state_dim)
    if arch == "structured":
        return StructuredActorCritic(obs_dim, num_actions, hidden, rnn, state_dim, num_players)
    if arch == "ledger":  # structured + public exchange/pulse counts in memory (exchange_memory.py)
        from baselines.exchange_memory import LedgerActorCritic

        return LedgerActorCritic(obs_dim, num_actions, hidden, rnn, state_dim, num_players)
    raise ValueError(f"arch: one of {list(ARCHS)}, got {arch!r}")
