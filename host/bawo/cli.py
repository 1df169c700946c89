"""The `bawo` command. Every failure ends as one line `bawo: error: ...` and exit status 1
(2 for a wrong command line), never a traceback. Each command's parser and run function are
in bawo.commands, one module a group; this file puts the parsers together and runs one."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import textwrap

from .commands import GROUPS
from .commands.common import Formatter, db_path, one_line
from .errors import BawoError
from .text import safe

PROG = "bawo"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        formatter_class=Formatter,
        description="Host tools for the Bawo Board: sync, browse and export the games played on it.",
        epilog=textwrap.dedent("""
            examples:
              bawo demo                   try everything without a board (simulated board)
              bawo sync                   copy new games from the board into the game log
              bawo games --game bawo      list the logged Bawo games
              bawo show pico-1a2b-0007    replay a game step by step
              bawo export -f text -o games.txt
            Run `bawo COMMAND --help` for each command's options.""").strip(),
    )
    p.add_argument("--version", action="version", version="%(prog)s " + _version())
    subs = p.add_subparsers(dest="command", metavar="COMMAND")
    subs.required = True
    for group in GROUPS:
        group.add_parser(subs)
    return p


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("bawo-board")
    except Exception:
        return "0.1.0"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        import serial

        serial_errors: tuple[type[Exception], ...] = (serial.SerialException,)
    except ImportError:
        serial_errors = ()
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        sys.stderr.write("\nbawo: interrupted\n")
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # `bawo export | head`: not an error
        except OSError:
            pass
        return 0
    except BawoError as e:
        msg = one_line(e)
    except serial_errors as e:
        msg = "serial port: %s: check the cable and that no other program uses the port" % one_line(
            e
        )
    except sqlite3.Error as e:
        from .db import LogError

        msg = one_line(LogError(db_path(args), e))
    except ValueError as e:  # shared_rules.RulesError and friends
        msg = one_line(e)
    except OSError as e:
        msg = "%s%s" % (
            e.strerror or one_line(e),
            (": " + e.filename) if getattr(e, "filename", None) else "",
        )
    sys.stderr.write("%s: error: %s\n" % (PROG, safe(msg)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
