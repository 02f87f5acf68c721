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


def _layer(inp: int, out: int, gain: float = 2**0.5) -> nn.Linear:
    layer = nn.Linear(inp, out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


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
        h, outs = h0, []
        for t in range(steps):
            h = h * (1.0 - done[t].float()).view(1, -1, 1)
            out, h = self.gru(x[t].unsqueeze(0), h)
            outs.append(out[0])
        return torch.stack(outs), h

    def heads(
        self, memory: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[Categorical, torch.Tensor]:
        logits = self.actor(memory).masked_fill(mask == 0, -1e9)
        critic_in = memory
        if self.state_encoder is not None:
            critic_in = torch.cat([memory, self.state_encoder(state.float() * (1.0 / 255.0))], dim=-1)
        return Categorical(logits=logits), self.critic(critic_in).squeeze(-1)

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
