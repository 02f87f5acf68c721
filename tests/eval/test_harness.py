"""The evaluation harness: policies of every kind, seat rotation, determinism, metrics, outputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from quatro_env.common.stats import wilson_interval
from quatro_env.eval import SCHEMA, as_policy, cross_play, evaluate, to_markdown, write_json
from quatro_env.eval.cli import main
from quatro_env.eval.metrics import mutual_information_bits
from quatro_env.eval.probe import OUTSIDER_NAMES, PARTNER_NAMES, fit_probe, time_matched_auc
from quatro_env.eval.runner import slots_of_match
from quatro_env.quatro import ActionKind

SHORT = {"points_to_win": 2, "round_seconds": 30}


def first_legal(observation, mask):
    """A user callable: the last legal action that is not a call (keeps the clock running)."""
    return int(np.flatnonzero(mask[: ActionKind.READY + 60])[-1]) if mask.any() else 0


def test_policy_forms():
    assert as_policy("honest").kind == "bot"
    spec = as_policy("counter:threshold=0.8,keep_weight=2")
    assert dict(spec.kwargs) == {"threshold": 0.8, "keep_weight": 2}
    assert spec.build(4, 0).threshold == 0.8
    with pytest.raises(ValueError, match="unknown bot"):
        as_policy("nobody")
    with pytest.raises(ValueError, match="threshold"):
        as_policy("counter:threshold=2")
    with pytest.raises(ValueError, match="not found"):
        as_policy("checkpoint:/nonexistent/model.pt")
    assert as_policy(first_legal).kind == "function"


def test_seat_rotation_gives_every_policy_every_team():
    assert [slots_of_match(m, 2, 2) for m in range(3)] == [[0, 1], [1, 0], [0, 1]]
    assert slots_of_match(1, 3, 3) == [1, 2, 0]


def test_evaluate_report_and_determinism_across_worker_counts():
    a = evaluate(["honest", "decoy"], matches=6, config=SHORT, workers=1, progress=False, probe_matches=6)
    b = evaluate(["honest", "decoy"], matches=6, config=SHORT, workers=2, progress=False, probe_matches=6)
    assert a["schema"] == SCHEMA and a["kind"] == "evaluate"
    la, lb = a["lineups"][0], b["lineups"][0]
    for ta, tb in zip(la["teams"], lb["teams"], strict=True):
        ta, tb = dict(ta), dict(tb)
        assert ta.pop("secrecy") == tb.pop("secrecy")
        assert ta == tb
    teams = la["teams"]
    assert sum(t["wins"] for t in teams) + la["draws"] == 6
    for t in teams:
        lo, hi = wilson_interval(t["wins"], 6)
        assert t["win_ci95"] == [round(lo, 4), round(hi, 4)]
        assert t["quatro_precision"] == 1.0 and t["illegal_actions"] == 0
        assert t["listening"]["delta"] == 1.0  # both call exactly when the partner shows the sign
        assert t["signalling"]["mutual_information_bits"] > 0
        assert t["time_to_correct_call_s"]["median"] is not None
        sec = t["secrecy"]
        assert set(sec) == {
            "rows",
            "positive_rate",
            "baseline",
            "outsider",
            "partner",
            "sign_coverage",
            "false_sign_rate",
        }
        # within one round tick the clock-only baseline scores every row alike: no pair is ranked
        assert sec["baseline"]["time_matched_auc"] == 0.5
        assert 0 < sec["sign_coverage"] < 1  # a quartet is held a tick or more before the sign shows
    honest = next(t for t in teams if t["policy"] == "honest")
    assert honest["secrecy"]["false_sign_rate"] == 0.0  # honest shows its sign only holding a quartet


def test_user_callable_and_checkpoint_policies(tmp_path):
    torch = pytest.importorskip("torch")
    from quatro_env.quatro.encoding import ObservationEncoder

    obs_dim = ObservationEncoder(4).obs_dim
    model = torch.nn.Sequential(torch.nn.Linear(obs_dim, 74))
    path = tmp_path / "tiny.pt"
    torch.jit.save(torch.jit.script(model), path)  # a TorchScript program: named as one, explicitly
    report = evaluate(
        [first_legal, f"torchscript:{path}"], matches=2, config=SHORT, max_rounds=2, workers=1, progress=False
    )
    teams = report["lineups"][0]["teams"]
    assert [t["policy"] for t in teams] == ["first_legal", "ts:tiny"]
    assert all(t["illegal_actions"] == 0 for t in teams)
    with pytest.raises(ValueError, match="TorchScript program"):
        as_policy(f"checkpoint:{path}")  # a checkpoint is data; a program must be asked for by name
    torch.save(model, tmp_path / "pickled.pt")  # a whole pickled module needs code to load
    with pytest.raises(ValueError, match="refused.*quatro-convert"):
        as_policy(f"checkpoint:{tmp_path / 'pickled.pt'}")
    with pytest.raises(ValueError, match="checkpoint"):
        (tmp_path / "bad.pt").write_text("not a model")
        as_policy(str(tmp_path / "bad.pt")).build(4, 0)


def test_cross_play_matrix_markdown_json_and_plots(tmp_path):
    from quatro_env.eval.plots import write_plots

    report = cross_play(
        ["random", "honest", "counter"], matches=4, config=SHORT, max_rounds=3, workers=2, progress=False
    )
    win, draw = report["cross_play"]["win_rate"], report["cross_play"]["draw_rate"]
    for i in range(3):
        assert win[i][i] is None
        for j in range(3):
            if i != j:
                assert math.isclose(win[i][j] + win[j][i] + draw[i][j], 1.0, abs_tol=1e-3)
    assert win[1][0] == 1.0  # honest beats random
    text = to_markdown(report)
    assert "| **honest** |" in text and "secrecy AUC" in text
    path = write_json(report, tmp_path / "r.json")
    back = json.loads(path.read_text())
    assert back["schema"] == SCHEMA and back["policies"] == ["random", "honest", "counter"]
    assert len(back["lineups"]) == 3 and {"summary", "cross_play", "config"} <= set(back)
    for p in write_plots(report, tmp_path):
        assert p.stat().st_size > 1000 and p.suffix == ".png"


def test_cli(tmp_path, capsys):
    out = tmp_path / "res"
    code = main(
        ["honest", "collector", "--matches", "2", "--points-to-win", "2", "--round-seconds", "30",
         "--workers", "1", "--no-progress", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    assert "| 0: honest |" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} >= {"report.json", "report.md", "win_rates.png", "secrecy_roc.png"}
    assert main(["honest", "--no-progress"]) == 2  # 4 players need two policies
    assert main(["nobody", "honest", "--no-progress"]) == 2
    assert main(["--list"]) == 0


def test_mutual_information_and_probe():
    assert mutual_information_bits(np.array([[50, 0, 0], [0, 50, 0]])) == pytest.approx(1.0)
    assert mutual_information_bits(np.array([[25, 25, 0], [25, 25, 0]])) == pytest.approx(0.0)
    rng = np.random.default_rng(0)
    y = rng.random(4000) < 0.2
    groups = np.arange(4000) // 40
    noise = rng.normal(size=(4000, 3))
    informative = np.concatenate([noise, y[:, None] + 0.3 * rng.normal(size=(4000, 1))], axis=1)
    assert fit_probe(informative, y, groups).auc > 0.95
    assert abs(fit_probe(noise, y, groups).auc - 0.5) < 0.06
    assert len(PARTNER_NAMES) == len(OUTSIDER_NAMES) + 4


def test_time_matched_auc_sees_through_the_clock():
    """A score that only knows *when* quartets happen has a high plain AUC and a time-matched AUC of
    0.5; one that knows *who* holds them keeps its AUC within each tick."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(1)
    tick = rng.integers(0, 60, 6000)
    y = rng.random(6000) < tick / 80  # quartets grow likelier as the round goes on
    clock_only = tick.astype(float)
    assert roc_auc_score(y, clock_only) > 0.75
    assert time_matched_auc(y, clock_only, tick) == pytest.approx(0.5)
    tell = y + 0.5 * rng.normal(size=6000)
    assert time_matched_auc(y, tell, tick) > 0.9
    one_stratum = np.zeros(6000)
    assert time_matched_auc(y, tell, one_stratum) == pytest.approx(roc_auc_score(y, tell))
    assert time_matched_auc(y[:3], tell[:3], np.arange(3)) is None  # no tick holds both classes


@pytest.mark.slow
def test_secrecy_probe_reads_honest_but_not_decoy():
    """The outsider probe gains much more over the clock baseline on honest teams than on decoy teams."""
    cfg = {"points_to_win": 3, "round_seconds": 60}
    lift = {}
    for bot in ("honest", "decoy"):
        report = evaluate([bot, bot], matches=80, config=cfg, workers=2, progress=False, probe_matches=80)
        sec = report["lineups"][0]["teams"][0]["secrecy"]
        lift[bot] = sec["outsider"]["auc"] - sec["baseline"]["auc"]
        assert sec["partner"]["auc"] >= sec["outsider"]["auc"] - 0.01
    assert lift["honest"] > 0.08 and lift["honest"] > 2 * lift["decoy"]
