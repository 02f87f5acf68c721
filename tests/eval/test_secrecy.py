"""Eve/Bob decoders (issue 18): what each one reads, the clock removed exactly, intervals that shrink."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.bots import HonestBot
from quatro_env.eval import readers as R
from quatro_env.eval import secrecy as S
from quatro_env.eval.policies import as_policy
from quatro_env.eval.probe import time_matched_auc
from quatro_env.eval.runner import MatchRunner
from quatro_env.quatro import QuatroConfig
from tests.eval.helpers import SHORT_MATCH, honest_vs_counter

CFG = SHORT_MATCH


class RecordingHonest(HonestBot):
    """Honest, keeping every observation it is handed (what a policy in its seat sees)."""

    def reset(self, seed=None):
        super().reset(seed)
        self.seen: list[np.ndarray] = []

    def act(self, observation, mask):
        self.seen.append(observation.copy())
        return super().act(observation, mask)


def _is_ordered_subsequence(rows: np.ndarray, seen: list[np.ndarray]) -> bool:
    k = 0
    for row in rows:
        while k < len(seen) and not np.array_equal(seen[k], row):
            k += 1
        if k == len(seen):
            return False
        k += 1
    return True


@pytest.mark.parametrize("n", (4, 6))
def test_eve_reads_an_opponents_observation_and_bob_exactly_the_partners_extra(n):
    """Every Eve row is an observation the opponent's policy was handed, in order; Bob's input is Eve's
    plus the partner's private block (as handed to the partner) plus the keyed products of the two."""
    cfg = QuatroConfig(num_players=n, **CFG)
    teams = n // 2
    runner = MatchRunner(cfg, [as_policy(RecordingHonest)] * teams, max_rounds=3)
    record = runner.play(0, seed=3, record_views=True)
    assert record["views"] is not None
    p = S.private_size(n)
    for slot in range(teams):
        data = S.decoder_data([record], slot, n)
        team = record["team_slot"].index(slot)
        members = [team, team + teams]
        per_member = len(data.eve) // 2  # sequences: member 0's rounds, then member 1's
        for j, seat in enumerate(members):
            eve_actor = runner.actor(record["team_slot"][S.eve_seat(seat, n) % teams], S.eve_seat(seat, n))
            partner = S.partner_seat(seat, n)
            partner_actor = runner.actor(slot, partner)
            assert S.eve_seat(seat, n) % teams != seat % teams  # Eve is never on the measured team
            eve_rows = np.concatenate(data.eve[j * per_member : (j + 1) * per_member])
            extra = np.concatenate(data.extra[j * per_member : (j + 1) * per_member])
            assert _is_ordered_subsequence(eve_rows, eve_actor.seen)
            assert _is_ordered_subsequence(extra, [o[:p] for o in partner_actor.seen])
            for k in range(j * per_member, (j + 1) * per_member):
                bob = data.bob(k)
                d, g = data.eve[k].shape[1], data.ledger[k].shape[1] + data.counted[k].shape[1]
                assert np.array_equal(data.eve_input(k), bob[:, : d + g])
                assert np.array_equal(bob[:, :d], data.eve[k])
                counts = np.hstack([R.ledger_features(data.eve[k], n), R.card_count_features(data.eve[k], n)])
                assert np.array_equal(bob[:, d : d + g], counts)  # fixed functions of Eve's rows alone
                assert np.array_equal(bob[:, d + g : d + g + p], data.extra[k])
                assert np.array_equal(bob[:, d + g + p :], R.keyed_features(data.eve[k], data.extra[k], n))
                assert bob.shape[1] == d + g + p + n


@pytest.mark.parametrize("bot", ("honest", "cover"))
def test_the_ledger_is_each_seats_public_collection_and_shows_every_holder(bot):
    """Eve's ledger, recomputed here tick by tick from the exchange events of the opponent's own
    observation rows (nothing else): each seat's most copies of one value taken and kept this round.
    And the rule it rests on: Q5 deals no triple, so a member holding a quartet has taken at least
    two copies of its value in public — the ledger shows >= 2 on every quartet row."""
    from quatro_env.bots.base import ObservationView

    cfg = QuatroConfig(num_players=4, **CFG)
    runner = MatchRunner(cfg, [as_policy(bot), as_policy("counter")], max_rounds=4)
    data = S.decoder_data([runner.play(m, 5, record_views=True) for m in range(4)], 0, 4)
    view, width = ObservationView(4), R.LEDGER_CLIP + 1
    holder_rows = 0
    for eve, ledger, y in zip(data.eve, data.ledger, data.y, strict=True):
        counted = R.card_count(eve, 4)
        per_seat = R.card_count_features(eve, 4).reshape(len(eve), 3, width).argmax(axis=2)
        assert np.array_equal(per_seat[:, 2], counted)  # the member is the last seat
        kept = np.zeros((4, view.v), int)
        for t, row in enumerate(eve):
            if view.reshuffled(row):
                kept[:] = 0
            for r in range(4):
                exchange = view.exchange(row, r)
                if exchange is not None:
                    kept[r, exchange[0]] += 1
                    kept[r, exchange[1]] -= 1
            best = np.clip(kept.max(axis=1), 0, R.LEDGER_CLIP)
            assert np.array_equal(ledger[t].reshape(4, width).argmax(axis=1), best)
            assert R.collection_count(ledger[t : t + 1])[0] == best[3]
            assert ledger[t].sum() == 4  # one-hot per seat
            assert (per_seat[t] >= 0).all() and (per_seat[t] <= best[1:]).all()  # rules values out, never in
            if y[t]:  # the member is the last seat of Eve's egocentric view
                holder_rows += 1
                assert best[3] >= 2
                assert counted[t] >= 2  # all four copies are in its hand: none is seen elsewhere
    assert holder_rows > 0


