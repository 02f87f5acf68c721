"""Make the pictures of docs/watch_and_play.md: viewer and live-table screenshots, a GIF, an rgb_array frame.

    python scripts/watch_and_play_media.py --out docs/media

Needs the play, video and browser-tests extras and Debian's chromium. Everything runs on loopback;
the live table is stopped at the end.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from quatro_env import quatro_v0  # noqa: E402
from quatro_env.common.cli import OneLineParser, one_line_error, output_dir_problem  # noqa: E402
from quatro_env.eval.harness import evaluate  # noqa: E402
from quatro_env.eval.policies import as_policy  # noqa: E402
from quatro_env.play.cli import LIVE_DEFAULTS  # noqa: E402
from quatro_env.play.server import create_app  # noqa: E402
from quatro_env.play.table import LiveTable  # noqa: E402
from quatro_env.quatro.config import QuatroConfig  # noqa: E402
from quatro_env.quatro.engine import Phase  # noqa: E402
from quatro_env.replay import load  # noqa: E402
from quatro_env.replay.html import write_html  # noqa: E402
from tests.web.browser import ServerThread, launch_browser, start_playwright  # noqa: E402

TABLE = {"points_to_win": 2, "round_seconds": 40.0, "sign_phase_seconds": 3.0}


def replay_file(folder: Path, policies: list[str]) -> Path:
    run = dict(matches=1, config=TABLE, seed=1, max_rounds=4, probe_matches=0, workers=1, progress=False)
    evaluate(policies, replays=folder, **run)
    return next(folder.glob("*.jsonl"))


def viewer_shots(browser, replay, folder: Path, out: Path) -> None:
    omni = write_html(replay, folder / "match.html")
    page = browser.new_page(viewport={"width": 900, "height": 1080})
    page.goto(omni.as_uri())
    marks = page.evaluate(
        "JSON.parse(document.getElementById('replay-data').textContent).views.omniscient.markers"
    )
    calls = [m["frame"] for m in marks if m["kind"] in ("call", "contra")]
    call = next((f for f in calls if f >= 30), calls[0] if calls else len(replay.frames) // 2)
    sign = next((m["frame"] for m in marks if m["kind"] == "sign"), call - 5)
    page.evaluate(f"window.quatroViewer.show({sign})")
    page.screenshot(path=str(out / "viewer_omniscient.png"), full_page=True)
    page.select_option("#view", "seat 1")
    page.evaluate(f"window.quatroViewer.show({sign})")
    page.screenshot(path=str(out / "viewer_seat1.png"), full_page=True)
    page.select_option("#view", "omniscient")
    frames = []
    for k in range(max(0, call - 30), call + 3):
        page.evaluate(f"window.quatroViewer.show({k})")
        shot = Image.open(io.BytesIO(page.screenshot(clip={"x": 0, "y": 0, "width": 900, "height": 780})))
        frames.append(shot.convert("RGB").resize((540, 468)).quantize(96))
    frames[0].save(
        out / "viewer.gif", save_all=True, append_images=frames[1:], duration=250, loop=0, optimize=True
    )
    page.close()


def live_shots(browser, out: Path, partner: str, opponents: str) -> None:
    config = QuatroConfig(tick_seconds=0.5, sign_phase_seconds=2.0, pause_seconds=3.0, **LIVE_DEFAULTS)
    table = LiveTable(config, 0, partner, opponents, seed=2)
    server = ServerThread(create_app(table, token=None))
    url = server.start()
    try:
        page = browser.new_page(viewport={"width": 900, "height": 1250})
        page.goto(url)
        page.click('button[data-kind="ready"]')
        page.wait_for_function("document.getElementById('phase').textContent === 'play'", timeout=15_000)
        shot_live(page, out)
        page.close()
    finally:
        server.stop()


def shot_live(page, out: Path) -> None:
    """An exchange, the floor and an emoji, then «Quatro!» (in a later round if the bots end this one)."""

    def click(selector: str) -> bool:
        try:
            page.click(selector, timeout=2000)
        except Exception:  # noqa: BLE001 - disabled: the round ended meanwhile
            return False
        time.sleep(1.2)
        return True

    for _ in range(8):
        page.wait_for_selector('button[data-kind="take_floor"]:not([disabled])', timeout=30_000)
        if (
            not (
                click('.seat[data-seat="0"] .hand .card[data-hand-slot="0"]')
                and click('#center .card[data-center-slot="1"]')
                and click('button[data-kind="take_floor"]')
                and click('#emojis button[data-emoji="3"]')
            )
            or page.locator('button[data-kind="quatro"]').is_disabled()
        ):
            continue  # a bot ended the round meanwhile: try again next round
        page.screenshot(path=str(out / "live_table.png"), full_page=True)
        page.click('button[data-kind="quatro"]')
        page.wait_for_function(
            "document.getElementById('call').textContent.includes('by seat 0')", timeout=5000
        )
        page.screenshot(path=str(out / "live_table_call.png"), full_page=True)
        return
    raise RuntimeError("no round lasted long enough for the screenshots")


def rgb_frame(out: Path) -> None:
    env = quatro_v0.parallel_env(render_mode="rgb_array", bot_seats=(1, 2, 3), bot_policy="honest")
    env.reset(seed=3)
    for _ in range(400):  # into the play phase, on a tick where the bots exchanged (the events strip)
        env.step({"player_0": 0})
        if env.engine.phase == Phase.PLAY and sum(e.kind == "exchange" for e in env.last_tick.events) >= 2:
            break
    Image.fromarray(env.render()).save(out / "rgb_array.png")


def four_player_policy(text: str) -> str:
    """An argparse type: a policy that can sit at these 4-player tables (checked before any picture)."""
    try:
        as_policy(text).build(4, 0)
    except (ValueError, OSError) as exc:
        raise argparse.ArgumentTypeError(one_line_error(exc)) from None
    return text


four_player_policy.__name__ = "policy"


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(
        prog="watch_and_play_media.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "media")
    p.add_argument("--policies", nargs=2, type=four_player_policy, default=["ppo_4p", "counter"])
    p.add_argument("--partner", type=four_player_policy, default="ppo_4p")
    p.add_argument("--opponents", type=four_player_policy, default="counter")
    args = p.parse_args(argv)
    problem = output_dir_problem(args.out)
    if problem:
        p.error(f"--out: {problem}")
    rgb_frame(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        replay = load(replay_file(folder, args.policies))
        playwright = start_playwright()
        browser = launch_browser(playwright)
        try:
            viewer_shots(browser, replay, folder, args.out)
            live_shots(browser, args.out, args.partner, args.opponents)
        finally:
            browser.close()
            playwright.stop()
    for path in sorted(args.out.iterdir()):
        print(f"{path} {path.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
