"""Following the board live: `bawo watch` in the terminal, `bawo serve` on a web page."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import add_db, add_port, add_style, connect, db_path, open_log, sim_arg, style, sub

if TYPE_CHECKING:
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_watch(subs)
    add_serve(subs)


def add_watch(subs: Subs) -> None:
    """`bawo watch`: the game on the board, live, in the terminal."""
    s = sub(
        subs,
        "watch",
        "follow the game on the board live",
        """Print the game on the board as it is played and log every move as it happens
            (status 'live' in `bawo games`), so a game watched to its end is in the log even if
            the board's flash fails later. `bawo sync` replaces it with the board's record.
            Positions are drawn as the board's LEDs (numbers without a terminal or with
            NO_COLOR; see --numbers, --leds). Ctrl-C stops watching.""",
        """examples:
              bawo watch
              bawo watch --sim /tmp/bawo-sim --no-draw""",
    )
    add_port(s)
    add_db(s)
    s.add_argument("--no-draw", action="store_true", help="print moves only, not the board")
    add_style(s)
    s.add_argument("--exit-after-game", action="store_true", help="stop when a game ends")
    s.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds without news")
    s.set_defaults(func=cmd_watch)


def add_serve(subs: Subs) -> None:
    """`bawo serve`: the companion web page."""
    s = sub(
        subs,
        "serve",
        "the board's companion web page: live board, library, replay",
        """Serve a local web page on the game log: the live board (when a board or `bawo sim`
            is connected; it reconnects by itself), the game library, replay, statistics.
            Bound to 127.0.0.1 on a free port, printed as a URL. Ctrl-C stops it.""",
        """examples:
              bawo serve --open
              bawo serve --sim /tmp/bawo-sim""",
    )
    add_port(s)
    add_db(s)
    s.add_argument(
        "--bind",
        metavar="HOST",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; another needs --allow-remote)",
    )
    s.add_argument(
        "--http-port", type=int, default=0, metavar="N", help="TCP port (default: a free one)"
    )
    s.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-local --bind; every request then needs the printed token",
    )
    s.add_argument("--no-board", action="store_true", help="do not look for a board")
    s.add_argument("--open", action="store_true", help="open the page in the web browser")
    s.set_defaults(func=cmd_serve)


def cmd_watch(args: argparse.Namespace) -> int:
    from ..watch import watch

    log = open_log(args)
    ser, link, info = connect(args)
    try:
        return watch(
            link,
            log,
            info,
            draw_board=not args.no_draw,
            exit_after_game=args.exit_after_game,
            timeout=args.timeout,
            style=style(args),
            reconnect=lambda: connect(args),
        )
    finally:
        ser.close()
        log.close()


def cmd_serve(args: argparse.Namespace) -> int:
    from ..serve import run

    return run(
        db_path(args),
        bind=args.bind,
        http_port=args.http_port,
        allow_remote=args.allow_remote,
        port=args.port,
        sim=sim_arg(args),
        board=not args.no_board,
        open_browser=args.open,
    )
