"""`bawo club ...`: a club's shared game log. The server's commands (serve, admin, token,
tokens, revoke, seat) run on the club's machine; the PC's (join, stream, push, seat --admin)
on a PC whose board joined. The club itself is the package bawo.club."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..club import ClubError
from ..text import safe
from .common import add_db, add_port, connect, db_path, open_log, sub

if TYPE_CHECKING:
    from ..club.client import PushReport
    from ..club.store import PgStore, SqliteStore
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """`bawo club` and its subcommands."""
    p = sub(
        subs,
        "club",
        "a club's shared game log: many boards, players, ratings",
        """The club server (`bawo club serve`) gathers the games of many boards: each PC
            joins with a board token from the club's admin, and `bawo sync` then delivers its
            board's records too. The club replays every record before it keeps it.""",
        """examples:
              bawo club serve                          a club on this PC (SQLite, no setup)
              bawo club serve --db postgresql://club@db/club --bind 0.0.0.0
              bawo club admin alice                    add an admin (password from the terminal)
              bawo club token pico-1a2b                issue board pico-1a2b a token (shown once)
              bawo club join https://club.example/ --token bawo_...
              bawo club seat pico-1a2b Ada Bo          who plays South and North there next
              bawo club push                           deliver what is queued""",
    )
    cs = p.add_subparsers(dest="club_command", metavar="SUBCOMMAND")
    cs.required = True
    add_server_commands(cs)
    add_pc_commands(cs)


def club_db_arg(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--db",
        metavar="URL|FILE",
        default=os.environ.get("BAWO_CLUB_DB"),
        help="the club database: postgresql://... or an SQLite file "
        "(default: club.sqlite in the bawo data dir; env BAWO_CLUB_DB)",
    )


