"""Bots that talk to their partner: ``honest`` (the sign means "I hold a quartet"), ``decoy``
(the same meaning, hidden in a constant stream of cover emojis) and ``listener`` (only hears it)."""

from __future__ import annotations

import numpy as np

from quatro_env.bots.basic import CollectorBot
from quatro_env.common.strict import as_real
from quatro_env.quatro.cards import NUM_EMOJIS


class HonestBot(CollectorBot):
    """Collector + the plainest code: the floor and the team sign *only* while holding a quartet.

    Each play tick, first match wins:

    1. «Quatro» if the partner holds the floor and its last pulse showed our team sign (Q18: the
       call is judged on the partner's hand). If our own hand is a quartet too, the call is held back
       once (Q18 reminder) and repeated on the next tick, which goes through;
    2. (subclasses: a call read from the opponents, :meth:`listen`);
    3. holding a quartet: take the floor, then show the sign (the first emoji pulses at once, Q15);
    4. collect (:class:`CollectorBot`) if there is an exchange to make;
    5. otherwise channel housekeeping: not holding a quartet, release the floor if held.

    The partner therefore calls on the tick after the sign's first pulse, i.e. well within two pulses.
    """

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        sign = self.view.sign(obs)
        listened = self.listen(obs, sign)
        if self.partner_shows_sign(obs, sign) and mask[self.A_QUATRO]:
            return self.A_QUATRO
        if listened is not None:
            return listened
        if sign is None:
            return self.collect(obs, mask)
        if self.holds_quartet(obs):
            return self.show_quartet(obs, mask, sign)
        return self.collect(obs, mask) or self.housekeeping(obs, mask, sign)

    def listen(self, obs: np.ndarray, sign: int | None) -> int | None:
        """Opponent-reading hook (eavesdropper, counter): an action to play now, or None."""
        return None

    def holds_quartet(self, obs: np.ndarray) -> bool:
        hand = self.view.hand(obs)
        return len(hand) == 4 and hand.count(hand[0]) == 4

    def partner_shows_sign(self, obs: np.ndarray, sign: int | None) -> bool:
        p = self.view.partner
        emoji, _ = self.view.pulse(obs, p)
        return sign is not None and emoji == sign and self.view.floor(obs, p)

    def show_quartet(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        """Holding a quartet: get the sign on the channel (take the floor, then show it)."""
        if not self.view.floor(obs, 0):
            return self.A_TAKE if mask[self.A_TAKE] else 0
        return self.A_SHOW0 + sign if self.view.my_emoji(obs) != sign else 0

    def housekeeping(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        """Channel gestures while not holding a quartet, on ticks with no exchange to make."""
        if self.view.floor(obs, 0) and mask[self.A_RELEASE]:
            return self.A_RELEASE
        return 0


class DecoyBot(HonestBot):
    """Like honest, but the floor is never quiet: cover traffic makes the sign one emoji among many.

    Each member runs the same channel cycle all round long (Q15–Q17):

    * **take** the floor as soon as the gesture cooldown allows; holding it with no emoji chosen
      shows nothing (Q16) — the seat is *armed*: its first emoji will pulse at once;
    * armed and not holding a quartet, it shows a **cover** emoji with probability ``cover_rate``
      per tick (uniform over the 23 emojis that are not the team sign; the wait is geometric, so
      *when* an emoji appears says nothing);
    * once an emoji is up, it **releases** the floor as soon as the cooldown allows, and the cycle
      starts again;
    * holding a quartet: armed → it shows the team sign (pulses at once); a cover is up → it
      releases, re-takes and shows the sign (about five ticks).

    The partner decodes by the key, as honest: «Quatro» when the partner's last pulse is the team
    sign. To an outsider who does not know the sign, both members always hold or re-take the floor
    and show a random emoji at random times, with or without a quartet. The price: a quartet that
    forms while a cover is up waits for the release and re-take (mean signal delay a few ticks more
    than honest's).
    """

    cover_rate = 0.125

    def __init__(self, num_players: int, seed: int | None = None, cover_rate: float | None = None) -> None:
        if cover_rate is not None:
            if not 0 < as_real(cover_rate, "cover_rate") <= 1:
                raise ValueError(f"cover_rate: must lie in (0, 1], got {cover_rate}")
            self.cover_rate = float(cover_rate)
        super().__init__(num_players, seed)

    def show_quartet(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        if not self.view.floor(obs, 0):
            return self.A_TAKE if mask[self.A_TAKE] else 0
        mine = self.view.my_emoji(obs)
        if mine is None:
            return self.A_SHOW0 + sign  # armed: the first emoji pulses at once
        if mine == sign:
            return 0
        return self.A_RELEASE if mask[self.A_RELEASE] else 0  # a cover is up: release, re-take, show

    def housekeeping(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        if not self.view.floor(obs, 0):
            return self.A_TAKE if mask[self.A_TAKE] else 0
        mine = self.view.my_emoji(obs)
        if mine is None:
            if self.rng.random() < self.cover_rate:
                return self.A_SHOW0 + self.cover(sign)
            return 0
        return self.A_RELEASE if mask[self.A_RELEASE] else 0

    def cover(self, sign: int) -> int:
        """A uniformly random emoji other than the sign."""
        e = int(self.rng.integers(NUM_EMOJIS - 1))
        return e + 1 if e >= sign else e


class ListenerBot(HonestBot):
    """Only listens: «Quatro» when the partner shows the team sign (as honest does); otherwise no-op.

    A training partner, not a player: it never exchanges, signals or accuses, so the only way its
    team scores is that *its partner* collects a quartet and shows the sign. A learner partnered
    with it therefore cannot wait for the bot's own quartet (as it can with ``honest``) and must learn
    to signal (``docs/ppo.md``).
    """

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.partner_shows_sign(obs, self.view.sign(obs)) and mask[self.A_QUATRO]:
            return self.A_QUATRO
        return 0
