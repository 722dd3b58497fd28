"""Serve the web page: play against an agent, watch two, replay a game, follow a tournament.

Starts a local server (Starlette on uvicorn, the ``web`` extra) and prints its address;
open it in a browser. It listens on the loopback address only, unless ``--host`` names
another (then anyone who reaches this machine may play, with a warning). Agents are the
games' built-in ones unless ``--allow-exec`` (any web page you visit can send requests to
127.0.0.1: only allow programs where you trust every page you open). Results files are read
only under ``--results-root``. ``--game`` names the game the page shows first; a game's
path (``package.module:GAME``) adds that game to the page.

Example:
    trap-serve
    trap-serve --port 8080 --results-root results
    trap-serve --allow-exec --results-root runs
    trap-serve --game othello
    trap-serve --allow-exec --game tests.support.drop_game:GAME
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trap_scripts._cli import CliError, Parser, add_game_option, fail, path

PROG = "trap-serve"


def build_parser() -> Parser:
    """The command line."""
    parser = Parser(prog=PROG, description="Serve the page to play, watch and replay games.")
    parser.add_argument(
        "--host",
        type=_host,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    )
    parser.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument(
        "--results-root",
        type=path,
        default=Path("."),
        metavar="DIR",
        help="the folder under which results files may be opened (default: here)",
    )
    parser.add_argument(
        "--allow-exec",
        action="store_true",
        help="accept exec: programs and dotted paths as agents (default: built-in agents only)",
    )
    add_game_option(parser)
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a further name the page may be reached by (the Host header), repeatable",
    )
    return parser


def _host(text: str) -> str:
    if not text.strip() or not text.isprintable():
        raise argparse.ArgumentTypeError(
            f"a host is a name or an address such as 127.0.0.1 (0.0.0.0: every interface), "
            f"got {text!r}"
        )
    return text


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 5 or int(text) > 65535:
        raise argparse.ArgumentTypeError(
            f"a port is 0 to 65535 (0: any free one), got {text!r:.20}"
        )
    return int(text)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback name or address (only this machine can connect)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until interrupted; 0 on a clean stop, 2 on bad input."""
    args = build_parser().parse_args(argv)
    try:
        return _serve(args.host, args.port, args.results_root, args.allow_exec, args.allow_host,
                      args.game)  # fmt: skip
    except CliError as error:
        return fail(PROG, error)


def _serve(
    host: str, port: int, root: Path, allow_exec: bool, extra_hosts: list[str], game: str
) -> int:
    try:
        import uvicorn

        from agents.web.app import Settings, allowed_hosts, create_app
    except ImportError as error:
        raise CliError(
            f"trap-serve needs the web extra: pip install 'trap_env[web]' ({error})"
        ) from None
    if not root.is_dir():
        raise CliError(f"--results-root {str(root)!r} is not a folder")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listening = socket.create_server((host, port), family=family)
    except OSError as error:
        raise CliError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    try:  # the socket is closed however the server ends (uvicorn's shutdown closes it too)
        bound = listening.getsockname()[1]
        hosts = allowed_hosts(host, bound, extra_hosts)
        settings = Settings(root, allow_exec, hosts, first_game=game)

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                settings.stopping.set()  # the event streams end, so that the server can stop
                super().handle_exit(sig, frame)

        # log_config=None: uvicorn leaves the process's logging as it is (its dictConfig
        # would close every handler there is, files of other libraries included).
        config = uvicorn.Config(
            create_app(settings),
            log_config=None,
            log_level="warning",
            timeout_graceful_shutdown=5,
        )
        server = Server(config)
        shown = f"[{host}]" if ":" in host else host
        agents = "any agent, programs too (--allow-exec)" if allow_exec else "built-in agents only"
        print(f"{PROG}: serving on http://{shown}:{bound}/ (Ctrl-C stops)", flush=True)
        print(f"{PROG}: {agents}; results files under {root.resolve()}", flush=True)
        if not is_loopback(host):
            print(
                f"{PROG}: warning: listening on {host}, beyond the loopback: anyone who reaches "
                "this machine can start games" + (" and run programs" if allow_exec else ""),
                file=sys.stderr,
                flush=True,
            )
        server.run(sockets=[listening])
    finally:
        listening.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
