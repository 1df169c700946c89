"""The firmware on CircuitPython: the unmodified CircuitPython 10.2.1 image for the Pico on the same
emulated RP2040 (rp2040js, bawo.pico), with the bundle `bawo flash --circuitpython` installs
preloaded on its CIRCUITPY drive (FAT12), pressed through keypad.KeyMatrix's pins and watched
on the data pin that neopixel_write drives through PIO.

These never skip: without Node or the emulator they fail (bawo.pico.PicoError)."""
import json
import sqlite3

import pytest

from bawo import firmware, sim
from bawo.flash_circuitpython import bundle
from bawo.pico import load_profile
from bawo.pico.circuitpython import CircuitPico, make_flash, read_files

from _pico_helpers import Twins, journal_on_flash, position, bawo, sim_games


@pytest.fixture(scope="module")
def cp_bundle():
    return bundle("bawo-4x8")


def boot_cp(flash_file, files, profile="bawo-4x8"):
    """A Pico running CircuitPython whose CIRCUITPY drive holds `files`, at its first frame."""
    make_flash(flash_file, files)
    p = CircuitPico(load_profile(profile), flash_file)
    try:
        p.wait_boot(timeout=600)
    except BaseException:
        p.close()
        raise
    return p


def test_bundle_boots_to_the_menu_and_syncs_over_usb(cp_bundle, tmp_path):
    recs = sim_games(tmp_path / "sim", [("oware", 2983), ("bawo", 25)])
    files = dict(cp_bundle)
    files.update({"games/" + n: b for n, b in recs.items()})
    pico = boot_cp(tmp_path / "flash.bin", files)
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "simboard"), speed=None)
    db = tmp_path / "log.sqlite"
    try:
        # A whole 512-LED frame in WS2812 timing, from neopixel_write's PIO program.
        t0, t1, wire = pico.frames[0]
        assert len(wire) == 3 * 512
        assert 15.0e6 < t1 - t0 < 16.5e6
        pico.settle(0)
        assert board.status["mode"] == "menu"
        Twins(pico, board, board.profile_file).check(pico.last_frame())
        # `bawo sync` on the USB console, the Pico's only serial port under CircuitPython.
        r = bawo("sync", "--port", pico.port, "--db", str(db), "--json")
        assert r.returncode == 0, r.stderr + r.stdout
        assert sorted(json.loads(r.stdout)["added"]) == sorted(n[:-4] for n in recs)
        r = bawo("sync", "--port", pico.port, "--db", str(db), "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["added"] == [], r.stdout
    finally:
        board.kill()
        pico.close()
    with sqlite3.connect(str(db)) as c:
        ids = [row[0] for row in c.execute("SELECT id FROM games")]
    assert sorted(ids) == sorted(n[:-4] for n in recs)
    # boot.py made the drive writable to the board: the records were renamed synced on FAT.
    on_flash = read_files(tmp_path / "flash.bin")
    for n, data in recs.items():
        assert "games/" + n not in on_flash
        assert on_flash["games/" + n[:-4] + ".syn"] == data
    for path, data in cp_bundle.items():
        assert on_flash[path] == data, path


# slow: minutes of emulated CircuitPython (it compiles ~180 KB of .py at each boot); outside the
# 10-minute test command until the bundle ships precompiled (issue 13's closing note). Run: -m slow
@pytest.mark.slow
def test_whole_bawo_game_by_presses_settles_to_the_micropython_frames(cp_bundle, tmp_path):
    # The simulator is the same firmware under MicroPython (unix port); tests/test_pico.py shows
    # MicroPython's Pico image settling to its frames, so equal here means equal to both.
    pico = boot_cp(tmp_path / "flash.bin", cp_bundle)
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "sim"), speed=None)
    try:
        t = Twins(pico, board, board.profile_file)
        pico.settle(0)
        t.settings("bawo", "people", speed=8)
        st = board.idle()
        assert st["mode"] == "play" and st["game"] == "bawo" and st["ply"] == 0
        moves = sim.random_moves("bawo", st["pos"], 25, 400)
        st = t.play("bawo", moves)
        assert st.get("result"), st
        assert t.compared >= len(moves)
    finally:
        board.kill()
        pico.close()
    files = read_files(tmp_path / "flash.bin")
    assert any(p.startswith("games/") and p.endswith(".rec") for p in files), sorted(files)


