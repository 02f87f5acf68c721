"""The bot ladder: every scripted bot against every other, one documented command.

    OMP_NUM_THREADS=1 python scripts/ladder.py            # ~10 min on 2 cores (~12 min of CPU)
    OMP_NUM_THREADS=1 python scripts/ladder.py --batched --matches 5000   # win rates only, batch scale

Plays ``--matches`` matches per pair (seats rotated, fixed seeds) on the config below, writes
``docs/evaluation/ladder.json`` (schema ``quatro-eval/1``), ``ladder.md`` and the PNG plots, checks
the ladder's expected order, and rewrites the results section of ``docs/evaluation.md`` between
its ``<!-- ladder:begin -->`` / ``<!-- ladder:end -->`` markers (a run with ``--out DIR`` elsewhere
only with ``--doc PAGE``). ``--batched`` plays the same pairs on the batched engine with the batched
bots (``quatro_env/eval/batch_play.py``: win and draw rates only, no communication metrics), writes
``ladder_batched.json`` and ``ladder_batched.md`` and runs the same checks; it leaves
docs/evaluation.md as it is.

The config is the rules' own (4 players, 5 points to win, 180 s rounds, every duration at its
default); the harness adds one limit, at most 12 rounds a match (then a draw unless a team has won),
which only the pairs that can never score (random or collector against each other) reach.
``--round-seconds``/``--points-to-win``/``--max-rounds`` change it; see docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quatro_env.common.cli import (  # noqa: E402
    OneLineParser,
    int_in,
    one_line_error,
    output_dir_problem,
    positive_float,
)
from quatro_env.eval import cross_play, to_markdown, write_json  # noqa: E402
from quatro_env.eval.batch_play import batch_cross_play  # noqa: E402
from quatro_env.eval.plots import write_plots  # noqa: E402
from quatro_env.eval.report import batch_cross_play_lines, write_doc_section  # noqa: E402
from quatro_env.eval.runner import MAX_WORKERS  # noqa: E402
from quatro_env.quatro import QuatroConfig  # noqa: E402

BOTS = ["random", "random_caller", "collector", "honest", "decoy", "eavesdropper", "counter"]
CONFIG = {"num_players": 4, "points_to_win": 5, "round_seconds": 180.0}  # the rules' values (Q10, Q24)
MAX_ROUNDS = 12
#: the committed results: the default ``--out``, the only one whose run rewrites docs/evaluation.md
OUT = ROOT / "docs" / "evaluation"
DOC = ROOT / "docs" / "evaluation.md"


def checks(report: dict) -> list[tuple[bool, str]]:
    """The ladder's expected order, each judged on the 95% intervals."""
    idx = {p: i for i, p in enumerate(report["policies"])}
    win, ci, draw = (report["cross_play"][k] for k in ("win_rate", "win_ci95", "draw_rate"))

    def w(a: str, b: str) -> str:
        i, j = idx[a], idx[b]
        d = f", draws {draw[i][j]:.2f}" if draw[i][j] else ""
        return f"{win[i][j]:.3f} [{ci[i][j][0]:.3f}, {ci[i][j][1]:.3f}]{d}"

    def beats(a: str, b: str) -> tuple[bool, str]:
        i, j = idx[a], idx[b]
        return ci[i][j][0] > ci[j][i][1], f"{a} beats {b}: {w(a, b)} vs {w(b, a)}"

    out = [beats("counter", "honest"), beats("eavesdropper", "honest")]
    d, h = idx["decoy"], idx["honest"]
    e = idx["eavesdropper"]
    out.append(
        (
            ci[d][e][0] > ci[h][e][1],
            f"decoy resists eavesdropper better than honest: decoy {w('decoy', 'eavesdropper')} "
            f"vs honest {w('honest', 'eavesdropper')}",
        )
    )
    for bot in ("honest", "decoy", "eavesdropper", "counter"):
        out.append(beats(bot, "random"))
    # the two bots that cannot beat random, by their definition:
    r, c = idx["random"], idx["collector"]
    out.append(
        (
            draw[c][r] == 1.0,
            f"collector draws random (neither ever calls, so nobody can score: every match reaches the "
            f"round limit): {w('collector', 'random')}",
        )
    )
    ok, text = beats("random", "random_caller")
    out.append((ok, f"{text} (random_caller's calls are coin flips that mostly score for the opponent)"))
    out.append(beats("collector", "random_caller"))
    return out


def secrecy_lines(report: dict) -> list[str]:
    lines = []
    for row in report["summary"]:
        sec = row.get("secrecy") or {}
        if sec.get("outsider") and row["policy"] in ("honest", "decoy", "eavesdropper", "counter"):
            lines.append(
                f"- **{row['policy']}**: baseline (clock only) {sec['baseline']['auc']:.3f}, "
                f"outsider (eavesdropper) {sec['outsider']['auc']:.3f}, partner {sec['partner']['auc']:.3f} "
                f"({sec['rows']} team-ticks, {sec['positive_rate']:.1%} with a quartet)"
            )
    return lines


