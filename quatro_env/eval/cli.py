"""``quatro-eval``: play policies against each other and report (markdown, JSON, PNG plots).

Examples::

    quatro-eval honest decoy --matches 200 --points-to-win 3 --round-seconds 60 --out results/
    quatro-eval random collector honest decoy --cross-play --matches 100 --out results/ladder
    quatro-eval counter:threshold=0.6 checkpoint:runs/best.pt --matches 500
    quatro-eval ppo_4p honest+ppo_4p --matches 200            # a mixed team: honest partners ppo_4p
    quatro-eval ppo_4p ppo_4p_signal_seed2 --partners counter  # every ordered pair as partners
    quatro-eval honest decoy points_to_win=3 round_seconds=60   # key=value: any QuatroConfig field
    quatro-eval ppo_4p counter --batched --matches 5000         # outcomes and calls, every match at once

A policy is a bot name (``quatro-eval --list``), a bot with parameters (``counter:threshold=0.6``),
a shipped PPO checkpoint by name (``ppo_4p``), a ``quatro-train`` policy file (``checkpoint:PATH``
or ``PATH.pt``; read without running code), a TorchScript module you trust (``torchscript:PATH``),
or a mixed team ``A+B`` (A in the team's lower seat, B its partner). ``--batched`` plays every match at
once on the batched engine (``quatro_env/eval/batch_play.py``): batched bots and PPO checkpoints only,
win and draw rates, points and calls (no per-tick metric), in seconds where the harness takes
minutes. Bad input is one line on stderr naming the argument and what it allows, exit code 2, before any
match is played.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quatro_env.common.cli import OneLineParser, int_in, one_line_error, output_dir_problem
from quatro_env.common.extras import require
from quatro_env.common.overrides import parse_overrides, scalar, split_overrides
from quatro_env.eval.harness import cross_play, evaluate, partner_play
from quatro_env.eval.report import to_markdown, write_json
from quatro_env.eval.runner import MAX_WORKERS
from quatro_env.quatro.bots import BOT_POLICIES


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quatro-eval",
        description="Evaluate Quatro policies: win rates with Wilson CIs, call precision, "
        "communication metrics, secrecy probes, cross-play (see docs/evaluation.md).",
    )
    p.add_argument(
        "policies",
        nargs="*",
        help="one policy per team (or any number with --cross-play); FIELD=VALUE items set QuatroConfig "
        "fields (the key=value override syntax of every quatro command)",
    )
    p.add_argument("--list", action="store_true", help="list the built-in bots and exit")
    p.add_argument("--cross-play", action="store_true", help="play every pair of the given policies")
    p.add_argument(
        "--self-play", action="store_true", help="with --cross-play: also each policy against itself"
    )
    p.add_argument(
        "--partners",
        metavar="OPPONENT",
        default=None,
        help="play every ordered pair of the given policies as partners (mixed teams) against OPPONENT",
    )
    p.add_argument(
        "--batched",
        action="store_true",
        help="every match at once on the batched engine: win and draw rates, points and calls (no "
        "signalling, listening or secrecy metrics); batched bots and PPO checkpoints, one line-up or "
        "--cross-play",
    )
    p.add_argument("--matches", type=int_in(1), default=100, help="matches (per pair with --cross-play)")
    p.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    p.add_argument("--points-to-win", type=int_in(1), default=None, help="default: the rules' 5 (Q24)")
    p.add_argument("--round-seconds", type=float, default=None, help="default: the rules' 180 (Q10)")
    p.add_argument("--tick-seconds", type=float, default=None, help="default: 0.5 (Q6)")
    p.add_argument(
        "--set", action="append", default=[], metavar="FIELD=VALUE", help="any other QuatroConfig field"
    )
    p.add_argument(
        "--max-rounds", type=int_in(1), default=20, help="a match stops after this many rounds (a draw)"
    )
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_WORKERS),
        default=min(2, MAX_WORKERS),
        help=f"parallel tables (processes), at most {MAX_WORKERS} (the CPUs)",
    )
    p.add_argument(
        "--probe-matches",
        type=int_in(0),
        default=200,
        help="matches per line-up feeding the probes (0: none)",
    )
    p.add_argument(
        "--decoders",
        action="store_true",
        help="also fit the Eve/Bob sequence decoders on the probe matches (secrecy gap; one line-up only)",
    )
    p.add_argument(
        "--key-control",
        action="store_true",
        help="with --decoders: also fit Bob without the key (key_gap: what the sign adds beyond the "
        "partner's hand; one more fit a team)",
    )
    p.add_argument("--out", type=Path, default=None, help="directory for report.json, report.md and PNGs")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--replays", type=Path, default=None, metavar="DIR", help="write one replay file per match into DIR"
    )
    p.add_argument("--no-progress", action="store_true")
    return p


def _needed_modules(args: argparse.Namespace) -> list[str]:
    """What this run will import: checked before the first match, so a missing extra costs nothing."""
    if args.batched:
        return ["torch"]  # the batched engine; outcomes and calls, no per-tick metric, probes or plots
    needed = ["sklearn"]  # communication metrics and secrecy probes
    if not args.no_progress:
        needed.append("tqdm")
    if args.out is not None and not args.no_plots:
        needed.append("matplotlib")
    members = [m for p in [*args.policies, args.partners or ""] for m in p.split("+")]
    if any(m.startswith(("ppo_", "checkpoint:")) or m.endswith(".pt") for m in members):
        needed.append("torch")  # trained policies
    return needed


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_intermixed_args(argv)  # FIELD=VALUE items before or after flags
    args.policies, overrides = split_overrides(args.policies)
    if args.list:
        for name, cls in BOT_POLICIES.items():
            doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
            print(f"{name:14} {doc}")
        return 0
    require("quatro-eval", _needed_modules(args))
    problem = _batched_problem(args) if args.batched else None
    if problem:
        print(f"quatro-eval: {problem}", file=sys.stderr)
        return 2
    config: dict[str, Any] = {"num_players": args.players}
    for field, value in (
        ("points_to_win", args.points_to_win),
        ("round_seconds", args.round_seconds),
        ("tick_seconds", args.tick_seconds),
    ):
        if value is not None:
            config[field] = value
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq:
            print(f"quatro-eval: --set {item!r}: expected FIELD=VALUE", file=sys.stderr)
            return 2
        config[key.strip().replace("-", "_")] = scalar(value)
    try:
        config.update(parse_overrides(overrides))  # FIELD=VALUE items: YAML scalars, as in quatro-train
    except ValueError as err:
        print(f"quatro-eval: {err}", file=sys.stderr)
        return 2
    common = dict(
        matches=args.matches,
        config=config,
        seed=args.seed,
        max_rounds=args.max_rounds,
        probe_matches=args.probe_matches,
        workers=args.workers,
        progress=not args.no_progress,
        replays=args.replays,
    )
    for flag, directory, files in (
        ("--out", args.out, ("report.json", "report.md")),
        ("--replays", args.replays, ()),
    ):
        problem = output_dir_problem(directory, files)
        if problem:
            print(f"quatro-eval: {flag}: {problem}", file=sys.stderr)
            return 2
    if args.batched:
        return _batched(args, config)
    if args.key_control and not args.decoders:
        print("quatro-eval: --key-control is a control of the decoders: add --decoders", file=sys.stderr)
        return 2
    if args.decoders and (args.cross_play or args.partners is not None):
        print("quatro-eval: --decoders measures one line-up, not --cross-play or --partners", file=sys.stderr)
        return 2
    try:
        if args.cross_play and args.partners is not None:
            print("quatro-eval: --cross-play and --partners are two different tournaments", file=sys.stderr)
            return 2
        if args.partners is not None:
            common.pop("probe_matches")
            report = partner_play(args.policies, args.partners, **common)
        elif args.cross_play:
            report = cross_play(args.policies, self_play=args.self_play, **common)
        else:
            problem = _lineup_problem(args)
            if problem:
                print(f"quatro-eval: {problem}", file=sys.stderr)
                return 2
            report = evaluate(args.policies, decoders=args.decoders, key_control=args.key_control, **common)
    except ValueError as err:  # a bad policy, parameter or rule: one line, exit 2
        print(f"quatro-eval: {one_line_error(err)}", file=sys.stderr)
        return 2
    return _write(report, args.out, plots=not args.no_plots)


def _write(report: dict[str, Any], out: Path | None, plots: bool) -> int:
    """Print the report's markdown; with ``--out``, write report.json, report.md (and the plots)."""
    text = to_markdown(report)
    print(text)
    if out is not None:
        write_json(report, out / "report.json")
        (out / "report.md").write_text(text)
        if plots:
            from quatro_env.eval.plots import write_plots

            write_plots(report, out)
        print(f"wrote {out}/report.json, report.md" + (" and PNG plots" if plots else ""))
    return 0


