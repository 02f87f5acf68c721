"""Fixed readers of an observer's rows: what Eve counts from the card flow and what the key gives Bob.

Each is a function of rows a decoder already reads (this tick's and the earlier ones of the round), with
no fitted weight, so it adds nothing beyond its inputs (tested): the secrecy yardstick (``secrecy.py``)
hands them to Eve and Bob because a model fitted on a few hundred quartets does not learn to count or
to test a 24-way equality, and reports the card counters on their own as readers with no fitted weight.
"""

from __future__ import annotations

import numpy as np

from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.encoding import ObservationEncoder

#: the ledger counts up to this many copies of one value (more share the last column)
LEDGER_CLIP = 4


def kept_copies(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, seats, values]: for each seat of Eve's egocentric view, the copies of each card value it
    has taken less those it placed in public since the round (or a reshuffle, Q20) began, as Eve has
    seen them tick by tick (Q12: every exchange's cards are public)."""
    off, v = ObservationEncoder(num_players).offsets, num_values(num_players)

    def per_seat(field: str) -> np.ndarray:  # [ticks, seats, values]: each seat's one-hot ``field``
        starts = [off[f"seat[{r}].{field}"] for r in range(num_players)]
        return np.stack([eve[:, at : at + v] for at in starts], axis=1)

    change = per_seat("taken").astype(np.int64) - per_seat("placed").astype(np.int64)
    kept = np.cumsum(change, axis=0)
    for t in np.flatnonzero(eve[:, off["table.reshuffled"]]):  # the hands were dealt again at tick t
        # count again from nothing: every exchange shown in that tick came before the re-deal (an
        # exchange resolved after it finds every center slot changed, Q14), as the bots count
        kept[t:] -= kept[t]
    return kept


def ledger_features(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, seats * (LEDGER_CLIP + 1)] one-hot: for each seat of Eve's egocentric view, the most
    copies of one card value it has taken and kept in public (:func:`kept_copies`, 0 to
    :data:`LEDGER_CLIP`).

    Why: a holder has taken at least two copies of its value in public (Q5 deals no triple). That
    count alone reads ``cover`` at a time-matched AUC of 0.89 on the yardstick's held-out matches,
    where the decoder fitted on the one-hot exchange events read 0.64 (and 0.61 given the counts per
    value, scaled): fitted on a few hundred quartets, it does not learn to count. Like the key for
    Bob, this is a fixed function of rows Eve already reads (this one and the earlier ones of the
    round), so it adds nothing an opponent does not see. (The ``ledger`` network of ``baselines/``
    keeps the same count for a policy, as a torch recurrence; evaluation sits beside it, not above.)"""
    best = np.clip(kept_copies(eve, num_players).max(axis=2), 0, LEDGER_CLIP)  # [ticks, seats]
    return np.eye(LEDGER_CLIP + 1, dtype=np.uint8)[best].reshape(len(eve), -1)


def collection_count(ledger: np.ndarray) -> np.ndarray:
    """[ticks]: the measured member's public collection (the last seat of Eve's view, one place
    counter-clockwise of her): a reader with no fitted weight, reported as ``collection_tm_auc``.
    (The card counts of :func:`card_count_features` have the same layout: it reads them too.)"""
    return ledger[:, -(LEDGER_CLIP + 1) :].argmax(axis=1)


def seat_card_counts(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, seats]: for each other seat ``r`` of Eve's egocentric view, the most copies of one value
    it has taken and kept in public, counting only values of which Eve sees no other copy — not in the
    center, not in her own hand, not kept in public by another seat — and 0 where there is none (and
    for Eve herself, seat 0).

    Why: a quartet holds all four copies of its value, so any copy Eve can see elsewhere rules that
    value out. A card counter with no fitted weight reads every code measured better than the count
    alone (docs/evaluation.md, "A card counter"). Like the ledger, a fixed function of Eve's own rows
    (tested): it adds nothing an opponent does not see."""
    kept = np.clip(kept_copies(eve, num_players), 0, None)
    mine = np.minimum(kept, LEDGER_CLIP)
    return np.where(_unseen(eve, num_players, kept), mine, 0).max(axis=2)


