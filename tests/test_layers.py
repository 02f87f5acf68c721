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


def test_the_layers_contract_puts_the_bots_between_the_encoding_and_the_adapters():
    """The decision in docs/index.md ("How the code is layered"): Q22's configured bot seats are played
    by the environments, so the bots sit above the encoding and below every adapter (lint-imports, run
    by CI, enforces the contract; this pins its order)."""
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (CI's)
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    level = {m.strip(): i for i, layer in enumerate(layers) for m in layer.split("|")}  # 0 = the top
    assert level["quatro_env.quatro.encoding"] > level["quatro_env.bots"] > level["quatro_env.quatro.bots"]
    adapters = ("quatro_env.quatro.env", "quatro_env.batched", "quatro_env.quatro_v0")
    for adapter in (*adapters, "quatro_env.integrations"):
        assert level[adapter] < level["quatro_env.quatro.bots"], adapter
    assert level["quatro_env.quatro.engine"] > level["quatro_env.quatro.encoding"]
    assert level["quatro_env.eval"] < level["quatro_env.integrations"]  # evaluation above the learners
    assert level["baselines.ppo"] < level["quatro_env.eval"]  # the trainer above the evaluation
