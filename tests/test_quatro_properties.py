"""Property tests over long random legal play (hypothesis), and the hidden-information test.

Invariants: cards are conserved and every value is held four times (Q3), scores never drop
(Q24), matches end (Q10, Q24), masks match the engine's legality exactly (Q9, Q29), every
observation lies in its space, and an observation never depends on hidden information (Q28).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quatro_env import parallel_env
from quatro_env.quatro import ActionKind, Phase
from quatro_env.quatro.cards import deck_size
from tests.random_configs import random_config

FAST = dict(
    round_seconds=20,
    sign_phase_seconds=3,
    pause_seconds=2,
    vote_window_seconds=3,
    vote_interval_seconds=4,
    pulse_seconds=1.5,
)
CARD_KINDS = (ActionKind.EXCHANGE, ActionKind.PROPOSE_RESHUFFLE, ActionKind.VOTE_YES, ActionKind.VOTE_NO)


def biased_action(rng: np.random.Generator, mask: np.ndarray, codec, call_rate: float) -> int:
    """A random legal action; calls are rare so that rounds last and every other rule gets exercised."""
    legal = np.flatnonzero(mask)
    calls = [a for a in legal if codec.kinds[a] in (ActionKind.QUATRO, ActionKind.CONTRA)]
    if calls and rng.random() < call_rate:
        return int(rng.choice(calls))
    rest = [a for a in legal if codec.kinds[a] not in (ActionKind.QUATRO, ActionKind.CONTRA)]
    return int(rng.choice(rest))


def check_mask_is_legality(env) -> None:
    engine = env.engine
    for seat in range(env.n):
        mask = engine.legal_mask(seat)
        assert mask.dtype == np.int8 and mask.shape == (env.codec.num_actions,)
        assert mask.any(), "a seat always has at least the no-op"
        for action in range(env.codec.num_actions):
            assert bool(mask[action]) == (engine.illegal_reason(seat, action) is None), (
                seat,
                env.codec.describe(action),
                engine.illegal_reason(seat, action),
            )


def reveal_positions(encoder) -> np.ndarray:
    """Where an observation shows hands and team signs as the reveal shows them (Q7, Q28): every
    ``revealed_hand`` and ``revealed_sign`` field, the observer's own included."""
    sizes = dict(encoder.seat.fields) | dict(encoder.team.fields)
    spans = [
        np.arange(start, start + sizes[name.split(".")[-1]])
        for name, start in encoder.offsets.items()
        if name.endswith((".revealed_hand", ".revealed_sign"))
    ]
    return np.concatenate(spans)


