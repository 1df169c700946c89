"""Single key presses from a terminal, for prompts that name keys (`bawo show`: b, q).

In a terminal the keys act at once (cbreak mode: no Enter needed; Ctrl-C still interrupts),
and the terminal's mode is restored on the way out, whatever the way (a return, an error,
Ctrl-C). When stdin is not a terminal (a pipe, a file), whole lines are read as before."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

# Arrow keys as the letters the prompts know: right/down next, left/up back.
ARROWS = {"\x1b[C": "n", "\x1b[B": "n", "\x1b[D": "b", "\x1b[A": "b"}


@contextlib.contextmanager
def single_keys(
    stream: TextIO | None = None, out: TextIO | None = None
) -> Iterator[Callable[[str], str]]:
    """Yields ask(prompt) -> the key pressed ("" for Enter or space); EOFError on Ctrl-D."""
    stream = stream or sys.stdin
    out = out or sys.stdout
    try:
        fd = stream.fileno()
        tty_in = os.isatty(fd)
    except (AttributeError, OSError, ValueError):
        tty_in = False
    if not tty_in:
        yield input
        return
    import termios
    import tty

    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)  # one key at a time, not echoed; Ctrl-C still raises

        def ask(prompt: str) -> str:
            out.write(prompt)
            out.flush()
            key = os.read(fd, 32).decode("utf-8", "replace")
            out.write("\n")
            if key in ("\x04", ""):
                raise EOFError
            key = ARROWS.get(key, key)
            return "" if key in ("\r", "\n", " ") else key

        yield ask
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
