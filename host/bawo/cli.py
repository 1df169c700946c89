"""The `bawo` command. Every failure ends as one line `bawo: error: ...` and exit status 1
(2 for a wrong command line), never a traceback."""
import argparse
import inspect
import json
import os
import sqlite3
import sys
import textwrap

from .errors import BawoError
from .text import safe, json_safe, SafeWriter

PROG = "bawo"


class Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _epilog(text):
    # "examples:" then its lines, indented two spaces whatever the source indentation.
    head, _, rest = inspect.cleandoc(text).partition("\n")
    if rest and not any(line.startswith(" ") for line in rest.splitlines()):
        rest = textwrap.indent(rest, "  ")
    return head + "\n" + rest if rest else head


def _sub(subs, name, help_, description, epilog=None):
    return subs.add_parser(name, help=help_, description=inspect.cleandoc(description),
                           epilog=_epilog(epilog) if epilog else None, formatter_class=Formatter)


def _add_style(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--numbers", action="store_true",
                   help="draw positions as a grid of seed counts / pieces (the default when "
                        "the output is not a terminal or NO_COLOR is set)")
    g.add_argument("--leds", action="store_true",
                   help="draw the board's LEDs even then (plain characters without colour)")


def _style(args):
    from .draw import style_for
    return style_for(sys.stdout, numbers=getattr(args, "numbers", False),
                     force_leds=getattr(args, "leds", False))


def _add_db(p):
    p.add_argument("--db", metavar="FILE",
                   help="game log (SQLite) to use; default: games.sqlite in the user data dir "
                        "(shown by `bawo games --where`); env BAWO_DB")


def _add_port(p):
    p.add_argument("--port", metavar="PATH",
                   help="serial port of the board (COM3, /dev/ttyACM0, or the simulator's pty); "
                        "default: env BAWO_PORT, else the first USB device 2e8a:* that answers")
    p.add_argument("--sim", metavar="DIR", nargs="?", const=None, default=argparse.SUPPRESS,
                   help="use the simulator running with data dir DIR (default: env BAWO_SIM, "
                        "else the simulator's default dir)")


def _date(text):
    import datetime
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError("bad date %r: expected YYYY-MM-DD, like 2025-03-01" % text)
    return text


