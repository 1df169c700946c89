"""`bawo sim`: the board's own firmware under the MicroPython unix port, on a terminal.

Process layout::

    bawo sim (CPython)                                micropython firmware_sim/board_sim.py
    ------------------                                -----------------------------------
    command pipe  --- "t 16\\n", "i\\n" ... ------->   fd BAWO_IN: presses, clock steps
    status pipe   <-- frames, "S {...}", "J 1 A1+" -   fd BAWO_OUT: LED frames, status
    pty master <--> relay <--> stdin/stdout pipes <->  the serial link (firmware/link.py)
       ^ slave /dev/pts/N, by a link of its own: host tools open it (printed, in DATA/port)

The pipes' messages are firmware_sim/simpipe.py, imported by both ends. This package is the
whole terminal board, one module a job, in a one-way flow (each imports only to its left):

    model:    process (the unix-port board), layout (cells on keys), relay (the serial pty
              and the REPL), script (scripted players); bawo.pico (the emulated RP2040)
    render:   leds (the LEDs on a terminal), draw (a position: `bawo show`, watch, serve)
    terminal: console (the interactive unix-port board), pico_console (`bawo sim --pico`),
              run (`bawo sim`: the options and scripted runs)

The firmware's flash is the directory --data. With --moves/--script/--random/--demo the
board runs on a simulated clock in lockstep with the script (fast, deterministic) and the
moves are entered by pressing pockets as a player would; otherwise it runs in real time
and the terminal shows the LEDs, taking keys and mouse clicks as presses.

As on a Pico, a Ctrl-C on the serial port stops the firmware and the MicroPython REPL takes
the port (`micropython -i` in the data dir), so `bawo flash --sim DIR` (mpremote with
`resume`) installs a bundle into the data dir; once it holds one, a restarted sim runs the
flashed firmware (only the simulator's own files, never flashed, come from the install).
"""

from .process import (
    REPL_EXIT,
    BoardProcess,
    SimError,
    build_mpy,
    default_data_dir,
    is_flashed,
    lock_data_dir,
    micropython_binary,
)
from .layout import GRID_KEYS, PROFILES, key_of_cell, level_cell, presses_for
from .relay import PtyRelay, start_repl
from .script import choose_settings, play_moves, play_vs_board, random_moves, random_person

# Only the model is imported here. The render and terminal modules build on it, so importing
# them here would make a circle. Import them by their module (from bawo.sim.leds import render).
__all__ = [
    "REPL_EXIT",
    "BoardProcess",
    "SimError",
    "build_mpy",
    "default_data_dir",
    "is_flashed",
    "lock_data_dir",
    "micropython_binary",
    "GRID_KEYS",
    "PROFILES",
    "key_of_cell",
    "level_cell",
    "presses_for",
    "PtyRelay",
    "start_repl",
    "choose_settings",
    "play_moves",
    "play_vs_board",
    "random_moves",
    "random_person",
]
