"""Parsed views of the egocentric observation for the structured policy (no learnable weights).

Why: the raw observation is a long one-hot vector, and the facts a good player acts on are
*relations* inside it — how many cards of a hand card's value I hold, whether a center card
matches what I collect, whether a seat's last pulse was my team's sign. An MLP can learn these
products only from many rare rewards; computing them here, from the seat's own observation
alone (nothing hidden is added, Q26–Q28), makes collecting and decoding learnable in minutes.

``ObsFeatures(n)(obs)`` returns

* ``table``: per-seat flags and counts, value-permutation invariant (sizes in ``table_dim``);
* ``pairs``: one row per exchange action ``(hand slot h, center slot c)`` in the codec's order,
  describing the swap by counts only (how many of the given / taken value I hold and see), so a
  single small network scores all 16 swaps and what it learns for one value holds for every value.
"""

from __future__ import annotations

import torch
from torch import nn

from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.encoding import ObservationEncoder

PAIR_DIM = 4 * 5 + 2  # four one-hot counts (0..4) + same value + the taken value is my best count


def _one_hot_count(counts: torch.Tensor) -> torch.Tensor:
    return nn.functional.one_hot(counts.long().clamp(0, 4), 5).float()


class ObsFeatures(nn.Module):
    """Structured features of egocentric Quatro observations for one player count."""

    def __init__(self, num_players: int) -> None:
        super().__init__()
        off = ObservationEncoder(num_players).offsets
        n, v, e = num_players, num_values(num_players), NUM_EMOJIS
        self.n, self.v = n, v

        def idx(name: str, size: int = 1) -> torch.Tensor:
            return torch.arange(off[name], off[name] + size)

        self.register_buffer("hand", idx("self.hand", 4 * v), persistent=False)
        self.register_buffer("center", idx("table.center", 4 * v), persistent=False)
        self.register_buffer("sign", idx("self.sign", e), persistent=False)
        self.register_buffer("emoji", idx("self.emoji", e), persistent=False)
        self.register_buffer("phase", idx("table.phase", 4), persistent=False)
        seats = range(n)
        self.register_buffer(
            "pulse", torch.stack([idx(f"seat[{r}].pulse_emoji", e) for r in seats]), persistent=False
        )
        for field in ("pulse_age", "floor", "took_floor", "exchanged", "released_floor"):
            self.register_buffer(
                field, torch.tensor([off[f"seat[{r}].{field}"] for r in seats]), persistent=False
            )
        # hand/center counts (2v) + best-count one-hot (5) + phase (4) + sign known, my emoji is sign
        # (2) + per seat: floor, took, released, exchanged, pulsed now, last pulse is our sign,
        # our sign pulsed now (7n)
        self.table_dim = 2 * v + 5 + 4 + 2 + 7 * n

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch = obs.shape[0]
        o = obs.float()
        hand = o[:, self.hand].view(batch, 4, self.v)
        center = o[:, self.center].view(batch, 4, self.v)
        hand_count, center_count = hand.sum(1), center.sum(1)
        best = hand_count.amax(-1)
        sign, emoji = o[:, self.sign], o[:, self.emoji]
        pulse = o[:, self.pulse]  # [B, n, e]
        age = o[:, self.pulse_age]
        pulsed_now = (age == 0).float() * pulse.sum(-1).clamp(max=1)
        is_sign = (pulse * sign.unsqueeze(1)).sum(-1)
        table = torch.cat(
            [
                hand_count / 4,
                center_count / 4,
                _one_hot_count(best),
                o[:, self.phase],
                sign.sum(-1, keepdim=True),
                (emoji * sign).sum(-1, keepdim=True),
                o[:, self.floor],
                o[:, self.took_floor],
                o[:, self.released_floor],
                o[:, self.exchanged],
                pulsed_now,
                is_sign,
                is_sign * pulsed_now,
            ],
            dim=-1,
        )
        # pair (h, c) in the codec's order 4h + c: counts of the given and the taken value
        give_mine = (hand * hand_count.unsqueeze(1)).sum(-1)  # [B, 4] my count of hand card h's value
        give_seen = (hand * center_count.unsqueeze(1)).sum(-1)
        take_mine = (center * hand_count.unsqueeze(1)).sum(-1)  # [B, 4] my count of center card c's value
        take_seen = (center * center_count.unsqueeze(1)).sum(-1)
        same = torch.einsum("bhv,bcv->bhc", hand, center)
        take_best = (take_mine == best.unsqueeze(1)).float() * (best.unsqueeze(1) > 0).float()
        pairs = torch.cat(
            [
                _one_hot_count(give_mine).unsqueeze(2).expand(-1, 4, 4, 5),
                _one_hot_count(give_seen).unsqueeze(2).expand(-1, 4, 4, 5),
                _one_hot_count(take_mine).unsqueeze(1).expand(-1, 4, 4, 5),
                _one_hot_count(take_seen).unsqueeze(1).expand(-1, 4, 4, 5),
                same.unsqueeze(-1),
                take_best.unsqueeze(1).expand(-1, 4, 4).unsqueeze(-1),
            ],
            dim=-1,
        ).reshape(batch, 16, PAIR_DIM)
        return table, pairs
