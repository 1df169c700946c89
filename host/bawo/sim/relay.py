"""The board's USB serial port as a pseudo-terminal, and the REPL behind it after a Ctrl-C."""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from typing import TYPE_CHECKING

from .process import micropython_binary

if TYPE_CHECKING:
    from .process import BoardProcess


def shut_down(relay: PtyRelay, board: BoardProcess, data: str) -> None:
    """Stop the serial relay and the board, and withdraw the port file tools look for."""
    relay.stop = True
    board.kill()
    port = os.path.join(data, "port")
    try:
        with open(port) as f:
            ours = f.read().strip() == relay.path
        if ours:  # never another simulator's
            os.remove(port)
    except OSError:
        pass


def start_repl(relay: PtyRelay, data: str) -> subprocess.Popen[bytes]:
    """The MicroPython REPL on the board's serial port, its working directory the flash dir:
    what a Pico offers once mpremote has stopped main.py. mpremote sends Ctrl-C and at once
    Ctrl-A; the board ends of the relay stay open, so bytes behind the Ctrl-C wait in the pipe
    for the REPL instead of being lost with the firmware process."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([os.path.abspath(data), ".frozen"])
    to_board, from_board = relay.board_ends()
    return subprocess.Popen(
        [micropython_binary(), "-i"],
        stdin=to_board,
        stdout=from_board,
        stderr=from_board,
        cwd=data,
        env=env,
    )


class PtyRelay:
    """The board's serial port as a pty: tools open the slave path."""

    def __init__(self) -> None:
        import tty

        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        # The port is a name no other board ever has: a link to the pty, gone before the pty
        # closes. The kernel gives a closed pty's /dev/pts/N to the next pty opened: a tool
        # that opened the old name again reached another board (bawo.pico does the same).
        import tempfile

        self._dir = tempfile.mkdtemp(prefix="bawo-sim-")
        self.path = os.path.join(self._dir, "ttyACM0")
        os.symlink(os.ttyname(self.slave), self.path)
        self.to_board_r, self.to_board_w = os.pipe()
        self.from_board_r, self.from_board_w = os.pipe()
        self.stop = False
        self._thread: threading.Thread | None = None

    TO_BOARD_MAX = 1 << 16
    TO_TOOL_MAX = 1 << 16
    STALL_S = 1.0

    def board_ends(self) -> tuple[int, int]:
        return self.to_board_r, self.from_board_w

    def start(self) -> None:
        # The board ends stay open here too: the REPL takes them over when the firmware stops.
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop relaying and close the pty, once the relay has left its select: a descriptor
        closed under it may by then be another file's (the next board's pty)."""
        self.stop = True
        for name in (self.path, self._dir):  # the name first: nothing opens the pty by it now
            try:
                (os.unlink if name == self.path else os.rmdir)(name)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(10)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def _run(self) -> None:
        # Never blocks on the board's input: its output is read whenever a tool takes it (a
        # blocked board stops reading its input, and a relay blocked writing that input would
        # wait on it for good). Bytes for the board wait here until its pipe takes them; past
        # TO_BOARD_MAX the relay stops reading the pty, so a tool that floods the port waits,
        # as on a USB port. Bytes for the tool wait up to TO_TOOL_MAX: while a tool is taking
        # them the board waits for it (a slow reader loses nothing, as over USB); once nothing
        # has been taken for STALL_S, no tool is reading, and the oldest bytes are dropped so
        # the board goes on (a Pico's CDC drops output with no host attached).
        to_board, to_tool = bytearray(), bytearray()
        os.set_blocking(self.to_board_w, False)
        taken = time.monotonic()
        while not self.stop:
            stalled = time.monotonic() - taken > self.STALL_S
            rl = [self.master] if len(to_board) < self.TO_BOARD_MAX else []
            if len(to_tool) < self.TO_TOOL_MAX or stalled:
                rl.append(self.from_board_r)
            wl = ([self.to_board_w] if to_board else []) + ([self.master] if to_tool else [])
            r, w, _ = select.select(rl, wl, [], 0.2)
            if self.from_board_r in r:
                data = os.read(self.from_board_r, 65536)
                if not data:
                    return
                to_tool += data
                if len(to_tool) > self.TO_TOOL_MAX:
                    del to_tool[: len(to_tool) - self.TO_TOOL_MAX]
            if self.master in r:
                try:
                    to_board += os.read(self.master, 65536)
                except (BlockingIOError, OSError):
                    pass
            if to_board and self.to_board_w in w:
                try:
                    del to_board[: os.write(self.to_board_w, to_board)]
                except BlockingIOError:
                    pass
                except OSError:
                    to_board.clear()  # the board's end is gone: a new one comes with the REPL
            if not to_tool:
                taken = time.monotonic()
            elif self.master in w:
                try:
                    k = os.write(self.master, to_tool)
                except (BlockingIOError, OSError):
                    k = 0
                if k:
                    del to_tool[:k]
                    taken = time.monotonic()
