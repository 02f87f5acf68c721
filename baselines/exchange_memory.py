"""Public exchange and channel memory for counter-decoding (``arch: ledger``; issue 19, item 2).

What the structured policy sees of the other seats (``baselines/features.py``): this tick's floor
gestures, each seat's *last* pulse and its age, and whether a seat exchanged this tick. The exchange's
taken and placed values (``seat[r].taken``/``placed``, Q27) and every earlier pulse reach it only
through the raw observation into its GRU, which must learn to count by itself, tick after tick, for
every seat and value. A counter-decoder needs exactly those counts: a seat that took three cards of
one value and gave none back is a quartet away; a seat that keeps showing one emoji is showing a sign.

:class:`ExchangeLedger` keeps them, as a deterministic recurrence over the seat's own observations
(nothing hidden enters: every input is a public field of ``seat[r]`` or ``table.phase``, Q26–Q28):

* ``net[r, v]``: cards of value ``v`` seat ``r`` took minus those it placed, this round;
* ``exchanges[r]``: exchanges seat ``r`` made this round;
* ``pulses[r, e]``: times seat ``r``'s pulse showed emoji ``e`` this round;

cleared when a new round deals (the sign phase), ``net`` when a reshuffle deals every hand again (Q20:
the reshuffle tick's own exchanges came before the re-deal, so it starts from nothing after that tick,
as the bots' counters and the yardstick's ``eval.readers.kept_copies`` do), a seat's row of ``net``
when its hand is replaced (Q5 notice), everything where an episode starts. Its features per seat, in
the observer's egocentric order, are value- and emoji-permutation invariant: the largest net count of
one value (one-hot 0..4), exchanges, pulses, distinct emojis shown, and the share of its pulses that
showed its last emoji.

:class:`LedgerActorCritic` is the structured network with the ledger in its recurrent state (the
trainer, the policy file and the harness carry it like the GRU memory: ``initial_state`` is just
wider) and its features added, through zero-initialised layers, to the trunk's input, the action
logits and the value: initialised from a structured policy it plays exactly as that policy.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.distributions import Categorical

from baselines.networks import MaskedCategorical, StructuredActorCritic
from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.encoding import ObservationEncoder

SIGN_PHASE = 0  # index of the sign phase in ``table.phase``: a new deal
FEATURES_PER_SEAT = 5 + 4


class ExchangeLedger(nn.Module):
    """Counts of public exchanges and pulses per seat over the round (no learnable weights)."""

    def __init__(self, num_players: int) -> None:
        super().__init__()
        off = ObservationEncoder(num_players).offsets
        n, v, e = num_players, num_values(num_players), NUM_EMOJIS
        self.n, self.v, self.e = n, v, e
        self.state_dim = n * (v + 1 + e)
        self.feature_dim = n * FEATURES_PER_SEAT

        def cols(field: str, size: int) -> torch.Tensor:
            return torch.stack(
                [torch.arange(off[f"seat[{r}].{field}"], off[f"seat[{r}].{field}"] + size) for r in range(n)]
            )

        self.register_buffer("taken", cols("taken", v), persistent=False)
        self.register_buffer("placed", cols("placed", v), persistent=False)
        self.register_buffer("pulse", cols("pulse_emoji", e), persistent=False)
        for field in ("exchanged", "pulse_age", "hand_replaced"):
            self.register_buffer(field, cols(field, 1).squeeze(1), persistent=False)
        self.register_buffer("deal", torch.tensor(off["table.phase"] + SIGN_PHASE), persistent=False)
        self.register_buffer("reshuffled", torch.tensor(off["table.reshuffled"]), persistent=False)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> torch.Tensor:
        return torch.zeros(batch, self.state_dim, device=device)

    def run(
        self, obs: torch.Tensor, done: torch.Tensor, state: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Over ``[T, B, D]`` observations (``done[t]``: an episode starts before tick t) from ``state``
        ``[B, state_dim]``: the features after each tick ``[T, B, feature_dim]`` and the last state."""
        steps, batch = obs.shape[:2]
        n, v, e = self.n, self.v, self.e
        o = obs.float()
        gain = (o[..., self.taken] - o[..., self.placed]).reshape(steps, batch, n, v)
        exchanged = o[..., self.exchanged]  # [T, B, n]
        pulse = o[..., self.pulse]  # [T, B, n, e]
        pulsed = pulse * ((o[..., self.pulse_age] == 0).float().unsqueeze(-1))
        keep_round = 1.0 - o[..., self.deal].reshape(steps, batch, 1, 1)
        keep_hand = 1.0 - o[..., self.hand_replaced].unsqueeze(-1)
        keep_cards = 1.0 - o[..., self.reshuffled].reshape(steps, batch, 1, 1)  # Q20: every hand dealt again
        episode = (~done).float().reshape(steps, batch, 1, 1)
        net, count, shown = state.reshape(batch, n, v + 1 + e).split((v, 1, e), dim=-1)
        feats = []
        for t in range(steps):
            keep = episode[t] * keep_round[t]
            net = ((net * keep * keep_hand[t]) + gain[t]) * keep_cards[t]
            count = count * keep + exchanged[t].unsqueeze(-1)
            shown = shown * keep + pulsed[t]
            feats.append(self.features(net, count, shown, pulse[t]))
        last = torch.cat([net, count, shown], dim=-1).reshape(batch, -1)
        return torch.stack(feats), last

    @staticmethod
    def features(
        net: torch.Tensor, count: torch.Tensor, shown: torch.Tensor, last: torch.Tensor
    ) -> torch.Tensor:
        """Per seat: one-hot of its largest net count of one value (0..4), exchanges / 8, pulses / 8,
        distinct emojis shown / 8 (each clipped to 1), share of its pulses showing its last emoji."""
        best = nn.functional.one_hot(net.amax(-1).clamp(0, 4).long(), 5).float()
        pulses = shown.sum(-1, keepdim=True)
        distinct = (shown > 0).float().sum(-1, keepdim=True)
        repeat = (shown * last).sum(-1, keepdim=True) / pulses.clamp(min=1)
        per_seat = torch.cat(
            [best, (count / 8).clamp(max=1), (pulses / 8).clamp(max=1), (distinct / 8).clamp(max=1), repeat],
            -1,
        )
        return per_seat.flatten(-2)


