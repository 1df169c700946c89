"""Playing without the log's tools: `bawo play` against the AI, `bawo demo`, `bawo sim`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import BawoError
from ..text import safe
from .common import (
    add_db,
    add_port,
    add_style,
    connect,
    count_arg,
    db_path,
    open_log,
    positive_arg,
    style,
    sub,
)
from .log import list_games

if TYPE_CHECKING:
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_play(subs)
    add_demo(subs)
    add_sim(subs)


def add_play(subs: Subs) -> None:
    """`bawo play`: a game against the computer in the terminal."""
    from shared_rules import GAMES

    s = sub(
        subs,
        "play",
        "play against the computer in the terminal",
        """Play a game in the terminal: type moves as in RULES.md (A1+ for Bawo, C for Oware,
            c3 / a1-a2 / a1xa3 for Bagh-Chal); `?` lists legal moves, `undo`, `quit`.
            Against the AI when it is available, otherwise two people take turns.
            With --board the game is on the board: you press your moves there, this PC's AI
            (its deeper budgets) answers and the board shows its moves.
            Positions are drawn as the board's LEDs (numbers without a terminal or with
            NO_COLOR; see --numbers, --leds).""",
        """examples:
              bawo play
              bawo play --game oware --level 3 --as N
              bawo play --game bagh-chal --two-players
              bawo play --board --level 5            (the board on USB)
              bawo play --board --sim /tmp/bawo-sim  (a running `bawo sim --data /tmp/bawo-sim`)""",
    )
    s.add_argument("--game", choices=sorted(GAMES), default="bawo")
    s.add_argument(
        "--level",
        type=int,
        default=2,
        choices=range(1, 6),
        metavar="1-5",
        help="AI strength, 1 (weak) to 5 (default 2)",
    )
    s.add_argument(
        "--as",
        dest="side",
        metavar="SIDE",
        help="your side: S or N (Bawo, Oware), G or T (Bagh-Chal); default the first",
    )
    s.add_argument("--seed", type=int, help="AI random seed (repeatable games)")
    s.add_argument("--two-players", action="store_true", help="no AI: two people take turns")
    add_db(s)
    s.add_argument("--no-log", action="store_true", help="do not store the game in the log")
    s.add_argument(
        "--board",
        action="store_true",
        help="play on the board: you press pockets, the PC's AI answers over the link",
    )
    add_style(s)
    add_port(s)
    s.set_defaults(func=cmd_play)


def add_demo(subs: Subs) -> None:
    """`bawo demo`: a simulated board, a game, a sync, the list."""
    from shared_rules import GAMES

    s = sub(
        subs,
        "demo",
        "try it without a board: simulated board, sync, list",
        """Start the simulated board (the real firmware under the MicroPython unix port),
            let it play a scripted game to the end, sync it into your game log (the one
            `bawo games` lists) and list the log.""",
        """examples:
              bawo demo
              bawo demo --games 3 --db /tmp/demo.sqlite --data /tmp/bawo-sim""",
    )
    s.add_argument(
        "--db",
        metavar="FILE",
        help="game log the demo's games go into (default: your game log, as `bawo "
        "games` reads it; env BAWO_DB)",
    )
    s.add_argument(
        "--data", metavar="DIR", help="simulator data dir (default: a new temporary dir)"
    )
    s.add_argument(
        "--games", type=positive_arg, default=1, help="scripted games to play (default 1)"
    )
    s.add_argument("--game", choices=sorted(GAMES), default="bawo")
    s.set_defaults(func=cmd_demo)


def add_sim(subparsers: Subs) -> argparse.ArgumentParser:
    """`bawo sim`: the board's firmware in this terminal."""
    from shared_rules import GAMES
    from ..sim import default_data_dir

    p = sub(
        subparsers,
        "sim",
        "the board's firmware simulated in this terminal (no board needed)",
        """Run the board's firmware under the MicroPython unix port. Interactive by default
            (keys or mouse clicks press pockets, its serial port is a pty); with
            --moves/--script/--random/--demo it presses the pockets itself. The unix port is
            fast and deterministic: the everyday mode for playing, scripts and host tools.
            --pico runs the real Pico MicroPython image on an emulated RP2040 instead: the most
            faithful rehearsal of a board (its timing, its 32-bit heap, its littlefs flash, its
            USB serial), but several times slower than a Pico on a busy PC.""",
        """examples:
              bawo sim                            the board in this terminal (Q quits)
              bawo sim --data /tmp/bawo-sim       its flash in /tmp/bawo-sim (bawo sync --sim /tmp/bawo-sim)
              bawo sim --moves "A1+ B7-"          press these moves, print the result
              bawo sim --random 40 --seed 7       40 random plies, the same ones each time
              bawo sim --ai-vs-ai --level 5       the board's AI against itself, a whole game
              bawo sim --pico                     the Pico's own MicroPython on an emulated RP2040
              bawo sim --pico --uf2               ... booting this tree's frozen image, as a board ships""",
    )
    p.add_argument(
        "--game",
        choices=list(GAMES),
        help="the game: scripted, the one played (default bawo); interactive, the "
        "one the board's menu opens on (default: its last choice)",
    )
    p.add_argument("--profile", help="profile name or JSON path (default: fits --game)")
    p.add_argument(
        "--data", metavar="DIR", help="the board's flash (default %s)" % default_data_dir()
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of the random plies and of the board's AI (default: from the "
        "clock, printed; give it again to play the same game)",
    )
    p.add_argument(
        "--speed", type=int, choices=range(1, 9), metavar="1-8", help="animation speed, 8 = instant"
    )
    p.add_argument("--headless", action="store_true", help="no drawing")
    p.add_argument("--quiet", action="store_true", help="scripted: no per-move lines")
    p.add_argument(
        "--heap",
        metavar="SIZE",
        type=_heap_size,
        help="MicroPython heap, e.g. 160k, the project's test budget: the unix "
        "port's 64-bit objects take about twice the room of a Pico's, so "
        "160k is tighter than a Pico (--pico runs the Pico's own heap)",
    )
    _add_sim_modes(p)
    p.set_defaults(func=cmd_sim)
    return p


