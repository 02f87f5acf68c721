"""Bots that read the other teams: ``eavesdropper`` (the channel) and ``counter`` (the exchanges)."""

from __future__ import annotations

import numpy as np

from quatro_env.bots.signalling import DecoyBot, HonestBot
from quatro_env.common.strict import as_flag, as_int, as_real


class EavesdropperBot(HonestBot):
    """Honest for its own team; calls «Contra» on a team whose channel pattern betrays a quartet.

    The rule, per opposing team, on the public channel only (floors and pulses, Q15, Q27):

    * **silence break** — a member takes the floor or pulses after the whole team was silent (no
      floor held, no pulse) for at least ``silence_ticks`` consecutive play ticks, counted from the
      start of the round; or
    * **pattern change** — a member that pulsed the same emoji ``steady_pulses`` times in a row
      pulses a different one.

    Either trigger fires «Contra» on that team on the next tick (the earliest it can react). The
    rule is built to read ``honest`` (silent until a quartet, then floor + sign) and any "constant
    emoji, switch to the sign" code; a team that keeps the floor busy with ever-changing emojis
    (``decoy``) triggers neither.
    """

    silence_ticks = 6
    steady_pulses = 3

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        silence_ticks: int | None = None,
        steady_pulses: int | None = None,
    ) -> None:
        if silence_ticks is not None:
            self.silence_ticks = as_int(silence_ticks, "silence_ticks", low=1)
        if steady_pulses is not None:
            self.steady_pulses = as_int(steady_pulses, "steady_pulses", low=1)
        super().__init__(num_players, seed)

    def new_round(self, obs: np.ndarray) -> None:
        super().new_round(obs)
        t = self.view.num_teams
        self.quiet = [0] * t
        self.runs: list[tuple[int | None, int]] = [(None, 0)] * self.view.n

    def listen(self, obs: np.ndarray, sign: int | None) -> int | None:
        view, t = self.view, self.view.num_teams
        suspect = None
        for k in range(1, t):
            members = (k, k + t)
            activity = trigger = False
            for r in members:
                emoji, age = view.pulse(obs, r)
                pulsed = age == 0 and emoji is not None
                took = view.took_floor(obs, r)
                if view.floor(obs, r) or took or pulsed:
                    activity = True
                if (took or pulsed) and self.quiet[k] >= self.silence_ticks:
                    trigger = True
                if pulsed:
                    last, run = self.runs[r]
                    if emoji == last:
                        self.runs[r] = (emoji, run + 1)
                    else:
                        if last is not None and run >= self.steady_pulses:
                            trigger = True
                        self.runs[r] = (emoji, 1)
            self.quiet[k] = 0 if activity else self.quiet[k] + 1
            if trigger and suspect is None:
                suspect = k
        return None if suspect is None else self.contra_action(suspect)


