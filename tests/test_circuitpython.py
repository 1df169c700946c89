"""The firmware on CircuitPython: the unmodified CircuitPython 10.2.1 image for the Pico on the same
emulated RP2040 (rp2040js, bawo.pico), with the bundle `bawo flash --circuitpython` installs
preloaded on its CIRCUITPY drive (FAT12), pressed through keypad.KeyMatrix's pins and watched
on the data pin that neopixel_write drives through PIO.

These never skip: without Node or the emulator they fail (bawo.pico.PicoError)."""
import json
import sqlite3

import pytest

from bawo import sim
from bawo.flash_circuitpython import bundle
from bawo.pico import load_profile
from bawo.pico.circuitpython import CircuitPico, make_flash, read_files

from _pico_helpers import Twins, bawo, sim_games


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