def _add_sim_modes(p: argparse.ArgumentParser) -> None:
    """`bawo sim`'s modes: the scripted ones, the board's AI, the emulated Pico."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--moves", metavar="'A1+ B7- ...'", help="moves to play, then print the result")
    g.add_argument(
        "--script", metavar="FILE", help="file of moves (move numbers and # comments ok)"
    )
    g.add_argument("--random", type=count_arg, metavar="N", help="N seeded random plies")
    g.add_argument("--demo", action="store_true", help="a whole seeded random Bawo game")
    g.add_argument(
        "--ai-vs-ai",
        action="store_true",
        help="the board's AI plays both sides, a whole game (level: --level, 5)",
    )
    p.add_argument(
        "--opponent",
        choices=("people", "board-second", "board-first"),
        help="the board's AI plays a side: scripted, --moves/--random are then the "
        "person's moves only; interactive, the menu opens on this choice",
    )
    p.add_argument(
        "--level",
        type=int,
        choices=range(1, 6),
        metavar="1-5",
        help="the board's AI level (default 5 with --ai-vs-ai, else the menu's; "
        "interactive, the menu opens on it)",
    )
    p.add_argument(
        "--pico",
        action="store_true",
        help="drive the terminal board with MicroPython's rp2 image on an emulated "
        "RP2040 (rp2040js, needs Node.js): Pico timing, heap and flash; its flash "
        "is DATA/pico-flash.bin",
    )
    p.add_argument(
        "--uf2",
        metavar="IMAGE",
        nargs="?",
        const="",
        help="with --pico: boot a UF2 image (default: this tree's, bawo build-uf2) on "
        "its own flash, DATA/pico-uf2-flash.bin, instead of the stock image with "
        "the bundle",
    )
    p.add_argument(
        "--mpy",
        action="store_true",
        help="run precompiled .mpy files, as deployed on a Pico (scripted modes; implied by --heap)",
    )


SIM_OPTIONS = (
    "game",
    "profile",
    "data",
    "seed",
    "speed",
    "headless",
    "quiet",
    "heap",
    "moves",
    "script",
    "random",
    "demo",
    "ai_vs_ai",
    "opponent",
    "level",
    "pico",
    "mpy",
    "uf2",
)


def cmd_sim(args: argparse.Namespace) -> int:
    from ..sim.run import run

    return run(**{k: getattr(args, k) for k in SIM_OPTIONS})


def cmd_play(args: argparse.Namespace) -> int:
    from ..terminal_games import play

    if args.board:
        from ..terminal_games import play_on_board

        if args.two_players:
            raise BawoError(
                "--board and --two-players: on the board, people play by "
                "choosing 'people' in its menu"
            )
        ser, link, info = connect(args)
        try:
            return play_on_board(
                link, args.game, args.level, args.side, args.seed, style=style(args)
            )
        finally:
            ser.close()
    log = None if args.no_log else open_log(args)
    try:
        return play(
            args.game, args.level, args.side, args.seed, args.two_players, log, style=style(args)
        )
    finally:
        if log:
            log.close()


def cmd_demo(args: argparse.Namespace) -> int:
    """Simulated board -> scripted games -> sync -> list: the README's first command. The
    games go into the user's own game log (--db, $BAWO_DB, else the default one), so the
    `bawo games`, `bawo show` and `bawo serve` that follow find them; the board's flash is a
    throw-away dir unless --data."""
    import tempfile
    import threading
    from .. import sim
    from ..sim.draw import Bar
    from ..sim.run import run as run_sim
    from ..sync import sync
    from ..ports import connect

    data = args.data or tempfile.mkdtemp(prefix="bawo-demo-")
    db = db_path(args)
    print("1. simulated board: the firmware under the MicroPython unix port, flash in %s" % data)
    for k in range(args.games):
        print(
            "2. the board plays scripted game %d/%d of %s (pockets pressed by a script):"
            % (k + 1, args.games, args.game)
        )
        try:
            run_sim(game=args.game, data=data, speed=8, headless=True, quiet=True, demo=True)
        except sim.SimError as e:
            raise BawoError("the simulated board failed: %s" % e)
    relay = sim.PtyRelay()
    board = sim.BoardProcess(sim.PROFILES[args.game], data, fake=False, link=relay.board_ends())
    relay.start()

    def drain() -> None:  # the board blocks if nobody reads its status pipe
        try:
            while board.proc.poll() is None:
                board.readline(timeout=3600)
        except (sim.SimError, OSError, ValueError):
            pass

    threading.Thread(target=drain, daemon=True).start()
    try:
        print(
            safe(
                "3. board restarted with its USB serial port on %s; syncing into your game log %s"
                % (relay.path, db)
            )
        )
        ser, link, info = connect(relay.path, None, timeout=3.0)
        log = None
        try:
            from ..db import Log

            log = Log(db)
            report = sync(link, log, bar=Bar())
        finally:
            ser.close()
            if log:
                log.close()
        print(
            "   %d new game(s) stored, %d already there, %d quarantined"
            % (len(report.added), len(report.reacked), len(report.quarantined))
        )
    finally:
        relay.stop = True
        board.kill()
    own = db == db_path(argparse.Namespace())  # the log `bawo games` reads with no --db
    where = "" if own else " --db %s" % db
    print(safe("4. bawo games%s" % where))
    rc = list_games(db)
    if report.added:
        print()  # the blank line apart: safe() would show a newline in the text as \x0a
        print(
            safe(
                "the demo's game%s in your game log with the others: bawo show %s%s --all"
                % ("s are" if len(report.added) > 1 else " is", report.added[-1], where)
            )
        )
    return rc


def _heap_size(text: str) -> str:
    """argparse type: a MicroPython heap size, bytes with an optional k or m (160k)."""
    t = text.strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20}.get(t[-1:], 1)
    digits = t[:-1] if mult > 1 else t
    if not digits.isdigit() or not 4 << 10 <= int(digits) * mult <= 1 << 30:
        raise argparse.ArgumentTypeError("%r: give bytes from 4k to 1024m, e.g. 160k" % text)
    return t
