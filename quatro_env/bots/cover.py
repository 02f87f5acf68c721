"""Reference codes that pin the secrecy scale (issue 18): ``cover`` (a secret code) and ``shout``
(its opposite, a code anyone can read).

Both collect like :class:`~quatro_env.bots.basic.CollectorBot` and mean the same thing by the team
sign ("I hold a quartet"); they differ only in what the channel looks like to someone without the key:

* **cover** — both members take the floor at the start of the round and keep it; every pulse (Q15:
  every ``pulse_seconds``) shows a fresh uniformly random emoji that is not the team sign, so the
  channel is a steady, memoryless stream; and each member makes exactly one exchange per pulse, in the
  pulse's tick, whatever it holds. The exchange that completes a quartet is one of these beats and
  its pulse shows the sign: to an outsider that tick looks like any other beat. The partner calls
  «Quatro» on it (after ``partner_delay`` ticks).
* **shout** — both members hold the floor *armed* (no emoji: nothing is shown, Q16) and the first emoji,
  the sign, pulses at once when a quartet forms: the fastest code there is, and any pulse means
  "quartet" to anyone.
"""

from __future__ import annotations

import numpy as np

from quatro_env.bots.signalling import HonestBot
from quatro_env.quatro.cards import NUM_EMOJIS
from quatro_env.quatro.config import QuatroConfig, to_ticks
from quatro_env.quatro.encoding import NO_PULSE_AGE as NO_PULSE

#: the three ways to split the center's four slots into two pairs
PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


def split_key(low: int, high: int, sign: int) -> int:
    """Which of the six splits :func:`keyed_split` picks: a hash of the two emojis, shifted by the sign
    (plain integer arithmetic, so the compiled cover row runs this very function)."""
    mix = (low * NUM_EMOJIS + high) * 2654435761 % 2**32 >> 16
    return (mix + sign) % 6


