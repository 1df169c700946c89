"""The same emulated Pico running CircuitPython 10.2.1 (`raspberry_pi_pico`, unmodified) instead of
MicroPython: its flash holds the CircuitPython image from 0 and the CIRCUITPY drive (FAT12,
1 MiB of 512-byte sectors, one FAT) from 0x100000. The runner's `circuitpython` switch reports
the BOOTSEL button released and steps PIO (which drives the LEDs) with emulated time.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from . import FLASH_SIZE, HERE, Pico, PicoError, uf2_blocks, write_uid

IMAGE = HERE / "images" / "circuitpython-10.2.1-raspberry_pi_pico.uf2"
FAT_OFFSET = 0x100000
FAT_SIZE = 0x100000
LABEL = "CIRCUITPY"
# microcontroller.nvm: the 4 KiB sector right below CIRCUITPY (ports/raspberrypi/mpconfigport.h:
# CIRCUITPY_FIRMWARE_SIZE 1020 KiB, then CIRCUITPY_INTERNAL_NVM_SIZE 4 KiB).
NVM_OFFSET = 0xFF000
NVM_SIZE = 0x1000


def fat_image(files):
    """A 1 MiB FAT12 volume as CircuitPython formats it, holding files ({path: bytes})."""
    from pyfatfs.PyFat import PyFat
    from pyfatfs.PyFatFS import PyFatFS

    fd, tmp = tempfile.mkstemp(prefix="bawo-fat-")
    os.close(fd)
    try:
        with open(tmp, "wb") as f:
            f.truncate(FAT_SIZE)
        pf = PyFat()
        pf.mkfs(
            tmp,
            fat_type=PyFat.FAT_TYPE_FAT12,
            size=FAT_SIZE,
            sector_size=512,
            number_of_fats=1,
            label=LABEL,
        )
        pf.close()
        fs = PyFatFS(tmp, preserve_case=True)
        try:
            for name in sorted(files):
                parts = name.strip("/").split("/")
                for i in range(1, len(parts)):
                    d = "/" + "/".join(parts[:i])
                    if not fs.exists(d):
                        fs.makedir(d)
                with fs.openbin("/" + "/".join(parts), "w") as f:
                    f.write(files[name])
        finally:
            fs.close()
        return Path(tmp).read_bytes()
    finally:
        os.unlink(tmp)


def make_flash(path, files=None, image=IMAGE, uid=None):
    """A 2 MiB flash file: the CircuitPython image and (files not None) a CIRCUITPY drive
    holding files; None leaves it erased (CircuitPython formats it at first boot). uid: the
    chip's unique ID (bawo.pico.write_uid)."""
    flash = bytearray(b"\xff" * FLASH_SIZE)
    for off, payload in uf2_blocks(Path(image).read_bytes(), limit=FAT_OFFSET):
        flash[off : off + len(payload)] = payload
    if files is not None:
        flash[FAT_OFFSET : FAT_OFFSET + FAT_SIZE] = fat_image(files)
    Path(path).write_bytes(bytes(flash))
    write_uid(path, uid)
    return path


def _name(entry):
    """An entry's name as CircuitPython (FatFs) wrote it: a short name that fits 8.3 in lower
    case has no long-name entry, only the NT case bits (0x08 base, 0x10 extension), which
    pyfatfs does not apply."""
    name = str(entry)
    if entry.lfn_entry is not None:
        return name
    base, dot, ext = name.partition(".")
    if entry.ntres & 0x08:
        base = base.lower()
    if entry.ntres & 0x10:
        ext = ext.lower()
    return base + dot + ext


def read_files(path):
    """{path: bytes} of every file on the CIRCUITPY drive of a flash file."""
    from pyfatfs.PyFatFS import PyFatFS

    data = Path(path).read_bytes()[FAT_OFFSET : FAT_OFFSET + FAT_SIZE]
    fd, tmp = tempfile.mkstemp(prefix="bawo-fat-")
    os.close(fd)
    try:
        Path(tmp).write_bytes(data)
        fs = PyFatFS(tmp, read_only=True)
        out = {}
        try:

            def walk(d, prefix, raw):
                dirs, files, _ = d.get_entries()
                for e in files:
                    with fs.openbin(raw + str(e), "r") as f:
                        out[prefix + _name(e)] = f.read()
                for e in dirs:
                    walk(e, prefix + _name(e) + "/", raw + str(e) + "/")

            walk(fs.fs.root_dir, "", "/")
        finally:
            fs.close()
        return out
    finally:
        os.unlink(tmp)


def read_nvm(path):
    """The bytes of microcontroller.nvm in a flash file."""
    with open(path, "rb") as f:
        f.seek(NVM_OFFSET)
        return f.read(NVM_SIZE)


def boot_options():
    return {"circuitpython": True}


class CircuitPico(Pico):
    """An emulated Pico running CircuitPython; same API as Pico."""

    def __init__(self, profile, flash, realtime=False, log=None, uid=None):
        Pico.__init__(self, profile, flash, realtime, log, options=boot_options(), uid=uid)


__all__ = ["CircuitPico", "IMAGE", "make_flash", "read_files", "read_nvm", "fat_image", "PicoError"]