def test_the_card_counter_reads_cover_better_than_the_count_alone():
    """On 40 matches of ``cover`` against counter (every row, no fit): the card counter reads it at
    >= 0.9 time-matched, above the count alone (docs/evaluation.md, "A card counter")."""
    cfg = QuatroConfig(num_players=4, round_seconds=60, points_to_win=3)
    runner = MatchRunner(cfg, [as_policy("cover"), as_policy("counter")], max_rounds=10)
    data = S.decoder_data([runner.play(m, 0, record_views=True) for m in range(40)], 0, 4)
    y = np.concatenate(data.y).astype(bool)
    tick = np.concatenate(data.tick)
    ones = np.ones((1, y.size))
    counted = np.concatenate([R.card_count(e, 4) for e in data.eve])
    alone = np.concatenate([R.collection_count(g) for g in data.ledger])
    by_card = S.weighted_time_matched_auc(y, counted, tick, ones)[0]
    by_count = S.weighted_time_matched_auc(y, alone, tick, ones)[0]
    assert y.sum() >= 20
    assert by_card >= 0.9 and by_card > by_count + 0.03, (by_card, by_count)


def test_the_keyed_feature_is_the_sign_shown_by_the_member():
    """The products Bob gets flag exactly the rows on which the member's last pulse is the team sign
    (the member is the last seat of Eve's egocentric view)."""
    cfg = QuatroConfig(num_players=4, **CFG)
    runner = MatchRunner(cfg, [as_policy("honest"), as_policy("honest")], max_rounds=4)
    data = S.decoder_data([runner.play(m, 1, record_views=True) for m in range(3)], 0, 4)
    keyed = np.concatenate(data.keyed)[:, 3].astype(bool)
    shown = np.concatenate(data.sign)
    assert shown.any()
    assert np.array_equal(keyed & shown, shown)  # showing the sign ⇒ its last pulse is the sign


def test_the_interval_leaves_out_resamples_with_no_auc():
    """A bootstrap draw with no matched pair has no AUC (nan): the interval is read from the others."""
    draws = np.array([0.6, np.nan, 0.7, 0.8, np.nan])
    assert S.percentile_ci95(draws, 3) == [0.605, 0.795]
    assert S.percentile_ci95(np.full(3, np.nan)) == [None, None]


def test_weighted_time_matched_auc_equals_the_probes_and_the_clock_scores_one_half():
    rng = np.random.default_rng(0)
    y = rng.random(3000) < 0.2
    tick = rng.integers(0, 30, 3000)
    scores = y * 0.3 + rng.random(3000) + 0.02 * tick
    ones = np.ones((1, y.size))
    ours = S.weighted_time_matched_auc(y, scores, tick, ones)[0]
    assert ours == pytest.approx(time_matched_auc(y.astype(int), scores, tick), abs=1e-9)
    clock_only = np.sin(tick) + tick  # any function of the round tick
    assert S.weighted_time_matched_auc(y, clock_only, tick, ones)[0] == pytest.approx(0.5)


def test_the_weighted_auc_scores_each_bootstrap_draw_apart_and_its_edge_cases():
    """Each row of ``weights`` (a bootstrap draw) gets its own AUC, the AUC of the rows repeated as
    often as the draw says; one pair is enough for an AUC; no pair gives NaN; scores within 1e-6 tie;
    0/1 labels read as booleans (as indices they would pick rows 0 and 1)."""
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.3
    tick = rng.integers(0, 6, 400)
    scores = np.round(y * 0.4 + rng.random(400), 1)  # many ties: they count a half
    draws = rng.integers(0, 3, (3, 400)).astype(float)
    each = S.weighted_time_matched_auc(y, scores, tick, draws)
    for d in range(3):
        rows = np.repeat(np.arange(400), draws[d].astype(int))
        alone = time_matched_auc(y[rows].astype(int), scores[rows], tick[rows])
        assert each[d] == pytest.approx(alone, abs=1e-9)
    one, pair, apart = np.ones((1, 2)), np.array([True, False]), np.array([0.9, 0.1])
    assert S.weighted_time_matched_auc(pair, apart, np.zeros(2), one)[0] == 1
    assert np.isnan(S.weighted_time_matched_auc(pair, apart, np.arange(2), one)[0])
    close = np.array([0.1 + 3e-7, 0.1])  # a float32 step apart: the same score
    assert S.weighted_time_matched_auc(pair, close, np.zeros(2), one)[0] == 0.5
    assert time_matched_auc(np.array([1, 0]), close, np.zeros(2)) == 0.5
    as_ints = S.weighted_time_matched_auc(y.astype(np.int64), scores, tick, np.ones((1, 400)))
    assert as_ints[0] == pytest.approx(S.weighted_time_matched_auc(y, scores, tick, np.ones((1, 400)))[0])
    assert S.matched_share(y.astype(np.int64), tick) == S.matched_share(y, tick)
    assert np.array_equal(S.pair_weights(y.astype(np.int64), tick), S.pair_weights(y, tick))
    spread = np.array([0.123456, 0.654321])
    lo, hi = np.percentile(spread, [2.5, 97.5])
    assert S.percentile_ci95(spread) == [round(lo, 4), round(hi, 4)] != [round(lo, 5), round(hi, 5)]


