"""An emulated Raspberry Pi Pico: MicroPython v1.28.0's unmodified rp2 image on rp2040js.

Process layout::

    Python (tests, `bawo sim --pico`)                      node runner.mjs (rp2040js)
    ---------------------------------                      --------------------------
    Pico.command()  --- JSON lines: keys, at, quiet ...->  stdin
    reader thread   <-- JSON lines: frame, boot, done ---   stdout
    pty master <--> relay thread <--> socketpair  <------>  fd 3: the USB CDC device's bytes
      ^ slave /dev/pts/N, as self.port: a link of its own to it (bawo-pico-*/ttyACM<power-on>)
        pyserial, mpremote, `bawo sync` open it like /dev/ttyACM0

The board's flash is a 2 MiB file (the MicroPython image at 0, littlefs at 0xA0000); the
emulator writes through to it byte by byte, so a kill is a power cut. With power_cycle=True a
cut powers the board off inside the process instead, and power_on() boots a fresh RP2040 from
the file (a new USB connection and pty, as a new process gives). Times are emulated
nanoseconds (the emulator's clock, 0 at each power-on; wall time is unrelated).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import socket
import subprocess
import threading
import time
import tty
from pathlib import Path

from ..errors import BawoError

HERE = Path(__file__).resolve().parent
IMAGE = HERE / "images" / "micropython-v1.28.0-RPI_PICO.uf2"
BOOTROM = HERE / "images" / "rp2040-bootrom-b1.bin"
RUNNER = HERE / "runner.mjs"
FLASH_SIZE = 2 * 1024 * 1024
# The image's filesystem (ports/rp2 for RPI_PICO): littlefs2 from 0xA0000 to the end.
FS_OFFSET = 0xA0000
FS_BLOCK = 4096
FS_BLOCKS = 352
LFS = dict(
    block_size=FS_BLOCK, block_count=FS_BLOCKS, prog_size=256, read_size=32, lookahead_size=32
)


class PicoError(BawoError):
    """The emulated Pico could not start or stopped answering."""


# -- node and rp2040js --------------------------------------------------------------------
def node_binary():
    node = shutil.which("node")
    if not node:
        raise PicoError(
            "Node.js is not installed: the emulated Pico needs node 18 or newer "
            "(apt install nodejs)"
        )
    return node


def ensure_runtime():
    """Install rp2040js from the lockfile into host/bawo/pico/node_modules once (npm ci);
    a file lock keeps parallel test workers from installing at the same time."""
    node_binary()
    marker = HERE / "node_modules" / "rp2040js" / "package.json"
    if marker.exists():
        return
    npm = shutil.which("npm")
    if not npm:
        raise PicoError("npm is not installed: it installs the emulator rp2040js (apt install npm)")
    with open(HERE / ".npm-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return
        r = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=str(HERE), capture_output=True, text=True
        )
        if r.returncode != 0 or not marker.exists():
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
            raise PicoError("npm ci in %s failed: %s" % (HERE, tail[0]))


# -- flash images -------------------------------------------------------------------------
def uf2_blocks(data, limit=FS_OFFSET):
    """(flash offset, payload) of each UF2 block; each must lie below `limit` (where the
    image's filesystem starts)."""
    for i in range(0, len(data), 512):
        b = data[i : i + 512]
        if len(b) < 512 or b[:8] != b"UF2\nWQ]\x9e":
            raise PicoError("not a UF2 image")
        addr = int.from_bytes(b[12:16], "little")
        size = int.from_bytes(b[16:20], "little")
        if not 0x10000000 <= addr < 0x10000000 + limit or size > 476:
            raise PicoError("UF2 block outside the firmware's part of flash")
        yield addr - 0x10000000, b[32 : 32 + size]


class Install(dict):
    """What a Pico's flash holds: a UF2 image (.image) and the files of its filesystem
    ({path on the board: bytes}, this dict). The stock image with a `bawo flash` bundle, or
    a `bawo build-uf2` image with its firmware frozen in and only data on the filesystem."""

    def __init__(self, files=(), image=IMAGE):
        dict.__init__(self, files)
        self.image = Path(image)

    def copy(self):
        return Install(self, self.image)

    def __repr__(self):
        return "Install(%d files, image=%r)" % (len(self), self.image.name)


def make_flash(path, files=None, image=None, uid=None):
    """Write a 2 MiB flash file: the image (default: files.image for an Install, else the
    stock MicroPython image), and (if files is not None) a littlefs holding files ({path on
    the board: bytes}); None leaves the filesystem erased, as on a Pico that only had the
    UF2 copied (MicroPython formats it at boot).
    uid: the chip's unique ID (8 bytes, else a random one), in the file beside it (uid_file)."""
    if image is None:
        image = getattr(files, "image", IMAGE)
    flash = bytearray(b"\xff" * FLASH_SIZE)
    _program(flash, image)
    if files is not None:
        flash[FS_OFFSET:] = littlefs_image(files)
    Path(path).write_bytes(bytes(flash))
    write_uid(path, uid)
    return path


def _program(flash, image):
    for off, payload in uf2_blocks(Path(image).read_bytes()):
        flash[off : off + len(payload)] = payload


def write_uf2(path, image):
    """What the RP2040's boot ROM does with a UF2 copied onto its RPI-RP2 drive: write the
    image's blocks into the flash file, whose filesystem (past the image) stays as it is."""
    flash = bytearray(Path(path).read_bytes())
    if len(flash) != FLASH_SIZE:
        raise PicoError("%s is not a 2 MiB flash file" % path)
    _program(flash, image)
    Path(path).write_bytes(bytes(flash))


def uid_file(flash):
    """Where a flash file's chip keeps its 64-bit unique ID: '<flash>.uid', 16 hex digits.
    A real chip's ID is not in its array, so a copy of the array (a cloned image) is another
    board unless the ID file is copied too."""
    return Path(str(flash) + ".uid")


def write_uid(flash, uid=None):
    """Give a flash file's chip its unique ID: uid (8 bytes) or a random one. Returns it."""
    uid = os.urandom(8) if uid is None else bytes(uid)
    if len(uid) != 8:
        raise PicoError("a flash chip's unique ID is 8 bytes, not %d" % len(uid))
    uid_file(flash).write_text(uid.hex() + "\n")
    return uid


def read_uid(flash):
    """The unique ID of a flash file's chip; made (random) the first time it is asked for:
    every emulated Pico is a board of its own (machine.unique_id(), the board id)."""
    try:
        text = uid_file(flash).read_text().strip()
        uid = bytes.fromhex(text)
        if len(uid) == 8:
            return uid
    except (OSError, ValueError):
        pass
    return write_uid(flash)


def littlefs_image(files):
    from littlefs import LittleFS

    fs = LittleFS(**LFS)
    for name in sorted(files):
        parts = name.strip("/").split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            try:
                fs.mkdir(d)
            except FileExistsError:
                pass
        with fs.open("/".join(parts), "wb") as f:
            f.write(files[name])
    return bytes(fs.context.buffer)


def read_files(path):
    """{path: bytes} of every file in the littlefs of a flash file (the board's files)."""
    from littlefs import LittleFS

    data = Path(path).read_bytes()[FS_OFFSET:]
    fs = LittleFS(mount=False, **LFS)
    fs.context.buffer = bytearray(data)
    fs.mount()
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for n in names:
            p = (root.rstrip("/") + "/" + n).lstrip("/")
            with fs.open(p, "rb") as f:
                out[p] = f.read()
    return out


def bundle_files(bundle_dir):
    """{board path: bytes} of a `bawo flash --bundle-only` directory."""
    root = Path(bundle_dir)
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# -- the running board ----------------------------------------------------------------------
class Pico:
    """A running emulated Pico. profile: the hardware profile dict (pins); flash: the flash
    file. The USB serial port is self.port (a pty path). power_cycle: a cut leaves the emulator
    running with the power off, for power_on() (otherwise the cut ends it). uid: the flash
    chip's unique ID (8 bytes; default the flash file's own, read_uid), what the board's id
    is made of."""

    def __init__(
        self, profile, flash, realtime=False, log=None, options=None, power_cycle=False, uid=None
    ):
        ensure_runtime()
        keys = profile["keys"]
        buttons = profile.get("buttons", {})
        self.n_matrix = len(keys["rows"]) * len(keys["cols"])
        self.menu_key, self.back_key = self.n_matrix, self.n_matrix + 1
        self.n_leds = profile["leds"]["width"] * profile["leds"]["height"]
        self.flash = str(flash)
        self.frames = []  # (start ns, end ns, bytes) of every complete frame
        self.events = []  # other events (boot, reset, usb, cut)
        self._replies = {}
        self._cv = threading.Condition()
        self._id = 0
        self._closed = set()
        self.log = log
        self._power = 0  # power-ons in the emulator: each command names the one it is for
        self._listen = None
        # The Pico's own directory: its port's unique name (a link to the pty) and its USB socket.
        import tempfile

        self._sockdir = tempfile.mkdtemp(prefix="bawo-pico-")
        self._link = None
        ours, theirs = socket.socketpair()
        # The flash chip's unique ID (uid: 8 bytes, else the flash file's own, read_uid).
        self.uid = bytes(uid) if uid is not None else read_uid(flash)
        cfg = {
            "bootrom": str(BOOTROM),
            "flash": self.flash,
            "flash_uid": self.uid.hex(),
            "usb_fd": theirs.fileno(),
            "rows": keys["rows"],
            "cols": keys["cols"],
            "buttons": [buttons[k] for k in ("menu", "back") if k in buttons],
            "data_pin": profile["leds"]["data_pin"],
            "realtime": bool(realtime),
        }
        cfg.update(options or {})  # runner switches for other images (bawo.pico.circuitpython)
        if power_cycle:
            # Where the emulator plugs its USB in again at each power-on.
            cfg["usb_path"] = os.path.join(self._sockdir, "usb")
            self._listen = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._listen.bind(cfg["usb_path"])
            self._listen.listen(1)
        self.proc = subprocess.Popen(
            [node_binary(), str(RUNNER), json.dumps(cfg)],
            cwd=str(HERE),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(theirs.fileno(),),
        )
        theirs.close()
        self._stop = False
        self._plug(ours)
        self._threads = [
            threading.Thread(target=self._read_events, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        self.stderr = []
        for t in self._threads:
            t.start()

    def _plug(self, usb):
        # The USB device's bytes on a new pty (a new /dev/ttyACM0, as when a Pico is plugged in).
        self._usb = usb
        master, slave = os.openpty()
        tty.setraw(slave)
        self._master = master
        self._slave = slave  # kept open so the pty survives clients closing it
        # The port is a name no other board ever has: a link to the pty, one per power-on. The
        # kernel gives a closed pty's /dev/pts/N to the next pty opened on the machine: a tool
        # that opened the old name again reached (and locked) another emulator's board.
        self._link = os.path.join(self._sockdir, "ttyACM%d" % self._power)
        os.symlink(os.ttyname(slave), self._link)
        self.port = self._link
        self._unplugged = threading.Event()
        self._relay_thread = threading.Thread(
            target=self._relay, args=(master, usb, self._unplugged), daemon=True
        )
        self._relay_thread.start()

    def _unplug(self):
        # Once per _plug: a descriptor number closed twice may by then be another file's.
        self._unplugged.set()
        # The name goes first: nothing opens this pty by it once the board is unplugged.
        if self._link is not None:
            try:
                os.unlink(self._link)
            except OSError:
                pass
            self._link = None
        self._relay_thread.join(timeout=2)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        try:
            self._usb.close()
        except OSError:
            pass

    # -- plumbing --
    def _read_events(self):
        for raw in self.proc.stdout:
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            with self._cv:
                kind = ev.get("ev")
                if kind == "frame":
                    self.frames.append((ev["t"], ev["end"], bytes.fromhex(ev["hex"])))
                elif kind == "cut" and ev.get("power_cycle"):
                    # The machine is gone: what it sent went with it, as with a new Pico.
                    self.frames = []
                    self.events = [ev]
                elif "id" in ev and kind in ("ok", "done", "error"):
                    self._replies[ev["id"]] = ev
                else:
                    self.events.append(ev)
                self._cv.notify_all()
        with self._cv:
            self._stop = True
            self._cv.notify_all()

    def _read_stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line and len(self.stderr) < 200:
                self.stderr.append(line)

    def _relay(self, m, u, unplugged):
        while not self._stop and not unplugged.is_set():
            try:
                r, _, _ = select.select([m, u], [], [], 0.2)
            except (OSError, ValueError):
                return
            try:
                if m in r:
                    data = os.read(m, 4096)
                    if data:
                        u.sendall(data)
                if u in r:
                    data = u.recv(65536)
                    if not data:
                        return
                    os.write(m, data)
            except OSError:
                if self._stop or unplugged.is_set():
                    return
                time.sleep(0.01)

    def command(self, cmd, wait=True, timeout=600.0, **kw):
        with self._cv:
            self._id += 1
            i = self._id
        msg = dict(kw, cmd=cmd, id=i, power=self._power)
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise PicoError("the emulated Pico stopped: %s" % self.why())
        if not wait:
            return i
        return self.reply(i, timeout)

    def reply(self, i, timeout=600.0):
        deadline = time.monotonic() + timeout
        with self._cv:
            while i not in self._replies:
                left = deadline - time.monotonic()
                if self._stop or left <= 0:
                    raise PicoError(
                        "the emulated Pico did not answer (%s)"
                        % ("timeout" if left <= 0 else self.why())
                    )
                self._cv.wait(min(left, 1.0))
            r = self._replies.pop(i)
        if r.get("ev") == "error":
            raise PicoError("the emulated Pico refused a command: %s" % r.get("text"))
        return r

    def why(self):
        return self.stderr[-1] if self.stderr else "exit status %s" % self.proc.poll()

    # -- what a test does --
    def now(self):
        """Emulated time in ns."""
        return self.command("time")["t"]

    def run_ms(self, ms, timeout=600.0):
        """Let `ms` milliseconds of emulated time pass."""
        return self.command("at", t=int(ms * 1e6), rel=True, timeout=timeout)["t"]

    def until_ns(self, t, timeout=600.0):
        return self.command("at", t=int(t), timeout=timeout)["t"]

    def quiet(self, ms=600, timeout=600.0):
        """Wait until no LED frame has started for `ms` emulated milliseconds."""
        return self.command("quiet", ms=ms, timeout=timeout)["t"]

    def set_keys(self, closed):
        self._closed = set(closed)
        return self.command("keys", closed=sorted(self._closed))["t"]

    def press(self, key, hold_ms=60, gap_ms=40):
        """Close a switch for hold_ms of emulated time, open it, let gap_ms pass."""
        self.set_keys(self._closed | {key})
        self.run_ms(hold_ms)
        self.set_keys(self._closed - {key})
        self.run_ms(gap_ms)

    def settle(self, n_before, within_ms=1500, quiet_ms=80, timeout=600.0):
        """Wait for a frame after the first n_before (or within_ms without one), then for
        quiet_ms of emulated time with no frame; returns the last frame's bytes."""
        self.command("settle", n=n_before, within=within_ms, quiet=quiet_ms, timeout=timeout)
        return self.last_frame()

    def tap(self, key, hold_ms=30, gap_ms=25, settle=True):
        """Press and release a key as a person would, then (settle) wait until the LEDs
        are still; returns the last frame."""
        n = len(self.frames)
        self.press(key, hold_ms, gap_ms)
        return self.settle(n) if settle else None

    def wait_boot(self, timeout=120.0):
        """Wait for the first LED frame after power-on."""
        return self.wait_frames(1, timeout)

    def wait_frames(self, n, timeout=120.0):
        """Wait until at least n frames have been sent since start."""
        return self.command("frames", n=n, timeout=timeout)

    def last_frame(self):
        with self._cv:
            return self.frames[-1][2] if self.frames else None

    def cut(self, at_ns=None, timeout=600.0):
        """Cut the power at emulated time at_ns (now if None): the flash file keeps exactly
        what was programmed until then. Returns the emulated time of the cut."""
        if at_ns is None:
            self.command("cut")
        else:
            self.command("cut", t=int(at_ns))
        if self._listen is not None:
            cut = self._await_cut(timeout)
            return cut["t"] if cut else None
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        cut = [e for e in self.events if e.get("ev") == "cut"]
        self.close()
        return cut[-1]["t"] if cut else None

    def _await_cut(self, timeout=60.0):
        # power_cycle: the cut event, once the emulator has powered off (None if it stopped).
        deadline = time.monotonic() + timeout
        with self._cv:
            while not any(e.get("ev") == "cut" for e in self.events):
                left = deadline - time.monotonic()
                if self._stop or left <= 0:
                    return None
                self._cv.wait(min(left, 1.0))
            return [e for e in self.events if e.get("ev") == "cut"][-1]

    def power_on(self, timeout=60.0):
        """power_cycle: after a cut, boot a fresh RP2040 from the flash file as it is now (the
        emulator's process and its compiled code stay; nothing of the old machine does). The
        USB comes back on a new pty (self.port), as a new Pico's does."""
        if self._listen is None:
            raise PicoError("power_on needs Pico(..., power_cycle=True)")
        self._unplug()
        with self._cv:
            self.events = []  # the cut's event went with the machine it ended
            self.frames = []
        self._power += 1
        self._closed = set()
        self.command("power_on", timeout=timeout)
        self._listen.settimeout(timeout)
        try:
            usb, _ = self._listen.accept()
        except OSError:
            raise PicoError("the emulated Pico's USB did not come back: %s" % self.why())
        self._plug(usb)

    def until_cut(self, ms=1000):
        """After a cut was armed (cut_inside_flash_op, or `cut` at a later time): let up to `ms`
        of emulated time pass for it. The cut event, or None if none came (the emulator then
        still runs)."""
        try:
            self.run_ms(ms)
            return None
        except PicoError:
            pass  # the emulator stopped: the cut, if there was one, is in its events
        if self._listen is not None:
            return self._await_cut()
        self.proc.wait(timeout=60)
        cut = [e for e in self.events if e.get("ev") == "cut"]
        return cut[-1] if cut else None

    def cut_inside_flash_op(self, after_ns=None, frac=0.5, op=None):
        """Arm a power cut `frac` (0..1) of the way through the next flash erase or page
        program (op: only that SPI command, 0x02 page program, 0x20 sector erase) that starts
        after emulated time after_ns (now if None); the flash chip takes the W25Q16JV's
        typical times (erase 45 ms a 4 KiB sector, 0.4 ms a page)."""
        kw = {} if after_ns is None else {"t": int(after_ns)}
        if op is not None:
            kw["op"] = int(op)
        self.command("cut", inside_op=True, frac=float(frac), **kw)

    def close(self, finish_flash=False):
        """Power off and stop the emulator. finish_flash: the flash chip ends the page program
        or erase under way first (else the power-off cuts it where it got)."""
        self._stop = True
        if self.proc.poll() is None:
            try:
                quit_ = {"cmd": "quit", "id": 0, "finish": bool(finish_flash)}
                self.proc.stdin.write((json.dumps(quit_) + "\n").encode())
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for t in self._threads:
            t.join(timeout=2)
        self._unplug()
        if self._listen is not None:
            self._listen.close()
        shutil.rmtree(self._sockdir, ignore_errors=True)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load_profile(name_or_path):
    from ..firmware import profile_path

    return json.loads(Path(profile_path(name_or_path)).read_text())


_canvas = {}


def canvas_from_wire(profile_file, wire):
    """The frame as the simulator shows it (R,G,B per canvas pixel, row-major) from the
    bytes on the data pin, through the firmware's own LED map (hw_sim.SimPixels)."""
    px = _canvas.get(str(profile_file))
    if px is None:
        from .. import firmware

        px = firmware.module("hw_sim").SimPixels(firmware.module("pinmap").load(str(profile_file)))
        _canvas[str(profile_file)] = px
    if len(wire) != len(px.last):
        raise PicoError("a frame of %d bytes, the profile has %d LEDs" % (len(wire), px.n))
    px.last[:] = wire
    return px.canvas_rgb()


def menu_keys(profile, game, opponent="people", speed=None, level=None):
    """The pockets a person presses in the settings menu (firmware/menu.py's layout, as
    sim.choose_settings presses them), MENU not included."""
    from ..sim.layout import level_cell

    cols = profile["grid"]["cols"]
    cells = profile.get("pockets") or profile.get("points")
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    keys = [at[(0, list(profile["games"]).index(game))]]
    if opponent is not None:
        keys.append(at[(1, ("people", "board-second", "board-first").index(opponent))])
    if speed is not None:
        keys.append(at[(3, min(speed, min(8, cols)) - 1)])
    if level is not None:
        keys.append(at[level_cell(profile["grid"]["rows"], cols, level)])
    return keys
