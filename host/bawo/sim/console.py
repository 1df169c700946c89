"""`bawo sim` on a terminal: the board drawn live, keys and mouse clicks pressing its pockets."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bawo_firmware_sim import simpipe as P

from .process import BoardProcess, REPL_EXIT, SimError, is_flashed, mpy_dir_for
from .layout import key_map
from .relay import PtyRelay, shut_down, start_repl
from .leds import clicked_key, fits_leds, geometry as leds_geometry, refused, screen


# Quit keys: never a pocket key (q is North's A8 in Bawo, a point in Bagh-Chal, a menu choice).
QUIT_KEYS = ("Q", "\x03")


VIEW_KEY = "\t"  # LEDs <-> counts as digits
HINT_KEYS = ("?", "H")  # the board's hint gesture: BACK held, MENU pressed (BoardProcess.hint)
RESIGN_KEYS = ("!",)  # a remote game's resign offer: MENU held 2 s
DRAW_KEYS = ("=",)  # a remote game's draw offer or acceptance: BACK held 2 s


def board_id(data: str) -> str:
    """The simulated board's id (what a club's token is issued for), once it booted."""
    try:
        with open(os.path.join(data, "board_id"), encoding="utf-8") as f:
            text = f.read(64).strip()
    except OSError:
        return "?"
    return "".join(c for c in text if " " < c < "\x7f") or "?"


def run_interactive(args: Any, data: str) -> int:
    """The interactive board: drawn on this terminal, or headless without one."""
    relay = PtyRelay()
    relay.start()  # first: a firmware that fails at boot leaves the REPL on the port, as a Pico's
    # Written whole, then renamed: a tool that finds the file reads the whole path.
    with open(os.path.join(data, "port.tmp"), "w") as f:
        f.write(relay.path + "\n")
    os.replace(os.path.join(data, "port.tmp"), os.path.join(data, "port"))
    print("bawo sim: serial port %s (also in %s)" % (relay.path, os.path.join(data, "port")))

    def boot() -> BoardProcess:
        b = BoardProcess(
            args.profile,
            data,
            fake=False,
            frames=True,
            seed=args.seed,
            speed=args.speed,
            heap=args.heap,
            mpy_dir=mpy_dir_for(args, data),
            link=relay.board_ends(),
            wait_boot=False,
            extra_env=menu_choices(args),
        )
        try:
            b.wait_boot()
        except SimError as e:
            if b.proc.poll() is None:
                b.kill()
                raise  # neither booted nor stopped: nothing a REPL would fix
            b.why = str(e).replace("the simulated board stopped: ", "")
        else:
            for line in b.log:
                kind, text = P.parse_reply(line) or (None, "")
                if kind == P.MESSAGE and text.startswith("firmware "):
                    print("bawo sim: " + text)  # where app was imported from
        return b

    if is_flashed(data):
        print("bawo sim: running the firmware flashed in %s" % data)
    board = boot()
    try:
        if args.headless or not sys.stdin.isatty():
            board = _headless(board, relay, data, boot)
        else:
            board = _terminal(board, relay, data, boot)
    finally:
        shut_down(relay, board, data)
    return 0


def menu_choices(args: Any) -> dict[str, str]:
    """--game, --opponent and --level as the board's menu choices at power-on (its settings,
    kept on its flash once a menu press writes them); what is not given stays the menu's."""
    env: dict[str, str] = {}
    for name, value in (
        ("BAWO_GAME", args.game),
        ("BAWO_OPPONENT", args.opponent),
        ("BAWO_LEVEL", args.level),
    ):
        if value is not None:
            env[name] = str(value)
    return env


def _stopped(board: BoardProcess, relay: PtyRelay, data: str) -> str:
    """The line a firmware that ended by itself leaves; its REPL then has the port."""
    why = (
        "Ctrl-C on its port"
        if board.proc.returncode == REPL_EXIT
        else getattr(board, "why", None) or board.stderr_text()
    )
    parts = [p.strip() for p in why.split(" | ")]
    if len(parts) > 1:  # a traceback's last frames: the error, then where
        why = "%s, %s" % (parts[-1], parts[-2])
    return (
        "bawo sim: the firmware stopped (%s): MicroPython REPL on %s, in %s; "
        "`bawo flash --sim %s` installs firmware" % (why, relay.path, data, data)
    )


def _headless(
    board: BoardProcess, relay: PtyRelay, data: str, boot: Callable[[], BoardProcess]
) -> BoardProcess:
    """Prints the board's messages; when its firmware stops, its REPL has the port, and Ctrl-D
    there restarts the firmware (a Pico soft-reboots into main.py). Returns the board running
    last, for the caller to shut down."""
    while True:
        if board.status is not None:  # booted
            print("bawo sim: running headless; Ctrl-C stops", flush=True)
        try:
            while board.proc.poll() is None:
                kind, text = P.parse_reply(board.readline(timeout=3600)) or (None, "")
                if kind == P.MESSAGE:
                    print("bawo sim: " + text, flush=True)
        except SimError:
            pass
        except KeyboardInterrupt:
            return board
        repl = None
        try:
            board.proc.wait(5)
            print(_stopped(board, relay, data), flush=True)
            repl = start_repl(relay, data)
            if repl.wait() != 0:
                return board
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            return board
        finally:
            if repl is not None and repl.poll() is None:
                repl.kill()
                repl.wait(5)
        board = boot()
        print("bawo sim: soft reboot (Ctrl-D at the REPL): the firmware runs again", flush=True)


