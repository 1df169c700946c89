"""Shared by the host tool tests and bench/sync.py: random game records, a board under the
MicroPython unix port on a pty (firmware/link.py + firmware/journal.py), a fault relay, and
`bawo sim --headless` started and stopped."""

import contextlib
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import threading
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
for p in (str(ROOT), str(ROOT / "host")):
    if p not in sys.path:
        sys.path.append(p)

from shared_rules import game as make_game, State  # noqa: E402
from bawo.tools import venv_tool  # noqa: E402
from shared_rules.record import Record  # noqa: E402


def random_record(seed, gid, name=None, max_plies=400):
    """A finished (usually) game played with random legal moves, as a Record."""
    rng = random.Random(seed)
    name = name or rng.choice(["bawo", "oware", "bagh-chal"])
    s = State(make_game(name))
    while s.outcome() is None and s.ply < max_plies:
        s.push(rng.choice(s.legal_moves))
    return Record.from_state(
        s, Id=gid, Device=gid.rsplit("-", 1)[0], Start="2025-06-%02dT10:00:00" % (1 + seed % 28)
    )


def journal_module():
    """firmware/journal.py under CPython, through the host's own firmware loader (bawo.firmware):
    records are written exactly as the board writes them, and its lazy `import archive` works."""
    from bawo import firmware

    return firmware.module("journal")


def seed_journal(root, n, board="testboard", seed=0, first=1):
    """Write n finished records into a journal dir, through the firmware's own Journal.

    They are written in a staging dir and renamed into `root` whole: a board process may be
    scanning `root` meanwhile, and would set aside a half-written file (a real board is the
    only writer of its flash). The board takes its next game number from the names."""
    J = journal_module()
    stage = str(root) + ".stage"
    j = J.Journal(stage, board, min_free=0, log=lambda m: None)
    recs = []
    for i in range(first, first + n):
        gid = "%s-%04d" % (board, i)
        rec = random_record(seed * 1000 + i, gid)
        j.finish(gid, rec.to_text())
        recs.append(rec)
    os.makedirs(str(root), exist_ok=True)
    for name in os.listdir(stage):
        if name.endswith(".rec"):
            os.rename(os.path.join(stage, name), os.path.join(str(root), name))
    shutil.rmtree(stage)
    return recs


BOARD_SCRIPT = r'''
import sys
sys.path.insert(0, %(rules)r)
sys.path.insert(0, %(fw)r)
import protocol as P
from link import Link, LinkError, stdio
from journal import Journal

def _fits(n):
    try:
        bytearray(n)
        return True
    except MemoryError:
        return False

class H:
    def __init__(self, j):
        self.j = j
    def hello(self):
        # The heap after a collection: what stays alive, and the largest block still free
        # in one piece (fragmentation), for the tests that sync many times in one process.
        import gc
        gc.collect()
        live = gc.mem_alloc()
        lo, hi = 0, gc.mem_free()
        while lo < hi:
            m = (lo + hi + 1) // 2
            if _fits(m):
                lo = m
            else:
                hi = m - 1
        _fits(16)  # overwrite the stale pointer the collector would still see
        return {"board": %(board)r, "fw": "test", "live": live, "free": gc.mem_free(),
                "block": lo}
    def set_time(self, t):
        pass
    def list_games(self):
        try:
            return self.j.list_games()
        except Exception as e:
            import gc
            sys.print_exception(e, sys.stderr)
            sys.stderr.write("mem_free %%d\n" %% gc.mem_free())
            raise
    def get_chunk(self, gid, off, n):
        r = self.j.record_bytes(gid, off, n)
        if r is None:
            raise LinkError(P.E_NO_GAME, "no game %%s" %% gid)
        return r
    def ack_game(self, gid):
        if not self.j.mark_synced(gid):
            raise LinkError(P.E_NO_GAME, "no game %%s" %% gid)

read, write = stdio()
write(b"MicroPython test board\r\n")
j = Journal(%(root)r, %(board)r, min_free=0, log=lambda m: None)
Link(read, write, H(j)).run(sleep_ms=1)
'''


def micropython():
    return venv_tool("micropython")