def keyed_split(low: int, high: int, sign: int | None) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two halves of the center for one beat, (the lower emoji's, the higher's), one of six.

    Both members know the two last pulse emojis (public) and the team sign (the key), so they agree on
    it; an opponent does not know the sign, and over the 24 signs each of the six splits comes out
    four times, so the emojis alone say nothing of whose half a slot is. The emojis pick the split
    through a hash, the sign shifts it: learning the shift from the exchanges would tell an opponent
    the sign modulo 6 at most, not the sign."""
    k = split_key(low, high, sign or 0)
    first, second = PAIRINGS[k // 2]
    return (first, second) if k % 2 else (second, first)


class CoverBot(HonestBot):
    """Cover traffic on a fixed rhythm, in the channel *and* in the exchanges.

    Both members take the floor at the start of the round and keep it; every pulse (Q15) shows a fresh
    uniformly random emoji that is not the team sign. With ``beat`` (the default) the member also
    exchanges on a fixed public schedule whatever it holds: exactly one exchange per pulse, in the
    pulse's own tick (the collector's exchange when the center offers its target, otherwise a neutral
    swap that keeps its collection), and none in between. The exchange that completes a quartet is
    therefore one beat among the others; the emoji for that pulse, chosen the tick before, is the sign
    (the member sees the center then), so the sign shows in the very tick the quartet forms. The partner
    calls «Quatro» on a sign pulse that came with an exchange of the member (a rejected exchange, Q14,
    leaves the sign without a quartet and no call) after ``partner_delay`` ticks.

    Why: a holder cannot exchange without breaking its quartet (all four copies are in its hand), so a
    collector that exchanges whenever it can shows a holder by its silence, and the tick after a
    completing exchange is the only tick most quartets are held (opponents read the exchanges). On the
    beat, every member exchanges on the same ticks and is silent on the same ticks.

    ``split`` (an option, measured in docs/evaluation.md): every exchange but the completing one takes from
    the member's half of the center, the halves drawn each beat from the two last pulse emojis and the team
    sign (:func:`keyed_split`), and neutral swaps avoid the values the partner and the opponents have been
    taking since the last deal (a reshuffle's re-deal starts the count afresh). It cuts the beats a member
    misses because a swap earlier in the tick took its slot (Q14; a completing exchange never misses, so a
    miss marks a certain non-holder) from 16 % to 6 %, and with them what Eve reads from the resolution
    order (0.65 to 0.58 on 600 matches); what she reads from the values exchanged (0.74) it leaves as it
    was.

    ``beat=False`` is the channel-only cover (exchanges whenever the collector has one; the sign at the
    holder's *next* pulse), kept to measure what the exchange cover buys; its ``pulse_timing`` holds
    back every exchange until the tick before the member's next pulse, so the one that completes a
    quartet looks like any other.

    The beat needs a pulse period of at least 3 ticks (the tick before a pulse arms the sign) and an
    exchange cooldown no longer than the period. At a 1-tick period (``pulse_seconds`` equal to the
    tick) it never completes a quartet and shows one emoji all round; at 2 ticks against the default
    4-tick cooldown it misses beats and some sign pulses come without a quartet. Use ``beat=False``
    on such tables.
    """

    partner_delay = 0
    pulse_timing = False
    beat = True
    beats = 2
    split = False

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        partner_delay: int | None = None,
        pulse_timing: bool | None = None,
        beat: bool | None = None,
        beats: int | None = None,
        split: bool | None = None,
    ) -> None:
        if beats is not None:
            if isinstance(beats, bool) or not isinstance(beats, int) or beats < 1:
                raise ValueError(f"beats: a whole number of exchanges per pulse >= 1, got {beats!r}")
            self.beats = beats
        if partner_delay is not None:
            if isinstance(partner_delay, bool) or not isinstance(partner_delay, int) or partner_delay < 0:
                raise ValueError(f"partner_delay: a whole number of ticks >= 0, got {partner_delay!r}")
            self.partner_delay = partner_delay
        for name, value in (("pulse_timing", pulse_timing), ("beat", beat), ("split", split)):
            if value is not None:
                if not isinstance(value, bool):
                    raise ValueError(f"{name}: true or false, got {value!r}")
                setattr(self, name, value)
        # the rules' default period until two own pulses show the table's (the bot is told no config)
        self.default_period = to_ticks(QuatroConfig(num_players=num_players)).pulse
        super().__init__(num_players, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.period = self.default_period  # a match learns its table's period afresh (same seed, same play)

    def new_round(self, obs: np.ndarray) -> None:
        super().new_round(obs)
        self.shown_since_choice = True  # the current emoji (none yet) has been pulsed: choose a fresh one
        self._last_age: int | None = None
        self.call_due: int | None = None  # beat: the tick (of the round) to call «Quatro» from
        # split: per seat, the values it took less those it placed this round (public, Q12)
        self.kept = np.zeros((self.view.n, self.view.v), np.int64)
        self._lower: bool | None = None  # my last pulse showed the lower emoji of the two (the split)
        self._split: tuple[tuple[int, int], tuple[int, int]] | None = None

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        sign = self.view.sign(obs)
        self._track_own_pulses(obs)
        if self.split:  # only the split's neutral swaps read the counts
            self._track_exchanges(obs)
        if sign is None:
            return self.collect(obs, mask)
        return self._play_beat(obs, mask, sign) if self.beat else self._play_channel(obs, mask, sign)

    # --- beat: one exchange per pulse, in the pulse's tick
    def _play_beat(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        view, p = self.view, self.view.partner
        emoji, age = view.pulse(obs, p)
        if self.call_due is None and age == 0 and emoji == sign and view.exchange(obs, p) is not None:
            self.call_due = self.tick_in_round + self.partner_delay
        if self.call_due is not None and self.tick_in_round >= self.call_due and mask[self.A_QUATRO]:
            return self.A_QUATRO  # held back once if I hold a quartet too (Q18), repeated next tick
        if not view.floor(obs, 0):
            return self.A_TAKE if mask[self.A_TAKE] else 0
        mine = view.my_emoji(obs)
        if self.holds_quartet(obs):
            return self.A_SHOW0 + sign if mine != sign else 0  # quiet: the partner calls
        if mine is None:
            return self._fresh_cover(sign)  # the first emoji after taking the floor starts the rhythm
        _, my_age = view.pulse(obs, 0)
        if my_age == NO_PULSE:
            return 0
        if my_age + 2 == self.period:  # the tick before my pulse: arm the sign if the beat completes
            if self._completes(obs):
                return self.A_SHOW0 + sign if mine != sign else 0
            return self._fresh_cover(sign) if mine == sign or self.shown_since_choice else 0
        if my_age + 1 == self.period:  # my pulse's tick: the beat's exchange
            if mine == sign and not self._completes(obs):
                return self._fresh_cover(sign)  # the fourth card went: no sign, no quartet
            return self._beat_exchange(obs, mask, complete=mine == sign)
        if my_age + 1 in self._off_beats():  # a beat between pulses: never the completing exchange
            return self._beat_exchange(obs, mask, complete=False)
        return 0

    def on_reshuffle(self, obs: np.ndarray) -> None:
        self.kept[:] = 0  # every hand was re-dealt (Q20): what a seat kept is gone

    def _track_exchanges(self, obs: np.ndarray) -> None:
        """Count, per seat, the values it took less those it placed this round (public, Q12); a
        reshuffle tick's exchanges all came before its re-deal (Q20), so they are not counted."""
        if self.view.reshuffled(obs):
            return
        for r in range(len(self.kept)):
            exchange = self.view.exchange(obs, r)
            if exchange is not None:
                self.kept[r, exchange[0]] += 1
                self.kept[r, exchange[1]] -= 1

    def _off_beats(self) -> set[int]:
        """Ticks since my last pulse (+1) of the beats between two pulses, evenly spaced."""
        return {self.period * j // self.beats for j in range(1, self.beats)}

    def _beat_exchange(self, obs: np.ndarray, mask: np.ndarray, complete: bool) -> int:
        """The collector's exchange if it is allowed to complete (or does not), else a neutral swap."""
        if not mask[self.A_EXCHANGE0]:
            return 0
        if complete or not self._completes(obs):
            action = self.collect(obs, mask)
            if not complete:  # the completing exchange takes the fourth card wherever it lies
                action = self._in_my_half(obs, action)
            if action:
                return action
        return self._neutral_exchange(obs)

    def _in_my_half(self, obs: np.ndarray, action: int) -> int:
        """With ``split``: ``action`` (an exchange or 0) moved to a slot of my half that shows the same
        value, or 0 if none does (the partner's half is its own this beat)."""
        if not action or not self.split:
            return action
        give, take = divmod(action - self.A_EXCHANGE0, 4)
        half = self._my_half(obs)
        if take in half:
            return action
        center = self.view.center(obs)
        same = [c for c in half if center[c] == center[take]]
        return self.exchange_action(give, same[0]) if same else 0

    def _neutral_exchange(self, obs: np.ndarray) -> int:
        """A swap that keeps my collection: give a card of a value I hold fewest of (never the target)
        and take a center card that is not the target, preferring one of a value I already hold."""
        hand, center = self.view.hand(obs), self.view.center(obs)
        if len(hand) != 4 or len(center) != 4:
            return 0
        counts = np.bincount(hand, minlength=self.view.v)
        target = self.target if self.target is not None else int(np.argmax(counts))
        takes = [c for c in range(4) if center[c] != target]
        gives = [h for h in range(4) if hand[h] != target]
        if not takes or not gives:
            return 0
        give = min(gives, key=lambda h: (counts[hand[h]], h))
        half = self._my_half(obs)
        if self.split:
            # first my half; then a value the partner has not been taking (its completing exchange,
            # which may lie in my half, takes the fourth copy of a value it took before: Q5 deals no
            # triple); then one no opponent has been taking (its exchange, earlier in the tick, would
            # refuse mine, Q14); then a value other than the one I give
            partner, others = self.kept[self.view.partner], np.delete(self.kept, [0, self.view.partner], 0)

            def rank(c: int) -> tuple[bool, bool, bool, bool]:
                x = center[c]
                return c not in half, partner[x] > 0, bool((others[:, x] > 0).any()), x == hand[give]

            best = min(map(rank, takes))
            takes = [c for c in takes if rank(c) == best]
        else:
            takes = [c for c in takes if center[c] != hand[give]] or takes
            takes = [c for c in takes if c in half] or takes
        return self.exchange_action(give, takes[int(self.rng.integers(len(takes)))])

    def _my_half(self, obs: np.ndarray) -> tuple[int, ...]:
        """The center slots my neutral swaps use this beat, the partner's the other two, so that the
        two members (who exchange in the same tick) do not reject each other's swap (Q14): the member
        whose last pulse showed the lower emoji takes slots 0-1. Both see both pulses (public), and the
        covers are random, so the split is common knowledge and changes every beat. With ``split`` the
        halves are keyed by the team sign (:func:`keyed_split`) and a tie keeps the last split."""
        mine, _ = self.view.pulse(obs, 0)
        theirs, _ = self.view.pulse(obs, self.view.partner)
        if not self.split:
            if mine is None or theirs is None or mine == theirs:
                return (0, 1, 2, 3)
            return (0, 1) if mine < theirs else (2, 3)
        if mine is not None and theirs is not None and mine != theirs:
            self._split = keyed_split(min(mine, theirs), max(mine, theirs), self.view.sign(obs))
            self._lower = mine < theirs
        if self._split is None:
            return (0, 1, 2, 3)
        return self._split[0] if self._lower else self._split[1]  # a tie keeps the last split

    # --- channel only (beat=False)
    def _play_channel(self, obs: np.ndarray, mask: np.ndarray, sign: int) -> int:
        view = self.view
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
            return self._fresh_cover(sign)
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
        """The center offers the fourth card of a value I hold three of."""
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
