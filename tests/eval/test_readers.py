"""The fixed readers of the secrecy yardstick (``quatro_env/eval/readers.py``) on rows written field by
field and on played ones: what each counts, and what it never reads."""

from __future__ import annotations

import numpy as np

from quatro_env.eval import readers as R
from tests.eval.helpers import honest_vs_counter


def _rows(*ticks) -> np.ndarray:
    """One observation row per tick, each a list of (field, index) set to 1 (Eve's egocentric view)."""
    from quatro_env.quatro.encoding import ObservationEncoder

    enc = ObservationEncoder(4)
    out = np.zeros((len(ticks), enc.obs_dim), np.uint8)
    for t, fields in enumerate(ticks):
        for field, i in fields:
            out[t, enc.offsets[field] + i] = 1
    return out


def test_the_card_counter_rules_out_a_value_eve_sees_elsewhere():
    """``card_count`` on rows written field by field: the member (seat 3 of Eve's view) takes two
    copies of value 2; a copy of 2 in the center, in Eve's hand or kept by another seat rules the value
    out; a placed copy lowers the count."""
    v = 5  # card values at 4 players

    take2 = [("seat[3].taken", 2)]
    assert R.card_count(_rows(take2, take2, []), 4).tolist() == [1, 2, 2]
    assert R.card_count(_rows(take2, take2, [("table.center", 1 * v + 2)]), 4).tolist() == [1, 2, 0]
    assert R.card_count(_rows(take2, take2, [("self.hand", 3 * v + 2)]), 4).tolist() == [1, 2, 0]
    assert R.card_count(_rows(take2, take2 + [("seat[1].taken", 2)]), 4).tolist() == [1, 0]
    assert R.card_count(_rows(take2, take2, [("seat[3].placed", 2)]), 4).tolist() == [1, 2, 1]
    # another value seen elsewhere does not matter
    assert R.card_count(_rows(take2, take2 + [("table.center", 4)]), 4).tolist() == [1, 2]

    # where a decoy can stand: the values of which Eve sees no copy outside the member's collection
    unseen = R.unseen_values(_rows(take2, [("table.center", 0), ("self.hand", v + 1)]), 4)
    assert unseen.shape == (2, 4, v) and not unseen[:, 0].any()  # never Eve herself
    assert unseen[0, 3].tolist() == [True] * v  # nothing seen yet
    assert unseen[1, 3].tolist() == [False, False, True, True, True]  # 0 in the center, 1 in her hand
    assert unseen[1, 1].tolist() == [False, False, False, True, True]  # seat 3's kept 2 is seen by seat 1


def test_the_hand_counter_also_rules_out_the_values_in_the_partner_s_hand_and_never_reads_the_sign():
    """``hand_card_count``: Eve's card count of the member, with a value of which the partner holds a
    copy ruled out too (a quartet holds all four copies); the partner's sign field is never read."""
    from quatro_env.quatro.encoding import ObservationEncoder, make_blocks

    enc = ObservationEncoder(4)
    off, v = enc.offsets, 5
    private = make_blocks(4)[0]
    eve = np.zeros((3, enc.obs_dim), np.uint8)
    for t in range(2):
        eve[t, off["seat[3].taken"] + 2] = 1  # the member takes two copies of value 2
    extra = np.zeros((3, private.size), np.uint8)
    assert R.hand_card_count(eve, extra, 4).tolist() == R.card_count(eve, 4).tolist() == [1, 2, 2]
    extra[2, off["self.hand"] + 1 * v + 2] = 1  # at tick 2 the partner holds a copy of 2 (its slot 1)
    assert R.hand_card_count(eve, extra, 4).tolist() == [1, 2, 0]
    extra[:, off["self.hand"] + 4] = 1  # a copy of another value: no matter
    extra[:, private.offset("sign") : private.offset("sign") + dict(private.fields)["sign"]] = 1
    assert R.hand_card_count(eve, extra, 4).tolist() == [1, 2, 0]  # the sign changes nothing
    data = honest_vs_counter(4)  # on played rows: never above Eve's count, below it somewhere
    eve_count = np.concatenate([R.card_count(e, 4) for e in data.eve])
    hand = np.concatenate([R.hand_card_count(e, x, 4) for e, x in zip(data.eve, data.extra, strict=True)])
    assert (hand <= eve_count).all() and (hand < eve_count).any()


def test_the_ledger_counts_again_from_a_reshuffle():
    """Q20: a reshuffle deals every hand again, so what a seat took before it says nothing of its new hand,
    and neither do the reshuffle tick's own exchanges: every exchange shown in that tick came before the
    re-deal (one resolved after it finds every center slot changed, Q14). The count starts again after
    that tick, as the bots' counters do (``test_counter_learns_nothing_from_a_reshuffle_tick_s_exchanges``);
    it kept the tick's exchanges."""
    take2, take4 = [("seat[3].taken", 2)], [("seat[3].taken", 4)]
    eve = _rows(take2, take2, take4 + [("table.reshuffled", 0)], take4, [])
    kept = R.kept_copies(eve, 4)[:, 3]  # [ticks, values] of the member
    assert kept[:, 2].tolist() == [1, 2, 0, 0, 0]
    assert kept[:, 4].tolist() == [0, 0, 0, 1, 1]
    assert R.card_count(eve, 4).tolist() == [1, 2, 0, 1, 1]
    assert (R.kept_copies(eve, 4)[:, :3] == 0).all()  # nobody else took anything


def test_a_copy_in_the_center_and_one_in_eves_hand_both_rule_a_value_out():
    v = 5
    eve = _rows([("seat[3].taken", 2)], [("table.center", 2), ("self.hand", v + 2)])
    unseen = R.unseen_values(eve, 4)
    assert unseen[0, 3, 2] and not unseen[1, 3, 2]
    assert R.card_count(eve, 4).tolist() == [1, 0]


def test_the_keyed_feature_flags_exactly_the_rows_whose_last_pulse_is_the_sign():
    """``keyed_features`` row by row: 1 where a seat's last pulse is the team sign held in the partner's
    private block, 0 where it is another emoji or nothing; never where the block holds no sign."""
    from quatro_env.quatro.encoding import ObservationEncoder, make_blocks

    enc = ObservationEncoder(4)
    eve = _rows([("seat[3].pulse_emoji", 7)], [("seat[3].pulse_emoji", 8)], [], [("seat[1].pulse_emoji", 7)])
    extra = np.zeros((4, make_blocks(4)[0].size), np.uint8)
    extra[:, enc.offsets["self.sign"] + 7] = 1
    keyed = R.keyed_features(eve, extra, 4)
    assert keyed.dtype == np.uint8 and keyed.shape == (4, 4)
    assert keyed.tolist() == [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    assert not R.keyed_features(eve, np.zeros_like(extra), 4).any()
