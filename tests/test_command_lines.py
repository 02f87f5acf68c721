"""Every command line refuses a bad number or name in one line (``prog: what is wrong``) with exit code 2,
before it plays, trains or listens: no traceback, no usage dump, no silent fix.

Found tools that did not (session 31): ``quatro-demo --rounds 0`` and ``--seed -1`` and the Kwartet
tournament's bad table size ended in a traceback, ``quatro-play --port -5`` in one from the socket,
``quatro-exploit --eval-every 0`` looped for ever, ``quatro-exploit cover`` printed pydantic's many lines.
"""

from __future__ import annotations

import pytest

from baselines.convert import main as convert_main
from baselines.exploit import main as exploit_main
from quatro_env.cuatrola.tournament import main as cuatrola_main
from quatro_env.demo import main as demo_main
from quatro_env.eval.cli import main as eval_main
from quatro_env.kwartet.tournament import main as kwartet_main
from quatro_env.play.cli import build_parser as play_parser
from quatro_env.replay.cli import main as replay_main

PLAY = lambda argv: play_parser().parse_args(argv)  # noqa: E731 - parsing only: it would listen
KWARTET, CUATROLA = "quatro_env.kwartet.tournament: ", "quatro_env.cuatrola.tournament: "
WHOLE = "expected a whole number"
CASES = [
    (demo_main, ["--rounds", "0"], f"quatro-demo: argument --rounds: {WHOLE} >= 1, got 0"),
    (demo_main, ["--seed", "-1"], f"quatro-demo: argument --seed: {WHOLE} >= 0, got -1"),
    (demo_main, ["--players", "5"], "quatro-demo: argument --players: invalid choice"),
    (PLAY, ["--port", "-5"], f"quatro-play: argument --port: {WHOLE} from 0 to 65535, got -5"),
    (PLAY, ["--port", "70000"], "from 0 to 65535, got 70000"),
    (PLAY, ["--seed", "-1"], f"quatro-play: argument --seed: {WHOLE} >= 0, got -1"),
    (eval_main, ["honest", "random", "--seed", "-1"], f"quatro-eval: argument --seed: {WHOLE} >= 0, got -1"),
    (replay_main, ["x.jsonl", "--seat", "one"], "quatro-replay: argument --seat: invalid int value"),
    (exploit_main, ["counter", "--steps", "0"], f"quatro-exploit: argument --steps: {WHOLE} >= 1"),
    (exploit_main, ["counter", "--steps", "9", "--eval-every", "0"], f"--eval-every: {WHOLE} >= 1"),
    (exploit_main, ["counter", "--steps", "9", "--final-matches", "0"], f"--final-matches: {WHOLE}"),
    (exploit_main, ["counter", "--steps", "9", "--max-minutes", "nan"], "a finite number > 0, got nan"),
    (exploit_main, ["counter", "--steps", "9", "--max-minutes", "-1"], "a finite number > 0, got -1"),
    (convert_main, ["only-one-path"], "quatro-convert: the following arguments are required: target"),
    (kwartet_main, ["--games", "0"], f"{KWARTET}argument --games: {WHOLE} >= 1"),
    (kwartet_main, ["--players", "99"], f"{KWARTET}num_players: Input should be less than or equal to 6"),
    (cuatrola_main, ["--matches", "0"], f"{CUATROLA}argument --matches: {WHOLE} >= 1"),
    (cuatrola_main, ["--seed", "-4"], f"{CUATROLA}argument --seed: {WHOLE} >= 0, got -4"),
]


@pytest.mark.parametrize(("main", "argv", "named"), CASES, ids=[" ".join(c[1]) for c in CASES])
def test_a_bad_argument_is_refused_in_one_line(main, argv, named, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert named in err


def test_an_output_that_cannot_be_written_is_named_before_the_work(tmp_path, capsys, monkeypatch):
    """``quatro-exploit --out FILE`` trained for the whole budget, then died in a traceback on ``mkdir``;
    ``quatro-replay -o DIR`` and ``quatro-eval --replays FILE`` ended in tracebacks too."""
    from baselines import exploit
    from quatro_env.eval import cli as eval_cli
    from tests.replay.helpers import write_replays

    blocker = tmp_path / "a_file"
    blocker.write_text("keep me")

    def never(*args, **kwargs):
        raise AssertionError("the work started before the output was checked")

    monkeypatch.setattr(exploit, "run", never)
    assert exploit_main(["counter", "--steps", "9", "--out", str(blocker)]) == 2
    assert capsys.readouterr().err == f"quatro-exploit: --out: {str(blocker)!r} is a file; give a directory\n"
    monkeypatch.setattr(eval_cli, "evaluate", never)
    assert eval_cli.main(["honest", "random", "--replays", str(blocker / "sub")]) == 2
    assert capsys.readouterr().err.startswith("quatro-eval: --replays: cannot create the directory")
    (replay,) = write_replays(tmp_path / "replays", matches=1)
    assert replay_main([str(replay), "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"quatro-replay: {tmp_path}: Is a directory\n"
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["honest", "counter", "--key-control"], "a control of the decoders: add --decoders"),
        (["honest", "counter", "decoy", "--cross-play", "--decoders"], "--decoders measures one line-up"),
        (["honest", "counter", "--batched", "--key-control"], "it cannot take --key-control"),
    ],
)
def test_quatro_eval_refuses_decoder_flags_it_would_ignore(argv, named, capsys, monkeypatch):
    """``--decoders`` with ``--cross-play`` was silently dropped after the matches; ``--key-control``
    (Bob without the key) needs the decoders it controls."""
    from quatro_env.eval import cli as eval_cli

    def never(*args, **kwargs):
        raise AssertionError("matches were played")

    for name in ("evaluate", "cross_play", "partner_play"):
        monkeypatch.setattr(eval_cli, name, never)
    assert eval_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and named in err, err
