"""A learned eavesdropper for training: it reads each team's public channel, and its success is a cost.

Why: the secrecy probe of the evaluation (``quatro_env.eval.probe``) asks whether an outsider can
tell from a team's channel that it holds a quartet. Game reward alone only punishes a leak when an
opponent *acts* on it («Contra!» in time); a policy that beats the scripted eavesdroppers may still
leak. With ``secrecy_coef > 0`` the trainer fits, next to the policy, two classifiers of "this team
holds a quartet now" on every play tick:

* the **eavesdropper**: a GRU over what an opponent sees of the team's channel (its two seats' floor,
  floor gestures, pulses and pulse ages) and of the round clock;
* the **clock reference**: the round clock alone (quartets form a few seconds into a round, so the
  clock predicts them without any channel; that part no policy can hide).

With ``eavesdropper_reads: public`` the eavesdropper also reads the team's exchanges (each seat's
taken and placed values, Q12/Q27) and, per seat, :class:`~baselines.exchange_memory.ExchangeLedger`'s
counts (the most copies of one value kept, exchanges, pulses): everything the evaluation's Eve reads
(``quatro_env.eval.secrecy``). Why: Q5 deals no triple, so every quartet holder has taken two copies
of its value in public; an eavesdropper of the channel alone cannot charge that tell, and the
evaluation's Eve reads it (docs/evaluation.md, "Eve reads the public collection").

With ``partner=True`` the same model is the team's **partner reader** (the evaluation's Bob, here
for the whole team): it reads everything above plus the team's own sign and, for each team seat,
whether its last pulse shows that sign (the key applied). ``secrecy_partner_coef`` pays the team for
what this reader gains over the clock, so with both coefficients equal the reward is the *gap*
between what the partner and an eavesdropper read (issue 19: "charge the leak beyond what a Bob reads").

The team's seats are charged ``secrecy_coef × leak`` per tick, where ``leak`` is the log-likelihood
the eavesdropper gains over the clock on the tick's true label — the information (in nats) the channel
gave away beyond the clock, as in adversarial representation learning (Ganin et al. 2016) or the
"private" signalling agents of Strouse et al. 2018, here with the decoder trained alongside rather than
through the policy's gradient. The eavesdropper reads only public fields of an opponent's observation
(Q27), never a hand.
"""

from __future__ import annotations

import torch
from torch import nn

from baselines.exchange_memory import FEATURES_PER_SEAT, ExchangeLedger
from baselines.networks import recur
from quatro_env.quatro.cards import NUM_EMOJIS
from quatro_env.quatro.encoding import ObservationEncoder

PLAY_PHASE = 1  # index of the play phase in ``table.phase`` (the channel exists only then, Q15)
SEAT_FIELDS = (("floor", 1), ("took_floor", 1), ("released_floor", 1), ("pulse_emoji", NUM_EMOJIS))
#: what ``reads="public"`` adds per team seat: the exchange's values and flags (Q12, Q27), all public
EXCHANGE_FIELDS = ("taken", "placed", "exchanged", "hand_replaced")
READS = ("channel", "public")
LEAK_CLIP = 3.0  # nats: one tick's leak is clipped to ±this, so a rare confident miss is not a huge reward


