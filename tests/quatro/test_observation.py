"""What each player observes (rules Q26, Q27, Q28): concrete contents of the egocentric observation."""

from __future__ import annotations

import numpy as np
import pytest

from quatro_env.quatro import Phase

from .helpers import K, act, field, make_env, play, quartet_position, step, values


def onehots(vec, rows):
    """Indices of the ones of a (rows × width) one-hot block, or -1 for an empty row."""
    m = np.asarray(vec).reshape(rows, -1)
    return [int(r.argmax()) if r.any() else -1 for r in m]


# ---------------------------------------------------------------- Q26 private
@pytest.mark.parametrize("n", [4, 6, 8])
def test_q26_own_hand_and_team_sign_are_in_the_observation(n):
    """Q26: your own hand (slot by slot) and your team's sign once fixed."""
    env = make_env(n)
    signs = list(range(3, 3 + n // 2))
    obs, _ = play(env, signs=signs)
    for a, seat in env.agent_seat.items():
        assert onehots(field(env, obs[a], "self.hand"), 4) == values(env.engine.hands[seat])
        sign = field(env, obs[a], "self.sign")
        assert np.flatnonzero(sign).tolist() == [signs[seat % (n // 2)]]


def test_q26_current_emoji_reminder_and_cooldowns_are_private_fields():
    """Q26: your current emoji, your reminder flag and your cooldowns are observed."""
    env = make_env(4)
    hands, center = quartet_position(4, (3,))
    play(env, hands, center)
    step(env, {0: act(env, K.TAKE_FLOOR), 3: act(env, K.QUATRO), 1: act(env, K.EXCHANGE, (2, 2))})
    obs, *_ = step(env, {0: act(env, K.SHOW_EMOJI, 13)})
    assert np.flatnonzero(field(env, obs["player_0"], "self.emoji")).tolist() == [13]
    assert field(env, obs["player_3"], "self.reminder")[0] == 1
    assert field(env, obs["player_3"], "self.reminder_left")[0] == 3
    assert field(env, obs["player_1"], "seat[0].exchange_wait")[0] == 2
    assert field(env, obs["player_0"], "seat[0].floor_wait")[0] == 2


# ---------------------------------------------------------------- Q27 public
def test_q27_center_phase_clock_round_and_scores_are_public():
    """Q27: the center, phase and clocks, the round and the scores (own team first) are public."""
    env = make_env(6)
    obs, _ = play(env, scores=[1, 2, 3], ticks_left=100)
    center = values(env.engine.center)
    for a, seat in env.agent_seat.items():
        view = obs[a]
        assert onehots(field(env, view, "table.center"), 4) == center
        assert np.flatnonzero(field(env, view, "table.phase")).tolist() == [int(Phase.PLAY)]
        assert field(env, view, "table.phase_left")[0] == 100
        assert field(env, view, "table.round")[0] == 1
        team = seat % 3
        assert [int(field(env, view, f"team[{k}].score")[0]) for k in range(3)] == [
            [1, 2, 3][(team + k) % 3] for k in range(3)
        ]
    obs, *_ = step(env)
    assert field(env, obs["player_0"], "table.phase_left")[0] == 99


def test_q27_ready_status_and_connections_are_public():
    """Q27: ready status and connections of every seat are public."""
    env = make_env(4)
    env.reset(seed=0)
    obs, *_ = step(env, {2: act(env, K.READY)})
    obs = env.force_connection(3, False)
    for observer in range(4):
        view = obs[f"player_{observer}"]

        def rel(s, observer=observer):
            return (s - observer) % 4

        assert [int(field(env, view, f"seat[{rel(s)}].ready")[0]) for s in range(4)] == [0, 0, 1, 0]
        assert [int(field(env, view, f"seat[{rel(s)}].connected")[0]) for s in range(4)] == [1, 1, 1, 0]


def test_q27_last_call_accused_and_scoring_teams_are_public():
    """Q27: the call (who, kind, accused team) and the teams that scored are public."""
    env = make_env(6)
    play(env)
    obs, *_ = step(env, {4: act(env, K.CONTRA, 2)})  # seat 4 (team 1) accuses team 0, wrongly
    for observer in range(6):
        view = obs[f"player_{observer}"]
        team = observer % 3
        assert field(env, view, "table.last_call").tolist() == [0, 1, 0]
        assert field(env, view, f"seat[{(4 - observer) % 6}].caller")[0] == 1
        assert field(env, view, f"team[{(0 - team) % 3}].accused")[0] == 1
        assert field(env, view, f"team[{(0 - team) % 3}].scored")[0] == 1
        assert field(env, view, f"team[{(1 - team) % 3}].scored")[0] == 0


# ---------------------------------------------------------------- Q28 never
def test_q28_no_other_hand_before_the_reveal_every_hand_after():
    """Q28/Q10: before the reveal no observation holds another seat's hand; at the reveal all hands."""
    env = make_env(4)
    obs, _ = play(env)
    obs, *_ = step(env, {0: act(env, K.EXCHANGE, (0, 0))})
    for a in env.agents:
        for r in range(4):
            assert field(env, obs[a], f"seat[{r}].revealed_hand").sum() == 0
    obs, *_ = step(env, {1: act(env, K.CONTRA, 1)})
    for a, seat in env.agent_seat.items():
        for s in range(4):
            shown = onehots(field(env, obs[a], f"seat[{(s - seat) % 4}].revealed_hand"), 4)
            assert shown == values(env.engine.hands[s])


@pytest.mark.parametrize("n", [6, 8])
def test_q28_other_teams_signs_are_never_observed(n):
    """Q28/Q7: another team's sign is never in an observation (before or after the reveal) by default."""
    env = make_env(n)
    nt = n // 2
    obs, _ = play(env, signs=list(range(nt)))
    for a, seat in env.agent_seat.items():
        assert np.flatnonzero(field(env, obs[a], "self.sign")).tolist() == [seat % nt]
        for k in range(nt):
            assert field(env, obs[a], f"team[{k}].revealed_sign").sum() == 0
    obs, *_ = step(env, {0: act(env, K.QUATRO)})
    assert env.engine.revealed
    for a in env.agents:
        for k in range(nt):
            assert field(env, obs[a], f"team[{k}].revealed_sign").sum() == 0
