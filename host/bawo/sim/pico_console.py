"""`bawo sim --pico`: the terminal board driven by MicroPython's real rp2 image on the emulated
RP2040 instead of the unix port. Its flash is DATA/pico-flash.bin (the bundle `bawo flash`
builds, put there on first use); its USB serial port is a pty, written to DATA/port."""

from __future__ import annotations

import os
import select
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .. import firmware
from .process import SimError
from .layout import key_map, key_of_cell, presses_for
from .leds import clicked_key, geometry as leds_geometry, render
from .script import random_moves, script_moves
from .console import QUIT_KEYS
from ..pico import (
    Pico,
    PicoError,
    bundle_files,
    canvas_from_wire,
    load_profile,
    make_flash,
    menu_keys,
    write_uf2,
)


def flash_file(data: str, profile: str, uf2: str | None = None) -> Path:
    """The emulated Pico's flash. The stock image with the bundle: DATA/pico-flash.bin, made
    the first time. uf2 (an image path, '' for this tree's): DATA/pico-uf2-flash.bin, the
    image written over its firmware at each start as a copy onto RPI-RP2 does, its games kept."""
    if uf2 is not None:
        path = Path(data) / "pico-uf2-flash.bin"
        if uf2:
            image = Path(uf2)
        else:
            from ..uf2 import build

            image = build(profile if profile in firmware.profile_names() else "bawo-4x8")
        if not path.exists():
            make_flash(path, None, image=image)  # blank: MicroPython makes the filesystem
        else:
            write_uf2(path, image)
        return path
    path = Path(data) / "pico-flash.bin"
    if not path.exists():
        from ..flash import build as build_bundle

        with tempfile.TemporaryDirectory(prefix="bawo-bundle-") as tmp:
            build_bundle(tmp, profile, True, "armv6m")
            make_flash(path, bundle_files(tmp))
    return path


def frame_line(pico: Pico, profile_file: str, wire: bytes) -> str:
    prof = load_profile(profile_file)
    w, h = prof["leds"]["width"], prof["leds"]["height"]
    return "%dx%d %s" % (w, h, canvas_from_wire(profile_file, wire).hex())


def _position(pico: Pico) -> dict[str, Any]:
    from ..ports import connect

    ser, link, _ = connect(pico.port, None, timeout=2.0)
    try:
        return link.position()
    finally:
        ser.close()


def status_of(pos: dict[str, Any]) -> dict[str, Any]:
    """The simulator's status fields (for its caption) from the board's POSITION reply."""
    st = {
        "mode": pos.get("mode"),
        "game": pos.get("game"),
        "id": pos.get("id", ""),
        "ply": pos.get("ply", 0),
        "turn": pos.get("turn"),
        "pos": pos.get("position"),
    }
    if pos.get("result"):
        st["result"], st["reason"] = pos["result"]["result"], pos["result"]["reason"]
    return st


def run(args: Any, data: str) -> int:
    profile_file = firmware.profile_path(args.profile)
    prof = load_profile(profile_file)
    scripted = args.moves or args.script or args.random is not None or args.demo
    if args.ai_vs_ai or args.opponent not in (None, "people") or args.heap or args.mpy:
        raise SimError(
            "--pico plays people against people in the scripted modes; "
            "use the menu (interactive) for the board's AI"
        )
    path = flash_file(data, args.profile if args.uf2 is not None else profile_file, args.uf2)
    pico = Pico(prof, path, realtime=not scripted)
    try:
        # Written whole, then renamed: a tool that finds the file reads the whole path.
        (Path(data) / "port.tmp").write_text(pico.port + "\n")
        os.replace(Path(data) / "port.tmp", Path(data) / "port")
        print(
            "bawo sim: emulated Pico (MicroPython v1.28.0 rp2 on rp2040js, %s), flash %s, "
            "serial port %s"
            % (
                "the UF2 image" if args.uf2 is not None else "the stock image with the bundle",
                path,
                pico.port,
            ),
            flush=True,
        )
        pico.wait_boot(timeout=600)
        if scripted:
            return _scripted(args, pico, prof, profile_file)
        if args.headless or not sys.stdin.isatty():
            print("bawo sim: running headless; Ctrl-C stops", flush=True)
            try:
                while pico.proc.poll() is None:
                    time.sleep(0.5)
            except KeyboardInterrupt:
                pass
            return 0
        return _interactive(pico, prof, profile_file)
    except PicoError as e:
        raise SimError(str(e))
    finally:
        pico.close()
        _withdraw_port(data, pico.port)