def build_parser() -> argparse.ArgumentParser:
    """The command line: bad input is one line naming the argument, exit code 2, before any match."""
    p = OneLineParser(prog="ladder.py", description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int_in(1), default=500, help="matches per pair (default 500)")
    p.add_argument("--workers", type=int_in(1, MAX_WORKERS), default=min(2, MAX_WORKERS))
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--probe-matches", type=int_in(0), default=100)
    p.add_argument("--round-seconds", type=positive_float, default=CONFIG["round_seconds"])
    p.add_argument("--points-to-win", type=int_in(1), default=CONFIG["points_to_win"])
    p.add_argument("--max-rounds", type=int_in(1), default=MAX_ROUNDS)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument(
        "--doc",
        type=Path,
        default=None,
        help="the page whose ladder section is rewritten (default: docs/evaluation.md, and only when "
        "--out is the default folder: a run elsewhere leaves the docs as they are)",
    )
    p.add_argument("--no-doc", action="store_true", help="do not rewrite docs/evaluation.md")
    p.add_argument("--batched", action="store_true", help="win rates only, on the batched engine and bots")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    try:  # the rules' own checks (e.g. a round shorter than a tick), before any match
        QuatroConfig(**dict(CONFIG, round_seconds=args.round_seconds, points_to_win=args.points_to_win))
    except ValueError as exc:
        p.error(f"--round-seconds/--points-to-win: {one_line_error(exc)}")
    files = ("ladder_batched.json", "ladder_batched.md") if args.batched else ("ladder.json", "ladder.md")
    problem = output_dir_problem(args.out, files)
    if problem:
        p.error(f"--out: {problem}")
    if args.batched:
        return batched(args)

    report = cross_play(
        BOTS,
        matches=args.matches,
        config=dict(CONFIG, round_seconds=args.round_seconds, points_to_win=args.points_to_win),
        seed=args.seed,
        max_rounds=args.max_rounds,
        probe_matches=args.probe_matches,
        workers=args.workers,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(report, args.out / "ladder.json")
    write_plots(report, args.out, prefix="ladder_")
    results = checks(report)
    body = [
        f"Produced by `OMP_NUM_THREADS=1 python scripts/ladder.py --matches {args.matches}` "
        f"({report['wall_seconds'] / 60:.1f} min wall on {args.workers} worker processes).",
        "",
        to_markdown(report).rstrip(),
        "",
        "Secrecy probes, pooled over every match each policy played (ROC AUC on held-out matches):",
        "",
        *secrecy_lines(report),
        "",
        "Ladder checks (on the 95% intervals):",
        "",
        *[f"- {'PASS' if ok else 'FAIL'}: {text}" for ok, text in results],
    ]
    text = "\n".join(body) + "\n"
    (args.out / "ladder.md").write_text(text)
    print(text)
    doc = args.doc if args.doc is not None else DOC if args.out.resolve() == OUT.resolve() else None
    if not args.no_doc and doc is not None and write_doc_section(doc, "ladder", text):
        print(f"updated {doc}")
    return 0 if all(ok for ok, _ in results) else 1


def batched(args: argparse.Namespace) -> int:
    """The same pairs at batch scale: win and draw rates with their intervals, and the same checks."""
    config = dict(CONFIG, round_seconds=args.round_seconds, points_to_win=args.points_to_win)
    report = batch_cross_play(
        BOTS, matches=args.matches, config=config, seed=args.seed, max_rounds=args.max_rounds
    )
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(report, args.out / "ladder_batched.json")
    text = batched_markdown(report)
    (args.out / "ladder_batched.md").write_text(text)
    print(text)
    return 0 if all(ok for ok, _ in checks(report)) else 1


def batched_markdown(report: dict) -> str:
    """``ladder_batched.md`` from the report of ``--batched``."""
    matches, seconds = report["matches"], report["wall_seconds"]
    body = [
        f"Produced by `OMP_NUM_THREADS=1 python scripts/ladder.py --batched --matches {matches}`: "
        f"{matches:,} matches a pair, {seconds / 60:.1f} min wall in one process, "
        f"{report['agent_steps'] / seconds:,.0f} agent-steps/s.",
        "",
        *batch_cross_play_lines(report),
        "",
        "Ladder checks (on the 95% intervals):",
        "",
        *[f"- {'PASS' if ok else 'FAIL'}: {text}" for ok, text in checks(report)],
    ]
    return "\n".join(body) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