def _add_filters(p):
    from shared_rules import GAMES
    p.add_argument("--game", choices=sorted(GAMES), help="only this game")
    p.add_argument("--since", metavar="DATE", type=_date,
                   help="only games started on or after DATE (2025-03-01)")
    p.add_argument("--until", metavar="DATE", type=_date,
                   help="only games started on or before DATE (inclusive)")
    p.add_argument("--result", metavar="R", choices=("S", "N", "G", "T", "draw", "*"),
                   help="only this result: S, N (Bawo, Oware), G, T (Bagh-Chal), draw, or * (unfinished)")


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROG, formatter_class=Formatter,
        description="Host tools for the Bawo Board: sync, browse and export the games played on it.",
        epilog=textwrap.dedent("""
            examples:
              bawo demo                   try everything without a board (simulated board)
              bawo sync                   copy new games from the board into the game log
              bawo games --game bawo      list the logged Bawo games
              bawo show pico-1a2b-0007    replay a game step by step
              bawo export -f text -o games.txt
            Run `bawo COMMAND --help` for each command's options.""").strip())
    p.add_argument("--version", action="version", version="%(prog)s " + _version())
    subs = p.add_subparsers(dest="command", metavar="COMMAND")
    subs.required = True

    s = _sub(subs, "ports", "list serial ports that may be a board",
             """List serial ports, boards first (USB vendor 2e8a, Raspberry Pi), and a
             simulator running in the default data dir. Each board is asked which firmware it
             runs (its version, UF2 image or files, the hash of its sources); a port another
             program holds is said to be busy.""",
             """examples:
               bawo ports
               bawo ports --json
               bawo ports --no-ask          list only; talk to no board""")
    s.add_argument("--json", action="store_true", help="print a JSON array")
    s.add_argument("--no-ask", action="store_true", help="do not ask the boards which firmware they run")
    s.set_defaults(func=cmd_ports)

    s = _sub(subs, "sync", "copy finished games from the board into the game log",
             """Fetch every finished game the board has not handed over yet, check each by replaying
             it with the rules, store it in the game log, and only then tell the board it may
             forget it. Safe to interrupt at any point: run it again and nothing is lost or doubled.
             A record that does not replay is kept in quarantine (see `bawo games --quarantine`) and
             left on the board. Another game under an id the log has (two boards with one id) is
             kept beside it as a conflict, `<id>~<hash>` in `bawo games`.""",
             """examples:
               bawo sync
               bawo sync --port /dev/ttyACM0 --db ~/bawo.sqlite
               bawo sync --sim /tmp/bawo-sim      (a running `bawo sim --data /tmp/bawo-sim`)

             exit status: 0 all games synced, 1 some record was quarantined, a conflict, not fetched,
             or an error occurred""")
    _add_port(s)
    _add_db(s)
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.set_defaults(func=cmd_sync)

    from .club.cli import add_parser as _add_club
    _add_club(subs, _sub)

    s = _sub(subs, "games", "list the games in the log",
             """List logged games in the order they were played (PLAYED, local time); games
             whose start time is unknown (the board's clock was not set) come last.""",
             """examples:
               bawo games
               bawo games --game oware --since 2025-01-01 --result S
               bawo games --json | jq '.[].id'
               bawo games --quarantine      records that did not replay

             exit status: 0, 1 some row of the log could not be read (named on stderr)""")
    _add_db(s)
    _add_filters(s)
    s.add_argument("--quarantine", action="store_true", help="list quarantined records instead")
    s.add_argument("--where", action="store_true", help="print the game log's path and exit")
    s.add_argument("--json", action="store_true", help="print a JSON array")
    s.set_defaults(func=cmd_games)

    s = _sub(subs, "show", "replay a logged game in the terminal",
             """Replay a game from the log: Enter (or n, space) shows the next move, b steps
             back, q quits; in a terminal each key acts at once.
             ID may be a unique prefix of the game id. Each position is drawn as the board's
             LEDs show it (the firmware's own drawing, as in `bawo sim`), then the position
             string and whose turn it is; when the output is not a terminal or NO_COLOR is set,
             as a grid of numbers instead (--numbers always, --leds never).""",
             """examples:
               bawo show pico-1a2b-0007
               bawo show pico-1a2b-0007 --all     every position, no pauses
               bawo show pico-1a2b-0007 --ply 12  the position after ply 12
               bawo show --file game.txt           a record file instead of the log""")
    s.add_argument("id", nargs="?", help="game id (or unique prefix)")
    s.add_argument("--file", metavar="FILE", help="show the first record of FILE instead")
    s.add_argument("--all", action="store_true", help="print every position without waiting")
    s.add_argument("--ply", type=_count, metavar="N", help="only the position after ply N")
    s.add_argument("--analyse", action="store_true", help="note `bawo analyse`'s mark under each ply")
    _add_style(s)
    _add_db(s)
    s.set_defaults(func=cmd_show)

    s = _sub(subs, "export", "write logged games to a file",
             """Export games as JSON lines (one record object per line), as text records
             (RULES.md section 4, PGN-like) or as a CSV summary. JSON lines and text carry
             every record whole, every tag and move: `bawo import` of them gives back the
             same games. The CSV is a summary by design, one row a game with the columns id,
             game, device, start, result, reason, plies, status: no moves and no other tags,
             so it cannot be imported. A row of the log that cannot be read is named on
             stderr and skipped; the others are written.""",
             """examples:
               bawo export > games.jsonl
               bawo export --format text -o games.txt
               bawo export --format csv --game bawo --since 2025-01-01 -o bawo.csv

             exit status: 0 every game written, 1 some row of the log could not be read""")
    s.add_argument("-f", "--format", choices=("jsonl", "text", "csv"), default="jsonl")
    s.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    s.add_argument("--analyse", action="store_true",
                   help="add `bawo analyse`'s marks: a comment per ply (text), a marks field (jsonl)")
    _add_filters(s)
    _add_db(s)
    s.set_defaults(func=cmd_export)

    s = _sub(subs, "import", "add records from a file to the log",
             """Read records (JSON lines or text, as `bawo export` writes them), replay each,
             and add the good ones to the log; a game already there is skipped, another game
             under a taken id is kept beside it as a conflict, a record that does not read or
             replay is quarantined as it was in the file, with a one-line reason. The file is
             read as a stream (any size), the replays run in one process per CPU, and progress
             goes to stderr. Ctrl-C stops it: what was stored so far is kept and said. A CSV
             summary (`bawo export -f csv`) has no moves and cannot be imported.""",
             """examples:
               bawo import games.jsonl
               bawo import friend.txt --db club.sqlite

             exit status: 0 every record was good, 1 some record failed or was a conflict,
             130 interrupted""")
    s.add_argument("file", help="record file (- for stdin)")
    s.add_argument("--jobs", type=_positive, metavar="N",
                   help="replay records in N processes (default: one per CPU; 1: in this one)")
    _add_db(s)
    s.set_defaults(func=cmd_import)

    s = _sub(subs, "verify", "check records by replaying them",
             """Replay each record of FILE with the rules and print OK or the failing ply and why.
             Nothing is stored.""",
             """examples:
               bawo verify games.jsonl
               bawo export | bawo verify -

             exit status: 0 all OK, 1 some record failed""")
    s.add_argument("file", help="record file (- for stdin)")
    s.add_argument("--json", action="store_true", help="one JSON object per record")
    s.set_defaults(func=cmd_verify)

    s = _sub(subs, "watch", "follow the game on the board live",
             """Print the game on the board as it is played and log every move as it happens
             (status 'live' in `bawo games`), so a game watched to its end is in the log even if
             the board's flash fails later. `bawo sync` replaces it with the board's record.
             Positions are drawn as the board's LEDs (numbers without a terminal or with
             NO_COLOR; see --numbers, --leds). Ctrl-C stops watching.""",
             """examples:
               bawo watch
               bawo watch --sim /tmp/bawo-sim --no-draw""")
    _add_port(s)
    _add_db(s)
    s.add_argument("--no-draw", action="store_true", help="print moves only, not the board")
    _add_style(s)
    s.add_argument("--exit-after-game", action="store_true", help="stop when a game ends")
    s.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds without news")
    s.set_defaults(func=cmd_watch)

    s = _sub(subs, "serve", "the board's companion web page: live board, library, replay",
             """Serve a local web page on the game log: the live board (when a board or `bawo sim`
             is connected; it reconnects by itself), the game library, replay, statistics.
             Bound to 127.0.0.1 on a free port, printed as a URL. Ctrl-C stops it.""",
             """examples:
               bawo serve --open
               bawo serve --sim /tmp/bawo-sim""")
    _add_port(s)
    _add_db(s)
    s.add_argument("--bind", metavar="HOST", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; another needs --allow-remote)")
    s.add_argument("--http-port", type=int, default=0, metavar="N", help="TCP port (default: a free one)")
    s.add_argument("--allow-remote", action="store_true",
                   help="allow a non-local --bind; every request then needs the printed token")
    s.add_argument("--no-board", action="store_true", help="do not look for a board")
    s.add_argument("--open", action="store_true", help="open the page in the web browser")
    s.set_defaults(func=cmd_serve)

    s = _sub(subs, "flash", "install or update the firmware on the board",
             """Two ways. With --uf2, put the whole firmware image (bawo build-uf2) on a board
             that runs MicroPython: the board goes into its boot ROM, the image is copied onto
             its RPI-RP2 drive, the board restarts into it; its games stay. Without it, build
             the firmware bundle (compiled with mpy-cross for the board's MicroPython), copy it
             to a staging dir on the board, check every file's SHA-256 there, move it into
             place, reset and shake hands: the update path, fast when a few files changed. The
             board must be at the REPL or running the firmware; mpremote does the copying.""",
             """examples:
               bawo flash --uf2                    build (or take the cached) image, install it
               bawo flash --uf2 bawo-board-0.1.0.uf2 --drive /media/$USER/RPI-RP2
               bawo flash --dry-run                what runs now, and what would change
               bawo flash --profile bawo-4x8
               bawo flash --port /dev/ttyACM0 --profile grid-5x5
               bawo flash --bundle-only out/       build the bundle into out/ and stop
               bawo flash --circuitpython /media/$USER/CIRCUITPY   a Pico running CircuitPython""")
    _add_port(s)
    s.add_argument("--profile", default="bawo-4x8", metavar="NAME",
                   help="hardware profile, hardware/profiles/NAME.json (default bawo-4x8)")
    s.add_argument("--dry-run", action="store_true", help="list what would change; copy nothing")
    s.add_argument("--bundle-only", metavar="DIR", help="build the bundle into DIR and stop")
    s.add_argument("--no-compile", action="store_true", help="copy .py files (no mpy-cross)")
    s.add_argument("--no-reset", action="store_true",
                   help="do not soft-reset (needed for a unix-port REPL: mpremote `resume`)")
    s.add_argument("--mpy", metavar="VER", help="board's MicroPython version (skip asking it), e.g. 1.28.0")
    s.add_argument("--circuitpython", metavar="DRIVE",
                   help="a Pico running CircuitPython: copy the .py bundle onto its mounted CIRCUITPY "
                        "drive (every file's hash checked); see hardware/README.md")
    s.add_argument("--uf2", metavar="IMAGE", nargs="?", const="",
                   help="install a whole UF2 image (default: this tree's, built by bawo build-uf2) "
                        "through the board's boot ROM drive")
    s.add_argument("--drive", metavar="PATH",
                   help="with --uf2: the mounted RPI-RP2 drive (default: the one that appears)")
    s.add_argument("--drive-timeout", metavar="S", type=float, default=30.0,
                   help="with --uf2: how long to wait for the RPI-RP2 drive (default 30)")
    s.set_defaults(func=cmd_flash)

    s = _sub(subs, "build-uf2", "build the board's whole firmware as one UF2 file",
             """Build MicroPython v1.28.0 for the Raspberry Pi Pico with the Bawo Board firmware,
             shared_rules, the opening book and the profile frozen into flash, from the sources
             this package carries. Copy the file onto a Pico's RPI-RP2 drive (hold BOOTSEL while
             plugging it in) and it is a Bawo Board: nothing else to copy. Needs the ARM
             toolchain and cmake (tools/install-system-deps.sh); about a minute on 2 cores
             the first time, then the image is cached until a firmware file changes.""",
             """examples:
               bawo build-uf2                       writes bawo-board-<version>.uf2 here
               bawo build-uf2 --out /media/$USER/RPI-RP2     straight onto a Pico in BOOTSEL
               bawo build-uf2 --profile grid-5x5 --out grid.uf2""")
    s.add_argument("--profile", default="bawo-4x8", metavar="NAME",
                   help="hardware profile frozen in, hardware/profiles/NAME.json (default "
                        "bawo-4x8); a profile.json on the board overrides it")
    s.add_argument("--out", metavar="PATH", default=".",
                   help="file or directory to write the image to (default: here)")
    s.add_argument("--force", action="store_true", help="build again even if the cache has it")
    s.set_defaults(func=cmd_build_uf2)

    s = _sub(subs, "play", "play against the computer in the terminal",
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
               bawo play --board --sim /tmp/bawo-sim  (a running `bawo sim --data /tmp/bawo-sim`)""")
    from shared_rules import GAMES
    s.add_argument("--game", choices=sorted(GAMES), default="bawo")
    s.add_argument("--level", type=int, default=2, choices=range(1, 6), metavar="1-5",
                   help="AI strength, 1 (weak) to 5 (default 2)")
    s.add_argument("--as", dest="side", metavar="SIDE",
                   help="your side: S or N (Bawo, Oware), G or T (Bagh-Chal); default the first")
    s.add_argument("--seed", type=int, help="AI random seed (repeatable games)")
    s.add_argument("--two-players", action="store_true", help="no AI: two people take turns")
    _add_db(s)
    s.add_argument("--no-log", action="store_true", help="do not store the game in the log")
    s.add_argument("--board", action="store_true",
                   help="play on the board: you press pockets, the PC's AI answers over the link")
    _add_style(s)
    _add_port(s)
    s.set_defaults(func=cmd_play)

    s = _sub(subs, "demo", "try it without a board: simulated board, sync, list",
             """Start the simulated board (the real firmware under the MicroPython unix port),
             let it play a scripted game to the end, sync it into your game log (the one
             `bawo games` lists) and list the log.""",
             """examples:
               bawo demo
               bawo demo --games 3 --db /tmp/demo.sqlite --data /tmp/bawo-sim""")
    s.add_argument("--db", metavar="FILE",
                   help="game log the demo's games go into (default: your game log, as `bawo "
                        "games` reads it; env BAWO_DB)")
    s.add_argument("--data", metavar="DIR", help="simulator data dir (default: a new temporary dir)")
    s.add_argument("--games", type=_positive, default=1, help="scripted games to play (default 1)")
    s.add_argument("--game", choices=sorted(GAMES), default="bawo")
    s.set_defaults(func=cmd_demo)

    _add_sim_parser(subs)
    _add_solve_parsers(subs, _sub, _add_db)
    return p


# -- solve and analyse ---------------------------------------------------------------------
MAX_NODES = 10 ** 9
MAX_SECONDS = 7 * 24 * 3600.0


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if not 1 <= v <= MAX_NODES:
        raise argparse.ArgumentTypeError("bad count %r: expected a whole number from 1 to %d" % (text, MAX_NODES))
    return v


def _seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not 0 < v <= MAX_SECONDS:  # also refuses nan
        raise argparse.ArgumentTypeError("bad time %r: expected seconds, more than 0 and at most %d"
                                         % (text, MAX_SECONDS))
    return v


def _add_solve_parsers(subs, sub, add_db):
    s = sub(subs, "solve", "solve a Bawo position exactly: won or lost, every winning move",
            """Prove a Bawo position won or lost for the side to move with proof-number search,
            list every winning move, and check the winning strategy against every reply before
            saying so. The opening (--opening) is a win for South.""",
            """examples:
              bawo solve --opening
              bawo solve --opening --tree south.txt
              bawo solve --opening --book firmware/bawo_book.bin
              bawo solve "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"
              bawo solve POSITION --max-nodes 100000 --max-seconds 10 --json""")
    s.add_argument("position", nargs="?", help="a Bawo position string (RULES.md 1), side to move last")
    s.add_argument("--opening", action="store_true", help="the start position, South to move")
    _add_budgets(s, 2000000, None, "")
    s.add_argument("--tree", metavar="FILE",
                   help="write the winner's strategy: one line per position, the position and its move")
    s.add_argument("--book", metavar="FILE",
                   help="with --opening: write the board's book (firmware/bawo_book.bin's format)")
    s.add_argument("--first-move-only", action="store_true",
                   help="stop at the first winning move instead of trying every move")
    s.add_argument("--json", action="store_true", help="print the answer as JSON")
    s.set_defaults(func=cmd_solve)

    s = sub(subs, "analyse", "the value of every position of a game, and where it was lost",
            """Go through a game ply by ply. Bawo: the value of each position for the side to
            move (won, lost, or unknown within the budget), each ply that turned a won
            position into a lost one (the mistake), and the winning moves it missed.
            Oware and Bagh-Chal: the level-5 search's score before each ply and the plies that
            lose the most, an estimate, not a proof.""",
            """examples:
              bawo analyse pico-1a2b-0007
              bawo analyse --file game.txt --max-seconds 10
              bawo analyse ID --json""")
    s.add_argument("id", nargs="?", help="game id in the log (see `bawo games`)")
    s.add_argument("--file", metavar="FILE", help="a record file instead (text or JSON lines; - for stdin)")
    _add_budgets(s, 200000, 2.0, " per position")
    s.add_argument("--json", action="store_true", help="print the marks as JSON")
    add_db(s)
    s.set_defaults(func=cmd_analyse)


def _add_budgets(p, nodes, seconds, per):
    p.add_argument("--max-nodes", type=_positive_int, default=nodes, metavar="N",
                   help="node expansions allowed%s (default %d)" % (per, nodes))
    p.add_argument("--max-seconds", type=_seconds, default=seconds, metavar="S",
                   help="time allowed%s (default %s)" % (per, "none" if seconds is None else "%g s" % seconds))


def cmd_solve(args):
    from .analyse import solve_command
    return solve_command(args.position, opening=args.opening, max_nodes=args.max_nodes,
                         max_seconds=args.max_seconds, tree=args.tree, book=args.book,
                         first_move_only=args.first_move_only, as_json=args.json)


def cmd_analyse(args):
    from .analyse import analyse_command
    return analyse_command(record_from_args(args), max_nodes=args.max_nodes,
                           max_seconds=args.max_seconds, as_json=args.json)


def _count(text, least=0):
    """argparse type: a whole number, 0 or more (--random -3 is refused, not 'no plies')."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if n < least:
        raise argparse.ArgumentTypeError("%d is %s: give %d or more"
                                         % (n, "negative" if n < 0 else "too few", least))
    return n


def _positive(text):
    """argparse type: a whole number, 1 or more (--jobs, --games)."""
    return _count(text, 1)


def _heap_size(text):
    """argparse type: a MicroPython heap size, bytes with an optional k or m (160k)."""
    t = text.strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20}.get(t[-1:], 1)
    digits = t[:-1] if mult > 1 else t
    if not digits.isdigit() or not 4 << 10 <= int(digits) * mult <= 1 << 30:
        raise argparse.ArgumentTypeError("%r: give bytes from 4k to 1024m, e.g. 160k" % text)
    return t


