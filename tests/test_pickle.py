"""#15 item 8: every environment of the three games pickles and continues identically.

Each env is played for a while, pickled and unpickled; the original and the copy then get the same
actions and must show exactly the same observations, rewards, terminations and infos. The same
holds for a copy sent through a ``spawn`` multiprocessing context (the path vectorised trainers use).
"""

from __future__ import annotations

import multiprocessing
import pickle

import pytest

from tests.env_drivers import DRIVER_IDS, DRIVERS

BEFORE, AFTER = 40, 60


@pytest.mark.parametrize("driver", DRIVERS, ids=DRIVER_IDS)
def test_env_pickles_and_continues_identically(driver):
    env = driver.fresh(seed=3)
    driver.play(env, 0, BEFORE)
    copy = pickle.loads(pickle.dumps(env))
    assert copy is not env
    assert driver.play(copy, BEFORE, AFTER) == driver.play(env, BEFORE, AFTER)


@pytest.mark.parametrize("driver", DRIVERS, ids=DRIVER_IDS)
def test_fresh_env_pickles_before_reset(driver):
    """A just-built env pickles too (e.g. handed to a worker before its first reset)."""
    env = driver.make()
    copy = pickle.loads(pickle.dumps(env))
    copy.reset(seed=5)
    twin = driver.fresh(seed=5)
    assert driver.play(copy, 0, 20) == driver.play(twin, 0, 20)


def _continue_in_child(args: tuple[str, bytes]) -> list:
    name, payload = args
    driver = DRIVERS[DRIVER_IDS.index(name)]
    return driver.play(pickle.loads(payload), BEFORE, AFTER)


def test_envs_cross_a_spawn_process_and_continue_identically():
    """The child continues each pickled env; the parent continues its own copy; same records."""
    jobs, expected = [], []
    for driver in DRIVERS:
        env = driver.fresh(seed=11)
        driver.play(env, 0, BEFORE)
        jobs.append((driver.name, pickle.dumps(env)))
        expected.append(driver.play(env, BEFORE, AFTER))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.map(_continue_in_child, jobs)
    for driver, mine, theirs in zip(DRIVERS, expected, got, strict=True):
        assert theirs == mine, driver.name
