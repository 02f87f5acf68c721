"""Behaviour of the scripted bot ladder (issue 4): each bot is deterministic, legal for 4/6/8
players, and does what its documentation says."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.bots import CounterBot, EavesdropperBot
from quatro_env.bots.batched import BatchedBots
from quatro_env.eval.policies import as_policy
from quatro_env.eval.runner import run_lineups
from quatro_env.quatro import ActionKind as K
from quatro_env.quatro import QuatroConfig
from quatro_env.quatro.bots import BOT_POLICIES
from quatro_env.quatro.cards import is_quartet
from quatro_env.quatro.engine import Phase
from tests.eval.helpers import Table, first

LADDER = ("random", "random_caller", "collector", "honest", "decoy", "eavesdropper", "counter")
SHORT = dict(points_to_win=2, round_seconds=20)


def test_registry_keeps_the_old_names_and_adds_the_ladder():
    from quatro_env.quatro.bots import BotPolicy, IdleBot, RandomBot, RandomCallerBot

    assert BOT_POLICIES["idle"] is IdleBot and BOT_POLICIES["random"] is RandomBot
    assert BOT_POLICIES["random_caller"] is RandomCallerBot
    for name in LADDER:
        assert issubclass(BOT_POLICIES[name], BotPolicy)


def test_env_bot_seats_accept_every_ladder_bot():
    import quatro_env

    for name in LADDER:
        env = quatro_env.parallel_env(num_players=4, bot_seats=(1, 2, 3), bot_policy=name, **SHORT)
        env.reset(seed=1)
        for _ in range(60):
            if not env.agents:
                break
            env.step({"player_0": 0})


@pytest.mark.parametrize("n", (4, 6, 8))
def test_every_bot_is_legal_and_deterministic(n):
    """A table of each bot (plus a mixed line-up): no illegal action, and the same seed replays the
    same matches exactly."""
    cfg = QuatroConfig(num_players=n, **SHORT)
    t = n // 2
    lineups = [[as_policy(name)] * t for name in LADDER]
    lineups.append([as_policy(LADDER[(k + 3) % len(LADDER)]) for k in range(t)])
    a = run_lineups(cfg, lineups, 2, seed=5, max_rounds=3, progress=False)
    b = run_lineups(cfg, lineups, 2, seed=5, max_rounds=3, progress=False)
    for recs_a, recs_b in zip(a, b, strict=True):
        for ra, rb in zip(recs_a, recs_b, strict=True):
            assert int(ra["illegal"].sum()) == 0
            assert ra["scores"] == rb["scores"] and ra["play_ticks"] == rb["play_ticks"]
            assert np.array_equal(ra["calls"], rb["calls"]) and np.array_equal(ra["signal"], rb["signal"])


def test_random_never_calls_and_random_caller_does():
    cfg = QuatroConfig(num_players=4, **SHORT)
    (rand, caller) = run_lineups(
        cfg,
        [[as_policy("random")] * 2, [as_policy("random_caller")] * 2],
        3,
        max_rounds=2,
        progress=False,
    )
    assert all(r["calls"].sum() == 0 for r in rand)
    assert all(r["blank_rounds"] == r["rounds"] for r in rand)  # only the clock ends their rounds
    assert sum(int(r["calls"][:, [0, 2]].sum()) for r in caller) > 0


def test_collector_swaps_toward_its_most_held_value_and_never_talks():
    pos = dict(
        phase="play",
        hands=[["K", "K", "A", "Q"], ["A", "A", "Q", "J"], ["J", "J", "10", "10"], ["A", "Q", "J", "10"]],
        center=["K", "K", "Q", "10"],
        signs=[0, 1],
    )
    table = Table({0: "collector"}, position=pos)
    table.step()
    hand = [c // 4 for c in table.engine.hands[0]]
    assert sorted(hand).count(1) == 3  # took a K (value 1), gave the A or the Q
    table = Table({s: "collector" for s in range(4)}, position=pos, **SHORT)
    for _ in range(80):
        table.step()
        if table.engine.phase != Phase.PLAY:
            break
    for seat in range(4):
        assert table.kinds_played(seat) <= {K.NOOP, K.EXCHANGE, K.CHOOSE_SIGN, K.READY, K.START_ROUND}


QUARTET_AT_2 = dict(
    phase="play",
    hands=[["A", "A", "K", "Q"], ["K", "Q", "10", "10"], ["J", "J", "J", "J"], ["A", "K", "Q", "10"]],
    center=["A", "K", "Q", "10"],
    signs=[3, 7],
)


@pytest.mark.parametrize("bot", ("honest", "decoy", "eavesdropper", "counter"))
def test_partner_calls_within_two_pulses_of_the_sign(bot):
    """Seat 2 holds a quartet: it shows the team sign; seat 0 calls «Quatro» well within two pulses."""
    table = Table({s: bot for s in range(4)}, position=QUARTET_AT_2)
    pulse_ticks = table.engine.durations.pulse
    shown = None
    for _ in range(4 * pulse_ticks):
        events = table.step()
        tick = table.log[-1][0]
        pulse = first(events, "pulse", 2)
        if pulse is not None and pulse.data["emoji"] == 3 and shown is None:
            shown = tick
        call = first(events, "call")
        if call is not None:
            break
    assert shown is not None, "the quartet holder never showed the sign"
    assert call.seat == 0 and call.data["kind"] == "quatro" and call.data["correct"]
    assert tick - shown <= 2 * pulse_ticks
    assert tick - shown == 1  # in fact, on the very next tick


@pytest.mark.parametrize("bot", ("honest", "decoy"))
def test_the_sign_means_a_quartet(bot):
    """Over whole matches the sign is shown only by a seat holding a quartet; honest shows nothing
    else, decoy shows cover emojis too."""
    cfg = QuatroConfig(num_players=4, points_to_win=3, round_seconds=30)
    (recs,) = run_lineups(cfg, [[as_policy(bot)] * 2], 4, max_rounds=5, progress=False)
    signal = sum(r["signal"].sum(axis=0) for r in recs)  # [holds quartet, nothing/sign/other]
    assert signal[0, 1] == 0 and signal[1, 1] > 0
    if bot == "honest":
        assert signal[:, 2].sum() == 0
    else:
        assert signal[0, 2] > 0


def _opponent_breaks_silence(take_at: int):
    """Seats 1 and 3 (scripted): seat 1 holds four J from the start, silent until ``take_at``."""
    pos = dict(
        phase="play",
        hands=[["A", "K", "Q", "10"], ["J", "J", "J", "J"], ["A", "K", "Q", "10"], ["A", "K", "Q", "10"]],
        center=["A", "K", "Q", "10"],
        signs=[0, 1],
    )

    def script(seat: int, tick: int) -> int:
        return table.codec.encode(K.TAKE_FLOOR) if seat == 1 and tick == take_at else 0

    table = Table({0: "eavesdropper"}, position=pos, script=script)
    return table


def test_eavesdropper_calls_contra_on_a_long_silence_broken():
    table = _opponent_breaks_silence(take_at=10)
    for _ in range(11):
        table.step()
        assert first(table.log[-1][2], "call") is None
    events = table.step()  # tick 11: the floor taken at tick 10 is seen
    call = first(events, "call", 0)
    assert call is not None and call.data["kind"] == "contra" and call.data["correct"]


def test_eavesdropper_ignores_a_floor_taken_early():
    table = _opponent_breaks_silence(take_at=EavesdropperBot.silence_ticks - 3)
    for _ in range(EavesdropperBot.silence_ticks + 4):
        table.step()
        assert first(table.log[-1][2], "call") is None


def test_eavesdropper_calls_on_a_changed_steady_pattern():
    pos = dict(
        phase="play",
        hands=[["A", "K", "Q", "10"], ["J", "J", "J", "J"], ["A", "K", "Q", "10"], ["A", "K", "Q", "10"]],
        center=["A", "K", "Q", "10"],
        signs=[0, 1],
    )
    codec = None

    def script(seat: int, tick: int) -> int:
        if seat != 1:
            return 0
        if tick == 0:
            return codec.encode(K.TAKE_FLOOR)
        if tick == 1:
            return codec.encode(K.SHOW_EMOJI, 5)  # pulses at ticks 1, 11, 21 ...
        if tick == 25:
            return codec.encode(K.SHOW_EMOJI, 6)  # ... and shows 6 at tick 31
        return 0

    table = Table({0: "eavesdropper"}, position=pos, script=script)
    codec = table.codec
    for _ in range(32):
        table.step()
        assert first(table.log[-1][2], "call") is None, table.log[-1]
    call = first(table.step(), "call", 0)
    assert call is not None and call.data["kind"] == "contra"


def _four_kings_for_seat_1(bot):
    pos = dict(
        phase="play",
        hands=[["A", "A", "Q", "Q"], ["A", "Q", "J", "10"], ["A", "J", "J", "10"], ["Q", "J", "10", "10"]],
        center=["K", "K", "K", "K"],
        signs=[0, 1],
    )

    def script(seat: int, tick: int) -> int:
        if seat == 1 and tick in (0, 4, 8, 12):
            i = tick // 4
            return table.codec.encode(K.EXCHANGE, (i, i))  # give slot i, take the K of center slot i
        return 0

    table = Table({0: bot}, position=pos, script=script)
    return table


def test_counter_calls_contra_when_the_record_proves_a_quartet():
    table = _four_kings_for_seat_1(CounterBot(4, threshold=1.0))
    for _ in range(13):
        table.step()
        assert first(table.log[-1][2], "call") is None
    assert is_quartet(table.engine.hands[1])
    call = first(table.step(), "call", 0)  # tick 13: the fourth K was taken at tick 12
    assert call is not None and call.data["kind"] == "contra" and call.data["correct"]


class _Recording(CounterBot):
    def act(self, observation, mask):
        action = super().act(observation, mask)
        if self.view.phase(observation) == Phase.PLAY:
            self.trace.append((self.seat_probabilities(observation), action))
        return action


@pytest.mark.parametrize("opponent", ("random", "honest"))
def test_counter_bound_is_sound_and_it_never_calls_when_the_record_rules_a_quartet_out(opponent):
    """Whenever the record gives a seat probability 0, that seat really holds no quartet; and every
    «Contra» the counter calls had a team probability of at least its threshold."""
    bot = _Recording(4, 3)
    bot.trace = []
    table = Table(
        {0: bot, 1: opponent, 2: "counter", 3: opponent}, seed=3, points_to_win=12, round_seconds=20
    )
    truth = []
    for _ in range(700):
        if table.engine.match_over:
            break
        before = len(bot.trace)
        playing = table.engine.phase == Phase.PLAY
        held = [is_quartet(h) for h in table.engine.hands] if playing else None
        table.step()
        if len(bot.trace) > before:
            truth.append(held)
    assert len(truth) > 100
    ruled_out = contras = 0
    for (probs, action), held in zip(bot.trace, truth, strict=True):
        for r in range(1, 4):
            if probs[r] == 0:
                ruled_out += 1
                assert not held[r], "the record ruled out a quartet that was there"
        if table.codec.kinds[action] == K.CONTRA:
            contras += 1
            p = 1 - (1 - probs[1]) * (1 - probs[3])
            assert p >= bot.threshold > 0
    assert ruled_out > 50


def test_listener_only_calls_on_its_partners_sign():
    """``listener`` (a training partner, docs/ppo.md): «Quatro» on the tick after its partner's sign,
    and no other play action (no exchange, floor or accusation) before it."""
    table = Table({0: "listener", 2: "honest"}, position=QUARTET_AT_2)
    events = table.run_until(lambda evs: first(evs, "call") is not None, max_ticks=40)
    call = first(events, "call")
    assert call.seat == 0 and call.data["kind"] == "quatro" and call.data["correct"]
    shown = [t for t, _, evs in table.log if (p := first(evs, "pulse", 2)) and p.data["emoji"] == 3]
    assert table.log[-1][0] == shown[0] + 1
    assert table.kinds_played(0) == {K.NOOP, K.QUATRO}


def test_listener_stays_quiet_without_a_sign():
    table = Table({0: "listener"}, position=QUARTET_AT_2)  # seat 2 holds a quartet but never shows it
    for _ in range(60):
        table.step()
    assert table.kinds_played(0) == {K.NOOP}


class SeatTwoAtPlay:
    """A 4-seat engine in play whose seat 2 is watched by a numpy bot and by its compiled row, both fed
    seat 2's observation after every tick (``tick``); seat 0 is the only agent, so its proposal has no
    voter and re-deals at once (Q20)."""

    def __init__(self, bot, kind: str) -> None:
        from quatro_env.quatro.encoding import ObservationEncoder
        from quatro_env.quatro.engine import QuatroEngine

        self.engine = QuatroEngine(QuatroConfig(bot_seats=(1, 2, 3)))
        self.encoder, self.bot, self.row = ObservationEncoder(4), bot, BatchedBots(4, 1)
        self.row.reset_rows(np.arange(1), BatchedBots.kind_ids([kind]))
        self.obs = np.zeros((4, self.encoder.obs_dim), np.uint8)
        self.encoder.encode(self.engine, self.engine.reset(2), (), self.obs)
        ready = self.engine.codec.encode(K.READY)
        while self.engine.phase != Phase.PLAY:
            self.tick([ready if self.engine.legal_mask(0)[ready] else 0, 0, 0, 0])
        self.act()

    def act(self) -> None:
        mask = self.engine.legal_mask(2)
        self.bot.act(self.obs[2], mask)
        self.row.act(self.obs[2:3], mask[None], np.full((1, self.row.num_draws), 0.5))

    def tick(self, actions, order=None):
        """One tick (in ``order`` if given), its observation encoded (the bots have not acted on it)."""
        if order is not None:
            self.engine.force_next_order(order)
        result = self.engine.step(actions)
        self.encoder.encode(self.engine, result.events, result.order, self.obs)
        return result

    def reshuffle_after(self, seat_1_action: int):
        """Seat 1 plays ``seat_1_action``, then seat 0's proposal re-deals in the same tick."""
        propose = self.engine.codec.encode(K.PROPOSE_RESHUFFLE)
        result = self.tick([propose, seat_1_action, 0, 0], order=(1, 0, 2, 3))
        assert {"exchange", "reshuffle"} <= {e.kind for e in result.events}
        self.act()


