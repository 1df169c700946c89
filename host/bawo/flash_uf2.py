"""`bawo flash --uf2`: put a whole UF2 image on a board that already runs MicroPython.

The board is asked into its boot ROM (`mpremote bootloader`, the same as holding BOOTSEL at
power-on). The boot ROM shows a USB drive named RPI-RP2; copying the image onto it writes the
flash and restarts the board, which then runs the new image. The board's filesystem (its
games, its settings) is past the image's end in flash, so the copy leaves it as it was.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BawoError
from .ports import firmware_words

if TYPE_CHECKING:
    from .flash import Remote

INFO = "INFO_UF2.TXT"  # the boot ROM's drive has this file; no other drive does
DRIVE_WAIT_S = 30
CHUNK = 64 * 1024


class UF2Error(BawoError):
    pass


def _mount_points() -> list[str]:
    """Mounted directories (Linux /proc/mounts), then where desktops mount USB drives."""
    seen: list[str] = []
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 1:
                    seen.append(parts[1].replace("\\040", " "))
    except OSError:
        pass
    user = os.environ.get("USER") or ""
    for base in ("/media/" + user, "/run/media/" + user, "/media", "/Volumes"):
        try:
            seen += [os.path.join(base, n) for n in sorted(os.listdir(base))]
        except OSError:
            pass
    return seen


def is_boot_drive(path: str) -> bool:
    """Whether path is an RP2040 boot ROM's drive: its INFO_UF2.TXT names an RP2 board."""
    try:
        with open(os.path.join(path, INFO), encoding="ascii", errors="replace") as f:
            text = f.read(512)
    except OSError:
        return False
    return "RP2" in text


def find_drives() -> list[str]:
    return [p for p in dict.fromkeys(_mount_points()) if is_boot_drive(p)]


def wait_for_drive(drive: str | None, timeout: float, say: Callable[[str], object]) -> str:
    """The boot ROM's drive: drive (a path) once it is one, else the one that appears."""
    deadline = time.monotonic() + timeout
    said = -1
    while True:
        found = [drive] if drive and is_boot_drive(drive) else ([] if drive else find_drives())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise UF2Error(
                "%d RPI-RP2 drives are mounted (%s): unplug the other Picos, or name "
                "this one's with --drive" % (len(found), ", ".join(found))
            )
        left = deadline - time.monotonic()
        if left <= 0:
            raise UF2Error(no_drive_help(drive, timeout))
        if int(left) // 5 != said:
            said = int(left) // 5
            say(
                "waiting for the RPI-RP2 drive%s ... %d s left"
                % (" at %s" % drive if drive else "", int(left))
            )
        time.sleep(0.2)


def no_drive_help(drive: str | None, timeout: float) -> str:
    where = "at %s" % drive if drive else "on this computer"
    return (
        "no RPI-RP2 drive appeared %s within %d s. The board may be in its boot ROM with the "
        "drive not mounted, or it did not take the request. Do it by hand: unplug the Pico, "
        "hold its BOOTSEL button while you plug it in, release it, and copy the .uf2 file "
        "onto the RPI-RP2 drive that appears (or run this command again with --drive "
        "/path/to/RPI-RP2). On Linux without a desktop, mount the drive first: `lsblk` "
        "names it (a 128 MB disk), then `sudo mount /dev/sdX1 /mnt`" % (where, timeout)
    )