def _terminal(
    board: BoardProcess, relay: PtyRelay, data: str, boot: Callable[[], BoardProcess]
) -> BoardProcess:
    """The board on this terminal. When its firmware stops (a Ctrl-C on its port, as
    mpremote sends), its REPL has the port, and a soft reboot there (Ctrl-D, which `bawo
    flash` sends when it is done) runs the firmware again, drawn again here, as a Pico
    reboots into main.py. Returns the board running last, for the caller to shut down."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    raw = termios.tcgetattr(fd)
    raw[3] &= ~termios.ISIG  # Ctrl-C is a key here: it asks before it ends a game
    termios.tcsetattr(fd, termios.TCSANOW, raw)
    color = not os.environ.get("NO_COLOR")
    view = ["leds" if color else "digits"]  # kept across reboots
    try:
        while True:
            sys.stdout.write("\x1b[?1000h\x1b[?1006h\x1b[2J")
            if _draw_board(board, relay, fd, color, view):
                return board
            sys.stdout.write("\x1b[?1000l\x1b[?1006l\x1b[2J\x1b[H")
            print(
                _stopped(board, relay, data) + "; Ctrl-D there restarts the firmware; Q quits",
                flush=True,
            )
            repl = start_repl(relay, data)
            try:
                while repl.poll() is None:
                    r, _, _ = select.select([sys.stdin], [], [], 0.2)
                    if r and os.read(fd, 64).decode(errors="ignore") in ("q",) + QUIT_KEYS:
                        return board
            finally:
                if repl.poll() is None:
                    repl.kill()
                    repl.wait(5)
            if repl.returncode != 0:
                return board
            board = boot()
    finally:
        sys.stdout.write("\x1b[?1000l\x1b[?1006l\n")
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


def _draw_board(
    board: BoardProcess, relay: PtyRelay, fd: int, color: bool, view: list[str]
) -> bool:
    """Draw the board and press its pockets until a quit (True) or its firmware stops."""
    rows = json.loads(Path(board.profile_file).read_text())["grid"]["rows"]
    keymap = key_map(rows, board.menu_key, board.back_key)
    assert (
        not set(QUIT_KEYS + HINT_KEYS + RESIGN_KEYS + DRAW_KEYS) & set(keymap)
        and VIEW_KEY not in keymap
    )
    geometry = leds_geometry(board.profile_file)
    last = None
    asking = False
    pressed = None  # (key, the status it was pressed in): a red flash after it is explained
    why = ""
    while board.proc.poll() is None:
        r, _, _ = select.select([sys.stdin, board.stream], [], [], 0.1)
        if board.stream in r or board.has_bytes():
            try:
                while True:
                    kind, text = P.parse_reply(board.readline(timeout=1)) or (None, "")
                    if kind == P.STATUS_NOW:
                        board.status = json.loads(text)
                    if not board.has_line():
                        break
            except SimError:
                if board.proc.poll() is None:
                    raise
                break  # the firmware stopped: its REPL, below
        try:  # the terminal's own size, now (COLUMNS in the environment may be stale)
            width = os.get_terminal_size(sys.stdout.fileno()).columns or 80
        except OSError:
            width = 80
        if sys.stdin in r:
            ch = os.read(fd, 64).decode(errors="ignore")
            if asking:
                asking = False
                if ch in ("y", "Y") + QUIT_KEYS:
                    return True
            elif ch in QUIT_KEYS:
                st = board.status or {}
                if st.get("mode") != "play" or st.get("result"):
                    return True
                asking = True
            elif ch == VIEW_KEY:
                view[0] = "digits" if view[0] == "leds" else "leds"
            elif ch.startswith("\x1b[<"):
                k = (
                    clicked_key(ch, geometry)
                    if fits_leds(geometry, width) and view[0] == "leds"
                    else None
                )
                if k is not None:
                    board.tap(k)
                    pressed, why = (k, dict(board.status or {})), ""
            else:
                for c in ch:  # keys typed fast arrive together: each is a press
                    if c in keymap:
                        board.tap(keymap[c])
                        pressed, why = (keymap[c], dict(board.status or {})), ""
                    elif c in HINT_KEYS:
                        board.hint()
                    elif c in RESIGN_KEYS:
                        board.resign()
                    elif c in DRAW_KEYS:
                        board.offer_draw()
        if pressed and (board.status or {}).get("flashes", 0) > pressed[1].get("flashes", 0):
            # The board flashed the press red: say why on the status line, as it cannot.
            why = refused(board.profile_file, pressed[1], pressed[0]) or "that press plays no move"
            pressed = None
        said = (P.parse_reply(x) or (None, "") for x in reversed(board.log))
        msg = next((text for kind, text in said if kind == P.MESSAGE), "")
        if msg.startswith("game over:") and (board.status or {}).get("result"):
            msg = ""  # the status line says it, in words (the board's message is terse)
        if why:
            msg = why
        if asking:
            msg = "quit? the game stays on the board's flash and goes on next time: y quits, any other key plays on"
        text = screen(
            board.frame,
            board.profile_file,
            board.status or {},
            width,
            view[0],
            color,
            msg,
            "%s (board %s)" % (relay.path, board_id(board.data)),
        )
        if text != last:
            last = text
            # Erase each line's tail and everything below: the menu and the game differ in height.
            sys.stdout.write("\x1b[H" + text.replace("\n", "\x1b[K\n") + "\x1b[K\n\x1b[J")
            sys.stdout.flush()
    return False
