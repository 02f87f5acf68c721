"""The Quatro evaluation harness (``quatro-eval``): see ``docs/evaluation.md``.

>>> from quatro_env.eval import evaluate
>>> report = evaluate(["honest", "decoy"], matches=100, config={"points_to_win": 3, "round_seconds": 60})
>>> report["lineups"][0]["teams"][0]["win_rate"]  # doctest: +SKIP
"""

from quatro_env.eval.harness import SCHEMA, cross_play, evaluate, make_config, partner_play
from quatro_env.eval.policies import PolicySpec, TorchPolicy, as_policy
from quatro_env.eval.report import to_markdown, write_json
from quatro_env.eval.runner import MatchRunner, run_lineups

__all__ = [
    "SCHEMA",
    "MatchRunner",
    "PolicySpec",
    "TorchPolicy",
    "as_policy",
    "cross_play",
    "evaluate",
    "make_config",
    "partner_play",
    "run_lineups",
    "to_markdown",
    "write_json",
]