def _add_sim_parser(subparsers):
    from .sim import default_data_dir
    p = _sub(subparsers, "sim", "the board's firmware simulated in this terminal (no board needed)",
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
               bawo sim --pico --uf2               ... booting this tree's frozen image, as a board ships""")
    p.add_argument("--game", choices=("bawo", "oware", "bagh-chal"),
                   help="the game: scripted, the one played (default bawo); interactive, the "
                        "one the board's menu opens on (default: its last choice)")
    p.add_argument("--profile", help="profile name or JSON path (default: fits --game)")
    p.add_argument("--data", metavar="DIR", help="the board's flash (default %s)" % default_data_dir())
    p.add_argument("--seed", type=int, metavar="N",
                   help="seed of the random plies and of the board's AI (default: from the "
                        "clock, printed; give it again to play the same game)")
    p.add_argument("--speed", type=int, choices=range(1, 9), metavar="1-8",
                   help="animation speed, 8 = instant")
    p.add_argument("--headless", action="store_true", help="no drawing")
    p.add_argument("--quiet", action="store_true", help="scripted: no per-move lines")
    p.add_argument("--heap", metavar="SIZE", type=_heap_size, help="MicroPython heap, e.g. 160k, the project's test budget: the unix "
                        "port's 64-bit objects take about twice the room of a Pico's, so "
                        "160k is tighter than a Pico (--pico runs the Pico's own heap)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--moves", metavar="'A1+ B7- ...'", help="moves to play, then print the result")
    g.add_argument("--script", metavar="FILE", help="file of moves (move numbers and # comments ok)")
    g.add_argument("--random", type=_count, metavar="N", help="N seeded random plies")
    g.add_argument("--demo", action="store_true", help="a whole seeded random Bawo game")
    g.add_argument("--ai-vs-ai", action="store_true",
                   help="the board's AI plays both sides, a whole game (level: --level, 5)")
    p.add_argument("--opponent", choices=("people", "board-second", "board-first"),
                   help="the board's AI plays a side: scripted, --moves/--random are then the "
                        "person's moves only; interactive, the menu opens on this choice")
    p.add_argument("--level", type=int, choices=range(1, 6), metavar="1-5",
                   help="the board's AI level (default 5 with --ai-vs-ai, else the menu's; "
                        "interactive, the menu opens on it)")
    p.add_argument("--pico", action="store_true",
                   help="drive the terminal board with MicroPython's rp2 image on an emulated "
                        "RP2040 (rp2040js, needs Node.js): Pico timing, heap and flash; its flash "
                        "is DATA/pico-flash.bin")
    p.add_argument("--uf2", metavar="IMAGE", nargs="?", const="",
                   help="with --pico: boot a UF2 image (default: this tree's, bawo build-uf2) on "
                        "its own flash, DATA/pico-uf2-flash.bin, instead of the stock image with "
                        "the bundle")
    p.add_argument("--mpy", action="store_true",
                   help="run precompiled .mpy files, as deployed on a Pico (scripted modes; implied by --heap)")
    p.set_defaults(func=cmd_sim)
    return p



def _version():
    try:
        from importlib.metadata import version
        return version("bawo-board")
    except Exception:
        return "0.1.0"


# -- commands --------------------------------------------------------------------------------
def _db_path(args):
    from .db import default_path
    return getattr(args, "db", None) or os.environ.get("BAWO_DB") or default_path()


def _open_log(args, readonly=False):
    """readonly: for commands that only read (games, show, export): the log must exist."""
    from .db import Log
    return Log(_db_path(args), readonly=readonly)


def cmd_serve(args):
    from .serve import run
    return run(_db_path(args), bind=args.bind, http_port=args.http_port,
               allow_remote=args.allow_remote, port=args.port, sim=_sim_arg(args),
               board=not args.no_board, open_browser=args.open)


def _connect(args, timeout=2.0):
    from .ports import connect
    return connect(args.port, _sim_arg(args), timeout=timeout)


def _sim_arg(args):
    """The simulator data dir --sim names: None without --sim, the default one for a bare --sim."""
    sim = getattr(args, "sim", "unset")   # commands without --sim have no such attribute
    if sim is None:
        from .sim import default_data_dir
        return default_data_dir()
    return None if sim == "unset" else sim


def _out_json(obj):
    sys.stdout.write(json_safe(json.dumps(obj, indent=1, ensure_ascii=False)) + "\n")


def _out_json_list(items):
    """_out_json(list(items)), written item by item (a long log is never one list in memory)."""
    sep = "[\n"
    for d in items:
        text = json_safe(json.dumps(d, indent=1, ensure_ascii=False))
        sys.stdout.write(sep + textwrap.indent(text, " "))
        sep = ",\n"
    sys.stdout.write("[]\n" if sep == "[\n" else "\n]\n")


def cmd_ports(args):
    from .ports import ask_firmware, candidates, default_sim_port
    c = candidates()
    sim_pty = default_sim_port()
    if sim_pty:
        c.append({"device": sim_pty, "vid": None, "pid": None, "serial": None,
                  "description": "bawo sim (simulated board)", "pico": True})
    if not args.no_ask:
        for d in c:
            if d["pico"]:
                d["firmware"] = ask_firmware(d["device"])
    if args.json:
        _out_json(c)
        return 0
    if not c:
        print("no serial ports found (a simulated board: `bawo sim`)")
        return 0
    for d in c:
        print(safe("%-20s %s:%s  %s%s" % (d["device"], d["vid"] or "----", d["pid"] or "----",
                                         d["description"] or "", "  <- Raspberry Pi (board?)"
                                         if d["pico"] and "firmware" not in d else "")))
        if d.get("firmware"):
            print(safe("%-20s runs %s" % ("", d["firmware"])))
    return 0


def cmd_sync(args):
    from .draw import Bar
    from .sync import sync
    from .club.client import held_hook, load_config
    try:
        club = load_config()
    except BawoError as e:     # a damaged club.json never keeps the games on the board
        sys.stderr.write("%s: warning: %s; syncing without the club\n" % (PROG, safe(_one_line(e))))
        club = None
    log = _open_log(args)
    ser, link, info = _connect(args)
    try:
        report = sync(link, log, bar=None if args.json else Bar(), held=held_hook(log, club))
    finally:
        ser.close()
        log.close()
    if args.json:
        _out_json(report.to_dict())
    else:
        name = info.get("board") or info.get("id") or info.get("device") or "board"
        print(safe("%s: %d new game(s) stored, %d already in the log, %d quarantined%s%s (%.1f kB in %.1f s) -> %s"
                   % (name, len(report.added), len(report.reacked), len(report.quarantined),
                      ", %d conflict(s) kept" % len(report.conflicts) if report.conflicts else "",
                      ", %d not fetched" % len(report.failed) if report.failed else "",
                      report.bytes / 1000, report.seconds, log.path)))
        for gid, err, ply in report.quarantined:
            print(safe("quarantined %s: %s (left on the board; see `bawo games --quarantine`)" % (gid, err)))
        for gid, err in report.conflicts:
            print(safe("conflict %s: %s" % (gid, err)))
        for gid, err in report.failed:
            print(safe("not fetched %s: %s (left on the board)" % (gid, err)))
    if club:
        from .club.cli import deliver
        deliver(log.path, club, out=sys.stderr if args.json else sys.stdout)
    return 0 if report.ok() else 1


def cmd_games(args):
    if args.where:
        print(safe(_db_path(args)))
        return 0
    if not args.quarantine:
        return list_games(_db_path(args), args.game, args.since, args.until, args.result, args.json)
    log = _open_log(args, readonly=True)
    try:
        rows = log.quarantined()
    finally:
        log.close()
    items = [{k: r[k] for k in ("id", "error", "ply", "source", "added")} for r in rows]
    bad = _name_unreadable(log)
    if args.json:
        _out_json(items)
        return 1 if bad else 0
    for d in items:
        print(safe("%-22s ply %-4s %s  (%s, %s)" % (
            d["id"], d["ply"] if d["ply"] is not None else "-", " ".join(str(d["error"]).split()),
            d["source"], d["added"][:10])))
    if not items:
        print("no quarantined records")
    return 1 if bad else 0


def _status_note(row):
    if row["status"] == "live":
        return "  (live)"
    if row["status"] == "conflict":   # db.conflict_id: "<id>~<hash>"
        return "  (conflict: another game has id %s)" % row["id"].rsplit("~", 1)[0]
    return ""


def list_games(db, game=None, since=None, until=None, result=None, as_json=False):
    """`bawo games`: the games of the log at db, oldest first, filtered as asked. On a
    terminal the lines fit its width; to a pipe, one line a game, as scripts read it."""
    from .db import Log, row_dict, played_text
    log = Log(db, readonly=True)
    width = _terminal_width()
    try:
        rows = _Counted(log.select(game, since, until, result))
        if as_json:
            _out_json_list(row_dict(r) for r in rows)
        else:
            for r in rows:
                if rows.n == 1:
                    print(_game_line(("ID", "GAME", "PLAYED", "RESULT", "PLIES", "REASON"), width, True))
                print(_game_line((safe(r["id"]), safe(r["game"]), played_text(r["start"]),
                                  safe(r["result"]), str(r["plies"]),
                                  safe((r["reason"] or "") + _status_note(r))),
                                 width))
    finally:
        log.close()
    bad = _name_unreadable(log)
    if as_json:
        return 1 if bad else 0
    if not rows.n:
        print(_fit(safe("no games in %s%s" % (log.path, " matching the filters" if (game or since or until or result) else "")), width))
    else:
        print(_fit("%d game(s), oldest first; PLAYED is local time" % rows.n, width))
    return 1 if bad else 0


# `bawo games`' table: ID, GAME, PLAYED, RESULT, PLIES, then REASON to the end of the line.
_TABLE = "%-24s %-9s %-16s %-6s %5s  "
_TABLE_WIDTH = 66
_REASON_ROOM = 16   # narrower than the table and this much of a reason: one block a game


def _terminal_width():
    """The terminal's width when stdout is one, else None (no wrapping: a pipe's reader
    takes a line a game)."""
    import shutil
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(20, shutil.get_terminal_size().columns)


def _fit(text, width, indent=""):
    """text wrapped at its spaces to width (None: as it is); a word is never cut."""
    if width is None or len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False))


