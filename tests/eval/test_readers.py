"""The fixed readers of the secrecy yardstick (``quatro_env/eval/readers.py``) on rows written field by
field and on played ones: what each counts, and what it never reads."""

from __future__ import annotations

import numpy as np

from quatro_env.eval import readers as R
from tests.eval.helpers import honest_vs_counter


def test_the_card_counter_rules_out_a_value_eve_sees_elsewhere():
    """``card_count`` on rows written field by field: the member (seat 3 of Eve's view) takes two
    copies of value 2; a copy of 2 in the center, in Eve's hand or kept by another seat rules the value
    out; a placed copy lowers the count."""
    from quatro_env.quatro.encoding import ObservationEncoder

    enc = ObservationEncoder(4)
    off, v = enc.offsets, 5

    def rows(*events):  # one row per tick, each a list of (field, index) set to 1
        out = np.zeros((len(events), enc.obs_dim), np.uint8)
        for t, fields in enumerate(events):
            for field, i in fields:
                out[t, off[field] + i] = 1
        return out

    take2 = [("seat[3].taken", 2)]
    assert R.card_count(rows(take2, take2, []), 4).tolist() == [1, 2, 2]
    assert R.card_count(rows(take2, take2, [("table.center", 1 * v + 2)]), 4).tolist() == [1, 2, 0]
    assert R.card_count(rows(take2, take2, [("self.hand", 3 * v + 2)]), 4).tolist() == [1, 2, 0]
    assert R.card_count(rows(take2, take2 + [("seat[1].taken", 2)]), 4).tolist() == [1, 0]
    assert R.card_count(rows(take2, take2, [("seat[3].placed", 2)]), 4).tolist() == [1, 2, 1]
    # another value seen elsewhere does not matter
    assert R.card_count(rows(take2, take2 + [("table.center", 4)]), 4).tolist() == [1, 2]

    # where a decoy can stand: the values of which Eve sees no copy outside the member's collection
    unseen = R.unseen_values(rows(take2, [("table.center", 0), ("self.hand", v + 1)]), 4)
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
