"""What the command groups share: the help formatter, the options several commands take
(--db, --port/--sim, the filters, the drawing style), argument types, the game log, the
board's connection, JSON output and the one record a command names."""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import textwrap
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from ..errors import BawoError
from ..text import json_safe, safe

if TYPE_CHECKING:
    from shared_rules.record import Record

    from ..boardlink import BoardLink
    from ..db import Log

    # What add_parser(subs) is given: argparse's add_subparsers().
    Subs = argparse._SubParsersAction[argparse.ArgumentParser]


class Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def examples(text: str) -> str:
    # "examples:" then its lines, indented two spaces whatever the source indentation.
    head, _, rest = inspect.cleandoc(text).partition("\n")
    if rest and not any(line.startswith(" ") for line in rest.splitlines()):
        rest = textwrap.indent(rest, "  ")
    return head + "\n" + rest if rest else head


def sub(
    subs: Subs, name: str, help_: str, description: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    """A command's parser: its line in `bawo --help`, its description and its examples."""
    return subs.add_parser(
        name,
        help=help_,
        description=inspect.cleandoc(description),
        epilog=examples(epilog) if epilog else None,
        formatter_class=Formatter,
    )


def add_style(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--numbers",
        action="store_true",
        help="draw positions as a grid of seed counts / pieces (the default when "
        "the output is not a terminal or NO_COLOR is set)",
    )
    g.add_argument(
        "--leds",
        action="store_true",
        help="draw the board's LEDs even then (plain characters without colour)",
    )


def style(args: argparse.Namespace) -> str:
    from ..sim.draw import style_for

    return style_for(
        sys.stdout, numbers=getattr(args, "numbers", False), force_leds=getattr(args, "leds", False)
    )


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="FILE",
        help="game log (SQLite) to use; default: games.sqlite in the user data dir "
        "(shown by `bawo games --where`); env BAWO_DB",
    )


def add_port(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        metavar="PATH",
        help="serial port of the board (COM3, /dev/ttyACM0, or the simulator's pty); "
        "default: env BAWO_PORT, else the first USB device 2e8a:* that answers",
    )
    p.add_argument(
        "--sim",
        metavar="DIR",
        nargs="?",
        const=None,
        default=argparse.SUPPRESS,
        help="use the simulator running with data dir DIR (default: env BAWO_SIM, "
        "else the simulator's default dir)",
    )


def date_arg(text: str) -> str:
    import datetime

    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError("bad date %r: expected YYYY-MM-DD, like 2025-03-01" % text)
    return text


def add_filters(p: argparse.ArgumentParser) -> None:
    from shared_rules import GAMES

    p.add_argument("--game", choices=sorted(GAMES), help="only this game")
    p.add_argument(
        "--since",
        metavar="DATE",
        type=date_arg,
        help="only games started on or after DATE (2025-03-01)",
    )
    p.add_argument(
        "--until",
        metavar="DATE",
        type=date_arg,
        help="only games started on or before DATE (inclusive)",
    )
    p.add_argument(
        "--result",
        metavar="R",
        choices=("S", "N", "G", "T", "draw", "*"),
        help="only this result: S, N (Bawo, Oware), G, T (Bagh-Chal), draw, or * (unfinished)",
    )


def count_arg(text: str, least: int = 0) -> int:
    """argparse type: a whole number, 0 or more (--random -3 is refused, not 'no plies')."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if n < least:
        raise argparse.ArgumentTypeError(
            "%d is %s: give %d or more" % (n, "negative" if n < 0 else "too few", least)
        )
    return n


def positive_arg(text: str) -> int:
    """argparse type: a whole number, 1 or more (--jobs, --games)."""
    return count_arg(text, 1)


def db_path(args: argparse.Namespace) -> str:
    from ..db import default_path

    return getattr(args, "db", None) or os.environ.get("BAWO_DB") or default_path()


def open_log(args: argparse.Namespace, readonly: bool = False) -> Log:
    """readonly: for commands that only read (games, show, export): the log must exist."""
    from ..db import Log

    return Log(db_path(args), readonly=readonly)


def connect(
    args: argparse.Namespace, timeout: float = 2.0
) -> tuple[Any, BoardLink, dict[str, Any]]:
    from ..ports import connect

    return connect(args.port, sim_arg(args), timeout=timeout)


def sim_arg(args: argparse.Namespace) -> str | None:
    """The simulator data dir --sim names: None without --sim, the default one for a bare --sim."""
    sim = getattr(args, "sim", "unset")  # commands without --sim have no such attribute
    if sim is None:
        from ..sim import default_data_dir

        return default_data_dir()
    return None if sim == "unset" else sim


def out_json(obj: object) -> None:
    sys.stdout.write(json_safe(json.dumps(obj, indent=1, ensure_ascii=False)) + "\n")


def out_json_list(items: Iterable[object]) -> None:
    """out_json(list(items)), written item by item (a long log is never one list in memory)."""
    sep = "[\n"
    for d in items:
        text = json_safe(json.dumps(d, indent=1, ensure_ascii=False))
        sys.stdout.write(sep + textwrap.indent(text, " "))
        sep = ",\n"
    sys.stdout.write("[]\n" if sep == "[\n" else "\n]\n")


class _Stdin:
    def __enter__(self) -> IO[bytes]:
        return sys.stdin.buffer

    def __exit__(self, *exc: object) -> None:
        pass


def open_input(path: str) -> _Stdin | IO[bytes]:
    """A record file (or - for stdin) as a binary stream, read as it is used."""
    if path == "-":
        return _Stdin()
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(21, "is a directory")
        return open(path, "rb")
    except OSError as e:
        raise BawoError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e))


def name_unreadable(log: Log) -> int:
    """Name on stderr the rows the last read of log skipped; their number."""
    bad = getattr(log, "unreadable", ())
    for name, why in bad:
        sys.stderr.write(safe("bawo: skipped game %s: %s" % (name, why)) + "\n")
    return len(bad)


class Counted:
    """An iterable passed through, counting its items."""

    def __init__(self, it: Iterable[Any]) -> None:
        self.it, self.n = it, 0

    def __iter__(self) -> Iterator[Any]:
        for x in self.it:
            self.n += 1
            yield x


def record_from_args(args: argparse.Namespace) -> Record:
    """The one record a command names: --file FILE (its first record) or an ID in the log."""
    from shared_rules.record import Record
    from shared_rules.errors import RecordError

    if args.file:
        from ..export import read

        with open_input(args.file) as src:
            for where, rec, err in read(src):
                if err:
                    raise BawoError("%s %s: %s" % (args.file, where, err))
                assert rec is not None  # read() gives a record or its error
                return rec
        raise BawoError("%s holds no record" % args.file)
    if not args.id:
        raise BawoError("which game? give an ID (see `bawo games`) or --file FILE")
    log = open_log(args, readonly=True)
    try:
        row = log.get(args.id)
    finally:
        log.close()
    if row is None:
        raise BawoError("no game %r in %s: `bawo games` lists the ids" % (args.id, log.path))
    try:
        return Record.from_text(row["record"])
    except RecordError as e:
        raise BawoError(
            "game %s in the log does not read (%s): `bawo export -f text` "
            "writes it as stored" % (row["id"], e)
        )


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