def test_a_matched_auc_refuses_scores_that_are_not_finite():
    """A NaN score sorted above every holder: [nan, .2, .3, .1] for [1, 0, 1, 0] scored 1.0."""
    y, strata, ones = np.array([1, 0, 1, 0], bool), np.zeros(4, np.int64), np.ones((1, 4))
    with pytest.raises(ValueError, match="1 of 4 are not finite"):
        S.weighted_time_matched_auc(y, np.array([np.nan, 0.2, 0.3, 0.1]), strata, ones)


def test_the_clock_is_removed_exactly_on_rounds_past_120_ticks():
    """The default round is 180 s (360 ticks). Ticks >= 120 shared one stratum, so a score that is
    the tick alone got 0.80 "time-matched" on such rounds; every tick is a stratum of its own now, for
    the decoders and the linear probes alike."""
    from types import SimpleNamespace

    from quatro_env.eval.probe import ROUND_TIME_COLUMN, ChannelTracker

    rng = np.random.default_rng(0)
    ticks = [np.arange(360) for _ in range(60)]
    y = np.concatenate([rng.random(360) < np.arange(360) / 400 for _ in ticks])  # holders late in a round
    strata = np.concatenate(S.task_strata(SimpleNamespace(tick=ticks), "time"))
    clock = np.concatenate(ticks).astype(float)
    assert S.weighted_time_matched_auc(y, clock, strata, np.ones((1, y.size)))[0] == pytest.approx(0.5)
    tracker = ChannelTracker(4)
    rows = [tracker.update([False] * 4, [], [None, None])[0][0, ROUND_TIME_COLUMN] for _ in range(360)]
    assert len(set(rows)) == 360  # the probes' strata: one per tick
    assert time_matched_auc(y.astype(int), clock, np.tile(rows, len(ticks))) == pytest.approx(0.5)


def test_count_matched_auc_gives_the_clock_and_the_card_count_one_half_and_keeps_what_else_reads():
    """Strata of (round tick, card count), as ``measure`` forms them: any function of the two scores
    exactly 0.5, where the plain time-matched AUC reads the count; a score carrying the label beyond
    them still reads above 0.5; ``matched_share`` counts the positives whose stratum has a negative."""
    rng = np.random.default_rng(3)
    rows = 6000
    tick = rng.integers(0, 40, rows)
    y = rng.random(rows) < 0.15
    count = np.where(y, rng.integers(2, 4, rows), rng.choice([0, 0, 0, 1, 2], rows))  # holders count >= 2
    by_count = S.count_strata(tick, count)
    assert len(np.unique(by_count)) == np.unique(np.stack([tick, count]), axis=1).shape[1]  # one per pair
    ones = np.ones((1, rows))
    reader = count + 0.01 * np.cos(tick)  # the card counter, and the clock
    assert S.weighted_time_matched_auc(y, reader, tick, ones)[0] > 0.85
    assert S.weighted_time_matched_auc(y, reader, by_count, ones)[0] == pytest.approx(0.5)
    signal = reader + y * 0.5 + rng.random(rows)  # reads the label beyond the count
    assert S.weighted_time_matched_auc(y, signal, by_count, ones)[0] > 0.6
    # positives of count 3 never meet a negative (negatives count 0-2): about half are unmatched
    share = S.matched_share(y, by_count)
    expected = np.isin(by_count[y], by_count[~y]).mean()
    assert share == pytest.approx(expected) and 0.3 < share < 0.7
    assert np.isnan(S.matched_share(np.zeros(5, bool), np.arange(5)))


def test_bootstrap_intervals_shrink_with_matches():
    """The same decoder quality measured on 40 and on 400 matches: the interval narrows ~√10."""
    rng = np.random.default_rng(1)

    def width(matches: int) -> float:
        rows = 60 * matches
        group = np.repeat(np.arange(matches), 60)
        y = rng.random(rows) < 0.1
        tick = np.tile(np.arange(60), matches)
        scores = y * 0.8 + rng.normal(size=rows)
        w = S.bootstrap_weights(group, 300, seed=2)
        lo, hi = np.percentile(S.weighted_time_matched_auc(y, scores, tick, w), [2.5, 97.5])
        return hi - lo

    small, large = width(40), width(400)
    assert large < 0.5 * small


def test_measure_reports_every_field_and_bob_never_reads_less_than_eve_on_honest():
    cfg = QuatroConfig(num_players=4, **CFG)
    runner = MatchRunner(cfg, [as_policy("honest"), as_policy("counter")], max_rounds=4)
    records = [runner.play(m, 0, record_views=True) for m in range(24)]
    out = S.measure(S.decoder_data(records, 0, 4), seed=0, fit=S.FitConfig(max_epochs=3), bootstrap=50)
    for key in (
        "eve_tm_auc",
        "bob_tm_auc",
        "gap",
        "gap_ci95",
        "eve_auc",
        "bob_auc",
        "clock_auc",
        "collection_tm_auc",
        "card_count_tm_auc",
        "eve_cm_auc",
        "bob_cm_auc",
        "cm_gap",
        "cm_gap_ci95",
        "cm_matched",
        "sign_coverage",
        "rows",
        "matches",
    ):
        assert key in out
    assert out["matches"] == 24 and out["rows"] > 0
    lo, hi = out["gap_ci95"]
    assert lo <= out["gap"] <= hi
    # too few matches to hold any out: every figure None, under the same keys (report.json reads alike)
    empty = S.measure(S.decoder_data(records[:3], 0, 4), seed=0)
    assert set(empty) == set(out) and empty["eve_tm_auc"] is None and empty["matches"] == 3