def _withdraw_port(data: str, port: str) -> None:
    """Remove DATA/port if it still names this Pico's pty (never another simulator's)."""
    f = Path(data) / "port"
    try:
        if f.read_text().strip() == port:
            f.unlink()
    except OSError:
        pass


def _scripted(args: Any, pico: Pico, prof: dict[str, Any], profile_file: str) -> int:
    game = args.game
    speed = args.speed or 8
    # Settled: no frame for longer than the slowest animation step (a capture: 3 x 700 ms).
    quiet = 80 if speed == 8 else 2200

    def tap(k: int) -> None:
        n = len(pico.frames)
        pico.tap(k, settle=False)
        pico.settle(n, quiet_ms=quiet)

    pico.settle(0)
    pos = _position(pico)
    if pos.get("mode") == "play":
        tap(pico.menu_key)  # a game was in progress on this flash: to the menu
    for k in menu_keys(prof, game, "people", speed):
        tap(k)
    tap(pico.menu_key)
    pos = _position(pico)
    moves = script_moves(args) or []
    if args.random is not None or args.demo:
        moves = random_moves(game, pos["position"], args.seed, 100000 if args.demo else args.random)
    cells = key_of_cell(profile_file, game)
    for mv in moves:
        if pos.get("result"):
            break
        ply = pos["ply"]
        for k in presses_for(game, pos["position"], mv, cells):
            tap(k)
        pos = _position(pico)
        if pos["ply"] != ply + 1:
            raise SimError(
                "the board did not take move %s at ply %d (position %s)"
                % (mv, ply + 1, pos["position"])
            )
        if not args.quiet and not args.headless:
            print("  ply %3d  %-6s %s" % (pos["ply"], mv, pos["position"]))
    if not args.headless:
        print(
            render(
                frame_line(pico, profile_file, pico.last_frame()),
                profile_file,
                status_of(pos),
                color=sys.stdout.isatty(),
            )
        )
    res = pos.get("result")
    if res:
        print(
            "result: %s (%s) after %d plies; record %s"
            % (res["result"], res["reason"], pos["ply"], pos["id"])
        )
    else:
        print("no result yet after %d plies: %s" % (pos["ply"], pos["position"]))
    print("emulated time %.3f s" % (pico.now() / 1e9))
    return 0


def _interactive(pico: Pico, prof: dict[str, Any], profile_file: str) -> int:
    import termios
    import tty

    rows = prof["grid"]["rows"]
    keymap = key_map(rows, pico.menu_key, pico.back_key)
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    sys.stdout.write("\x1b[?1000h\x1b[?1006h\x1b[2J")
    geometry = leds_geometry(profile_file)
    last = None
    try:
        while pico.proc.poll() is None:
            r, _, _ = select.select([sys.stdin], [], [], 0.05)
            if r:
                ch = os.read(fd, 64).decode(errors="ignore")
                if ch in QUIT_KEYS:  # q is a pocket (North's A8), as in `bawo sim`
                    break
                k = clicked_key(ch, geometry) if ch.startswith("\x1b[<") else keymap.get(ch)
                if k is not None:
                    pico.press(k, hold_ms=60, gap_ms=0)
            wire = pico.last_frame()
            if wire is None:
                continue
            # The LEDs only: this terminal has no status of the board's to caption them with.
            screen = render(
                frame_line(pico, profile_file, wire),
                profile_file,
                {},
                color=not os.environ.get("NO_COLOR"),
            ).rsplit("\n", 1)[0]
            if screen != last:
                last = screen
                sys.stdout.write(
                    "\x1b[H"
                    + screen.replace("\n", "\x1b[K\n")
                    + "\x1b[K\n  emulated Pico (rp2 image on rp2040js): pocket letters, "
                    "m=MENU, Backspace=BACK, Q=quit; port %s\x1b[K\n\x1b[J" % pico.port
                )
                sys.stdout.flush()
    finally:
        sys.stdout.write("\x1b[?1000l\x1b[?1006l\n")
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return 0