def _zero(inp: int, out: int) -> nn.Linear:
    layer = nn.Linear(inp, out)
    nn.init.zeros_(layer.weight)
    nn.init.zeros_(layer.bias)
    return layer


class LedgerActorCritic(StructuredActorCritic):
    """``arch: ledger``: the structured network plus :class:`ExchangeLedger` in its memory."""

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: int = 256,
        rnn: int = 128,
        state_dim: int | None = None,
        num_players: int = 4,
    ) -> None:
        super().__init__(obs_dim, num_actions, hidden, rnn, state_dim, num_players)
        self.ledger = ExchangeLedger(num_players)
        dim = self.ledger.feature_dim
        self.ledger_in = _zero(dim, hidden)  # into the trunk's first layer (then the GRU)
        self.ledger_skip = _zero(dim, num_actions)  # straight to the logits («Contra» on a count)
        self.ledger_value = _zero(dim, 1)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> torch.Tensor:
        return torch.zeros(1, batch, self.rnn_size + self.ledger.state_dim, device=device)

    def unroll(
        self, obs: torch.Tensor, done: torch.Tensor, h0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        steps, batch = obs.shape[:2]
        r = self.rnn_size
        ledger, counts = self.ledger.run(obs, done, h0[0, :, r:])
        ledger = ledger.reshape(steps * batch, -1)
        flat = obs.reshape(steps * batch, -1)
        table, pairs, pointers = self._parse(flat)
        x = torch.cat([flat.float() * (1.0 / 255.0), table], dim=-1)
        trunk = self.encoder[1:](self.encoder[0](x) + self.ledger_in(ledger))
        memory, h = self._recur(trunk.reshape(steps, batch, -1), done, h0[..., :r].contiguous())
        memory = memory.reshape(steps * batch, -1)
        parsed = torch.cat([memory, table, pairs.flatten(1), pointers.flatten(1), ledger], dim=-1)
        return parsed.reshape(steps, batch, -1), torch.cat([h, counts.unsqueeze(0)], dim=-1)

    def heads(
        self, memory: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[Categorical, torch.Tensor | None]:
        dim = self.ledger.feature_dim
        ledger = memory[..., -dim:]
        dist, value = super().heads(memory[..., :-dim], mask, state)
        dist = MaskedCategorical(dist.logits + self.ledger_skip(ledger), mask)
        if value is None:  # a central critic's seat played alone (see StructuredActorCritic.heads)
            return dist, None
        return dist, value + self.ledger_value(ledger).squeeze(-1)