def test_bob_without_the_key_keeps_the_partners_hand_and_loses_only_the_sign(monkeypatch):
    """The key control (``measure(key_control=True)``): Bob's inputs with the partner's sign field
    and the keyed features zeroed, every other column as it was, so Bob minus him is the key's share
    of the gap (``gap`` counts the partner's hand too)."""
    from quatro_env.quatro.encoding import make_blocks

    data = honest_vs_counter(6)
    blind = S.without_key(data)
    private = make_blocks(4)[0]
    sign = np.zeros(private.size, bool)
    sign[private.offset("sign") : private.offset("sign") + dict(private.fields)["sign"]] = True
    full = np.concatenate(data.extra)
    assert full[:, sign].any() and full[:, ~sign].any()  # the honest team's sign and hands are there
    assert not np.concatenate(blind.extra)[:, sign].any() and not np.concatenate(blind.keyed).any()
    assert np.array_equal(np.concatenate(blind.extra)[:, ~sign], full[:, ~sign])
    assert all(np.array_equal(a, b) for a, b in zip(blind.eve_input(0), data.eve_input(0), strict=True))
    data = honest_vs_counter(24)
    fixed = S.FitConfig(max_epochs=3, select_folds=0, views=("all",))  # Bob is a decoder of his own
    out = S.measure(data, seed=0, fit=fixed, bootstrap=50)
    both = S.measure(data, seed=0, fit=fixed, bootstrap=50, key_control=True)
    assert {k: v for k, v in both.items() if k in out} == out  # Eve and Bob unchanged by the control
    assert both["bob_view"] == both["nokey_view"] == "all + partner"
    assert both["nokey_tm_auc"] != both["bob_tm_auc"]
    assert both["key_gap"] == pytest.approx(both["bob_tm_auc"] - both["nokey_tm_auc"], abs=2e-4)
    assert both["key_cm_gap"] == pytest.approx(both["bob_cm_auc"] - both["nokey_cm_auc"], abs=2e-4)
    assert both["key_gap_ci95"][0] <= both["key_gap_ci95"][1]
    # the partner counting with his hand (no fitted weight): the floor is Bob minus the better reader
    assert both["key_cm_floor"] == pytest.approx(
        both["bob_cm_auc"] - max(both["nokey_cm_auc"], both["hand_count_cm_auc"]), abs=2e-4
    )
    assert both["key_floor"] <= both["key_gap"] + 1e-4 and both["key_cm_floor"] <= both["key_cm_gap"] + 1e-4
    assert both["key_cm_floor_ci95"][0] <= both["key_cm_floor_ci95"][1]
    # Bob's choice made Eve's decoder (forced: which view wins depends on the fit): he is Eve without
    # the key too, and the key adds exactly nothing
    choose = S._choose
    monkeypatch.setattr(
        S, "_choose", lambda scores: S.EVES_DECODER if S.EVES_DECODER in scores else choose(scores)
    )
    chosen = S.measure(data, seed=0, fit=S.FitConfig(max_epochs=3), bootstrap=50, key_control=True)
    assert chosen["bob_view"] == chosen["nokey_view"] == S.EVES_DECODER
    assert chosen["nokey_tm_auc"] == chosen["eve_tm_auc"] and chosen["key_gap_ci95"] == [0.0, 0.0]
    # too few matches to measure: the same keys, all empty (a report reads alike)
    small = S.measure(honest_vs_counter(3), seed=0, key_control=True)
    assert set(small) == set(both) and small["key_gap"] is None and small["key_gap_ci95"] == [None, None]
    assert small["key_cm_floor"] is None and small["key_cm_floor_ci95"] == [None, None]


def test_the_choice_of_view_and_epochs_never_sees_the_held_out_matches():
    """Eve's and Bob's views and epochs are chosen on training matches only: inverting every label of
    the held-out matches changes their scores, never the choice; and Bob's choice reads at least what
    Eve's does on the selection matches (Eve's own decoder is one of his candidates)."""
    data = honest_vs_counter(24)
    fit = S.FitConfig(max_epochs=3)
    out = S.measure(data, seed=0, fit=fit, bootstrap=20)
    test = S.held_out_matches(np.unique(data.match), 0)
    flipped = S.DecoderData(
        data.eve,
        data.extra,
        [~y if m in test else y for y, m in zip(data.y, data.match, strict=True)],
        data.tick,
        data.sign,
        data.match,
        data.keyed,
        data.ledger,
        data.counted,
    )
    other = S.measure(flipped, seed=0, fit=fit, bootstrap=20)
    for key in ("eve_view", "bob_view", "epochs", "selection"):
        assert other[key] == out[key], key
    assert other["eve_tm_auc"] != out["eve_tm_auc"]  # the held-out labels do reach the score
    sel = out["selection"]
    assert set(sel["eve"]) == set(S.VIEWS) and S.EVES_DECODER in sel["bob"]
    assert sel["bob"][out["bob_view"]][0] >= sel["eve"][out["eve_view"]][0]
    assert out["eve_view"] in S.VIEWS and 1 <= out["epochs"]["eve"] <= 3