class Relay:
    """The USB cable: board pty <-> pump thread <-> host pty (opened by name).

    fault(at, kind): when the running byte count (both directions) reaches `at`, do `kind`:
    'drop' (lose 1-40 bytes), 'garbage' (insert random bytes), 'flip' (damage a byte: CRC
    error), 'kill' (SIGKILL the board; restart it after `restart_after` s, or leave it dead).
    """

    def __init__(self, script_path, seed=0, stderr_path=None):
        self.script = script_path
        self.stderr_path = stderr_path
        self.rng = random.Random(seed)
        self.bm, self.bs = os.openpty()
        self.hm, self.hs = os.openpty()
        tty.setraw(self.bs)
        tty.setraw(self.hs)
        self.port_name = os.ttyname(self.hs)
        self.count = 0
        self.faults = []  # [(at, kind)], sorted
        self.done = []
        self.restart_after = None
        self.proc = None
        self._lock = threading.Lock()
        self._stop = False
        self.start_board()
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def start_board(self):
        err = open(self.stderr_path, "ab") if self.stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [micropython(), self.script],
            stdin=self.bs,
            stdout=self.bs,
            stderr=err,
            start_new_session=True,
        )
        if err is not subprocess.DEVNULL:
            err.close()

    def board_alive(self):
        return self.proc is not None and self.proc.poll() is None

    def ensure_board(self):
        with self._lock:
            if not self.board_alive():
                self.start_board()

    def kill_board(self):
        if self.board_alive():
            self.proc.kill()
            self.proc.wait(5)

    def fault(self, at, kind):
        with self._lock:
            self.faults.append((at, kind))
            self.faults.sort()

    def _apply(self, data):
        # Only the first pending fault inside this chunk; others wait for the next chunk.
        if not self.faults or self.count + len(data) < self.faults[0][0]:
            self.count += len(data)
            return data
        at, kind = self.faults.pop(0)
        i = max(0, min(len(data) - 1, at - self.count))
        self.count += len(data)
        self.done.append(kind)
        if kind == "drop":
            return data[:i] + data[i + self.rng.randint(1, 40) :]
        if kind == "garbage":
            return (
                data[:i]
                + bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 30)))
                + data[i:]
            )
        if kind == "flip":
            b = bytearray(data)
            b[i] ^= 1 << self.rng.randrange(8)
            return bytes(b)
        if kind == "kill":
            self.kill_board()
            if self.restart_after is not None:
                threading.Timer(self.restart_after, self.ensure_board).start()
            return data[:i]
        raise ValueError(kind)

    def _pump(self):
        fds = [self.bm, self.hm]
        while not self._stop:
            try:
                ready, _, _ = select.select(fds, [], [], 0.05)
            except (OSError, ValueError):
                return
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    continue
                with self._lock:
                    data = self._apply(data)
                try:
                    os.write(self.hm if fd == self.bm else self.bm, data)
                except OSError:
                    pass

    def close(self):
        self._stop = True
        self.kill_board()
        self._t.join(1)
        for fd in (self.bm, self.bs, self.hm, self.hs):
            try:
                os.close(fd)
            except OSError:
                pass


def write_board_script(path, journal_root, board="testboard"):
    with open(path, "w") as f:
        f.write(
            BOARD_SCRIPT
            % {"fw": str(FIRMWARE), "rules": str(ROOT), "board": board, "root": str(journal_root)}
        )
    return str(path)


def board_games(journal_root):
    """{id: record text} of every record in the journal dir (synced or not)."""
    from bawo import firmware

    out = {}
    for name in os.listdir(journal_root):
        if name.endswith(".rec") or name.endswith(".syn"):
            with open(os.path.join(journal_root, name), "rb") as f:
                b = f.read()
            out[name[:-4]] = b[: -firmware.module("datafiles").CRC_TAIL].decode()
        assert not name.endswith(".bad"), name
    return out


def bawo_cmd():
    return [sys.executable, "-m", "bawo.cli"]


def env_with_path():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "host"), env.get("PYTHONPATH", "")])
    return env


def sigkill_after(proc, seconds):
    def k():
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)

    t = threading.Timer(seconds, k)
    t.start()
    return t


def headless_sim(data, *args):
    """`bawo sim --headless` on `data`; returns (process, lines so far) once it runs, or
    once it has said that the firmware stopped."""
    p = subprocess.Popen(
        [sys.executable, "-m", "bawo.sim", "--headless", "--data", str(data), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines = []
    for line in p.stdout:
        lines.append(line)
        if "running headless" in line or "firmware stopped" in line:
            break
    return p, lines


def stop_sim(p):
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)


@contextlib.contextmanager
def relayed_board(tmp_path):
    """A simulated board (the firmware on the unix port) behind a pty, as a Pico on USB: the
    pty's path while it runs. Its output is drained so that it never blocks."""
    from bawo import sim

    relay = sim.PtyRelay()
    board = sim.BoardProcess(
        "bawo-4x8", str(tmp_path / "flash"), fake=False, link=relay.board_ends()
    )
    relay.start()

    def drain():
        try:
            while board.proc.poll() is None:
                board.readline(timeout=3600)
        except Exception:
            pass

    threading.Thread(target=drain, daemon=True).start()
    try:
        yield relay.path
    finally:
        relay.stop = True
        board.kill()