# -- bawo flash --circuitpython: onto a mounted CIRCUITPY drive ---------------------------------
def _drive(tmp_path):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text("Adafruit CircuitPython 10.2.1 on 2025-01-01; Raspberry Pi Pico with rp2040\n")
    return d


def _drive_files(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_flash_circuitpython_copies_the_bundle_and_checks_every_file(cp_bundle, tmp_path):
    d = _drive(tmp_path)
    r = bawo("flash", "--circuitpython", str(d), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "%d of %d file(s) would be copied" % (len(cp_bundle), len(cp_bundle)) in r.stdout
    assert sorted(_drive_files(d)) == ["boot_out.txt"]          # a dry run copies nothing
    r = bawo("flash", "--circuitpython", str(d))
    assert r.returncode == 0, r.stderr
    assert "copied %d file(s), all %d verified" % (len(cp_bundle), len(cp_bundle)) in r.stderr
    on = _drive_files(d)
    for p, data in cp_bundle.items():
        assert on[p] == data, p
    assert "lib/neopixel.py" in on and "code.py" in on and "boot.py" in on
    assert not any(p.endswith(".mpy") or p in ("hw_sim.py", "board_sim.py") for p in on)
    # Up to date: nothing copied, all checked. A file changed on the drive is found and replaced.
    r = bawo("flash", "--circuitpython", str(d))
    assert "copied 0 file(s), all %d verified" % len(cp_bundle) in r.stderr, r.stderr
    (d / "app.py").write_bytes(b"# edited by hand\n")
    r = bawo("flash", "--circuitpython", str(d), "--dry-run")
    assert "changed  app.py" in r.stdout and "1 of %d file(s)" % len(cp_bundle) in r.stdout, r.stdout
    r = bawo("flash", "--circuitpython", str(d))
    assert "copied 1 file(s)" in r.stderr and (d / "app.py").read_bytes() == cp_bundle["app.py"]


def test_flash_circuitpython_refuses_what_is_not_a_writable_circuitpy_drive(tmp_path):
    import os
    r = bawo("flash", "--circuitpython", str(tmp_path / "nowhere"))
    assert r.returncode != 0 and "not a directory" in r.stderr and "Traceback" not in r.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    r = bawo("flash", "--circuitpython", str(plain))
    assert r.returncode != 0 and "not a CircuitPython drive" in r.stderr, r.stderr
    assert list(plain.iterdir()) == []
    d = _drive(tmp_path)
    os.chmod(d, 0o555)
    try:
        if os.access(d, os.W_OK):     # root ignores permission bits: a file in the way instead
            os.chmod(d, 0o755)
            (d / "lib").write_text("a file where the drive needs a folder")
        r = bawo("flash", "--circuitpython", str(d))
    finally:
        os.chmod(d, 0o755)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "cannot write" in r.stderr, r.stderr


def test_ports_list_a_pico_running_circuitpython_as_a_board(monkeypatch):
    import types
    from serial.tools import list_ports
    from bawo import ports
    fake = [types.SimpleNamespace(device="/dev/ttyACM7", vid=0x239A, pid=0x80F4, serial_number="x",
                                  description="Pico - CircuitPython CDC control"),
            types.SimpleNamespace(device="/dev/ttyACM8", vid=0x239A, pid=0x8000, serial_number="y",
                                  description="another Adafruit board")]
    monkeypatch.setattr(list_ports, "comports", lambda: fake)
    monkeypatch.delenv("BAWO_PORT", raising=False)
    monkeypatch.delenv("BAWO_SIM", raising=False)
    assert ports.resolve() == ["/dev/ttyACM7"]


# -- power cuts during journal writes on FAT ----------------------------------------------------
def power_cut_images(bundle_files, tmp_path, want, seed):
    """Play Bawo by presses on CircuitPython while the emulator copies the flash at random
    instants among its flash writes (right after each sector erase, and at random bytes
    programmed): each copy is what a
    power cut at that instant leaves. A move is acknowledged once the board shows its first
    frame after the move's last press. Returns (images, stats): for each image the journal's
    moves on its FAT (read by the firmware's own journal code), the acknowledged moves, and
    the 4 KiB flash block that was erased and not yet programmed again (if any)."""
    import random
    from shared_rules import State, game
    from bawo.pico import menu_keys
    prof = load_profile("bawo-4x8")
    cells = sim.key_of_cell(firmware.profile_path("bawo-4x8"), "bawo")
    rng = random.Random(seed)
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    pico = boot_cp(tmp_path / "flash.bin", bundle_files)
    played = []            # (move text, emulated ns of its first frame)
    try:
        pico.settle(0)
        for k in menu_keys(prof, "bawo", "people", 8):
            pico.tap(k)
        pico.tap(pico.menu_key)
        pos = position(pico, timeout=5.0)
        assert pos["mode"] == "play" and pos["ply"] == 0, pos
        st = State(game("bawo"), pos["position"])
        # Right after each 4 KiB erase (the worst instant of a block's rewrite) and at random
        # bytes programmed: about 4 erases and 13 random bytes a move, so 60 images take 4 moves.
        pico.command("snap", p=0.0008, on_erase=True, seed=seed, dir=str(snaps), max=want)
        while st.outcome() is None and len([e for e in pico.events if e.get("ev") == "snap"]) < want:
            mv = st.move_str(rng.choice(sorted(st.legal_moves)))
            keys = sim.presses_for("bawo", str(st.position), mv, cells)
            for k in keys[:-1]:
                pico.tap(k)
            n = len(pico.frames)
            pico.tap(keys[-1])
            assert len(pico.frames) > n, "no frame after %s" % mv
            played.append((mv, pico.frames[n][0]))
            st.push(mv)
        pico.command("snap", p=0, dir=None)
        end = position(pico, timeout=5.0)
        assert end["ply"] == len(played), (end, played)
        programmed = pico.command("time")["writes"]
    finally:
        pico.close()
    images = [e for e in pico.events if e.get("ev") == "snap"]
    stats = {"images": len(images), "moves": len(played), "in_flash_command": 0,
             "in_erase_window": 0, "flash_writes_per_move": programmed // max(1, len(played)),
             "lost": []}
    header = None
    for ev in images:
        try:
            files = read_files(ev["path"])
            cur = journal_on_flash(files, tmp_path / "j")
        except Exception:               # not even a FAT volume any more
            files, cur = {}, None
        acked = [m for m, t in played if t <= ev["t"]]
        moves = cur[1] if cur else []
        if cur:
            header = header or cur[0]
            assert cur[0]["id"] == header["id"]
            # Never a move that was not played, never more than the one being written.
            assert moves == [m for m, _ in played][:len(moves)] and len(moves) <= len(acked) + 1, moves
        ev["moves"], ev["acked"] = moves, acked
        ev["lost"] = moves[:len(acked)] != acked
        if ev["lost"]:
            stats["lost"].append({"t": ev["t"], "acked": len(acked), "journal": len(moves) if cur else None,
                                  "erased_block": "0x%x+%d (%d programmed again)" % tuple(ev["erased"]) if ev["erased"] else None,
                                  "volume": "readable" if files else "unreadable",
                                  "games_dir": any(p.startswith("games/") for p in files)})
        stats["in_flash_command"] += ev["cmd"] is not None
        stats["in_erase_window"] += ev["erased"] is not None
    print("circuitpython power cuts:", json.dumps(stats))
    return images, stats


@pytest.fixture(scope="module")
def cut_images(cp_bundle, tmp_path_factory):
    import os
    want = int(os.environ.get("BAWO_CP_CUTS", "60"))
    return power_cut_images(cp_bundle, tmp_path_factory.mktemp("cuts"), want, seed=7)


# slow: minutes of emulated CircuitPython (it compiles ~180 KB of .py at each boot); outside the
# 10-minute test command until the bundle ships precompiled (issue 13's closing note). Run: -m slow
@pytest.mark.slow
def test_power_cut_images_on_fat_resume_where_the_journal_ends(cut_images):
    """At least 50 cuts among journal writes, over several moves; an image whose journal
    survived boots on CircuitPython and resumes exactly at its last journaled move."""
    from shared_rules import State, game
    images, stats = cut_images
    assert stats["images"] >= 50 and stats["moves"] >= 2, stats
    assert all(e["cmd"] is not None or e["erased"] is not None for e in images)
    ev = [e for e in images if not e["lost"] and e["moves"] and e["erased"] is not None][-1]
    p = CircuitPico(load_profile("bawo-4x8"), ev["path"])
    try:
        p.wait_boot(timeout=600)
        pos = position(p, timeout=5.0)
    finally:
        p.close()
    s = State(game("bawo"))
    for m in ev["moves"]:
        s.push(m)
    assert pos["mode"] == "play" and pos["ply"] == len(ev["moves"]), (pos, ev["moves"])
    assert pos["position"] == str(s.position), pos


# slow: minutes of emulated CircuitPython (it compiles ~180 KB of .py at each boot); outside the
# 10-minute test command until the bundle ships precompiled (issue 13's closing note). Run: -m slow
@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="CircuitPython rewrites a whole 4 KiB flash block (erase, then "
                   "program) for every FAT sector it writes; a cut in between loses the block, and with "
                   "it earlier journal lines or the games/ directory entry (measured: 43 of 60 cuts; see "
                   "hardware/README.md). Not fixed: strict, so this fails once it holds.")
def test_power_cuts_during_journal_writes_on_fat_lose_no_acknowledged_move(cut_images):
    images, stats = cut_images
    assert not stats["lost"], "%d of %d cuts lost acknowledged moves: %s" % (
        len(stats["lost"]), len(images), stats["lost"][:3])


# -- heap ---------------------------------------------------------------------------------------
# slow: minutes of emulated CircuitPython (it compiles ~180 KB of .py at each boot); outside the
# 10-minute test command until the bundle ships precompiled (issue 13's closing note). Run: -m slow
@pytest.mark.slow
def test_level_5_game_fits_in_the_circuitpython_heap(cp_bundle, tmp_path):
    """The board plays itself at level 5 (both sides, BAWO_CP_HEAP_PLIES plies, 6 by default;
    a whole game with a large number) on CircuitPython's heap; the smallest free heap is
    printed. A MemoryError would end code.py without the HEAP line."""
    import os
    import re
    import time
    from pathlib import Path
    plies = int(os.environ.get("BAWO_CP_HEAP_PLIES", "6"))
    files = dict(cp_bundle)
    files["code.py"] = (Path(__file__).parent / "cp_heapcheck.py").read_text().replace(
        "%(plies)d", str(plies)).replace("%(game)s", "bawo").encode()
    make_flash(tmp_path / "flash.bin", files)
    import serial
    pico = CircuitPico(load_profile("bawo-4x8"), tmp_path / "flash.bin")
    out = b""
    try:
        ser = serial.Serial(pico.port, timeout=0.5)
        deadline = time.monotonic() + 900
        while b"HEAP " not in out or not out.split(b"HEAP ", 1)[1].count(b"\n"):
            assert time.monotonic() < deadline, out[-500:]
            assert b"Traceback" not in out, out.decode(errors="replace")[-800:]
            out += ser.read(4096)
        ser.close()
    finally:
        pico.close()
    line = out.split(b"HEAP ", 1)[1].split(b"\n", 1)[0].decode()
    collected, raw, ply, thinks, think_ms, think_max, over = line.split()
    print("circuitpython level 5 bawo: smallest free heap %s bytes after collections (%s as "
          "found), %s plies, %s searches, longest %s ms" % (collected, raw, ply, thinks, think_max))
    assert int(ply) >= plies or over == "True"
    assert int(thinks) >= int(ply) - 1 and int(collected) > 0


# slow: minutes of emulated CircuitPython (it compiles ~180 KB of .py at each boot); outside the
# 10-minute test command until the bundle ships precompiled (issue 13's closing note). Run: -m slow
@pytest.mark.slow
def test_menu_held_at_power_on_leaves_the_drive_to_the_pc(cp_bundle, tmp_path):
    """boot.py's escape hatch: MENU held while the board powers up keeps CIRCUITPY writable to
    the PC; the board says so with a blue top row and writes nothing on the drive."""
    from bawo.pico import canvas_from_wire
    make_flash(tmp_path / "flash.bin", cp_bundle)
    prof = load_profile("bawo-4x8")
    pico = CircuitPico(prof, tmp_path / "flash.bin")
    try:
        pico.set_keys({pico.menu_key})
        pico.wait_boot(timeout=600)
        pico.set_keys(set())
        wire = pico.settle(0)
        for k in (0, pico.menu_key):              # presses do nothing: no game starts
            pico.tap(k)
    finally:
        pico.close()
    rgb = canvas_from_wire(firmware.profile_path("bawo-4x8"), wire)
    canvas_w = prof["leds"]["width"]
    px = [rgb[i:i + 3] for i in range(0, len(rgb), 3)]
    top, rest = px[:canvas_w], px[canvas_w:]
    assert all(p[2] > 0 and p[0] == 0 and p[1] == 0 for p in top), top
    assert all(p == b"\0\0\0" for p in rest)
    files = read_files(tmp_path / "flash.bin")
    assert not [p for p in files if p.startswith("games/")], sorted(files)


# -- differences found, checked under CPython with CircuitPython's modules faked ---------------
def test_clocks_wrap_where_circuitpython_ticks_wrap(monkeypatch):
    """CircuitPython has no time.ticks_ms/ticks_diff/sleep_ms/perf_counter; its
    supervisor.ticks_ms wraps at 2**29. The link's event resend timer and the AI's time cap
    must measure across that wrap (they used plain subtraction / perf_counter)."""
    import importlib.util
    import sys
    import types
    from conftest import FIRMWARE
    monkeypatch.setitem(sys.modules, "supervisor", types.SimpleNamespace(ticks_ms=lambda: 3))
    for name in ("compat", "link_cp", "ai_cp"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    impl = sys.implementation
    monkeypatch.setattr(sys, "implementation", types.SimpleNamespace(
        name="circuitpython", version=impl.version, cache_tag=impl.cache_tag, _multiarch=""))

    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    link = load("link_cp", FIRMWARE / "link.py")
    ai = load("ai_cp", FIRMWARE.parent / "shared_rules" / "ai.py")
    monkeypatch.setattr(sys, "implementation", impl)
    period = 1 << 29
    for mod in (link, ai):
        assert mod.ticks_ms() == 3
        assert mod.ticks_diff(5, period - 5) == 10, mod.__name__
        assert mod.ticks_diff(period - 5, 5) == -10, mod.__name__


def test_board_id_from_microcontroller_when_there_is_no_machine_module(monkeypatch):
    import sys
    import types
    import app
    monkeypatch.setitem(sys.modules, "machine", None)       # import machine -> ImportError
    monkeypatch.setitem(sys.modules, "microcontroller", types.SimpleNamespace(
        cpu=types.SimpleNamespace(uid=bytes.fromhex("e66038b7138f2a2c"))))
    assert app.board_id() == "pico-138f2a2c"