def test_the_fixed_recipe_and_bad_fit_configs():
    """``select_folds=0`` is the fixed recipe (all inputs, every epoch, no choice); a config that
    cannot be chosen from is refused with the field named."""
    out = S.measure(
        honest_vs_counter(12),
        seed=0,
        fit=S.FitConfig(max_epochs=2, select_folds=0, views=("all",)),
        bootstrap=20,
    )
    assert out["selection"] is None and out["eve_view"] == "all" and out["epochs"] == {"eve": 2, "bob": 2}
    with pytest.raises(ValueError, match="views"):
        S.FitConfig(views=("all", "clock"))
    with pytest.raises(ValueError, match="views"):
        S.FitConfig(select_folds=0)
    with pytest.raises(ValueError, match="select_folds"):
        S.FitConfig(select_folds=1)


def test_quatro_eval_decoders_fill_the_secrecy_block(tmp_path):
    import json

    from quatro_env.eval.cli import main

    rc = main(
        [
            "shout",
            "counter",
            "--matches",
            "10",
            "--decoders",
            "--key-control",
            "--no-progress",
            "--workers",
            "1",
        ]
        + ["--round-seconds", "30", "--points-to-win", "2", "--out", str(tmp_path), "--no-plots"]
    )
    assert rc == 0
    team = json.loads((tmp_path / "report.json").read_text())["lineups"][0]["teams"][0]
    sec = team["secrecy"]
    assert {"eve_tm_auc", "bob_tm_auc", "gap", "gap_ci95", "clock_auc", "matches"} <= set(sec)
    assert sec["matches"] == 10 and sec["outsider"] is not None  # the linear probes stay beside it
    assert {"probe_rows", "probe_sign_coverage", "probe_positive_rate"} <= set(sec)
    assert sec["train_matches"] + sec["test_matches"] == 10
    # report.md gives the decoders' figures too (it showed the linear probes only)
    table = (tmp_path / "report.md").read_text().split("Secrecy by the sequence decoders")[1]
    assert f"| 0: shout | {sec['eve_tm_auc']:.2f} [" in table and "| 7 / 3 |" in table
    assert {"nokey_tm_auc", "key_gap", "key_gap_ci95", "key_cm_gap"} <= set(sec)  # --key-control
    assert "| key gap [95% CI] |" in table


@pytest.mark.slow
def test_the_scale_honest_and_shout_are_read_by_eve():
    """The readable end of the scale: Eve reads honest and shout at time-matched AUC ≥ 0.75."""
    cfg = QuatroConfig(num_players=4, round_seconds=60, points_to_win=3)
    for bot in ("honest", "shout"):
        runner = MatchRunner(cfg, [as_policy(bot), as_policy("counter")], max_rounds=10)
        records = [runner.play(m, 0, record_views=True) for m in range(120)]
        out = S.measure(S.decoder_data(records, 0, 4), seed=0, bootstrap=100)
        assert out["eve_tm_auc"] >= 0.75, (bot, out)
        # a public code: the key adds nothing once the card flow is matched too
        assert out["cm_gap"] <= 0.1, (bot, out)


def test_ablation_groups_zero_exactly_their_fields_and_leave_bob_his_extra():
    """``without`` removes the named fields from Eve's inputs and nothing else; Bob's extra and key stay."""
    from quatro_env.quatro.encoding import ObservationEncoder

    enc = ObservationEncoder(4)
    channel = S.input_columns(4, "channel")
    for r in range(4):
        at = enc.offsets[f"seat[{r}].pulse_emoji"]
        assert channel[at : at + 24].all() and not channel[enc.offsets[f"seat[{r}].taken"]]
    exchanges = S.input_columns(4, "exchanges")
    assert exchanges[enc.offsets["table.center"]] and exchanges[enc.offsets["seat[3].placed"]]
    assert not (channel & exchanges).any() and not exchanges[enc.offsets["table.phase"]]
    with pytest.raises(ValueError, match="group"):
        S.input_columns(4, "clock")
    cfg = QuatroConfig(num_players=4, **CFG)
    runner = MatchRunner(cfg, [as_policy("cover"), as_policy("honest")], max_rounds=3)
    data = S.decoder_data([runner.play(0, 2, record_views=True)], 0, 4)
    cut = S.without(data, ["channel", "exchanges"], 4)
    no_channel = S.without(data, ["channel"], 4)
    for k in range(len(data.eve)):
        assert not cut.eve[k][:, channel | exchanges].any()
        keep = ~(channel | exchanges)
        assert np.array_equal(cut.eve[k][:, keep], data.eve[k][:, keep])
        assert cut.extra[k] is data.extra[k] and cut.keyed[k] is data.keyed[k]
        assert not cut.ledger[k].any()  # the ledger counts exchanges: it goes with them
        assert no_channel.ledger[k] is data.ledger[k]
        assert not cut.counted[k].any() and no_channel.counted[k] is data.counted[k]  # so do the card counts
    # the views the yardstick chooses among are these cuts (``all`` is the data itself)
    assert S.in_view(data, "all") is data
    for name, same in (("no channel", no_channel), ("neither", cut)):
        view = S.in_view(data, name)
        assert all(np.array_equal(a, b) for a, b in zip(view.eve, same.eve, strict=True))
    # a record made without views adds nothing, wherever it stands in the list
    plain = runner.play(1, 3)
    assert len(S.decoder_data([plain, runner.play(0, 2, record_views=True)], 0, 4).eve) == len(data.eve)