def _game_line(cells, width, header=False):
    """One game of `bawo games` (cells already safe to print): the table's line, its reason
    wrapped under the REASON column; on a terminal too narrow for that, a block: the id,
    then the rest wrapped below it."""
    if width is None or width >= _TABLE_WIDTH + _REASON_ROOM:
        line = (_TABLE % cells[:5] + cells[5]).rstrip()
        return _fit(line, width, " " * _TABLE_WIDTH)
    if header:
        return _fit("ID, then GAME PLAYED RESULT PLIES REASON", width)
    rest = "%s  %s  %s  %s plies  %s" % cells[1:]
    return cells[0] + "\n" + _fit("  " + rest.rstrip(), width, "  ")


def _name_unreadable(log):
    """Name on stderr the rows the last read of log skipped; their number."""
    bad = getattr(log, "unreadable", ())
    for name, why in bad:
        sys.stderr.write(safe("bawo: skipped game %s: %s" % (name, why)) + "\n")
    return len(bad)


def record_from_args(args):
    """The one record a command names: --file FILE (its first record) or an ID in the log."""
    from shared_rules.record import Record
    from shared_rules.errors import RecordError
    if args.file:
        from .export import read
        with _open_input(args.file) as src:
            for where, rec, err in read(src):
                if err:
                    raise BawoError("%s %s: %s" % (args.file, where, err))
                return rec
        raise BawoError("%s holds no record" % args.file)
    if not args.id:
        raise BawoError("which game? give an ID (see `bawo games`) or --file FILE")
    log = _open_log(args, readonly=True)
    try:
        row = log.get(args.id)
    finally:
        log.close()
    if row is None:
        raise BawoError("no game %r in %s: `bawo games` lists the ids" % (args.id, log.path))
    try:
        return Record.from_text(row["record"])
    except RecordError as e:
        raise BawoError("game %s in the log does not read (%s): `bawo export -f text` "
                        "writes it as stored" % (row["id"], e))


