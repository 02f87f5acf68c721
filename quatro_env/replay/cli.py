"""``quatro-replay FILE -o match.html [--seat K] [--partial]``: check a replay against the engine, write its
viewer."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from quatro_env.common.cli import OneLineParser
from quatro_env.replay.html import write_html
from quatro_env.replay.loader import ReplayFormatError, ReplayMismatchError, load


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quatro-replay",
        description="Write a self-contained HTML viewer of a Quatro replay (see docs/watch_and_play.md).",
    )
    p.add_argument("replay", type=Path, help="a replay file (.jsonl or .jsonl.gz)")
    p.add_argument("-o", "--output", type=Path, default=None, help="HTML file (default: FILE with .html)")
    p.add_argument(
        "--seat",
        type=int,
        default=None,
        help="embed only this seat's view (its observations, nothing hidden)",
    )
    p.add_argument("--no-verify", action="store_true", help="skip re-simulating the match through the engine")
    p.add_argument(
        "--partial",
        action="store_true",
        help="view a match cut short (no end line: a crash or Ctrl-C) up to its last whole tick",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = args.output or args.replay.with_name(args.replay.name.split(".")[0] + ".html")
    try:
        replay = load(args.replay, verify_engine=not args.no_verify, partial=args.partial)
        write_html(replay, out, seat=args.seat)
    except (ReplayFormatError, ReplayMismatchError, ValueError) as err:
        print(f"quatro-replay: {args.replay}: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a file that cannot be read, or a page that cannot be written there
        reason = err.strerror or type(err).__name__
        print(f"quatro-replay: {err.filename or args.replay}: {reason}", file=sys.stderr)
        return 2
    views = "omniscient + every seat" if args.seat is None else f"seat {args.seat} only"
    cut = "" if replay.complete else "; cut short: the match has no end line"
    print(f"wrote {out} ({len(replay.frames) - 1} ticks, {views}{cut})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
