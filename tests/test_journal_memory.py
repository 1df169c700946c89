"""A board's memory does not grow with the number of games it has ever played (issue 9).

The board's game counter only grows; LIST's cache used to be indexed by it, so a board that had
played a few hundred games could no longer answer LIST on its heap, and sync failed forever.
Both tests use a data dir whose counter says 100,000 games with five records on flash."""

import json
import threading


from conftest import run_micropython, FIRMWARE, ROOT, SIM_HEAP
from _host_helpers import journal_module, random_record
from bawo import sim
from bawo.boardlink import BoardLink

BOARD = "testboard"
LIFETIME = 100000


def old_board(root, last=LIFETIME, n=5):
    """A data dir as left by a board that played `last` games, `n` of them still on flash."""
    # The same five games whatever the counter: only their ids differ.
    J = journal_module()
    j = J.Journal(str(root), BOARD, min_free=0, log=lambda m: None)
    recs = []
    for k in range(n):
        rec = random_record(k, "%s-%04d" % (BOARD, last - n + 1 + k))
        j.finish(rec.header["Id"], rec.to_text())
        recs.append(rec)
    with open(str(root) + "/counter", "wb") as f:
        f.write(J.seal(str(last)))
    with open(str(root) + "/board_id", "w") as f:
        f.write(BOARD + "\n")
    return recs


def test_sync_a_board_that_played_100000_games_in_a_bounded_heap(tmp_path):
    # The simulated board as deployed (.mpy, a bounded heap) on a pty, the host's own link.
    flash = tmp_path / "flash"
    recs = old_board(flash)
    relay = sim.PtyRelay()
    board = sim.BoardProcess(
        "bawo-4x8",
        str(flash),
        fake=False,
        heap=SIM_HEAP,
        mpy_dir=sim.build_mpy(tmp_path / "mpy"),
        link=relay.board_ends(),
    )
    relay.start()

    said = []  # what the board printed, for the failure message

    def drain():
        try:
            while board.proc.poll() is None:
                said.append(board.readline(timeout=3600))
        except Exception as e:
            said.append(repr(e))

    threading.Thread(target=drain, daemon=True).start()
    import serial

    ser = serial.Serial(relay.path, 115200, timeout=0.05)
    try:
        link = BoardLink(ser, timeout=5.0)
        link.hello()
        for _ in range(3):  # every sync lists again: the second and third LIST use the cache
            games = link.list_games()
            assert [g["id"] for g in games] == [
                "%s-%d" % (BOARD, LIFETIME - 4 + i) for i in range(5)
            ]
        for g, rec in zip(games, recs):
            assert link.fetch_record(g["id"]).decode() == rec.to_text()
            link.ack_game(g["id"])
        assert all(g["synced"] for g in link.list_games())
        st = link.new_game("bawo")  # the next game number, past the counter
        assert st["id"] == "%s-%d" % (BOARD, LIFETIME + 1)
    except Exception:
        print("the board printed:", said[-30:], "exit", board.proc.poll())
        raise
    finally:
        ser.close()
        relay.stop = True
        board.kill()


HEAP_SCRIPT = r"""
import sys, os, gc
import protocol as P
from link import Link
from journal import Journal

class H:
    def __init__(self, j):
        self.j = j
    def list_games(self):
        return self.j.list_games()

out = []
j = Journal(sys.argv[1], %(board)r, min_free=0, log=lambda m: None)
link = Link(lambda: b'', out.append, H(j))
frame = P.encode(7, P.LIST, {'start': 0})
used = []
for k in range(3):   # first: records scanned; then from the cache
    gc.collect()
    before = gc.mem_alloc()
    gc.disable()     # every byte LIST allocates stays counted
    link._handle(P.Parser().feed(frame)[0])
    used.append(gc.mem_alloc() - before)
    gc.enable()
    link._last_key = None
print(out[-1].decode().split(' ')[2], used[0], used[1], used[2])
"""