def unseen_values(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, seats, values] bool: for each other seat ``r`` of Eve's egocentric view, the values of
    which Eve sees no copy outside ``r``'s own public collection (False for Eve herself, seat 0): the
    values ``r`` could hold all four of, as :func:`seat_card_counts` reads them. Also where a decoy
    could stand: a public pair of such a value looks like a quartet in the making."""
    return _unseen(eve, num_players, np.clip(kept_copies(eve, num_players), 0, None))


def _unseen(eve: np.ndarray, n: int, kept: np.ndarray) -> np.ndarray:
    off, v = ObservationEncoder(n).offsets, num_values(n)

    def copies(field: str) -> np.ndarray:  # [ticks, values]: copies of each value in 4 one-hot slots
        return eve[:, off[field] : off[field] + 4 * v].reshape(len(eve), 4, v).sum(axis=1, dtype=np.int64)

    # Eve's own collection is in her hand already: the others' public collections count apart
    visible = copies("table.center") + copies("self.hand") + kept[:, 1:].sum(axis=1)
    out = visible[:, None, :] - kept == 0
    out[:, 0] = False
    return out


def card_count(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks]: the measured member's card count (:func:`seat_card_counts`; the last seat of Eve's view),
    a reader with no fitted weight, reported as ``card_count_tm_auc`` beside the count alone."""
    return seat_card_counts(eve, num_players)[:, -1]


def card_count_features(eve: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, (seats - 1) * (LEDGER_CLIP + 1)] one-hot: every other seat's card count, as Eve reads it
    (one-hot, like the ledger: a fitted decoder does not learn to count from a few hundred quartets)."""
    counts = seat_card_counts(eve, num_players)[:, 1:]
    return np.eye(LEDGER_CLIP + 1, dtype=np.uint8)[counts].reshape(len(eve), -1)


def hand_card_count(eve: np.ndarray, extra: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks]: the measured member's card count as its partner can read it without the key: Eve's card
    count (:func:`card_count`: the last seat of her view) with the values of which the partner's own
    hand (``extra``, the partner's private block) holds a copy ruled out too, since a quartet holds all
    four copies.

    Why: the gap counts the partner's hand as well as the key, and a decoder fitted on a few hundred
    quartets does not learn to count with the hand any more than Eve learns to count. This fixed reader
    (no fitted weight, the sign never read) is the key control's second partner without the key, so
    the key's share is measured against the better of the two (``secrecy.measure``, ``key_control``)."""
    off, v = ObservationEncoder(num_players).offsets, num_values(num_players)
    kept = np.clip(kept_copies(eve, num_players), 0, None)
    at = off["self.hand"]  # the private block opens every observation: the same offsets
    partner_copies = extra[:, at : at + 4 * v].reshape(len(extra), 4, v).sum(axis=1, dtype=np.int64)
    possible = _unseen(eve, num_players, kept)[:, -1] & (partner_copies == 0)
    return np.where(possible, np.minimum(kept[:, -1], LEDGER_CLIP), 0).max(axis=1)


def keyed_features(eve: np.ndarray, extra: np.ndarray, num_players: int) -> np.ndarray:
    """[ticks, seats]: for each seat of Eve's egocentric view, 1 if its last pulse's emoji is the
    team sign held in the partner's private block (a function of Bob's two inputs)."""
    enc = ObservationEncoder(num_players)
    sign = extra[:, enc.offsets["self.sign"] : enc.offsets["self.sign"] + NUM_EMOJIS].astype(np.int32)
    out = np.zeros((eve.shape[0], num_players), np.uint8)
    for r in range(num_players):
        at = enc.offsets[f"seat[{r}].pulse_emoji"]
        out[:, r] = (eve[:, at : at + NUM_EMOJIS].astype(np.int32) * sign).sum(axis=1) > 0
    return out


def ending_calls(obs: np.ndarray, num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The call that ended the round, read from observations made just after it (the ``last_call``
    block of the table, the caller's seat flag and the teams that scored: public, Q25). Per row:
    the kind (``encoding.CALL_KINDS``: 0 «Quatro», 1 «Contra», 2 blank round; -1: no call shown),
    the caller's seat in the observer's frame (-1: none) and whether the caller's team scored (the
    call was right). Why: the batched matches (``batch_play``) count calls as the harness does, from
    what the tables show, without a record of the engine's events."""
    off, t = ObservationEncoder(num_players).offsets, num_players // 2
    obs = np.asarray(obs)
    shown = obs[:, off["table.last_call"] : off["table.last_call"] + 3].astype(bool)
    kind = np.where(shown.any(1), shown.argmax(1), -1)
    callers = np.stack([obs[:, off[f"seat[{r}].caller"]] for r in range(num_players)], axis=1).astype(bool)
    caller = np.where(callers.any(1), callers.argmax(1), -1)
    scored = np.stack([obs[:, off[f"team[{k}].scored"]] for k in range(t)], axis=1).astype(bool)
    right = (caller >= 0) & scored[np.arange(len(obs)), np.maximum(caller, 0) % t]
    return kind, caller, right
