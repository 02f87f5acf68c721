"""Bad league input is refused with one clear line naming what is wrong (config fields, agents, files,
the command line); a league file is data, read with ``weights_only=True``, never code."""

from __future__ import annotations

import pytest
import torch

from baselines.checkpoint_io import TRAINER_FORMAT
from baselines.league import LEAGUE_FORMAT, League, load_league, main
from baselines.league_config import LeagueConfig, load_league_config
from quatro_env.common.cli import one_line_error

SMOKE = "configs/league_smoke.yaml"


def refused(*overrides: str) -> str:
    with pytest.raises(ValueError) as info:
        load_league_config(SMOKE, list(overrides))
    return one_line_error(info.value)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["updates_per_blok=3"], "updates_per_blok"),  # unknown field
        (["updates_per_block=0"], "updates_per_block"),
        (["updates_per_block=2.0"], "updates_per_block"),  # strict: 2.0 is not 2
        (["exploiter_beat_rate=0.4"], "exploiter_beat_rate"),
        (["league_exploiter_reset_prob=1.5"], "league_exploiter_reset_prob"),
        (["trainer.num_evns=4"], "agents[0] (main0): num_evns"),  # a trainer field, per agent
        (["trainer.pool_size=3"], "trainer.pool_size: set by the league"),
        (["trainer.seed=3"], "trainer.seed: set by the league"),
        (["agents=[]"], "agents"),
    ],
)
def test_bad_config_fields_are_named(overrides, message):
    assert message in refused(*overrides)


def _agents(*agents: dict) -> list[str]:
    return ["agents=" + repr(list(agents)).replace("'", '"')]


def test_bad_agent_lists_are_refused_with_the_agent_named():
    main0 = {"name": "main0", "role": "main"}
    assert "unique" in refused(*_agents(main0, main0))
    lonely = {"name": "lexp0", "role": "league_exploiter"}
    assert "at least one agent with role main" in refused(*_agents(lonely))
    bad_target = {"name": "mexp0", "role": "main_exploiter", "target": "lexp0"}
    assert "agents[1] (mexp0).target" in refused(*_agents(main0, bad_target))
    assert "only a main_exploiter has a target" in refused(*_agents({**main0, "target": "main0"}))
    assert "role" in refused(*_agents({"name": "main0", "role": "captain"}))
    assert "name" in refused(*_agents({"name": "Main 0", "role": "main"}))
    assert "weighting" in refused(*_agents({**main0, "weighting": "harder"}))
    # an exploiter plays league opponents at every table, at every curriculum stage
    with_bots = {"name": "lexp0", "role": "league_exploiter", "overrides": {"bot_prob": 0.5}}
    assert "agents[1] (lexp0).overrides.bot_prob: an exploiter plays league opponents" in refused(
        *_agents(main0, with_bots)
    )
    staged = {
        "name": "lexp0",
        "role": "league_exploiter",
        "overrides": {"curriculum": [{"until_agent_steps": 100, "pool_prob": 0.5}]},
    }
    assert "agents[1] (lexp0): an exploiter plays league opponents at every table" in refused(
        *_agents(main0, staged)
    )
    # one network shape for all: a snapshot of any agent plays in any agent's opponent seats
    wider = {"name": "lexp0", "role": "league_exploiter", "overrides": {"hidden_size": 64}}
    assert "agents[1] (lexp0).overrides.hidden_size: every agent shares one network shape" in refused(
        *_agents(main0, wider)
    )
    assert "overrides.seed: set by the league" in refused(*_agents({**main0, "overrides": {"seed": 4}}))
    assert "agents[0] (main0).init" in refused(*_agents({**main0, "init": "no_such_policy"}))


def test_an_init_policy_of_another_shape_is_refused_at_start(tmp_path):
    cfg = load_league_config(
        SMOKE, [f"out_dir={tmp_path}", *_agents({"name": "main0", "role": "main", "init": "ppo_4p"})]
    )
    with pytest.raises(
        ValueError, match="init 'ppo_4p': its network does not fit .*hidden 128, rnn 64.*hidden_size"
    ):
        League(cfg)