SEAT_1 = (1 - 2) % 4  # seat 1 as the bot at seat 2 sees it


def test_counter_learns_nothing_from_a_reshuffle_tick_s_exchanges():
    """Q20: every exchange shown in a reshuffle tick came before the re-deal; folded in, the record
    said the exchanger surely held a card it no longer has (the bound was no longer sound)."""
    table = SeatTwoAtPlay(CounterBot(4, seed=0), "counter")
    table.reshuffle_after(table.engine.codec.encode(K.EXCHANGE, (0, 0)))
    counter, row = table.bot, table.row
    assert sum(counter.known[SEAT_1]) == 0 and counter.unknown[SEAT_1] == 4
    assert row.known[0, SEAT_1].sum() == 0 and row.runs[0, 1, SEAT_1] == 4  # the row's unknown count


def test_split_cover_forgets_what_seats_kept_at_a_reshuffle():
    """Q20: a reshuffle re-deals every hand, so the split cover's kept values (per seat, values taken
    less those placed this round) say nothing of the new hands, and the reshuffle tick's exchanges all
    came before the re-deal; before, both stayed in the counts its neutral swaps avoid."""
    from quatro_env.bots import CoverBot

    table = SeatTwoAtPlay(CoverBot(4, seed=0, split=True), "cover:split=true")
    engine, cover, row = table.engine, table.bot, table.row
    swapped: set[int] = set()

    def seat_1_swaps():  # gives a value other than the one it takes, and undoes no earlier swap
        hand, center = engine.hands[1], engine.center
        h, c = next(
            (h, c)
            for h in range(4)
            for c in range(4)
            if hand[h] // 4 != center[c] // 4 and not {hand[h] // 4, center[c] // 4} & swapped
        )
        return engine.codec.encode(K.EXCHANGE, (h, c))

    result = table.tick([0, seat_1_swaps(), 0, 0])
    table.act()
    (swap,) = [e for e in result.events if e.kind == "exchange"]
    swapped.update((swap.data["taken"] // 4, swap.data["placed"] // 4))
    assert np.abs(cover.kept[SEAT_1]).sum() == 2 and np.abs(row.known[0, SEAT_1]).sum() == 2
    while not engine.legal_mask(1)[seat_1_swaps()]:  # the exchange cooldown (Q13)
        table.tick([0, 0, 0, 0])
        table.act()
    table.reshuffle_after(seat_1_swaps())
    assert not cover.kept.any() and not row.known[0].any()


@pytest.mark.parametrize(
    "spec",
    [
        "counter:keep_weight=nan",  # every collecting seat read P = 1: 11 of 12 «Contra» calls were wrong
        "counter:keep_weight=inf",
        "counter:threshold=true",
        "eavesdropper:silence_ticks=-3",
        "eavesdropper:steady_pulses=0",
        "decoy:cover_rate=nan",
        "cover:split=true,split=false",  # the last of two used to win without a word
    ],
)
def test_a_bad_bot_option_is_refused_by_name(spec):
    from quatro_env.quatro.bots import build_bot

    key = spec.split(":")[1].split("=")[0]
    with pytest.raises(ValueError, match=key):
        build_bot(spec, 4)


def test_a_bot_seeded_at_construction_plays_the_same_without_a_reset():
    """``BotPolicy``: same seed + same observations = same actions, from the seed given to the constructor
    too (a bot used outside an env is not always reset); another seed plays otherwise."""
    import quatro_env
    from quatro_env.quatro.bots import build_bot

    env = quatro_env.parallel_env(num_players=4, sign_phase_seconds=1.0)
    obs, _ = env.reset(seed=2)
    stream, drivers = [], {a: build_bot("random", 4, seed=k) for k, a in enumerate(env.agents)}  # no calls
    for _ in range(60):  # one seat's observations through the sign phase into play
        stream.append(obs["player_0"])
        obs, *_ = env.step({a: drivers[a].act(o["observation"], o["action_mask"]) for a, o in obs.items()})
    for name in ("random", "random_caller", "collector", "honest", "decoy"):
        plays = [
            [bot.act(o["observation"], o["action_mask"]) for o in stream]
            for bot in (build_bot(name, 4, seed=5), build_bot(name, 4, seed=5), build_bot(name, 4, seed=6))
        ]
        assert plays[0] == plays[1], name
        if name.startswith("random"):
            assert plays[0] != plays[2], name


def test_decoy_cover_rate_is_a_probability_in_0_1_and_is_used():
    """``decoy:cover_rate``: in (0, 1] (1 shows a cover at every armed tick, 0 never would); the rate given
    is the rate played."""
    from quatro_env.bots import DecoyBot
    from quatro_env.quatro.bots import build_bot

    assert (
        DecoyBot(4, cover_rate=0.5).cover_rate == 0.5 and build_bot("decoy:cover_rate=1", 4).cover_rate == 1
    )
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=rf"^cover_rate: must lie in \(0, 1\], got {bad}$"):
            DecoyBot(4, cover_rate=bad)


@pytest.mark.parametrize("sign", [0, 11, 23])
def test_decoy_cover_emojis_are_every_emoji_but_the_sign_uniformly(sign):
    """A cover emoji is one of the other 23, each as likely (docs/evaluation.md, decoy): the sign must not
    stand out by its absence or its frequency."""
    from quatro_env.bots import DecoyBot
    from quatro_env.quatro.cards import NUM_EMOJIS

    bot = DecoyBot(4, seed=1)
    counts = np.bincount([bot.cover(sign) for _ in range(23_000)], minlength=NUM_EMOJIS)
    assert counts.size == NUM_EMOJIS and counts[sign] == 0
    others = np.delete(counts, sign)
    assert others.min() > 850 and others.max() < 1150  # 1,000 expected each; 5 sigma is about ±160


def test_a_bot_built_in_python_takes_no_coerced_option():
    from quatro_env.bots import DecoyBot

    for build, key in (
        (lambda: EavesdropperBot(4, silence_ticks=2.7), "silence_ticks"),
        (lambda: DecoyBot(4, cover_rate=True), "cover_rate"),
        (lambda: CounterBot(4, record_quatro="false"), "record_quatro"),
    ):
        with pytest.raises(ValueError, match=key):
            build()


def test_same_seed_same_play_after_a_cover_bot_learned_another_period():
    """Q30: a cover bot learns the table's pulse period from its own pulses; a reset forgets it (it
    survived, so a second seeded match on the same env played otherwise than the first)."""
    import quatro_env

    def actions(env):
        env.reset(seed=7)
        played = []
        for _ in range(80):
            env.step({"player_0": 0})
            played.append([(e.kind, e.seat, repr(e.data)) for e in env.last_tick.events])
        return played

    env = quatro_env.parallel_env(bot_seats=(1, 2, 3), bot_policy="cover", pulse_seconds=3, **SHORT)
    assert actions(env) == actions(env)


def test_honest_releases_a_floor_it_holds_without_a_quartet():
    """Channel housekeeping: an honest seat that finds itself on the floor with no quartet (after a
    reshuffle broke the one it showed, Q20; here it was scripted there) releases the floor as soon as
    the gesture cooldown allows (Q17) and shows nothing; no game had reached this path in a test."""
    from quatro_env.quatro.bots import BOT_POLICIES

    pos = dict(
        phase="play",
        hands=[["A", "A", "K", "Q"], ["A", "A", "K", "Q"], ["K", "Q", "J", "10"], ["K", "Q", "J", "10"]],
        center=["J", "J", "10", "10"],  # none of seat 0's target: it has no exchange to make
        signs=[0, 1],
    )
    take = None

    def script(seat: int, tick: int) -> int:
        return take if seat == 0 and tick == 0 else 0

    table = Table({}, position=pos, script=script)
    take = table.codec.encode(K.TAKE_FLOOR)
    assert first(table.step(), "floor_taken", 0) is not None
    honest = BOT_POLICIES["honest"](4, 0)
    honest.reset(0)
    table.bots[0] = honest
    cooldown = table.engine.durations.floor_cooldown
    table.run_until(lambda events: first(events, "floor_released", 0) is not None, cooldown + 4)
    assert table.log[-1][0] == cooldown  # the first tick the cooldown allows (taken at tick 0)
    assert not any(first(events, "pulse", 0) for _, _, events in table.log)