#: what --batched cannot do: it keeps each match's outcome, points and calls, nothing per tick
_NOT_BATCHED = (
    ("--partners", "partners"),
    ("--decoders", "decoders"),
    ("--key-control", "key_control"),
    ("--replays", "replays"),
    ("--self-play", "self_play"),
)


def _batched_problem(args: argparse.Namespace) -> str | None:
    """Why ``--batched`` cannot run these arguments (before any folder is made or match played)."""
    for flag, attr in _NOT_BATCHED:
        if getattr(args, attr) not in (None, False):
            return f"--batched keeps no per-tick record; it cannot take {flag}"
    return None if args.cross_play else _lineup_problem(args)


def _lineup_problem(args: argparse.Namespace) -> str | None:
    """One line-up needs one policy per team."""
    teams = args.players // 2
    if len(args.policies) == teams:
        return None
    return (
        f"{args.players} players need {teams} policies (one per team), "
        f"got {len(args.policies)}; use --cross-play for a tournament"
    )


def _batched(args: argparse.Namespace, config: dict[str, Any]) -> int:
    """``--batched``: one line-up or every pair, outcomes and calls (:mod:`quatro_env.eval.batch_play`)."""
    from quatro_env.eval.batch_play import batch_cross_play, play_lineup

    play = batch_cross_play if args.cross_play else play_lineup
    try:
        report = play(
            args.policies, matches=args.matches, config=config, seed=args.seed, max_rounds=args.max_rounds
        )
    except ValueError as err:
        print(f"quatro-eval: {one_line_error(err)}", file=sys.stderr)
        return 2
    return _write(report, args.out, plots=False)  # no per-tick metric: nothing to plot


if __name__ == "__main__":
    raise SystemExit(main())
