"""Helpers for the tests on the emulated Pico (MicroPython's rp2 image on rp2040js)."""

import json
import subprocess
import sys
from pathlib import Path

from bawo import firmware, sim
from bawo.pico import (
    Install,
    Pico,
    bundle_files,
    canvas_from_wire,
    load_profile,
    make_flash,
    menu_keys,
)

ROOT = Path(__file__).resolve().parent.parent


def build_bundle(dest, profile="bawo-4x8"):
    """The stock MicroPython image with what `bawo flash --bundle-only` builds on its
    filesystem, by the command itself."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bawo.cli",
            "flash",
            "--bundle-only",
            str(dest),
            "--profile",
            profile,
        ],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
    )
    assert r.returncode == 0, r.stderr + r.stdout
    return Install(bundle_files(dest))


def frozen_install(profile="bawo-4x8"):
    """The `bawo build-uf2` image of this tree, with nothing on the filesystem but, for another
    profile than the bawo-4x8 frozen in, that profile as profile.json (one image plays every
    game): a Pico given only the UF2. Built by the test run's controller as the run starts
    (conftest.py), or by the first test that asks (about a minute on 2 cores; a lock keeps it
    to one build), then taken from the cache until a firmware file changes."""
    from bawo.uf2 import build

    files = Install({}, image=build("bawo-4x8"))
    if profile != "bawo-4x8":
        with open(firmware.profile_path(profile), "rb") as f:
            files["profile.json"] = f.read()
    return files


def boot_pico(flash_file, files, profile="bawo-4x8"):
    """A Pico whose flash holds the MicroPython image and `files`, booted to its first frame."""
    make_flash(flash_file, files)
    p = Pico(load_profile(profile), flash_file)
    try:
        p.wait_boot(timeout=300)
    except BaseException:
        p.close()
        raise
    return p


def exec_on_pico(flash_file, files, module, timeout=3000, profile="bawo-4x8"):
    """Boot a Pico with `files` on its flash and import `module` there by mpremote (after its
    soft reset, so the heap starts as at power-on); the finished mpremote process."""
    pico = boot_pico(flash_file, files, profile)
    try:
        return subprocess.run(
            [sys.executable, "-m", "mpremote", "connect", pico.port, "exec", "import " + module],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        pico.close()


def sim_canvas(line):
    return bytes.fromhex(line.split(" ", 1)[1].strip())


HOLD_MS = 120


class Twins:
    """The emulated Pico and the unix-port simulator (`bawo sim`) pressed alike; after every
    press both settle and their frames must be equal byte for byte. A selection or a
    finished game blinks: the Pico may have settled in either phase of the blink, so the
    simulator's other phase (BLINK_MS later) is accepted too."""

    def __init__(self, pico, board, profile_file):
        self.pico, self.board, self.profile_file = pico, board, profile_file
        self.compared = 0
        self.quiet_ms = 80

    def tap(self, key):
        n = len(self.pico.frames)
        # Held as long as a person holds a pocket: a 30 ms press can fall whole inside a
        # flash erase (45 ms, the scan stalled) and never be seen, as on the real board.
        self.pico.tap(key, hold_ms=HOLD_MS, settle=False)
        wire = self.pico.settle(n, quiet_ms=self.quiet_ms)
        self.board.tap(key)
        self.board.idle()
        # A press that plays a move is answered at once (its pocket lit), then the board
        # journals it; with the flash chip's times that can be quiet for longer than the
        # settle window (a finished game's record: several 45 ms erases). Settled then means
        # the next frame, if one comes, and quiet after it. The emulator runs on between
        # commands, so on a loaded machine more of its time passes per press: a few more
        # windows are given before the frames must be equal.
        for more in range(4):
            try:
                self.check(wire)
                return
            except AssertionError:
                if more == 3:
                    raise
            wire = self.pico.settle(len(self.pico.frames), quiet_ms=self.quiet_ms)

    def check(self, wire):
        got = canvas_from_wire(self.profile_file, wire)
        want = sim_canvas(self.board.get_frame())
        if got != want:
            self.board.send("w 450")  # app.BLINK_MS: the other phase of a blink
            other = sim_canvas(self.board.get_frame())
            assert got == other, (
                "the Pico's settled frame differs from the simulator's "
                "(status %s; the Pico's last frames at ms %s, now %d ms)"
                % (
                    json.dumps(self.board.status),
                    [(t // 1000000, e // 1000000) for t, e, _ in self.pico.frames[-4:]],
                    self.pico.now() // 1000000,
                )
            )
        self.compared += 1

    def settings(self, game, opponent="people", speed=8, level=None):
        prof = load_profile(self.profile_file)
        for k in menu_keys(prof, game, opponent, speed, level):
            self.tap(k)
        self.tap(self.pico.menu_key)
        # The new game is journaled after its first frame (its file made: several erases,
        # no frame): a second of the board's time lets that finish before the first move.
        self.pico.run_ms(1000)
        # Settled: no frame for longer than the longest animation step (a narrow grid's menu has
        # fewer speed levels, so its fastest may not be instant).
        from animator import SPEED_MS

        self.quiet_ms = (
            80 + 3 * SPEED_MS[self.board.status["settings"]["speed"]]
        )  # a capture: 3 steps

    def play(self, game, moves):
        cells = sim.key_of_cell(self.profile_file, game)
        st = self.board.idle()
        for mv in moves:
            ply = st["ply"]
            for k in sim.presses_for(game, st["pos"], mv, cells):
                self.tap(k)
            st = self.board.status
            assert st["ply"] == ply + 1 and st["moves"][-1] == mv, (mv, st)
        if st.get("result"):
            # The record is written after the last move's frame: long after, it still shows
            # the finished game (blinking).
            self.pico.run_ms(1000)
            self.check(self.pico.last_frame())
        return st


def scripted_game(prof, moves=2):
    """A boot, the menu's choices, MENU and `moves` Bawo moves (a move a side, the first legal
    in order) as a runner key script (cfg.script: keys at emulated instants, so the run
    depends on nothing outside the emulator); returns (script, emulated ns it ends, presses)."""
    from shared_rules import State, game

    cells = sim.key_of_cell(firmware.profile_path("bawo-4x8"), "bawo")
    st = State(game("bawo"))
    keys = list(menu_keys(prof, "bawo", "people", 8)) + [None]  # None: MENU
    for _ in range(moves):
        mv = st.legal_move_strs()[0]
        keys += sim.presses_for("bawo", str(st.position), mv, cells)
        st.push(mv)
    ms = 1_000_000
    n_matrix = len(prof["keys"]["rows"]) * len(prof["keys"]["cols"])
    script, t = [], 760 * ms
    for k in keys:
        script += [[t, [n_matrix if k is None else k]], [t + 40 * ms, []]]
        t += 160 * ms
    return script, t + 300 * ms, len(keys)


def sim_games(dest, runs):
    """Finished games written by the firmware under the unix port (`bawo sim`): {file name:
    bytes} of its record files. runs: [(game, seed)]; each plays `--random 400 --seed`."""
    for game, seed in runs:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "bawo.sim",
                "--game",
                game,
                "--random",
                "400",
                "--seed",
                str(seed),
                "--data",
                str(dest),
                "--quiet",
            ],
            capture_output=True,
            text=True,
            cwd=str(ROOT),
        )
        assert r.returncode == 0 and "result: " in r.stdout, r.stderr + r.stdout
    return {p.name: p.read_bytes() for p in sorted(Path(dest).glob("*.rec"))}


def bawo(*args, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "bawo.cli", *args],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=timeout,
    )


def journal_on_flash(files, work, nvm=None):
    """(journal, (header, moves) or None): the game in progress among a board's files (a flash
    or drive image read back), read by the firmware's own journal code under CPython (a torn
    last line dropped, as the board does at boot). nvm: the bytes of CircuitPython's
    microcontroller.nvm, where the board keeps it on CircuitPython (journal_nvm)."""
    import shutil
    from journal import Journal
    from journal_nvm import NvmJournal

    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    for p, data in files.items():
        if p.startswith("games/"):
            (work / p[6:]).write_bytes(data)
    if nvm is None:
        j = Journal(str(work), "check", log=lambda m: None)
    else:
        j = NvmJournal(str(work), "check", nvm=bytearray(nvm), min_free=0, log=lambda m: None)
    return j, j.read_current()


def position(pico, timeout=10.0):
    """POSITION over the board's USB serial port (a wall-clock timeout: an emulator on a busy
    PC runs several times slower than the Pico it emulates)."""
    from bawo.ports import connect

    ser, link, _info = connect(pico.port, None, timeout=timeout)
    try:
        return link.position()
    finally:
        ser.close()