class ChannelEavesdropper(nn.Module):
    """Classifiers of "team holds a quartet" from an opponent's view of the team's channel (and, with
    ``reads="public"``, of its exchanges).

    ``view(obs)`` picks the inputs from observations ``[B, n, D]``: team ``k`` (seats ``k`` and
    ``k + n/2``) is seen through the observation of seat ``k + 1`` — an opponent at every player
    count — in whose egocentric frame the team's seats sit at offsets ``n - 1`` and ``n/2 - 1``.
    The clock comes last in a view (``playing`` and the clock reference read it there).
    """

    def __init__(
        self, num_players: int, hidden: int = 64, reads: str = "channel", partner: bool = False
    ) -> None:
        super().__init__()
        if reads not in READS:
            raise ValueError(f"eavesdropper_reads: one of {READS}, got {reads!r}")
        n, teams = num_players, num_players // 2
        self.n, self.num_teams, self.hidden, self.reads, self.partner = n, teams, hidden, reads, partner
        encoder = ObservationEncoder(n)
        off, size = encoder.offsets, dict(encoder.seat.fields)  # each seat field's start and width

        def cols(name: str, width: int) -> list[int]:
            return list(range(off[name], off[name] + width))

        self.seats = seats = (n - 1, teams - 1)  # the team's two seats, relative to the observer k + 1
        fields = [name for name, _ in SEAT_FIELDS] + (list(EXCHANGE_FIELDS) if reads == "public" else [])
        channel = [c for r in seats for name in fields for c in cols(f"seat[{r}].{name}", size[name])]
        self.register_buffer("channel", torch.tensor(channel), persistent=False)
        self.register_buffer(
            "age", torch.tensor([off[f"seat[{r}].pulse_age"] for r in seats]), persistent=False
        )
        pulses = [cols(f"seat[{r}].pulse_emoji", NUM_EMOJIS) for r in seats]
        self.register_buffer("pulse", torch.tensor(pulses), persistent=False)  # [2, emojis]
        self.register_buffer("emojis", torch.arange(NUM_EMOJIS), persistent=False)
        self.register_buffer("phase", torch.tensor(cols("table.phase", 4)), persistent=False)
        self.register_buffer("left", torch.tensor([off["table.phase_left"]]), persistent=False)
        self.ledger = ExchangeLedger(n) if reads == "public" else None
        self.ledger_dim = 2 * FEATURES_PER_SEAT if reads == "public" else 0
        self.key_dim = NUM_EMOJIS + 2 if partner else 0  # the sign one-hot; each seat's pulse shows it
        self.clock_dim = 4 + 1
        # + per seat: pulsed now, pulse age; the ledger's features of the team's two seats; the key
        # (partner only); the clock
        self.input_dim = len(channel) + 2 * 2 + self.ledger_dim + self.key_dim + self.clock_dim
        self.gru = nn.GRU(self.input_dim, hidden)
        self.head = nn.Linear(hidden, 1)
        self.reference = nn.Sequential(nn.Linear(self.clock_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def initial_state(self, tables: int, device: torch.device | str = "cpu") -> torch.Tensor:
        return torch.zeros(1, tables * self.num_teams, self.hidden, device=device)

    def initial_ledger(self, tables: int, device: torch.device | str = "cpu") -> torch.Tensor:
        """The counts ``read_ledger`` carries, one row per (table, team); ``[0]``-wide when channel only."""
        width = 0 if self.ledger is None else self.ledger.state_dim
        return torch.zeros(tables * self.num_teams, width, device=device)

    def read_ledger(
        self, obs: torch.Tensor, done: torch.Tensor, state: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One tick of the observers' ledgers (``done [B]``: the table starts an episode with this
        tick): the team seats' features ``[B, teams, ledger_dim]`` and the new ``state``."""
        tables, teams = obs.shape[0], self.num_teams
        observer = obs[:, 1 : teams + 1].reshape(1, tables * teams, -1)
        feats, state = self.ledger.run(observer, done.repeat_interleave(teams)[None], state)
        per_seat = feats.reshape(tables, teams, self.n, FEATURES_PER_SEAT)[:, :, list(self.seats)]
        return per_seat.flatten(-2), state

    def view(
        self, obs: torch.Tensor, ledger: torch.Tensor | None = None, signs: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``[B, n, D]`` observations → ``[B, teams, input_dim]`` float inputs (public fields only);
        ``ledger``: :meth:`read_ledger`'s features of the same tick (``reads="public"`` only);
        ``signs``: ``[B, teams]`` each team's sign, -1 before it is fixed (``partner=True`` only: the
        only private input, and the team's own)."""
        if (ledger is None) != (self.ledger is None):
            raise ValueError(
                f"view: the ledger's features go with reads='public' (this one reads {self.reads!r})"
            )
        if (signs is None) == self.partner:
            raise ValueError("view: the team signs go with the partner reader, and only with it")
        observer = obs[:, 1 : self.num_teams + 1].float()  # seat k + 1 watches team k
        age = observer[..., self.age]
        pulsed_now = (age == 0).float()
        clock = torch.cat([observer[..., self.phase], observer[..., self.left] / 255.0], dim=-1)
        extra = [] if ledger is None else [ledger]
        if signs is not None:
            sign = (signs.long().unsqueeze(-1) == self.emojis).float()
            shows = (observer[..., self.pulse] > 0).float()  # [B, teams, 2, emojis]: each seat's last pulse
            extra += [sign, (shows * sign.unsqueeze(-2)).sum(-1)]
        return torch.cat([observer[..., self.channel], pulsed_now, age / 255.0, *extra, clock], dim=-1)

    def playing(self, view: torch.Tensor) -> torch.Tensor:
        """Which rows are play ticks (the only ticks that are scored): the clock, last in the view,
        starts with the phase one-hot."""
        return view[..., self.input_dim - self.clock_dim + PLAY_PHASE] > 0

    def forward(
        self, views: torch.Tensor, done: torch.Tensor, h0: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``views [T, B, teams, F]``, ``done [T, B]`` (memory cleared before tick t) → eavesdropper
        and clock logits ``[T, B, teams]`` and the last memory."""
        steps, tables, teams, _ = views.shape
        x = views.reshape(steps, tables * teams, -1)
        memory, h = recur(self.gru, x, done.repeat_interleave(teams, dim=1), h0)
        logits = self.head(memory).reshape(steps, tables, teams)
        clock = self.reference(views[..., -self.clock_dim :]).squeeze(-1)
        return logits, clock, h

    @staticmethod
    def leak(logits: torch.Tensor, clock: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        """Nats the eavesdropper gains over the clock on the true label (per row, clipped)."""
        bce = nn.functional.binary_cross_entropy_with_logits
        gain = bce(clock, label, reduction="none") - bce(logits, label, reduction="none")
        return gain.clamp(-LEAK_CLIP, LEAK_CLIP)

    def loss(
        self, views: torch.Tensor, done: torch.Tensor, h0: torch.Tensor, label: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Mean BCE of both classifiers on the play ticks of a rollout (for their optimiser), and
        each one's BCE alone (logged: their difference is the channel's leak in nats per tick)."""
        logits, clock, _ = self(views, done, h0)
        play = self.playing(views).float()
        rows = play.sum().clamp(min=1.0)
        bce = nn.functional.binary_cross_entropy_with_logits
        eaves = (bce(logits, label, reduction="none") * play).sum() / rows
        ref = (bce(clock, label, reduction="none") * play).sum() / rows
        return eaves + ref, eaves.detach(), ref.detach()