def test_an_init_policy_of_the_same_shape_loads_whole(tmp_path):
    from baselines.policy import load_policy_file

    cfg = load_league_config(
        SMOKE,
        [
            f"out_dir={tmp_path}",
            "trainer.hidden_size=128",
            "trainer.rnn_size=64",
            *_agents({"name": "main0", "role": "main", "init": "ppo_4p"}),
        ],
    )
    league = League(cfg)
    shipped = load_policy_file("ppo_4p")["model"]
    for key, value in league.trainers["main0"].model.state_dict().items():
        assert torch.equal(value, shipped[key]), key
    assert torch.equal(league.players[0]["params"]["actor.weight"], shipped["actor.weight"])


def test_a_file_of_another_format_is_refused_with_a_clear_message(tmp_path):
    trainer_file = tmp_path / "latest.pt"
    torch.save({"format": TRAINER_FORMAT, "model": {}}, trainer_file)
    with pytest.raises(ValueError, match=f"format '{TRAINER_FORMAT}'; expected {LEAGUE_FORMAT}"):
        load_league(trainer_file)
    incomplete = tmp_path / "incomplete.pt"
    torch.save({"format": LEAGUE_FORMAT, "config": {}}, incomplete)
    with pytest.raises(ValueError, match="league file: missing"):
        load_league(incomplete)
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint")
    with pytest.raises(ValueError, match="not a torch checkpoint"):
        load_league(text)


class Payload:
    def __reduce__(self):
        return (print, ("this would run",))


def test_a_league_file_holding_code_is_refused_not_run(tmp_path, capsys):
    path = tmp_path / "league.pt"
    torch.save({"format": LEAGUE_FORMAT, "config": Payload()}, path)
    with pytest.raises(ValueError, match="refused"):
        load_league(path)
    assert "this would run" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--config", "no_such_league"], "quatro-league: config 'no_such_league': no such file"),
        (["--config", SMOKE, "updates_per_block=-1"], "quatro-league: updates_per_block"),
        (["--config", SMOKE, "--legs", "0"], "quatro-league: argument --legs: expected a whole number >= 1"),
        (["--resume", "x.pt", "--config", SMOKE], "--config: not with --resume"),
        (["--resume", "x.pt", "blocks_per_leg=2"], "overrides: not with --resume"),
        ([], "--config or --resume"),
        (["--resume", "missing.pt"], "quatro-league: checkpoint 'missing.pt': no such file"),
    ],
)
def test_the_command_line_answers_bad_input_in_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_the_shipped_league_configs_validate():
    for name in ("league_smoke", "league_4p", "league_6p"):
        assert isinstance(load_league_config(name), LeagueConfig)


@pytest.fixture(scope="module")
def league_file(tmp_path_factory):
    """A fresh league's file (main0, mexp0, lexp0; one frozen player, main0's initial weights)."""
    out = tmp_path_factory.mktemp("league")
    league = League(load_league_config(SMOKE, [f"out_dir={out}"]))
    league.dir.mkdir(parents=True, exist_ok=True)
    return league.save()


def _nan(params: dict) -> None:
    for value in params.values():
        value.fill_(float("nan"))


def _first(params: dict) -> str:
    return next(iter(params))