def test_pair_weights_weigh_each_stratums_pairs_and_nothing_else():
    """The count task's loss weights: in each stratum the quartet rows together weigh what its
    non-quartet rows weigh, in proportion to the pairs the stratum forms (as the matched AUC counts
    them); a one-class stratum weighs nothing; the mean weight is 1."""
    rng = np.random.default_rng(5)
    strata = rng.integers(0, 30, 3000)
    y = rng.random(3000) < 0.2
    y[strata == 0], y[strata == 1] = True, False  # two one-class strata
    w = S.pair_weights(y, strata)
    assert w.mean() == pytest.approx(1.0) and not w[np.isin(strata, [0, 1])].any()
    pairs = {k: y[strata == k].sum() * (~y[strata == k]).sum() for k in range(2, 30)}
    for k, p in pairs.items():
        here = strata == k
        expected = p / sum(pairs.values()) * w.sum() / 2
        assert w[here & y].sum() == pytest.approx(expected) and w[here & ~y].sum() == pytest.approx(expected)
    assert not S.pair_weights(np.zeros(4, bool), np.arange(4)).any()  # no pair at all: no weight, no NaN


def test_decoders_fitted_for_the_count_matched_task():
    """``FitConfig(task="count")``: the view and epochs are chosen on the folds' count-matched AUC
    (strata of round tick and the member's card count) and the report names the task; the default
    stays the time-matched task. A bad task, or a count fit without strata, is refused by name."""
    data = honest_vs_counter(24)
    fit = S.FitConfig(max_epochs=2, task="count")
    out = S.measure(data, seed=0, fit=fit, bootstrap=20)
    assert out["fit_task"] == "count" and out["eve_cm_auc"] is not None
    train = np.flatnonzero(~np.isin(data.match, S.held_out_matches(np.unique(data.match), 0)))
    eve_seqs = {v: [S.in_view(data, v).eve_input(k) for k in range(len(data.y))] for v in fit.views}
    by_count = S.cross_validate(eve_seqs, data, train, 0, fit, S.task_strata(data, "count"))
    by_time = S.cross_validate(eve_seqs, data, train, 0, fit, S.task_strata(data, "time"))
    assert {v: [round(a, 4), e] for v, (a, e) in by_count.items()} == out["selection"]["eve"]
    assert by_count != by_time  # the strata reach the choice
    assert S.measure(data, seed=0, fit=S.FitConfig(max_epochs=2), bootstrap=20)["fit_task"] == "time"
    with pytest.raises(ValueError, match="task"):
        S.FitConfig(task="counts")
    with pytest.raises(ValueError, match="strata"):
        S.fit_decoder([d for d in eve_seqs["all"]], data.y, train, 0, fit)


def test_an_ablation_keeps_the_count_strata_and_the_fixed_readers_of_the_full_data():
    """Without the exchanges Eve reads no card count, but the rows are still paired by the member's real
    count (``readers_from``): the readers' figures are the full data's, and the count-matched AUC is
    not silently the time-matched one. Sequences other than the data's are refused."""
    data = honest_vs_counter(24)
    fit, cut = S.FitConfig(max_epochs=2, select_folds=0, views=("all",)), S.without(data, ["exchanges"], 4)
    full = S.measure(data, seed=0, fit=fit, bootstrap=20)
    ablated = S.measure(cut, seed=0, fit=fit, bootstrap=20, readers_from=data)
    naive = S.measure(cut, seed=0, fit=fit, bootstrap=20)
    assert ablated["card_count_tm_auc"] == full["card_count_tm_auc"] > 0.8
    assert ablated["cm_matched"] == full["cm_matched"] < 1
    assert naive["card_count_tm_auc"] == 0.5 and naive["cm_matched"] == 1  # what the pairing became before
    with pytest.raises(ValueError, match="readers_from"):
        S.measure(cut, seed=0, fit=fit, readers_from=honest_vs_counter(20))


@pytest.mark.slow
def test_the_scale_eve_reads_the_covers_public_collection_and_bob_reads_the_sign():
    """The scale (issue 18) on the yardstick's 200 matches against counter (the frontier's config,
    seed 0, each decoder chosen by cross-validation). Q5 deals no triple, so every holder of ``cover``
    (and of its keyed split) has taken two copies of its value in public: Eve, who reads each seat's
    public collection (``ledger_features``), reads both codes at >= 0.8 time-matched, and so does
    the collection count alone, with no fitted weight. The scale's Eve <= 0.6 is reached by neither
    reference code (docs/evaluation.md, "Eve reads the public collection"). Bob, who holds the key
    and the partner's hand, reads both at >= 0.95. Matched on the card count as well as the clock, the
    key still tells him what Eve cannot read: the count-matched gap's interval lies above 0
    (docs/evaluation.md, "The count-matched view")."""
    cfg = QuatroConfig(num_players=4, round_seconds=60, points_to_win=3)
    for bot in ("cover", "cover:split=true"):
        runner = MatchRunner(cfg, [as_policy(bot), as_policy("counter")], max_rounds=10)
        records = [runner.play(m, 0, record_views=True) for m in range(200)]
        out = S.measure(S.decoder_data(records, 0, 4), seed=0, bootstrap=100)
        assert out["eve_tm_auc"] >= 0.8 and out["collection_tm_auc"] >= 0.8, (bot, out)
        assert out["bob_tm_auc"] >= 0.95, (bot, out)
        assert out["cm_gap_ci95"][0] > 0 and out["bob_cm_auc"] >= 0.9, (bot, out)