def add_server_commands(cs: Subs) -> None:
    """The commands run where the club's database is."""
    s = cs.add_parser(
        "serve",
        help="run the club server",
        description="Run the club's pages and API. Migrates the database first.",
    )
    club_db_arg(s)
    s.add_argument("--bind", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--http-port", type=int, default=8080, help="port (default 8080)")
    s.set_defaults(func=cmd_serve)

    s = cs.add_parser(
        "admin",
        help="add an admin account (or set its password)",
        description="The password is read from the terminal, or from stdin.",
    )
    club_db_arg(s)
    s.add_argument("name")
    s.set_defaults(func=cmd_admin)

    s = cs.add_parser("token", help="issue a board a token (printed once)")
    club_db_arg(s)
    s.add_argument("board")
    s.set_defaults(func=cmd_token)

    s = cs.add_parser("tokens", help="list the board tokens (numbers, not the secrets)")
    club_db_arg(s)
    s.set_defaults(func=cmd_tokens)

    s = cs.add_parser("revoke", help="revoke a board token by its number")
    club_db_arg(s)
    s.add_argument("number", type=int)
    s.set_defaults(func=cmd_revoke)

    s = cs.add_parser(
        "seat",
        help="who plays South and North at a board from now on",
        description="On the club's machine (--db), or from any PC as an admin of "
        "the club (--admin NAME; the password from the terminal or stdin; "
        "the club this PC joined, or --url).",
    )
    club_db_arg(s)
    s.add_argument("--admin", metavar="NAME", help="log in to the club as this admin")
    s.add_argument("--url", help="the club's address (default: the one this PC joined)")
    s.add_argument("board")
    s.add_argument("south")
    s.add_argument("north")
    s.set_defaults(func=cmd_seat)


def add_pc_commands(cs: Subs) -> None:
    """The commands run on a PC whose board joins the club."""
    s = cs.add_parser("join", help="join this PC's board to a club with its token")
    s.add_argument("url")
    s.add_argument("--token", required=True)
    s.set_defaults(func=cmd_join)

    s = cs.add_parser(
        "stream",
        help="follow the board (as `bawo watch`) and stream its moves to the club",
        description="Follow the board's games as `bawo watch` does, and send each move "
        "to the club, where spectators see it live. In a tournament it also tells the board "
        "the round and table it is seated for: the board shows them while idle, and MENU "
        "there starts the round's game.",
    )
    add_port(s)
    add_db(s)
    s.add_argument("--exit-after-game", action="store_true", help="stop when a game ends")
    s.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds without news")
    s.set_defaults(func=cmd_stream)

    from .club_play import add_play

    add_play(cs)

    s = cs.add_parser("push", help="deliver the records queued for the club")
    s.add_argument("--db", help="the PC's game log (default: as `bawo sync`)")
    s.set_defaults(func=cmd_push)


def _store(args: argparse.Namespace) -> SqliteStore | PgStore:
    from ..club.server import default_db
    from ..club.store import open_store

    return open_store(args.db or default_db())


def cmd_serve(args: argparse.Namespace) -> int:
    from ..club.server import run

    return run(args.db, args.bind, args.http_port)


def cmd_admin(args: argparse.Namespace) -> int:
    from ..club import auth
    from ..club.records import check_player

    name = check_player(args.name)
    if sys.stdin.isatty():
        pw = getpass.getpass("password for %s: " % name)
        if getpass.getpass("again: ") != pw:
            raise ClubError("the two passwords differ")
    else:
        pw = sys.stdin.readline().rstrip("\n")
    if not 10 <= len(pw) <= auth.MAX_SECRET:
        raise ClubError("a password is 10 to %d characters" % auth.MAX_SECRET)
    store = _store(args)
    try:
        store.add_admin(name, *auth.hash_password(pw))
    finally:
        store.close()
    print(safe("admin %s can log in" % name))
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    from ..club import auth
    from ..club.records import check_board

    board = check_board(args.board)
    tok = auth.new_token()
    store = _store(args)
    try:
        n = store.add_token(board, auth.token_hash(tok))
    finally:
        store.close()
    print(
        "token %d of board %s (shown this once; the club keeps only its hash):" % (n, board),
        file=sys.stderr,
    )
    print(tok)
    return 0


def cmd_tokens(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        for t in store.tokens():
            print(
                safe(
                    "%4d  %-24s issued %s%s"
                    % (
                        t["id"],
                        t["board"],
                        t["created"],
                        "  revoked " + t["revoked"] if t["revoked"] else "",
                    )
                )
            )
    finally:
        store.close()
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        board = store.revoke_token(args.number)
    finally:
        store.close()
    if board is None:
        raise ClubError("no live token %d (`bawo club tokens` lists them)" % args.number)
    print(safe("token %d of board %s revoked" % (args.number, board)))
    return 0


def _password(prompt: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    return sys.stdin.readline().rstrip("\n")


def cmd_seat(args: argparse.Namespace) -> int:
    from ..club.records import check_board, check_player

    board, south, north = (
        check_board(args.board),
        check_player(args.south),
        check_player(args.north),
    )
    if args.admin:
        from ..club.client import admin_seat, check_url, load_config

        url = args.url
        if url is None:
            cfg = load_config()
            if cfg is None:
                raise ClubError("which club? this PC joined none: give --url")
            url = cfg["url"]
        admin_seat(
            check_url(url),
            args.admin,
            _password("password for %s: " % args.admin),
            board,
            south,
            north,
        )
        print(safe("board %s: South %s, North %s from now on" % (board, south, north)))
        return 0
    store = _store(args)
    try:
        store.seat(board, south, north)
    finally:
        store.close()
    print(safe("board %s: South %s, North %s from now on" % (board, south, north)))
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    from ..club.client import join

    board = join(args.url, args.token)
    print(
        safe(
            "board %s joined the club at %s: `bawo sync` delivers its records there"
            % (board, args.url)
        )
    )
    return 0


def cmd_stream(args: argparse.Namespace) -> int:
    from ..watch import watch
    from ..club.client import load_config
    from ..club.stream import SeatPoller, Sender, watcher_class

    cfg = load_config()
    if cfg is None:
        raise ClubError("this PC joined no club: `bawo club join URL --token T`")
    log = open_log(args)
    ser, link, info = connect(args)
    board = str(info.get("board") or info.get("device") or info.get("id") or "")
    token = cfg["boards"].get(board)
    if token is None:
        ser.close()
        log.close()
        raise ClubError(
            "board %s has not joined the club: `bawo club join` with its token" % safe(board)
        )

    def say(m: str) -> None:
        print(safe(m), file=sys.stderr, flush=True)

    sender = Sender(cfg["url"], token, on_error=say)
    seats = SeatPoller(cfg["url"], token, on_error=say)
    try:
        return watch(
            link,
            log,
            info,
            draw_board=False,
            exit_after_game=args.exit_after_game,
            timeout=args.timeout,
            reconnect=lambda: connect(args),
            watcher=watcher_class(sender, seats),
        )
    finally:
        seats.close()
        sender.close()
        ser.close()
        log.close()


def deliver(
    db: str | os.PathLike[str], cfg: dict[str, Any], out: TextIO = sys.stdout
) -> PushReport:
    """Deliver the outbox, saying what happened. Returns the PushReport."""
    from ..club.client import deliver as deliver_outbox, push_lines

    rep = deliver_outbox(db, cfg)
    for line in push_lines(rep):
        print(safe(line), file=out)
    return rep


def cmd_push(args: argparse.Namespace) -> int:
    from ..club.client import load_config

    cfg = load_config()
    if cfg is None:
        raise ClubError("this PC joined no club: `bawo club join URL --token T`")
    return 0 if deliver(db_path(args), cfg).ok() else 1