class CounterBot(DecoyBot):
    """Decoy for its own team; counts every public exchange (Q12) to bound what each seat can hold.

    Knowledge, per other seat ``s``: a multiset ``K_s`` of values it surely holds (cards it took
    from the center and has not provably given back) and ``u_s = 4 - |K_s|`` unknown cards. An
    exchange by ``s`` (taken ``a``, placed ``b``): if ``b`` is in ``K_s`` one copy leaves ``K_s``
    (and ``s`` is marked *erratic*: a collector never gives back what it collects), else one unknown
    card is spent; then ``a`` joins ``K_s``. A reshuffle or a new round forgets
    everything. The *unaccounted* copies of value ``x`` are ``m_x = 4 - center - my hand - sum K``,
    spread over the ``M = sum u`` unknown cards.

    ``P(s holds four x)`` is 0 unless ``K_s`` holds only ``x``s and ``m_x >= u_s``; otherwise it is
    the chance that ``s``'s unknown cards are all ``x``, drawn one by one from the unaccounted cards,
    each copy of ``x`` weighted ``keep_weight`` against 1 for any other card when ``s`` is seen
    collecting ``x`` (``K_s`` not empty, ``s`` not erratic: a collector keeps its ``x``s, so its
    unknown cards are likelier ``x``); weight 1 otherwise, the plain hypergeometric count
    ``C(m_x, u_s) / C(M, u_s)``. A team's probability is
    ``1 - prod(1 - P(member))``.

    «Contra» on the opposing team with the largest probability once it reaches ``threshold``
    (default 0.5, ``keep_weight`` 6: tuned on the ladder config, see ``docs/evaluation.md``). With
    ``record_quatro=True`` it also calls «Quatro» when its partner's probability reaches the threshold
    (off by default: the partner's sign is as fast and never wrong, while the record misjudges seats
    that do not collect). When the record rules a quartet out (probability 0) it never calls.
    """

    threshold = 0.5
    keep_weight = 6.0
    record_quatro = False

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        threshold: float | None = None,
        keep_weight: float | None = None,
        record_quatro: bool | None = None,
    ) -> None:
        if threshold is not None:
            if not 0 < as_real(threshold, "threshold") <= 1:
                raise ValueError(f"threshold: must lie in (0, 1], got {threshold}")
            self.threshold = float(threshold)
        if keep_weight is not None:  # NaN or infinity would read every collecting seat as P = 1
            if as_real(keep_weight, "keep_weight") <= 0:
                raise ValueError(f"keep_weight: must be > 0, got {keep_weight}")
            self.keep_weight = float(keep_weight)
        if record_quatro is not None:
            self.record_quatro = as_flag(record_quatro, "record_quatro")
        super().__init__(num_players, seed)

    def new_round(self, obs: np.ndarray) -> None:
        super().new_round(obs)
        self.forget()

    def on_reshuffle(self, obs: np.ndarray) -> None:
        self.forget()

    def forget(self) -> None:
        n, v = self.view.n, self.view.v
        self.known = [[0] * v for _ in range(n)]  # known[r][x]; row 0 (me) unused
        self.unknown = [4] * n
        self.unknown[0] = 0
        self.erratic = [False] * n

    def observe(self, obs: np.ndarray) -> None:
        """Fold the tick's public exchanges into the knowledge; a reshuffle tick's all came before its
        re-deal (Q20), so they tell nothing of the new hands."""
        view = self.view
        if view.reshuffled(obs):
            return
        for r in range(1, view.n):
            ex = view.exchange(obs, r)
            if ex is None:
                continue
            taken, placed = ex
            k = self.known[r]
            if k[placed] > 0:
                k[placed] -= 1
                self.erratic[r] = True  # gave back a card it took: not a collector
            elif self.unknown[r] > 0:
                self.unknown[r] -= 1
            else:  # inconsistent (a tick was missed): start this seat afresh
                self.known[r] = k = [0] * view.v
                self.unknown[r] = 3
            k[taken] += 1

    def seat_probabilities(self, obs: np.ndarray) -> list[float]:
        """P(relative seat r holds a quartet now), by the record; index 0 (me) is 0."""
        view = self.view
        v = view.v
        unaccounted = [4] * v
        for x in view.hand(obs) + view.center(obs):
            unaccounted[x] -= 1
        for r in range(1, view.n):
            for x, c in enumerate(self.known[r]):
                unaccounted[x] -= c
        total = sum(self.unknown)
        probs = [0.0] * view.n
        for r in range(1, view.n):
            k, u = self.known[r], self.unknown[r]
            held = [x for x in range(v) if k[x]]
            if len(held) > 1:
                continue
            # only a seat seen collecting x (it holds x, never gave back a card it took) keeps x
            w = self.keep_weight if held and not self.erratic[r] else 1.0
            p = 0.0
            for x in held if held else range(v):
                p += all_unknown_are(unaccounted[x], total, u, w)
            probs[r] = min(1.0, p)
        return probs

    def team_probabilities(self, obs: np.ndarray) -> list[float]:
        """P(relative team k holds a quartet now), k = 0 (mine) .. n/2 - 1."""
        seats = self.seat_probabilities(obs)
        t = self.view.num_teams
        return [1.0 - (1.0 - seats[k]) * (1.0 - seats[k + t]) for k in range(t)]

    def listen(self, obs: np.ndarray, sign: int | None) -> int | None:
        self.observe(obs)
        view = self.view
        seats = self.seat_probabilities(obs)
        t = view.num_teams
        best, best_p = None, 0.0
        for k in range(1, t):
            p = 1.0 - (1.0 - seats[k]) * (1.0 - seats[k + t])
            if p > best_p:
                best, best_p = k, p
        if best is not None and best_p >= self.threshold:
            return self.contra_action(best)
        if self.record_quatro and seats[view.partner] >= self.threshold:
            return self.A_QUATRO
        return None


def all_unknown_are(m: int, total: int, u: int, w: float) -> float:
    """P(u cards drawn from ``total`` unaccounted ones are all among the ``m`` copies of x), each copy of
    x weighted ``w`` against any other card (1: a plain draw). Plain arithmetic, so that the batched
    bots compile this very function with numba (``bots/batched.py``)."""
    if u == 0:
        return 1.0
    if m < u or total < u:
        return 0.0
    if w == 1.0:
        ways, all_ways = 1, 1  # comb(m, u) and comb(total, u), built exactly in integers
        for i in range(u):
            ways = ways * (m - i) // (i + 1)
            all_ways = all_ways * (total - i) // (i + 1)
        return ways / all_ways
    p, others = 1.0, total - m
    for i in range(u):
        good = w * (m - i)
        p *= good / (good + others)
    return p
