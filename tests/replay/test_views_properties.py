"""Property tests: a seat's decoded observation agrees with the engine on everything it may see,
and its display frame holds none of what it may not (Q26–Q28), for 4, 6 and 8 players."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quatro_env.quatro.cards import EMOJIS, VALUE_LABELS
from quatro_env.quatro.config import QuatroConfig
from quatro_env.quatro.encoding import ObservationEncoder
from quatro_env.quatro.engine import Phase, QuatroEngine
from quatro_env.replay.format import event_record
from quatro_env.replay.records import EventRecord, TableState
from quatro_env.replay.views import decode_observation, engine_state, seat_frame


@settings(max_examples=12, deadline=None)
@given(n=st.sampled_from([4, 6, 8]), seed=st.integers(0, 10_000), ticks=st.integers(1, 60))
def test_seat_frame_agrees_with_the_engine_and_hides_the_rest(n, seed, ticks):
    config = QuatroConfig(num_players=n, sign_phase_seconds=1.0, round_seconds=15.0, disconnect_prob=0.02)
    engine = QuatroEngine(config)
    enc = ObservationEncoder(n)
    obs = np.zeros((n, enc.obs_dim), np.uint8)
    rng = np.random.default_rng(seed)
    events = engine.reset(seed)
    enc.encode(engine, events, (), obs)
    for _ in range(ticks):
        if engine.match_over:
            break
        actions = [int(rng.choice(np.flatnonzero(engine.legal_mask(s)))) for s in range(n)]
        result = engine.step(actions)
        enc.encode(engine, result.events, result.order, obs)
    playing = engine.phase == Phase.PLAY
    for seat in range(n):
        view = decode_observation(obs[seat], seat, n)
        frame = seat_frame(view, n)
        assert view["self"]["hand"] == (
            [c // 4 for c in engine.hands[seat]] if engine.hands[seat] else [None] * 4
        )
        assert frame["scores"] == engine.scores
        assert frame["phase"] == Phase(engine.phase).name.lower()
        assert [s["connected"] for s in frame["seats"]] == engine.connected
        if playing:
            assert [s["floor"] for s in frame["seats"]] == engine.floor
            assert frame["center"] == [VALUE_LABELS[c // 4] for c in engine.center]
        team = seat % (n // 2)
        own_sign = engine.team_sign[team]
        assert frame["signs"][team] == (None if own_sign is None else EMOJIS[own_sign])
        for s in frame["seats"]:
            if s["seat"] == seat:
                continue
            assert s["emoji"] is None  # Q28: no other seat's current emoji between pulses
            if not engine.revealed:
                assert s["hand"] is None  # Q28: no other hand before the reveal
        if not (engine.revealed and config.reveal_signs):
            assert all(x is None for t, x in enumerate(frame["signs"]) if t != team)  # Q28: other signs


@settings(max_examples=12, deadline=None)
@given(n=st.sampled_from([4, 6, 8]), seed=st.integers(0, 10_000), ticks=st.integers(1, 300))
def test_every_state_and_event_the_engine_writes_fits_the_replay_records(n, seed, ticks):
    """The writer (``engine_state``, ``event_record``) and the reader's models (``replay.records``)
    describe one record: every field the engine writes is declared, and every value fits."""
    config = QuatroConfig(
        num_players=n, sign_phase_seconds=1.0, round_seconds=15.0, pause_seconds=1.0, disconnect_prob=0.02
    )
    engine = QuatroEngine(config)
    rng = np.random.default_rng(seed)
    events = engine.reset(seed)
    for _ in range(ticks):
        state = engine_state(engine)
        assert list(state) == list(TableState.model_fields)
        TableState.model_validate(state).check_table(n)
        for ev in events:
            EventRecord.model_validate(event_record(ev)).check_table(n)
        if engine.match_over:
            break
        actions = [int(rng.choice(np.flatnonzero(engine.legal_mask(s)))) for s in range(n)]
        events = engine.step(actions).events