def copy_image(image: str | Path, drive: str, say: Callable[[str], object]) -> str:
    """Copy image onto the drive in chunks, saying how far it got; flushed to the device."""
    image = Path(image)
    size = image.stat().st_size
    dest = os.path.join(drive, image.name)
    done = 0
    shown = -1
    with open(image, "rb") as src, open(dest, "wb") as out:
        while True:
            chunk = src.read(CHUNK)
            if not chunk:
                break
            out.write(chunk)
            done += len(chunk)
            pct = done * 100 // size
            if pct // 10 != shown:
                shown = pct // 10
                say("copying %s onto %s: %d%%" % (image.name, drive, pct))
        out.flush()
        try:
            os.fsync(out.fileno())
        except OSError:
            pass  # the boot ROM may restart the board as the last block lands
    say("copied %s (%d KB) onto %s: the board restarts into it" % (image.name, size // 1024, drive))
    return dest


MAX_IMAGE = 4 * 1024 * 1024


def check_image(image: Path) -> int:
    """Refuse, before the board is touched, a file that is not a whole RP2040 UF2 or that
    would write where the board keeps its games: MicroPython's filesystem starts at 640 KB
    of the Pico's flash (bawo.pico.FS_OFFSET), and a UF2 copied onto RPI-RP2 overwrites
    whatever its blocks name."""
    from .pico import FS_OFFSET, PicoError, uf2_blocks
    from .uf2 import RP2040_FAMILY

    try:
        size = image.stat().st_size
    except OSError as e:
        raise UF2Error("cannot read %s: %s" % (image, e.strerror or e))
    if not image.is_file() or size == 0 or size % 512 or size > MAX_IMAGE:
        raise UF2Error(
            "%s is not a UF2 image (a whole number of 512-byte blocks, at most 4 MB)" % image
        )
    data = image.read_bytes()
    for i in range(0, size, 512):
        if int.from_bytes(data[i + 28 : i + 32], "little") != RP2040_FAMILY:
            raise UF2Error(
                "%s is not an image for the RP2040 (block %d names another chip "
                "family)" % (image, i // 512)
            )
    try:
        blocks = sum(1 for _ in uf2_blocks(data, FS_OFFSET))
    except PicoError:
        raise UF2Error(
            "%s writes at or past %d KB of flash, where the board keeps its games: it "
            "is not a Bawo Board image, and copied by hand it would erase them"
            % (image, FS_OFFSET // 1024)
        )
    return blocks


def run(
    image: str | Path | None = None,
    profile: str = "bawo-4x8",
    port: str | None = None,
    sim: str | None = None,
    drive: str | None = None,
    timeout: float = DRIVE_WAIT_S,
    dry_run: bool = False,
    say: Callable[[str], object] | None = None,
) -> int:
    """`bawo flash --uf2 [IMAGE]`: image None builds this tree's (bawo build-uf2, cached)."""
    from . import flash
    from .ports import resolve

    say = say or (lambda msg: print(msg, file=sys.stderr))
    expect = None
    if image is None:
        from .uf2 import build

        image = build(profile, say=say)
        expect = flash.source_hash(profile, every_game=True)
    image = Path(image)
    check_image(image)
    port = resolve(port, sim)[0]
    before = flash.board_hello(port)
    if before is not None:
        say("the board runs %s" % firmware_words(before))
        if expect and before.get("image") == "uf2" and before.get("build") == expect:
            say("it runs this very image already: nothing to do")
            return 0
    if dry_run:
        say("would put %s (%d KB) on the board on %s" % (image, image.stat().st_size // 1024, port))
        return 0
    remote = flash.Remote(port)
    _clear_bundle(remote, profile, say)
    if shutil.which("picotool") and not drive:
        return _picotool(image, remote, port, say, before, expect)
    remote.run("bootloader", check=False, step="asking the board into its boot ROM")
    found = wait_for_drive(drive, timeout, say)
    copy_image(image, found, say)
    return _check(port, say, before, expect)


# An empty shared_rules/ left on the filesystem would shadow the frozen package too: the
# directories go once empty.
CLEAR = """import os
gone = 0
for p in %r:
    try:
        os.remove(p)
        gone += 1
    except OSError:
        pass
for d in %r:
    try:
        os.rmdir(d)
    except OSError:
        pass
print('CLEARED', gone)
"""


def _clear_bundle(remote: Remote, profile: str, say: Callable[[str], object]) -> None:
    """Remove the code a `bawo flash` bundle left on the board's filesystem: it would shadow
    the image's frozen modules (the filesystem comes first on sys.path). The games, the
    settings and a profile.json (the board's own pin map) stay."""
    from . import flash

    paths: list[str] = []
    for path, _src in flash.sources(profile, every_game=True):
        if path.endswith(".py"):
            paths += [path, path[:-3] + ".mpy"]
        elif path != "profile.json":
            paths.append(path)
    dirs = sorted({p.rsplit("/", 1)[0] for p in paths if "/" in p})
    out: list[str] = []
    remote.run(
        "exec", CLEAR % (paths, dirs), step="removing an older bundle's code", on_line=out.append
    )
    gone = [x for x in out if x.startswith("CLEARED ")]
    n = int(gone[-1].split()[1]) if gone else 0
    if n:
        say("removed %d file(s) of an older bundle from the board (its games stay)" % n)


def _picotool(
    image: Path,
    remote: Remote,
    port: str,
    say: Callable[[str], object],
    before: dict[str, Any] | None,
    expect: str | None,
) -> int:
    import subprocess

    remote.run("bootloader", check=False, step="asking the board into its boot ROM")
    say("loading %s with picotool ..." % image.name)
    r = subprocess.run(
        ["picotool", "load", "-v", "-x", str(image)], capture_output=True, text=True, timeout=120
    )
    if r.returncode != 0:
        raise UF2Error(
            "picotool could not load the image: %s" % (r.stderr or r.stdout).strip()[-300:]
        )
    return _check(port, say, before, expect)


def _check(
    port: str, say: Callable[[str], object], before: dict[str, Any] | None, expect: str | None
) -> int:
    """The board answers again, is the board it was, and runs the image put on it."""
    from . import flash

    info = flash.wait_hello(port, say, expect=before)
    if info.get("image") != "uf2" or (expect and info.get("build") != expect):
        raise UF2Error(
            "the board came back running %s, not the image just copied: a bundle "
            "copied by `bawo flash` shadows the image's modules; see "
            "docs/troubleshooting.md" % firmware_words(info)
        )
    say("the board runs %s" % firmware_words(info))
    return 0
