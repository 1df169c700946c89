"""Exact answers: `bawo solve` proves a Bawo position, `bawo analyse` marks a game's plies."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import add_db, record_from_args, sub

if TYPE_CHECKING:
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_solve(subs)
    add_analyse(subs)


def add_solve(subs: Subs) -> None:
    """`bawo solve`: a Bawo position won or lost, every winning move."""
    s = sub(
        subs,
        "solve",
        "solve a Bawo position exactly: won or lost, every winning move",
        """Prove a Bawo position won or lost for the side to move with proof-number search,
            list every winning move, and check the winning strategy against every reply before
            saying so. The opening (--opening) is a win for South.""",
        """examples:
              bawo solve --opening
              bawo solve --opening --tree south.txt
              bawo solve --opening --book firmware/bawo_book.bin
              bawo solve "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"
              bawo solve POSITION --max-nodes 100000 --max-seconds 10 --json""",
    )
    s.add_argument(
        "position", nargs="?", help="a Bawo position string (RULES.md 1), side to move last"
    )
    s.add_argument("--opening", action="store_true", help="the start position, South to move")
    _add_budgets(s, 2000000, None, "")
    s.add_argument(
        "--tree",
        metavar="FILE",
        help="write the winner's strategy: one line per position, the position and its move",
    )
    s.add_argument(
        "--book",
        metavar="FILE",
        help="with --opening: write the board's book (firmware/bawo_book.bin's format)",
    )
    s.add_argument(
        "--first-move-only",
        action="store_true",
        help="stop at the first winning move instead of trying every move",
    )
    s.add_argument("--json", action="store_true", help="print the answer as JSON")
    s.set_defaults(func=cmd_solve)


def add_analyse(subs: Subs) -> None:
    """`bawo analyse`: the value of every position of a game."""
    s = sub(
        subs,
        "analyse",
        "the value of every position of a game, and where it was lost",
        """Go through a game ply by ply. Bawo: the value of each position for the side to
            move (won, lost, or unknown within the budget), each ply that turned a won
            position into a lost one (the mistake), and the winning moves it missed.
            Oware and Bagh-Chal: the level-5 search's score before each ply and the plies that
            lose the most, an estimate, not a proof.""",
        """examples:
              bawo analyse pico-1a2b-0007
              bawo analyse --file game.txt --max-seconds 10
              bawo analyse ID --json""",
    )
    s.add_argument("id", nargs="?", help="game id in the log (see `bawo games`)")
    s.add_argument(
        "--file", metavar="FILE", help="a record file instead (text or JSON lines; - for stdin)"
    )
    _add_budgets(s, 200000, 2.0, " per position")
    s.add_argument("--json", action="store_true", help="print the marks as JSON")
    add_db(s)
    s.set_defaults(func=cmd_analyse)


MAX_NODES = 10**9


MAX_SECONDS = 7 * 24 * 3600.0


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if not 1 <= v <= MAX_NODES:
        raise argparse.ArgumentTypeError(
            "bad count %r: expected a whole number from 1 to %d" % (text, MAX_NODES)
        )
    return v


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not 0 < v <= MAX_SECONDS:  # also refuses nan
        raise argparse.ArgumentTypeError(
            "bad time %r: expected seconds, more than 0 and at most %d" % (text, MAX_SECONDS)
        )
    return v


def _add_budgets(p: argparse.ArgumentParser, nodes: int, seconds: float | None, per: str) -> None:
    p.add_argument(
        "--max-nodes",
        type=_positive_int,
        default=nodes,
        metavar="N",
        help="node expansions allowed%s (default %d)" % (per, nodes),
    )
    p.add_argument(
        "--max-seconds",
        type=_seconds,
        default=seconds,
        metavar="S",
        help="time allowed%s (default %s)" % (per, "none" if seconds is None else "%g s" % seconds),
    )


def cmd_solve(args: argparse.Namespace) -> int:
    from ..analyse import solve_command

    return solve_command(
        args.position,
        opening=args.opening,
        max_nodes=args.max_nodes,
        max_seconds=args.max_seconds,
        tree=args.tree,
        book=args.book,
        first_move_only=args.first_move_only,
        as_json=args.json,
    )


def cmd_analyse(args: argparse.Namespace) -> int:
    from ..analyse import analyse_command

    return analyse_command(
        record_from_args(args),
        max_nodes=args.max_nodes,
        max_seconds=args.max_seconds,
        as_json=args.json,
    )