def test_heap_used_by_list_does_not_depend_on_the_counter(tmp_path):
    script = tmp_path / "heap.py"
    script.write_text(HEAP_SCRIPT % {"board": BOARD})
    used = {}
    for last in (5, 1000, LIFETIME):
        root = tmp_path / ("d%06d" % last)  # one path length: only the counter differs
        old_board(root, last)
        r = run_micropython([str(script), str(root)], heapsize=SIM_HEAP, path=(ROOT, FIRMWARE))
        assert r.returncode == 0, r.stdout[-1500:] + r.stderr[-1500:]
        typ, first, cached, again = r.stdout.split()
        assert typ == "OK", r.stdout
        used[last] = (int(first), int(cached), int(again))
    print("bytes allocated by LIST (first, cached, cached) at counter 5 / 1000 / 100000:", used)
    # Ids are 2 digits longer at 100000 than at 5 ("-0005" vs "-100000"), in 5 games' strings:
    # that, and nothing proportional to the counter, is the difference.
    for k in range(3):
        assert abs(used[LIFETIME][k] - used[5][k]) <= 512, used
        assert abs(used[1000][k] - used[5][k]) <= 512, used


def test_cache_is_sized_by_the_records_on_flash_cpython(tmp_path):
    # The same journal under CPython: the cache's size follows the records, not the counter,
    # and a cached summary equals a freshly scanned one.
    J = journal_module()
    root = tmp_path / "d"
    old_board(root, LIFETIME, n=70)
    j = J.Journal(str(root), BOARD, min_free=0, log=lambda m: None)
    first = list(j.list_games())
    assert len(j.summaries[0]) == 64  # 70 records: datafiles.CACHE_MAX slots, whatever the counter
    assert list(j.list_games()) == first
    j.mark_synced(first[3]["id"])
    again = list(j.list_games())
    assert again[3]["synced"] and again[:3] == first[:3] and again[4:] == first[4:]
    fresh = J.Journal(str(root), BOARD, min_free=0, log=lambda m: None)
    assert list(fresh.list_games()) == again


def test_a_board_with_400_records_on_flash_boots_and_syncs_in_a_bounded_heap(tmp_path):
    # A board keeps its synced records until the flash is needed: thousands of them on a
    # Pico. Their names as a list (~100 bytes each on the 64-bit port) stopped the 160 KB
    # board at power-on from about 200 records on; now they take 4 bytes each.
    import os
    import _link_fuzz as F

    flash = tmp_path / "data"
    recs = old_board(flash, last=405, n=405)
    for rec in recs[:400]:
        gid = rec.header["Id"]
        os.rename(flash / (gid + ".rec"), flash / (gid + ".syn"))
    board = F.SimLink(str(tmp_path), SIM_HEAP, 1, ai=False, board_id=BOARD)
    try:
        # Asked again a little later on an ERROR 9 for memory, as the fuzzer's host does.
        link = F._PatientLink(F._PipePort(board), timeout=2.0, retries=3)
        link.hello()
        games = link.list_games()
        assert [g["id"] for g in games] == [r.header["Id"] for r in recs]
        assert [g["synced"] for g in games] == [True] * 400 + [False] * 5
        for rec in recs[400:]:
            assert link.fetch_record(rec.header["Id"]).decode() == rec.to_text()
            link.ack_game(rec.header["Id"])
        assert all(g["synced"] for g in link.list_games())
        assert board.alive(), board.b.stderr_text()
    finally:
        board.close()


def test_bawo_sync_of_500_unsynced_games_in_a_bounded_heap(tmp_path):
    # A club's board that went months without a PC: 500 finished games, none synced. The
    # user's own `bawo sync` (which takes ERROR 9 as the board's answer, unlike the patient
    # link above) against the simulated board under 160 KB. The LIST summaries' cache grew
    # with the records (to 512 slots) and its 2 KB arrays found no room: "board refused LIST:
    # error 9". It stays at 64 slots now.
    import os
    import subprocess
    import sys
    import tempfile
    from _host_helpers import seed_journal, headless_sim, stop_sim

    # A short data path, as a user's is: the simulated board's heap holds its path's strings,
    # and pytest's long tmp_path moved what was left in one piece enough to hide the failure.
    short = tempfile.TemporaryDirectory(dir="/tmp")
    data = os.path.join(short.name, "sim")
    recs = seed_journal(data, 500, board="sim-club")
    p, lines = headless_sim(data, "--heap", SIM_HEAP)
    try:
        assert "running headless" in lines[-1], lines
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "bawo.cli",
                "sync",
                "--sim",
                data,
                "--db",
                str(tmp_path / "log.sqlite"),
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-500:]
        added = json.loads(r.stdout)["added"]
        assert sorted(added) == sorted(rec.header["Id"] for rec in recs)
    finally:
        stop_sim(p)
        short.cleanup()
