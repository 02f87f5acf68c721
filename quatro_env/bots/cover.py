"""Reference codes that pin the secrecy scale (issue 18): ``cover`` (a secret code) and ``shout``
(its opposite, a code anyone can read).

Both collect like :class:`~quatro_env.bots.basic.CollectorBot` and mean the same thing by the team
sign ("I hold a quartet"); they differ only in what the channel looks like to someone without the key:

* **cover** — both members take the floor at the start of the round and keep it; every pulse (Q15:
  every ``pulse_seconds``) shows a fresh uniformly random emoji that is not the team sign, so the
  channel is a steady, memoryless stream. Holding a quartet, the member switches its emoji to the sign,
  which therefore appears at its *next regular pulse*: to an outsider that pulse looks like any other.
  The partner calls «Quatro» on it (after ``partner_delay`` ticks). With ``pulse_timing`` the member
  waits with the exchange that completes its quartet until the tick before its next pulse, so the
  quartet is held (and exposed to «Contra») for as few ticks as possible.
* **shout** — both members hold the floor *armed* (no emoji: nothing is shown, Q16) and the first emoji,
  the sign, pulses at once when a quartet forms: the fastest code there is, and any pulse means
  "quartet" to anyone.
"""

from __future__ import annotations

import numpy as np

from quatro_env.bots.signalling import HonestBot
from quatro_env.quatro.cards import NUM_EMOJIS
from quatro_env.quatro.config import QuatroConfig, to_ticks

NO_PULSE = 255  # the encoder's pulse_age before any pulse


class CoverBot(HonestBot):
    """Cover traffic on a fixed rhythm: the floor always held, a fresh random non-sign emoji at every
    pulse, the sign at the holder's next pulse once it holds a quartet (the partner calls on it).

    ``partner_delay``: ticks the partner waits after the sign's pulse before it calls (0 = the next
    tick). ``pulse_timing``: hold back the exchange that completes a quartet until the tick before the
    member's next pulse (the sign then pulses on the tick after the quartet forms).
    """

    partner_delay = 0
    pulse_timing = False

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        partner_delay: int | None = None,
        pulse_timing: bool | None = None,
    ) -> None:
        if partner_delay is not None:
            if isinstance(partner_delay, bool) or not isinstance(partner_delay, int) or partner_delay < 0:
                raise ValueError(f"partner_delay: a whole number of ticks >= 0, got {partner_delay!r}")
            self.partner_delay = partner_delay
        if pulse_timing is not None:
            if not isinstance(pulse_timing, bool):
                raise ValueError(f"pulse_timing: true or false, got {pulse_timing!r}")
            self.pulse_timing = pulse_timing
        # the rules' default period until two own pulses show the table's (the bot is told no config)
        self.default_period = to_ticks(QuatroConfig(num_players=num_players)).pulse
        super().__init__(num_players, seed)

    def new_round(self, obs: np.ndarray) -> None:
        super().new_round(obs)
        self.shown_since_choice = True  # the current emoji (none yet) has been pulsed: choose a fresh one
        self.period = getattr(self, "period", self.default_period)
        self._last_age: int | None = None

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        view = self.view
        sign = view.sign(obs)
        self._track_own_pulses(obs)
        if sign is None:
            return self.collect(obs, mask)
        p = view.partner
        emoji, age = view.pulse(obs, p)
        if emoji == sign and view.floor(obs, p) and age >= self.partner_delay and mask[self.A_QUATRO]:
            return self.A_QUATRO
        if not view.floor(obs, 0):
            return self.A_TAKE if mask[self.A_TAKE] else self.collect(obs, mask)
        mine = view.my_emoji(obs)
        if self.holds_quartet(obs):
            return self.A_SHOW0 + sign if mine != sign else 0
        if mine is None:
            return self._fresh_cover(sign)  # the first emoji after taking the floor starts the rhythm
        exchange = self.collect(obs, mask)
        if exchange and self.pulse_timing and not self._just_before_pulse(obs):
            exchange = 0  # every exchange on the beat, so the one that completes a quartet looks like any
        if exchange:
            return exchange
        return self._fresh_cover(sign) if self.shown_since_choice else 0

    # --- the rhythm
    def _track_own_pulses(self, obs: np.ndarray) -> None:
        """Note my own pulses (``pulse_age`` 0 = I pulsed in the tick just played) and the period."""
        _, age = self.view.pulse(obs, 0)
        if age == 0:
            self.shown_since_choice = True
            if self._last_age is not None and self._last_age != NO_PULSE:
                self.period = self._last_age + 1
        self._last_age = age

    def _just_before_pulse(self, obs: np.ndarray) -> bool:
        """My next pulse is at the end of the *next* tick (an exchange now, the sign then)."""
        _, age = self.view.pulse(obs, 0)
        return age != NO_PULSE and age + 2 == self.period

    def _completes(self, obs: np.ndarray) -> bool:
        """The exchange the collector would make now gives me a quartet (three held, the fourth shown)."""
        hand, center = self.view.hand(obs), self.view.center(obs)
        if len(hand) != 4:
            return False
        counts = np.bincount(hand, minlength=self.view.v)
        return any(counts[x] == 3 for x in center)

    def _fresh_cover(self, sign: int) -> int:
        self.shown_since_choice = False
        e = int(self.rng.integers(NUM_EMOJIS - 1))
        return self.A_SHOW0 + (e + 1 if e >= sign else e)


class ShoutBot(HonestBot):
    """The sign at once: the floor held armed (nothing shown, Q16) and the sign — the first emoji, which
    pulses immediately (Q15) — as soon as a quartet forms. Fast, and readable by anyone: a pulse is a
    quartet."""

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        view = self.view
        sign = view.sign(obs)
        if self.partner_shows_sign(obs, sign) and mask[self.A_QUATRO]:
            return self.A_QUATRO
        if sign is None:
            return self.collect(obs, mask)
        if self.holds_quartet(obs):
            return self.show_quartet(obs, mask, sign)
        if not view.floor(obs, 0) and mask[self.A_TAKE]:
            return self.A_TAKE
        return self.collect(obs, mask)