def cmd_show(args):
    from .play import show_record
    rec = record_from_args(args)
    interactive = not args.all and args.ply is None and sys.stdin.isatty()
    marks = None
    if getattr(args, "analyse", False):
        from .analyse import analyse, mark_text
        marks = [mark_text(x) for x in analyse(rec)]
    if not interactive:
        return show_record(rec, ply=args.ply, style=_style(args), marks=marks)
    from .termkeys import single_keys
    with single_keys(sys.stdin) as ask:   # b, q and Enter act at once, no Enter after them
        return show_record(rec, interactive=True, ask=ask, style=_style(args), marks=marks)


class _Stdin:
    def __enter__(self):
        return sys.stdin.buffer

    def __exit__(self, *exc):
        pass


def _open_input(path):
    """A record file (or - for stdin) as a binary stream, read as it is used."""
    if path == "-":
        return _Stdin()
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(21, "is a directory")
        return open(path, "rb")
    except OSError as e:
        raise BawoError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e))


def _input_size(path):
    try:
        return os.path.getsize(path) if path != "-" and os.path.isfile(path) else None
    except OSError:
        return None


class Progress:
    """Import progress on stderr: a live line on a terminal, else a line every `every` s."""

    def __init__(self, stream, total_bytes=None, every=30.0):
        import time
        self.stream, self.total, self.every = stream, total_bytes, every
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.t0 = self._last = time.monotonic()
        self.shown = False

    def update(self, games, done_bytes=None):
        import time
        now = time.monotonic()
        if now - self._last < (0.2 if self.live else self.every):
            return
        self._last = now
        rate = games / max(now - self.t0, 1e-9)
        pct = (" (%d%% of the file)" % (100 * done_bytes // self.total)) if self.total and done_bytes is not None else ""
        line = "import: %d games read%s, %.0f games/s" % (games, pct, rate)
        if self.live:
            self.stream.write("\r" + line + "\033[K")
            self.shown = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self):
        if self.live and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


def cmd_export(args):
    if getattr(args, "analyse", False):
        from .analyse import write_marked as write
    else:
        from .export import write
    log = _open_log(args, readonly=True)
    try:
        rows = _Counted(log.select(args.game, args.since, args.until, args.result))
        if args.output:
            try:
                with open(args.output, "w", encoding="utf-8", newline="") as f:
                    bad = write(rows, args.format, f)
            except OSError as e:
                raise BawoError("cannot write %s: %s" % (args.output, e.strerror or e))
        else:
            bad = write(rows, args.format, SafeWriter(sys.stdout) if sys.stdout.isatty() else sys.stdout)
    finally:
        log.close()
    skipped = _name_unreadable(log)
    if args.output:
        print(safe("%d game(s) written to %s%s" % (rows.n, args.output, (
            "; %d unreadable row(s) skipped, named above" % skipped) if skipped else "")), file=sys.stderr)
    if bad:
        print("bawo: warning: %d stored record(s) no longer read as records: written as "
              "{\"stored_record\": ..., \"error\": ...}" % bad, file=sys.stderr)
    return 1 if skipped else 0


class _Counted:
    """An iterable passed through, counting its items."""

    def __init__(self, it):
        self.it, self.n = it, 0

    def __iter__(self):
        for x in self.it:
            self.n += 1
            yield x


def cmd_import(args):
    import time
    from .db import ADDED, SAME, REPLACED, CONFLICT
    from .export import read, replayed
    from shared_rules.errors import RecordError
    counts = {"added": 0, "duplicate": 0, "conflict": 0, "failed": 0}
    name = safe(args.file)
    with _open_input(args.file) as src:
        log = _open_log(args)
        before = (log.count(), log.count("quarantine"))
        progress = Progress(sys.stderr, _input_size(args.file))
        n = 0
        where = stored = None
        log.batch(True)
        committed = time.monotonic()
        jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
        items = replayed(read(src), max(1, min(jobs, 64)))
        try:
            for where, rec, err, text in items:
                n += 1
                if err is None:
                    try:
                        outcome, rid = log.add(rec, "import", check=None if text else rec.replay, text=text)
                    except RecordError as e:
                        err = e
                if err is not None:
                    # The record as it was read (a JSON line, a text record), else as parsed.
                    log.quarantine(rec if rec is not None else (getattr(err, "text", None) or where),
                                   str(err), getattr(err, "ply", None), "import")
                    print(safe("%s %s: %s" % (args.file, where, _one_line(err))))
                    counts["failed"] += 1
                elif outcome in (ADDED, REPLACED):
                    counts["added"] += 1
                elif outcome == SAME:
                    counts["duplicate"] += 1
                elif outcome == CONFLICT:
                    print(safe("%s %s: another game with id %s is in the log: kept beside it as %s"
                               % (args.file, where, rid.rsplit("~", 1)[0], rid)))
                    counts["conflict"] += 1
                if n % 256 == 0:
                    now = time.monotonic()
                    if now - committed > 0.5:  # other writers (sync, watch) wait at most this
                        log.commit()
                        committed = now
                    progress.update(n, _tell(src))
        except KeyboardInterrupt:
            # Ctrl-C: what was checked is kept (below) and said in one line; the workers
            # ignore the signal (export.replayed) and end with the pool.
            stored = before
        finally:
            items.close()
            progress.finish()
            _end_batch(log)
            if stored is not None:
                stored = (log.count() - before[0], log.count("quarantine") - before[1])
            log.close()
    if stored is not None:
        sys.stderr.write(safe("bawo: import interrupted%s: %d game(s) added and %d failed "
                              "record(s) quarantined are kept in %s; run it again for the rest "
                              "(games already in the log are skipped)"
                              % (" after %s" % where if where else "", stored[0], stored[1], log.path))
                         + "\n")
        return 130
    print("%s: %d added, %d already in the log, %s%d failed -> %s"
          % (name, counts["added"], counts["duplicate"],
             "%d conflict(s) kept, " % counts["conflict"] if counts["conflict"] else "",
             counts["failed"], safe(log.path)))
    return 1 if counts["failed"] or counts["conflict"] else 0


def _end_batch(log):
    try:
        log.batch(False)  # what was checked is kept, even when interrupted
    except sqlite3.Error:
        pass


def _tell(src):
    try:
        return src.tell()
    except (OSError, ValueError, AttributeError):
        return None


def cmd_verify(args):
    from .export import read
    from shared_rules.errors import RecordError
    bad = n = 0
    with _open_input(args.file) as src:
        for where, rec, err in read(src):
            n += 1
            rid = rec.header.get("Id", "-") if rec is not None else "-"
            if err is None:
                try:
                    rec.replay()
                except RecordError as e:
                    err = e
            if args.json:
                d = {"where": where, "id": rid, "ok": err is None}
                if err is not None:
                    d.update(ply=getattr(err, "ply", None), error=str(err))
                else:
                    d.update(game=rec.header.get("Game"), plies=len(rec.moves), result=rec.header.get("Result", "*"))
                print(json_safe(json.dumps(d, ensure_ascii=False)))
            elif err is None:
                print(safe("OK    %-18s %-22s %-9s %4d plies  %s" % (where, rid, rec.header.get("Game"), len(rec.moves),
                                                                   rec.header.get("Result", "*"))))
            else:
                ply = getattr(err, "ply", None)
                print(safe("FAIL  %-18s %-22s %s%s" % (where, rid, ("ply %d: " % ply) if ply else "", err)))
            bad += err is not None
    if not args.json:
        print("%d record(s), %d OK, %d failed" % (n, n - bad, bad))
    if n == 0:
        raise BawoError("%s holds no record" % args.file)
    return 1 if bad else 0


def cmd_watch(args):
    from .watch import watch
    log = _open_log(args)
    ser, link, info = _connect(args)
    try:
        return watch(link, log, info, draw_board=not args.no_draw,
                     exit_after_game=args.exit_after_game, timeout=args.timeout,
                     style=_style(args), reconnect=lambda: _connect(args))
    finally:
        ser.close()
        log.close()


SIM_OPTIONS = ("game", "profile", "data", "seed", "speed", "headless", "quiet", "heap", "moves",
               "script", "random", "demo", "ai_vs_ai", "opponent", "level", "pico", "mpy", "uf2")


def cmd_sim(args):
    from .sim.main import run
    return run(**{k: getattr(args, k) for k in SIM_OPTIONS})


def cmd_flash(args):
    if args.uf2 is not None:
        from .flash_uf2 import run as run_uf2
        if args.circuitpython or args.bundle_only or args.no_compile or args.mpy:
            raise BawoError("--uf2 installs a whole image: it takes --port, --sim, --profile, "
                            "--drive, --drive-timeout and --dry-run")
        if not 1 <= args.drive_timeout <= 600:
            raise BawoError("--drive-timeout is seconds from 1 to 600")
        return run_uf2(args.uf2 or None, args.profile, args.port, _sim_arg(args), args.drive,
                       args.drive_timeout, args.dry_run)
    if args.drive:
        raise BawoError("--drive goes with --uf2")
    if args.circuitpython:
        from .flash_circuitpython import install
        if args.bundle_only or args.port or args.no_compile or args.mpy:
            raise BawoError("--circuitpython copies onto a drive: it takes only --profile and --dry-run")
        install(args.circuitpython, args.profile, dry_run=args.dry_run,
                say=lambda m: print(m, file=sys.stderr))
        return 0
    from .flash import run
    return run(profile=args.profile, port=args.port, sim=_sim_arg(args), dry_run=args.dry_run,
               bundle_only=args.bundle_only, no_compile=args.no_compile, no_reset=args.no_reset,
               mpy=args.mpy)


def cmd_build_uf2(args):
    from .uf2 import build
    from .firmware import profile_path
    profile_path(args.profile)        # an unknown profile fails before any build
    path = build(args.profile, out=args.out, force=args.force)
    from .flash import source_hash
    print("%s  (firmware sources %s)" % (path, source_hash(args.profile, every_game=True)))
    return 0


def cmd_play(args):
    from .play import play
    if args.board:
        from .play import play_on_board
        if args.two_players:
            raise BawoError("--board and --two-players: on the board, people play by "
                            "choosing 'people' in its menu")
        ser, link, info = _connect(args)
        try:
            return play_on_board(link, args.game, args.level, args.side, args.seed,
                                 style=_style(args))
        finally:
            ser.close()
    log = None if args.no_log else _open_log(args)
    try:
        return play(args.game, args.level, args.side, args.seed, args.two_players, log,
                    style=_style(args))
    finally:
        if log:
            log.close()


def cmd_demo(args):
    """Simulated board -> scripted games -> sync -> list: the README's first command. The
    games go into the user's own game log (--db, $BAWO_DB, else the default one), so the
    `bawo games`, `bawo show` and `bawo serve` that follow find them; the board's flash is a
    throw-away dir unless --data."""
    import tempfile
    import threading
    from . import sim
    from .draw import Bar
    from .sim.main import run as run_sim
    from .sync import sync
    from .ports import connect
    data = args.data or tempfile.mkdtemp(prefix="bawo-demo-")
    db = _db_path(args)
    print("1. simulated board: the firmware under the MicroPython unix port, flash in %s" % data)
    for k in range(args.games):
        print("2. the board plays scripted game %d/%d of %s (pockets pressed by a script):"
              % (k + 1, args.games, args.game))
        try:
            run_sim(game=args.game, data=data, speed=8, headless=True, quiet=True, demo=True)
        except sim.SimError as e:
            raise BawoError("the simulated board failed: %s" % e)
    relay = sim.PtyRelay()
    board = sim.BoardProcess(sim.PROFILES[args.game], data, fake=False, link=relay.board_ends())
    relay.start()

    def drain():  # the board blocks if nobody reads its status pipe
        try:
            while board.proc.poll() is None:
                board.readline(timeout=3600)
        except (sim.SimError, OSError, ValueError):
            pass
    threading.Thread(target=drain, daemon=True).start()
    try:
        print(safe("3. board restarted with its USB serial port on %s; syncing into your game log %s"
                   % (relay.path, db)))
        ser, link, info = connect(relay.path, None, timeout=3.0)
        log = None
        try:
            from .db import Log
            log = Log(db)
            report = sync(link, log, bar=Bar())
        finally:
            ser.close()
            if log:
                log.close()
        print("   %d new game(s) stored, %d already there, %d quarantined"
              % (len(report.added), len(report.reacked), len(report.quarantined)))
    finally:
        relay.stop = True
        board.kill()
    own = db == _db_path(argparse.Namespace())   # the log `bawo games` reads with no --db
    where = "" if own else " --db %s" % db
    print(safe("4. bawo games%s" % where))
    rc = list_games(db)
    if report.added:
        print(safe("\nthe demo's game%s in your game log with the others: bawo show %s%s --all"
                   % ("s are" if len(report.added) > 1 else " is", report.added[-1], where)))
    return rc


# -- entry point -----------------------------------------------------------------------------
def _one_line(e):
    return " ".join(str(e).split()) or type(e).__name__


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        import serial
        serial_errors = (serial.SerialException,)
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
        msg = _one_line(e)
    except serial_errors as e:
        msg = "serial port: %s: check the cable and that no other program uses the port" % _one_line(e)
    except sqlite3.Error as e:
        from .db import LogError
        msg = _one_line(LogError(_db_path(args), e))
    except ValueError as e:  # shared_rules.RulesError and friends
        msg = _one_line(e)
    except OSError as e:
        msg = "%s%s" % (e.strerror or _one_line(e), (": " + e.filename) if getattr(e, "filename", None) else "")
    sys.stderr.write("%s: error: %s\n" % (PROG, safe(msg)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