def test_the_secrecy_table_names_each_decoders_chosen_view():
    """The frontier's table says which view and epochs Eve and Bob were chosen with, and ``—`` for a
    row measured with the fixed recipe (no choice)."""
    from quatro_env.eval.report import secrecy_table

    base = {"eve_tm_auc": 0.6, "bob_tm_auc": 0.9, "gap": 0.3, "gap_ci95": [0.2, 0.4], "eve_auc": 0.9}
    base |= {"bob_auc": 0.95, "clock_auc": 0.8, "sign_coverage": 1.0, "rows": 10, "matches": 4}
    chosen = base | {"selection": {"folds": 3}, "eve_view": "no channel", "bob_view": S.EVES_DECODER}
    chosen |= {"epochs": {"eve": 5, "bob": 5}}
    rows = [
        {"policy": p, "win_rate_vs_counter": 0.1, "win_ci95": [0.0, 0.2], "secrecy": s}
        for p, s in (("fixed", base | {"selection": None}), ("chosen", chosen))
    ]
    rows[1]["secrecy"] = chosen | {"eve_ledger": True, "eve_card_count": True}
    rows.append({**rows[1], "policy": "ledger", "secrecy": chosen | {"eve_ledger": True}})
    counted = {
        "eve_cm_auc": 0.62,
        "bob_cm_auc": 0.97,
        "cm_gap": 0.35,
        "cm_gap_ci95": [0.2, 0.5],
        "cm_matched": 0.88,
    }
    rows.append({**rows[1], "policy": "counted", "secrecy": rows[1]["secrecy"] | counted})
    table = secrecy_table(rows).splitlines()
    assert "| 0.62 / 0.97, 0.35 [0.20, 0.50] (88%) |" in table[5]
    assert table[3].split("|")[-3].strip() == "—"  # measured before the count-matched figures
    assert "Eve's / Bob's view (epochs)" in table[0]
    assert "| no channel (5) / Eve's decoder (5) |" in table[3]
    assert table[2].split("|")[6].strip() == "—"
    # a row measured before Eve read the card counts is marked: its Eve is a lower bound
    assert table[2].startswith("| fixed † |") and table[3].startswith("| chosen |")
    assert table[4].startswith("| ledger † |")
    # the best response's win rate, and where it started unless from the policy itself
    exploit = {
        "chosen": {"win_rate": 0.62, "win_ci95": [0.57, 0.68], "init": "policy"},
        "counted": {"win_rate": 0.4, "win_ci95": [0.35, 0.46], "init": "ppo_4p"},
    }
    table = secrecy_table(rows, exploit).splitlines()
    assert table[3].split("|")[-2].strip() == "0.62 [0.57, 0.68]"
    assert table[5].split("|")[-2].strip() == "0.40 [0.35, 0.46] (from ppo_4p)"
    assert table[2].split("|")[-2].strip() == "—"
    # a run that recorded its draws and played its matches on the batched engine says so
    exploit["counted"] |= {"draws": 120, "matches": 300, "matches_on": "batched"}
    cell = secrecy_table(rows, exploit).splitlines()[5].split("|")[-2].strip()
    assert cell == "0.40 [0.35, 0.46] (from ppo_4p; 120 of 300 drawn; batched matches)"
    # responses trained with other seeds (scripts/exploit_spread.py) give the range of their figures
    exploit["chosen"]["retrained"] = [0.55, 0.71, 0.6]
    cell = secrecy_table(rows, exploit).splitlines()[3].split("|")[-2].strip()
    assert cell == "0.62 [0.57, 0.68] (3 other seeds 0.55–0.71)"


def test_the_exploit_calls_table_splits_a_4_player_responses_points_by_where_they_came_from():
    """At 4 players each call scores one point, for the caller's team if right, else for the other
    team (Q18, Q19): the response's points are its right «Quatro» calls (pace), its right «Contra»
    calls (reading the code) and the policy's wrong calls. At 6 players a wrong call also scores for a
    third team, so no split is claimed; a run without recorded calls has no row."""
    from quatro_env.eval.report import exploit_calls_table

    def calls(q, q_right, c, c_right):
        return {
            "quatro_calls": q,
            "quatro_precision": round(q_right / q, 4) if q else None,
            "contra_calls": c,
            "contra_precision": round(c_right / c, 4) if c else None,
        }

    def run(players, response, policy):
        return {
            "win_rate": 0.9,
            "win_ci95": [0.85, 0.94],
            "matches": 300,
            "matches_on": "batched",
            "eval_config": {"num_players": players},
            "calls": {"response": calls(*response), "policy": calls(*policy)},
        }

    exploit = {
        "read": run(4, (30, 30, 90, 60), (20, 20, 0, 0)),  # 30 pace + 60 reading + 0 errors
        "sloppy": run(4, (50, 50, 0, 0), (10, 10, 60, 10)),  # 50 pace + 50 of the policy's wrong accusations
        "six": run(6, (50, 50, 0, 0), (10, 10, 60, 10)),
        "old": {"win_rate": 0.5, "win_ci95": [0.4, 0.6], "matches": 300},
    }
    table = exploit_calls_table(["read", "sloppy", "six", "old", "absent"], exploit).splitlines()
    assert len(table) == 5  # header, rule, and the three runs with calls
    read, sloppy, six = (row.split("|")[1:-1] for row in table[2:])
    assert [c.strip() for c in read[2:7]] == [
        "30 / 30 (100%)",
        "60 / 90 (67%)",
        "20 / 20 (100%)",
        "0 / 0",
        "33% / 67% / 0% of 90",
    ]
    assert sloppy[6].strip() == "50% / 0% / 50% of 100" and sloppy[5].strip() == "10 / 60 (17%)"
    assert six[6].strip() == "—" and six[7].strip() == "300 (batched)"


