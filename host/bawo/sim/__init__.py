"""`bawo sim`: the board's own firmware under the MicroPython unix port, on a terminal.

Process layout::

    bawo sim (CPython)                                micropython firmware_sim/board_sim.py
    ------------------                                -----------------------------------
    command pipe  --- "t 16\\n", "i\\n" ... ------->   fd BAWO_IN: presses, clock steps
    status pipe   <-- frames, "S {...}", "J 1 A1+" -   fd BAWO_OUT: LED frames, status
    pty master <--> relay <--> stdin/stdout pipes <->  the serial link (firmware/link.py)
       ^ slave /dev/pts/N: host tools open it (path printed and written to DATA/port)

The pipes' messages are firmware_sim/simpipe.py, imported by both ends. One module a job:
board (the process), layout (cells on keys), script (scripted players), render (the LEDs on
a terminal), relay (the serial pty and the REPL), terminal (the interactive board).

The firmware's flash is the directory --data. With --moves/--script/--random/--demo the
board runs on a simulated clock in lockstep with the script (fast, deterministic) and the
moves are entered by pressing pockets as a player would; otherwise it runs in real time
and the terminal shows the LEDs, taking keys and mouse clicks as presses.

As on a Pico, a Ctrl-C on the serial port stops the firmware and the MicroPython REPL takes
the port (`micropython -i` in the data dir), so `bawo flash --sim DIR` (mpremote with
`resume`) installs a bundle into the data dir; once it holds one, a restarted sim runs the
flashed firmware (only the simulator's own files, never flashed, come from the install).
"""
import os

from .board import (REPL_EXIT, BoardProcess, SimError, build_mpy, default_data_dir, is_flashed,
                    lock_data_dir, micropython_binary)
from .layout import GRID_KEYS, PROFILES, key_of_cell, level_cell, presses_for
from .relay import PtyRelay, start_repl
from .render import digits, render, screen
from .script import (choose_settings, play_moves, play_vs_board, random_moves, random_person,
                     _script_moves, _scripted)
from .terminal import _interactive

__all__ = ["REPL_EXIT", "BoardProcess", "SimError", "build_mpy", "default_data_dir", "is_flashed",
           "lock_data_dir", "micropython_binary", "GRID_KEYS", "PROFILES", "key_of_cell",
           "level_cell", "presses_for", "PtyRelay", "start_repl", "digits", "render", "screen",
           "choose_settings", "play_moves", "play_vs_board", "random_moves", "random_person",
           "Options", "run"]


class Options:
    """What `bawo sim` is asked to do: run()'s keyword arguments, handed to its modes."""

    def __init__(self, game=None, profile=None, data=None, seed=1, speed=None, headless=False,
                 quiet=False, heap=None, moves=None, script=None, random=None, demo=False,
                 ai_vs_ai=False, opponent=None, level=None, pico=False, mpy=False):
        self.game, self.profile, self.data, self.seed, self.speed = game, profile, data, seed, speed
        self.headless, self.quiet, self.heap, self.moves, self.script = headless, quiet, heap, moves, script
        self.random, self.demo, self.ai_vs_ai, self.opponent = random, demo, ai_vs_ai, opponent
        self.level, self.pico, self.mpy = level, pico, mpy


def run(**options):
    """`bawo sim`: options are Options' keywords (game, profile, data, moves, random, ...).
    Interactive unless moves, script, random, demo or ai_vs_ai make it scripted."""
    o = Options(**options)
    # Interactive, game/opponent/level choose in the board's menu (None: the menu's own
    # choices, kept on its flash); scripted, they are what is played.
    interactive = (o.moves is None and o.script is None and o.random is None and not o.demo
                   and not o.ai_vs_ai)
    if not interactive or o.pico:
        o.game = o.game or "bawo"
    if not o.profile:
        o.profile = PROFILES[o.game or "bawo"]
    data = o.data or default_data_dir()
    os.makedirs(data, exist_ok=True)
    if o.pico:
        from ..pico import terminal
        return terminal.run(o, data)
    moves = _script_moves(o)
    rnd = o.random
    if o.demo:
        rnd = 100000
        if o.speed is None:
            o.speed = 8
    lock = lock_data_dir(data)
    try:
        if interactive:
            return _interactive(o, data)
        return _scripted(o, data, moves or [], rnd)
    finally:
        os.close(lock)

