"""``quatro-play``: a live Quatro table in the browser; you play one seat against or with the agents.

Examples::

    quatro-play                                   # seat 0, partner honest, opponents counter
    quatro-play --partner ppo_4p --opponents counter --open
    quatro-play --seat 1 --tick-seconds 1.0 --set round_seconds=60

It listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise. Either way it answers
only requests whose ``Host`` is a name it knows (``server.allowed_hosts``): a DNS-rebinding page sends
its own domain name. And it answers only its own link: a secret token drawn at start (``--token`` to
choose it) rides in the printed URL, so no other program on this machine or the network takes the seat.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from collections.abc import Sequence
from typing import Any

from quatro_env.common.cli import OneLineParser, int_in, one_line_error
from quatro_env.common.extras import install_extra
from quatro_env.common.overrides import scalar
from quatro_env.quatro.config import QuatroConfig

#: Q23: the person's connection decides their seat's connection; no random reconnection on top
LIVE_DEFAULTS: dict[str, Any] = {"reconnect_prob": 0.0}


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="quatro-play", description="Play a seat of a live Quatro table in the browser.")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0, the host)")
    p.add_argument(
        "--partner", default="honest", help="your partner's policy (a bot, ppo_4p, checkpoint:PATH)"
    )
    p.add_argument("--opponents", default="counter", help="the other team's policy")
    p.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    p.add_argument(
        "--tick-seconds", type=float, default=None, help="length of a tick (default: the rules' 0.5 s)"
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="FIELD=VALUE", help="any other QuatroConfig field"
    )
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    p.add_argument("--port", type=int_in(0, 65535), default=8000, help="TCP port (0: any free port)")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer this host name (repeatable; e.g. a DNS name of this machine other machines use)",
    )
    p.add_argument(
        "--token",
        default=None,
        help="the secret the link carries (default: a fresh random one; at least 16 url-safe characters)",
    )
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    return p


def make_config(args: argparse.Namespace) -> QuatroConfig:
    fields: dict[str, Any] = {"num_players": args.players, **LIVE_DEFAULTS}
    if args.tick_seconds is not None:
        fields["tick_seconds"] = args.tick_seconds
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE")
        fields[key.strip().replace("-", "_")] = scalar(value)
    return QuatroConfig(**fields)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn  # noqa: F401  (served by ``serve``; checked here, before anything starts)

        from quatro_env.play.server import allowed_hosts, check_token, create_app, new_token
        from quatro_env.play.table import LiveTable
    except ImportError as err:
        print(f"quatro-play needs the [play] extra: {install_extra('play')} ({err})", file=sys.stderr)
        return 2
    try:
        config = make_config(args)
        token = new_token() if args.token is None else check_token(args.token)
        table = LiveTable(config, args.seat, args.partner, args.opponents, args.seed)
    except ValueError as err:
        print(f"quatro-play: {one_line_error(err)}", file=sys.stderr)
        return 2
    try:
        sock = listen(args.host, args.port)  # before the link is printed: --port 0 names the port it got
    except OSError as err:
        reason = err.strerror or err
        print(f"quatro-play: cannot listen on {args.host} port {args.port}: {reason}", file=sys.stderr)
        return 2
    hosts, ip_literals = allowed_hosts(args.host, args.allow_host)
    if ip_literals:
        print(
            f"quatro-play: warning: listening on {args.host}, reachable from other machines; it answers"
            f" an IP address or one of {', '.join(dict.fromkeys(hosts))} (--allow-host NAME adds a name)",
            file=sys.stderr,
        )
    url, elsewhere = links(args.host, sock.getsockname()[1], token)
    who = f"seat {args.seat}, partner {args.partner}, opponents {args.opponents}"
    if elsewhere:
        print(f"quatro-play: from another machine: {elsewhere}", flush=True)
    print(f"quatro-play: {who}: open {url}", flush=True)  # flushed: a log or a pipe gets the link now
    if args.open:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()
    app = create_app(table, hosts, ip_literals, token=token)  # a DNS-rebinding name: HTTP 400
    serve(app, sock)
    return 0


def links(host: str, port: int, token: str) -> tuple[str, str | None]:
    """The link to open here, and one for other machines where ``host`` is every interface (``0.0.0.0``,
    ``::``): no browser goes to such an address, so this machine's is loopback and the others' its name."""

    def url(name: str) -> str:
        return f"http://{name}:{port}/?token={token}"

    try:
        everywhere = ipaddress.ip_address(host).is_unspecified
    except ValueError:  # a name
        everywhere = False
    if everywhere:
        return url("[::1]" if ":" in host else "127.0.0.1"), url(socket.gethostname())
    return url(f"[{host}]" if ":" in host else host), None  # an IPv6 address goes in brackets


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` (IPv4, IPv6 or a name) and ``port`` (0: a free one), listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family)


def serve(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on the bound ``sock`` until interrupted (tests replace this)."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    raise SystemExit(main())