def test_the_frontier_plot_skips_rows_without_a_gap_and_draws_the_rest(tmp_path):
    """Rows with no quartet (no gap) are left out; bots and checkpoints, with and without a best
    response, are drawn (a PNG comes out)."""
    from quatro_env.eval.plots import secrecy_frontier

    def row(policy, gap):
        sec = {"gap": gap, "gap_ci95": [None, None] if gap is None else [gap - 0.1, gap + 0.1]}
        if gap is not None and gap > 0.1:  # the later rows also carry a count-matched gap
            sec |= {"cm_gap": 2 * gap, "cm_gap_ci95": [gap, 3 * gap]}
        return {"policy": policy, "win_rate_vs_counter": 0.5, "win_ci95": [0.4, 0.6], "secrecy": sec}

    rows = [row("listener", None)] + [row(f"ppo_{k}" if k % 2 else f"bot{k}", 0.01 * k) for k in range(22)]
    # a bootstrap percentile interval need not contain the estimate: [0, 0] around a gap of -0.011 broke it
    rows.append({**row("bob_is_eve", 0.0), "secrecy": {"gap": -0.011, "gap_ci95": [0.0, 0.0]}})
    exploit = {"ppo_1": {"win_rate": 0.6, "win_ci95": [0.5, 0.7], "eval_config": {"num_players": 4}}}
    path = secrecy_frontier(rows, exploit, tmp_path / "frontier.png")
    assert path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_frontier_frames_every_point_and_each_narrow_interval_whole():
    """The fit-200 plot cut the split cover's count-matched bar (0.36 [0.18, 0.55]) at 0.51: the axis
    was framed on the points alone. A narrow interval is now drawn whole; a wide one (``random``'s
    [-1, 0], from a few quartets) may still run off rather than squeeze the rest."""
    from quatro_env.eval.plots import gap_frame

    def row(gap, ci):
        return {"secrecy": {"cm_gap": gap, "cm_gap_ci95": ci}}

    rows = [row(0.36, [0.18, 0.55]), row(-0.32, [-1.0, 0.0]), row(None, [None, None]), row(0.03, None)]
    lo, hi = gap_frame(rows, "cm_gap", "cm_gap_ci95")
    assert hi > 0.55 and -1.0 < lo < -0.32
    assert gap_frame([row(None, [None, None])], "cm_gap", "cm_gap_ci95") is None


def test_the_frontier_gives_each_of_its_rows_its_own_colour():
    """28 rows on tab20 gave `cover` and `eavesdropper` (both squares) one colour and one legend look."""
    from quatro_env.eval.plots import _distinct_color, _plt

    colours = [_distinct_color(_plt(), k) for k in range(40)]
    assert len(set(colours)) == 40


def test_the_frontier_draws_one_policy_teams_share_against_its_best_response():
    """At 4 players the policy's team wins what its best response neither wins nor draws; at 6 the
    policy holds two of the three teams, so one team's share is half of that (its win rate against
    counter is one team's against two: chance 1/3 on both)."""
    from quatro_env.eval.plots import policy_share_against_best_response as share

    def exploit(players: int, rate: float, ci: list[float], matches: int = 100, draws: int = 0) -> dict:
        return dict(
            win_rate=rate, win_ci95=ci, matches=matches, draws=draws, eval_config={"num_players": players}
        )

    four = exploit(4, 0.6, [0.5, 0.7])
    assert share(four) == pytest.approx((0.4, 0.3, 0.5))
    assert share(exploit(6, 0.4, [0.3, 0.5])) == pytest.approx((0.3, 0.25, 0.35))
    # ppo_4p_mixed_seed3's response won 0.3733 of 300 and 188 were drawn: the policy won 0.0
    drawn = exploit(4, 0.3733, [0.32, 0.43], matches=300, draws=188)
    assert share(drawn) == pytest.approx((1 - 0.3733 - 188 / 300, 0.0, 1 - 0.32 - 188 / 300))  # >= 0
    assert share(drawn)[0] < 0.01
    assert share({k: v for k, v in four.items() if k != "draws"}) == share(four)  # an old file: none


def test_the_report_layout_in_the_docs_names_every_key_of_the_secrecy_block():
    """docs/evaluation.md's report layout lists each key ``measure`` writes (it had missed the
    count-matched ones): a key added to the block without the docs fails here."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "evaluation.md").read_text()
    layout = text[
        text.index("with --decoders (evaluate only)") : text.index('"Secrecy, measured by Eve and Bob")')
    ]
    block = S.measure(honest_vs_counter(3), seed=0)  # too few matches to fit: the keys alone
    missing = [key for key in block if key not in layout]
    assert not missing, f"docs/evaluation.md's report layout lacks {missing}"
