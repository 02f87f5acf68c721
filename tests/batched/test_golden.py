"""The batched engine's outputs are those recorded before its rebuild (issue #16), bit for bit."""

from __future__ import annotations

import json

import pytest

from tests.batched import golden

RECORDED = json.loads(golden.GOLDEN_FILE.read_text())


@pytest.mark.parametrize("case", sorted(golden.cases()))
def test_outputs_identical_to_recorded(case):
    """Observations, masks, rewards, terminations, infos and draws hash as recorded (fixed seeds)."""
    assert golden.run_hash(**golden.cases()[case]) == RECORDED[case]
