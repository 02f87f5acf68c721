"""The rules layer names the bot policies instead of importing them (no import cycle, #16)."""

from __future__ import annotations

import pytest

from quatro_env.quatro.bots import BOT_POLICIES
from quatro_env.quatro.config import BOT_POLICY_NAMES, QuatroConfig


def test_the_config_names_exactly_the_registered_bots():
    assert tuple(BOT_POLICIES) == BOT_POLICY_NAMES


def test_an_unknown_bot_policy_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"bot_policy: unknown policy 'nobody'; known: \[.*'counter'"):
        QuatroConfig(bot_policy="nobody")
