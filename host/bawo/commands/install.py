"""Putting the firmware on a board: `bawo flash` and `bawo build-uf2`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import BawoError
from .common import add_port, sim_arg, sub

if TYPE_CHECKING:
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_flash(subs)
    add_build_uf2(subs)


def add_flash(subs: Subs) -> None:
    """`bawo flash`: install or update the firmware."""
    s = sub(
        subs,
        "flash",
        "install or update the firmware on the board",
        """Two ways. With --uf2, put the whole firmware image (bawo build-uf2) on a board
            that runs MicroPython: the board goes into its boot ROM, the image is copied onto
            its RPI-RP2 drive, the board restarts into it; its games stay. Without it, build
            the firmware bundle (compiled with mpy-cross for the board's MicroPython), copy it
            to a staging dir on the board, check every file's SHA-256 there, move it into
            place, reset and shake hands: the update path, fast when a few files changed. The
            board must be at the REPL or running the firmware; mpremote does the copying.""",
        """examples:
              bawo flash --uf2                    build (or take the cached) image, install it
              bawo flash --uf2 bawo-board-0.1.0.uf2 --drive /media/$USER/RPI-RP2
              bawo flash --dry-run                what runs now, and what would change
              bawo flash --profile bawo-4x8
              bawo flash --port /dev/ttyACM0 --profile grid-5x5
              bawo flash --bundle-only out/       build the bundle into out/ and stop
              bawo flash --circuitpython /media/$USER/CIRCUITPY   a Pico running CircuitPython""",
    )
    add_port(s)
    s.add_argument(
        "--profile",
        default="bawo-4x8",
        metavar="NAME",
        help="hardware profile, hardware/profiles/NAME.json (default bawo-4x8)",
    )
    s.add_argument("--dry-run", action="store_true", help="list what would change; copy nothing")
    s.add_argument("--bundle-only", metavar="DIR", help="build the bundle into DIR and stop")
    s.add_argument("--no-compile", action="store_true", help="copy .py files (no mpy-cross)")
    s.add_argument(
        "--no-reset",
        action="store_true",
        help="do not soft-reset (needed for a unix-port REPL: mpremote `resume`)",
    )
    s.add_argument(
        "--mpy", metavar="VER", help="board's MicroPython version (skip asking it), e.g. 1.28.0"
    )
    s.add_argument(
        "--circuitpython",
        metavar="DRIVE",
        help="a Pico running CircuitPython: copy the .py bundle onto its mounted CIRCUITPY "
        "drive (every file's hash checked); see hardware/README.md",
    )
    s.add_argument(
        "--uf2",
        metavar="IMAGE",
        nargs="?",
        const="",
        help="install a whole UF2 image (default: this tree's, built by bawo build-uf2) "
        "through the board's boot ROM drive",
    )
    s.add_argument(
        "--drive",
        metavar="PATH",
        help="with --uf2: the mounted RPI-RP2 drive (default: the one that appears)",
    )
    s.add_argument(
        "--drive-timeout",
        metavar="S",
        type=float,
        default=30.0,
        help="with --uf2: how long to wait for the RPI-RP2 drive (default 30)",
    )
    s.set_defaults(func=cmd_flash)


def add_build_uf2(subs: Subs) -> None:
    """`bawo build-uf2`: the whole firmware as one UF2 file."""
    s = sub(
        subs,
        "build-uf2",
        "build the board's whole firmware as one UF2 file",
        """Build MicroPython v1.28.0 for the Raspberry Pi Pico with the Bawo Board firmware,
            shared_rules, the opening book and the profile frozen into flash, from the sources
            this package carries. Copy the file onto a Pico's RPI-RP2 drive (hold BOOTSEL while
            plugging it in) and it is a Bawo Board: nothing else to copy. Needs the ARM
            toolchain and cmake (tools/install-system-deps.sh); about a minute on 2 cores
            the first time, then the image is cached until a firmware file changes.""",
        """examples:
              bawo build-uf2                       writes bawo-board-<version>.uf2 here
              bawo build-uf2 --out /media/$USER/RPI-RP2     straight onto a Pico in BOOTSEL
              bawo build-uf2 --profile grid-5x5 --out grid.uf2""",
    )
    s.add_argument(
        "--profile",
        default="bawo-4x8",
        metavar="NAME",
        help="hardware profile frozen in, hardware/profiles/NAME.json (default "
        "bawo-4x8); a profile.json on the board overrides it",
    )
    s.add_argument(
        "--out",
        metavar="PATH",
        default=".",
        help="file or directory to write the image to (default: here)",
    )
    s.add_argument("--force", action="store_true", help="build again even if the cache has it")
    s.set_defaults(func=cmd_build_uf2)


def cmd_flash(args: argparse.Namespace) -> int:
    if args.uf2 is not None:
        from ..flash_uf2 import run as run_uf2

        if args.circuitpython or args.bundle_only or args.no_compile or args.mpy:
            raise BawoError(
                "--uf2 installs a whole image: it takes --port, --sim, --profile, "
                "--drive, --drive-timeout and --dry-run"
            )
        if not 1 <= args.drive_timeout <= 600:
            raise BawoError("--drive-timeout is seconds from 1 to 600")
        return run_uf2(
            args.uf2 or None,
            args.profile,
            args.port,
            sim_arg(args),
            args.drive,
            args.drive_timeout,
            args.dry_run,
        )
    if args.drive:
        raise BawoError("--drive goes with --uf2")
    if args.circuitpython:
        from ..flash_circuitpython import install

        if args.bundle_only or args.port or args.no_compile or args.mpy:
            raise BawoError(
                "--circuitpython copies onto a drive: it takes only --profile and --dry-run"
            )
        install(
            args.circuitpython,
            args.profile,
            dry_run=args.dry_run,
            say=lambda m: print(m, file=sys.stderr),
        )
        return 0
    from ..flash import run

    return run(
        profile=args.profile,
        port=args.port,
        sim=sim_arg(args),
        dry_run=args.dry_run,
        bundle_only=args.bundle_only,
        no_compile=args.no_compile,
        no_reset=args.no_reset,
        mpy=args.mpy,
    )


def cmd_build_uf2(args: argparse.Namespace) -> int:
    from ..uf2 import build
    from ..firmware import profile_path

    profile_path(args.profile)  # an unknown profile fails before any build
    path = build(args.profile, out=args.out, force=args.force)
    from ..flash import source_hash

    print("%s  (firmware sources %s)" % (path, source_hash(args.profile, every_game=True)))
    return 0
