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
