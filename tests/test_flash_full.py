"""A full flash never stops the board: tests/mp/check_flash_full.py runs the real app, journal
and handler on a full littlefs (MicroPython unix port, vfs.VfsLfs2 on a RAM block device) and on
a byte-budgeted directory under CPython."""

import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_flash_full')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)


def test_ack_frees_room_even_when_a_rename_does_not_fit(tmp_path, monkeypatch):
    # littlefs can refuse even a rename (a metadata commit) when it is full. The host has the
    # game once it ACKs it, so the record goes: else a sync could never make room. (CPython
    # only: MicroPython's os module cannot be patched, and a real littlefs that refuses a
    # rename but not a remove is hard to reach on purpose.)
    root = CHECKS._flash()
    ids = CHECKS._fill(root)
    J = CHECKS.journal
    j = J.Journal(root, 'tb', min_free=4096, log=lambda m: None)

    def no_room(a, b):
        raise OSError(28, 'No space left on device')

    monkeypatch.setattr(J.os, 'rename', no_room)
    assert j.mark_synced(ids[0])
    monkeypatch.undo()
    assert CHECKS._records(root) == [i + '.rec' for i in ids[1:]]


FILL = r"""
import sys, json
from sim_flash import mount_flash
from journal import Journal
mount_flash(sys.argv[1], int(sys.argv[2]), '/flash')
j = Journal('/flash/games', 'testboard', min_free=0, log=lambda m: None)
ids = []
for gid, text in json.loads(open(sys.argv[3]).read()):
    try:
        j.finish(gid, text)
    except OSError as e:
        print('full', e.args[0])
        break
    ids.append(gid)
print(json.dumps(ids))
"""


def said(board, prefix, wait_s=5.0):
    # The board's messages reach board.log through a drain thread: a reply over the link can
    # come before the message printed just before it is read off the pipe.
    deadline = time.monotonic() + wait_s
    while not any(x.startswith(prefix) for x in board.log):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_simulated_board_on_a_full_littlefs_syncs_back_to_normal(tmp_path):
    # The simulator's flash is a littlefs image (BAWO_LFS), filled with unsynced games by the
    # board's own journal. Then, over the serial link as `bawo` does it: NEW, moves, a power
    # cut, a reboot, `bawo sync`; the game is saved whole once the sync made room.
    import json
    import threading
    import serial
    from conftest import run_micropython, FIRMWARE, FIRMWARE_SIM, ROOT
    from _host_helpers import random_record
    from bawo import sim
    from bawo.db import Log
    from bawo.boardlink import BoardLink
    from bawo.sync import sync

    image, kb = tmp_path / "flash.img", 64
    recs = [random_record(i, "testboard-%04d" % (i + 1)) for i in range(40)]
    (tmp_path / "recs.json").write_text(json.dumps([[r.header["Id"], r.to_text()] for r in recs]))
    (tmp_path / "fill.py").write_text(FILL)
    r = run_micropython(
        [str(tmp_path / "fill.py"), str(image), str(kb), str(tmp_path / "recs.json")],
        path=(FIRMWARE, FIRMWARE_SIM, ROOT),
    )
    assert r.returncode == 0 and "full 28" in r.stdout, r.stdout + r.stderr
    filled = json.loads(r.stdout.splitlines()[-1])
    assert 3 <= len(filled) < 40

    def boot():
        relay = sim.PtyRelay()
        board = sim.BoardProcess(
            "bawo-4x8",
            str(tmp_path / "data"),
            fake=False,
            speed=8,
            link=relay.board_ends(),
            extra_env={
                "BAWO_LFS": "%s:%d" % (image, kb),
                "BAWO_BOARD_ID": "testboard",
                "BAWO_MIN_FREE": "8192",
            },
        )
        relay.start()

        def drain():
            try:
                while board.proc.poll() is None:
                    board.readline(timeout=3600)
            except Exception:
                pass

        threading.Thread(target=drain, daemon=True).start()
        ser = serial.Serial(relay.path, 115200, timeout=0.05)
        link = BoardLink(ser, timeout=5.0)
        link.hello()
        return board, relay, ser, link

    def power_cut(board, relay, ser):
        ser.close()
        relay.stop = True
        board.kill()

    board, relay, ser, link = boot()
    try:
        st = link.new_game("bawo")  # was: ERROR 9, OSError 28
        gid = st["id"]
        assert gid == "testboard-%04d" % (len(filled) + 1)
        played = []
        for _ in range(24):
            mv = sorted(st["legal"])[0]
            st = link.move(mv)
            played.append(mv)
        assert st["ply"] == 24
        assert said(board, "M flash full"), board.log[-5:]
    finally:
        power_cut(board, relay, ser)
    board, relay, ser, link = boot()  # was: the same OSError at every boot
    try:
        st = link.position()
        assert st["id"] == gid and st["mode"] == "play"
        kept = st["ply"]
        assert kept < 24  # what was only in RAM went with the power
        for _ in range(2):  # still full: these stay in RAM until the sync
            st = link.move(sorted(st["legal"])[0])
        assert said(board, "M flash full"), board.log[-5:]
        log = Log(str(tmp_path / "games.sqlite"))
        try:
            rep = sync(link, log)
            assert sorted(g["id"] for g in log.games()) == sorted(filled)
        finally:
            log.close()
        assert rep.listed == len(filled)
        assert said(board, "M flash has room again"), board.log[-5:]
        for _ in range(4):  # journaled move by move again
            st = link.move(sorted(st["legal"])[0])
        total = st["ply"]
    finally:
        power_cut(board, relay, ser)
    board, relay, ser, link = boot()
    try:
        st = link.position()
        assert st["id"] == gid and st["ply"] == total == kept + 6
    finally:
        power_cut(board, relay, ser)