def play_checking_invariants(env, seed: int, call_rate: float) -> None:
    """Random legal play until the episode ends, checking after every tick: Q3 conservation, Q24
    monotone scores, a zero-sum table, observations inside their space, no hand or sign revealed while a
    round is chosen or played (Q28; the scripted positions of the hidden-information test below never pass
    through a sign phase); every fifth tick, masks that match the engine's legality exactly (Q9, Q29)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    space = env.observation_space(env.possible_agents[0])
    revealed = reveal_positions(env.encoder)
    engine, deck = env.engine, list(range(deck_size(env.n)))
    # the zero-sum split includes the bot seats (docs/quatro.md, decision 10), whose rewards nobody receives
    zero_sum = env.config.reward_mode == "zero_sum" and not env.config.bot_seats
    scores = list(engine.scores)
    ticks = 0
    while env.agents:
        if ticks % 5 == 0:
            check_mask_is_legality(env)
        acts = {a: biased_action(rng, o["action_mask"], env.codec, call_rate) for a, o in obs.items()}
        obs, rewards, _, _, _ = env.step(acts)
        ticks += 1
        for o in obs.values():
            assert space.contains(o)
            if engine.phase in (Phase.SIGN, Phase.PLAY):
                assert not o["observation"][revealed].any(), "Q28: a hand or a sign shown before the reveal"
        if engine.phase in (Phase.PLAY, Phase.PAUSE) or (engine.phase == Phase.OVER and engine.hands[0]):
            assert sorted([c for h in engine.hands for c in h] + engine.center) == deck, "Q3: every card once"
        assert all(new >= old for new, old in zip(engine.scores, scores, strict=True)), "Q24"
        scores = list(engine.scores)
        if zero_sum:
            assert abs(sum(rewards.values())) < 1e-9
        assert ticks < 50_000


@settings(max_examples=12, deadline=None)
@given(
    num_players=st.sampled_from([4, 6, 8]),
    seed=st.integers(0, 2**31 - 1),
    call_rate=st.sampled_from([0.002, 0.02]),
    disconnect=st.sampled_from([0.0, 0.02]),
)
def test_invariants_under_random_legal_play(num_players, seed, call_rate, disconnect):
    """Q3 conservation, Q24 monotone scores, exact masks, observations inside their space."""
    env = parallel_env(
        num_players=num_players,
        disconnect_prob=disconnect,
        reconnect_prob=0.2,
        points_to_win=3,
        max_rounds=6,
        **FAST,
    )
    play_checking_invariants(env, seed, call_rate)
    engine = env.engine
    assert engine.match_over or engine.rounds_completed >= 6, "the episode ends by a win or truncation"


@settings(max_examples=12, deadline=None)
@given(config_seed=st.integers(0, 2**31 - 1), call_rate=st.sampled_from([0.002, 0.02]))
def test_invariants_on_random_configs(config_seed, call_rate):
    """The same invariants on configs drawn over every option (``tests/random_configs.py``): one-tick
    phases and cooldowns, one-point matches, bot seats, scheduled and random (dis)connections."""
    num_players, config = random_config(config_seed)
    env = parallel_env(num_players=num_players, **config)
    play_checking_invariants(env, config_seed, call_rate)
    ended = env.engine.match_over or env.engine.rounds_completed >= config["max_rounds"]
    assert ended or config["episode"] == "round", "the episode ends by a win, truncation or its round"


def _hidden_variant(num_players: int, seed: int, observer: int):
    """Two positions that differ only in what ``observer`` cannot see (Q28): other hands, other signs.
    Each other seat keeps one slot (returned per seat, the observer's is None) in both worlds and may
    exchange that slot's card, so the two worlds' exchanges show the same cards; its other cards are
    shuffled among the other seats."""
    rng = np.random.default_rng(seed)
    n = num_players
    deck = rng.permutation(deck_size(n)).tolist()
    hands = [deck[4 * s : 4 * s + 4] for s in range(n)]
    center = deck[4 * n :]
    others = [s for s in range(n) if s != observer]
    kept = [None if s == observer else int(rng.integers(4)) for s in range(n)]
    hidden = [(s, j) for s in others for j in range(4) if j != kept[s]]
    cards = [hands[s][j] for s, j in hidden]
    hands_b = [list(h) for h in hands]
    for (s, j), card in zip(hidden, rng.permutation(cards).tolist(), strict=True):
        hands_b[s][j] = card
    nt = n // 2
    my_team = observer % nt
    signs_a = rng.integers(24, size=nt).tolist()
    signs_b = [
        signs_a[t] if t == my_team else int((signs_a[t] + 1 + rng.integers(23)) % 24) for t in range(nt)
    ]
    return (hands, center, signs_a), (hands_b, center, signs_b), kept


@settings(max_examples=10, deadline=None)
@given(num_players=st.sampled_from([4, 6, 8]), seed=st.integers(0, 2**31 - 1), observer=st.integers(0, 7))
def test_observation_ignores_hidden_information(num_players, seed, observer):
    """Q28: changing other hands and other teams' signs changes nothing in an agent's observation,
    while the public history is the same (others use the channel and exchange the one card their hands
    share in both worlds; the observer exchanges any card)."""
    assert_hidden_information_ignored(num_players, seed, observer % num_players, FAST)


@settings(max_examples=10, deadline=None)
@given(config_seed=st.integers(0, 2**31 - 1), observer=st.integers(0, 7))
def test_observation_ignores_hidden_information_on_random_configs(config_seed, observer):
    """Q28 on configs drawn over every option (``tests/random_configs.py``): one-tick pulses and
    cooldowns, revealed signs, guard off, scheduled and random (dis)connections. Without bot seats: a
    bot reads its own hand, so its play would differ between the two worlds, as a player's would."""
    num_players, config = random_config(config_seed)
    config = dict(config, bot_seats=())
    assert_hidden_information_ignored(num_players, config_seed, observer % num_players, config)


def assert_hidden_information_ignored(num_players: int, seed: int, observer: int, config: dict) -> None:
    """Two worlds that differ only in what ``observer`` cannot see, played alike until the round's end:
    the observer's observation, mask and ``infos`` (the events it is told) must be equal at every tick."""
    *worlds, kept = _hidden_variant(num_players, seed, observer)
    envs, first, told = [], [], []
    for hands, center, signs in worlds:
        env = parallel_env(num_players=num_players, **config)
        position = {
            "phase": "play",
            "hands": [[c // 4 for c in h] for h in hands],
            "center": [c // 4 for c in center],
            "signs": signs,
        }
        observations, infos = env.reset(seed=seed, options={"position": position})
        first.append(observations)
        told.append(infos)
        envs.append(env)
    me = f"player_{observer}"
    rng = np.random.default_rng(seed + 1)
    codec = envs[0].codec
    o_a, o_b = first
    i_a, i_b = told
    while envs[0].engine.phase == Phase.PLAY:  # until the blank round's reveal
        np.testing.assert_array_equal(o_a[me]["observation"], o_b[me]["observation"])
        np.testing.assert_array_equal(o_a[me]["action_mask"], o_b[me]["action_mask"])
        assert _by_value(i_a[me]) == _by_value(i_b[me])
        acts = {}
        for agent, o in o_a.items():
            seat = int(agent.split("_")[1])
            legal = [
                a
                for a in np.flatnonzero(o["action_mask"])
                if codec.kinds[a] not in (ActionKind.QUATRO, ActionKind.CONTRA)
                and (
                    agent == me
                    or codec.kinds[a] not in CARD_KINDS
                    or _shared_card_exchange(codec, a, kept[seat])
                )
                and codec.kinds[a] not in (ActionKind.PROPOSE_RESHUFFLE,)
            ]
            acts[agent] = int(rng.choice(legal))
        order = rng.permutation(num_players).tolist()
        for env in envs:
            env.engine.force_next_order(order)
        o_a, _, _, _, i_a = envs[0].step(acts)
        o_b, _, _, _, i_b = envs[1].step(acts)


def _by_value(info: dict) -> dict:
    """``info`` with each event's card ids read as values: a card's suit (its copy, Q3) is drawn at
    random in a scripted position as in a deal, so two worlds of one seed give a card other suits."""
    cards = ("taken", "placed")
    events = [
        (e.kind, e.seat, {k: v // 4 if k in cards else v for k, v in e.data.items()}, e.visible_to)
        for e in info["events"]
    ]
    return {**info, "events": events}


def _shared_card_exchange(codec, action: int, kept_slot: int) -> bool:
    """An exchange of the hand slot a seat keeps alike in both worlds (the card it takes lands there)."""
    return codec.kinds[action] == ActionKind.EXCHANGE and codec.args[action][0] == kept_slot


def test_current_emoji_is_hidden_between_pulses():
    """Q15/Q28: a change of emoji between pulses is seen by nobody but the player."""
    pos = {
        "phase": "play",
        "hands": [["A", "K", "Q", "J"], ["A", "K", "Q", "J"], ["A", "K", "Q", "J"], ["A", "K", "Q", "J"]],
        "center": ["10"] * 4,
        "signs": [0, 1],
    }
    envs = [parallel_env(num_players=4), parallel_env(num_players=4)]
    codec = envs[0].codec
    take, noop = codec.encode(ActionKind.TAKE_FLOOR), 0
    for env in envs:
        env.reset(seed=3, options={"position": pos})
        env.step({"player_0": take, "player_1": noop, "player_2": noop, "player_3": noop})
        env.step(
            {
                "player_0": codec.encode(ActionKind.SHOW_EMOJI, 5),
                "player_1": noop,
                "player_2": noop,
                "player_3": noop,
            }
        )
    # the first emoji pulsed at once; now the two worlds change to different emojis
    outs = []
    for env, emoji in zip(envs, (7, 9), strict=True):
        obs, *_ = env.step(
            {
                "player_0": codec.encode(ActionKind.SHOW_EMOJI, emoji),
                "player_1": noop,
                "player_2": noop,
                "player_3": noop,
            }
        )
        outs.append(obs)
    for agent in ("player_1", "player_2", "player_3"):
        np.testing.assert_array_equal(outs[0][agent]["observation"], outs[1][agent]["observation"])
    assert not np.array_equal(outs[0]["player_0"]["observation"], outs[1]["player_0"]["observation"])