# each was taken (a turn "5" and legs 2.9 coerced by int(), legs -3) or broke later (bad rng: a
# RuntimeError; wins as a list: an AttributeError; junk players or wins rows: KeyError, TypeError)
BAD_LEAGUE_FILES = {
    "turn_str": (lambda q: q.__setitem__("turn", "5"), "turn: must be an integer, got '5'"),
    "legs_float": (lambda q: q.__setitem__("legs", 2.9), "legs: must be an integer, got 2.9"),
    "legs_negative": (lambda q: q.__setitem__("legs", -3), "legs: -3 is outside 0..0"),
    "legs_not_the_turns": (lambda q: q.update(turn=7, legs=0), r"legs 0 after turn 7: a leg is 6 turns"),
    "rng_short": (
        lambda q: q.__setitem__("rng", torch.zeros(3, dtype=torch.uint8)),
        r"rng is \[3\], expected",
    ),
    "rng_invalid": (
        lambda q: q["rng"].copy_(torch.arange(q["rng"].numel()) % 256),
        "rng is not a generator's state",
    ),
    "wins_list": (lambda q: q.__setitem__("wins", [1, 2]), "wins must map agent names to their values"),
    "wins_junk_row": (
        lambda q: q["wins"]["main0"].__setitem__("ghost@0", ["a", "b", "c"]),
        r"wins\['main0'\]\['ghost@0'\]\[0\]: must be a finite number, got 'a'",
    ),
    "wins_negative": (
        lambda q: q["wins"]["main0"].__setitem__("main0@0", [1.0, 0.0, -4.0]),
        r"wins\['main0'\]\['main0@0'\]: a count of games",
    ),
    "since_reset_str": (
        lambda q: q["since_reset"].__setitem__("main0", "abc"),
        r"since_reset\['main0'\]: must be a list",
    ),
    "next_snapshot_float": (
        lambda q: q["next_snapshot"].__setitem__("main0", -1e9),
        r"next_snapshot\['main0'\]: must be an integer",
    ),
    "agents_missing_in_wins": (lambda q: q["wins"].pop("lexp0"), "wins is for agents"),
    "players_junk": (lambda q: q.__setitem__("players", [{"id": "x"}]), r"players\[0\] must be a mapping of"),
    "players_ghost": (
        lambda q: q["players"][0].__setitem__("agent", "ghost"),
        r"players\[0\] is agent 'ghost'",
    ),
    "players_nan": (lambda q: _nan(q["players"][0]["params"]), "holds non-finite values"),
    "players_int64": (
        lambda q: q["players"][0]["params"].__setitem__(
            _first(q["players"][0]["params"]),
            q["players"][0]["params"][_first(q["players"][0]["params"])].long(),
        ),
        r"players\[0\].params\['[\w.]+'\] must be torch.float32, got torch.int64",
    ),
    "init_params_junk": (lambda q: q.__setitem__("init_params", 5), "init_params must map agent names"),
    "init_params_unexpected": (
        lambda q: q["init_params"]["mexp0"].__setitem__("junk", torch.zeros(1)),
        r"init_params\['mexp0'\] does not fit the network: unexpected \['junk'\]",
    ),
    "agent_state_nan": (
        lambda q: q["agents"]["lexp0"]["h"].fill_(float("nan")),
        r"agents\['lexp0'\]: trainer checkpoint: h holds non-finite values",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_LEAGUE_FILES))
def test_a_league_file_with_a_bad_field_is_refused_by_name(name, league_file, tmp_path):
    from baselines.checkpoint_io import load_checkpoint, save_checkpoint

    change, named = BAD_LEAGUE_FILES[name]
    state = load_checkpoint(league_file, (LEAGUE_FORMAT,))
    change(state)
    save_checkpoint(state, tmp_path / f"{name}.pt")
    with pytest.raises(ValueError, match=rf"{name}\.pt: league file: .*{named}"):
        load_league(tmp_path / f"{name}.pt")


def test_the_league_file_itself_loads(league_file):
    league = load_league(league_file)
    assert (league.turn, league.legs, len(league.players)) == (0, 0, 1)


def test_quatro_league_resume_refuses_a_bad_file_in_one_line(league_file, tmp_path, capsys):
    from baselines.checkpoint_io import load_checkpoint, save_checkpoint

    state = load_checkpoint(league_file, (LEAGUE_FORMAT,))
    state["wins"] = [1, 2]  # was an AttributeError traceback
    save_checkpoint(state, tmp_path / "league.pt")
    with pytest.raises(SystemExit) as info:
        main(["--resume", str(tmp_path / "league.pt")])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith("quatro-league: ") and "wins must map agent names to their values" in err
