"""The smallest heap the board's firmware needs, per scenario, against the 160 KB budget.

    python bench/heap.py [--only sync-new|play-sync] [--lo 120] [--hi 240]

The simulated board (the real firmware from .mpy files, as on a Pico, under
`micropython -X heapsize=<n>k`) runs a scenario at a heap size; a bisection finds the smallest
size in KB at which every request of it is answered OK. Scenarios:

  sync-new   boot a board whose game counter says 100,000 games with 5 records on flash, sync
             them (LIST three times, GET and ACK_GAME each), then NEW: tests/test_journal_memory.py
             runs it at 160k in every test run.
  play-sync  boot, NEW Oware against the board's AI (level 1), the person's moves to ply 20,
             a LIST and a GET mid-game, 10 plies more: what the well-formed fuzzer
             (bench/link_fuzz.py) asks of the board all the time.

The unix port is 64-bit: its objects and bytecode take about twice the room they take on the
Pico's 32-bit port, and the simulator's own harness (board_sim, hw_sim) sits in the same heap.
The ratio printed is smallest heap / 160 KB: at most 1 meets the budget, and the margin left is
what fragmentation may take.

--pico: the same scenarios on the Pico's own MicroPython (the rp2 image on the emulated RP2040,
the bundle `bawo flash` builds, the board's data on its flash), the heap cut to each size by a
ballast that boot.py takes before main.py runs (tests/_pico_fuzz.py), the requests sent by
pyserial on the emulated USB serial. That is the board's own heap, 32-bit objects and no
harness in it.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import _link_fuzz as F  # noqa: E402
from _link_helpers import P  # noqa: E402
from _host_helpers import seed_journal, journal_module  # noqa: E402
from test_journal_memory import old_board  # noqa: E402
from bawo.sim import SimError  # noqa: E402

BUDGET_KB = 160


class _Run:
    """A scenario's requests on the simulator: each must be answered OK."""

    def __init__(self, s):
        self.s = s
        self.seq = 0

    def ok(self, typ, payload=None):
        self.seq += 1
        r = self.s.request(self.seq, typ, payload)
        if r is None or r.type != P.OK:
            raise AssertionError("%s: %r" % (typ, r))
        return r.payload

    def board_moves(self):
        self.s.run(3000)


class _PicoRun(_Run):
    """The same on the emulated Pico (a tests/_pico_fuzz.PicoLink), on the wall clock."""

    def ok(self, typ, payload=None):
        r = super().ok(typ, payload)
        if self.s.crash:
            raise AssertionError("the board crashed: %r" % self.s.crash)
        return r

    def board_moves(self, limit_s=10.0):
        """Wait until the board has moved: South to move or the game over."""
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            self.s.read(0.2)
            p = self.ok(P.POSITION)
            if p.get("result") or p["turn"] == "S":
                return
        raise AssertionError("the board did not move within %.0f s" % limit_s)


def sync_new_steps(r):
    r.ok(P.HELLO)
    for _ in range(3):
        games = r.ok(P.LIST, {"start": 0})["games"]
    for g in games:
        r.ok(P.GET, {"id": g["id"]})
        r.ok(P.ACK_GAME, {"id": g["id"]})
    r.ok(P.LIST, {"start": 0})
    r.ok(P.NEW, {"kind": "bawo"})


def play_sync_steps(r):
    r.ok(P.NEW, {"kind": "oware"})
    for ply in range(30):
        if ply == 20:
            gid = r.ok(P.LIST, {"start": 0})["games"][0]["id"]
            r.ok(P.GET, {"id": gid})
        p = r.ok(P.POSITION)
        if p.get("result"):
            break
        if p["turn"] == "S":
            r.ok(P.MOVE, {"move": p["legal"][0]})
        else:
            r.board_moves()


STEPS = {"sync-new": sync_new_steps, "play-sync": play_sync_steps}


def sim_scenario(name):
    def fn(root, heap, mpy):
        data = os.path.join(root, "data")
        if name == "sync-new":
            old_board(Path(data))
            s = F.SimLink(root, heap, 1, mpy=mpy, ai=False, board_id="testboard")
        else:
            seed_journal(data, 3, board=F.BOARD_ID)
            s = F.SimLink(root, heap, 1, mpy=mpy, ai=True)
        try:
            STEPS[name](_Run(s))
        finally:
            s.b.kill()
    return fn


def _pico_data(name, data):
    """The board's /games for a scenario, made by the firmware's own Journal on this PC."""
    if name == "sync-new":
        old_board(Path(data))
        return
    seed_journal(data, 3, board="pico-00000000")
    j = journal_module().Journal(data, "pico-00000000", min_free=0, log=lambda m: None)
    j.write_settings(json.dumps({"opponent": "board-second", "level": 1, "speed": 7}))


def pico_scenario(name, bundle):
    import _pico_fuzz

    def fn(root, heap, mpy):
        data = os.path.join(root, "games")
        os.makedirs(data)
        _pico_data(name, data)
        files = bundle.copy()
        files["boot.py"] = _pico_fuzz.BOOT_PY % int(heap.rstrip("k"))
        files["ballast.py"] = b"keep = None\n"
        for f in os.listdir(data):
            with open(os.path.join(data, f), "rb") as fh:
                files["games/" + f] = fh.read()
        try:
            link = _pico_fuzz.PicoLink(os.path.join(root, "flash.bin"), files)
        except Exception as e:   # noqa: BLE001 - a board that does not boot fails the size
            raise AssertionError("did not boot: %s" % e)
        try:
            STEPS[name](_PicoRun(link))
        finally:
            link.close()
    return fn


def smallest(fn, lo, hi, mpy, say):
    def passes(kb):
        with tempfile.TemporaryDirectory() as d:
            try:
                fn(d, "%dk" % kb, mpy)
                return True, ""
            except (AssertionError, SimError) as e:   # SimError: the simulator did not boot
                return False, str(e)[:160]
    ok, why = passes(hi)
    if not ok:
        raise SystemExit("fails even at %d KB: %s" % (hi, why))
    while lo < hi:
        mid = (lo + hi) // 2
        ok, why = passes(mid)
        say("  %d KB: %s %s" % (mid, "ok" if ok else "fails", why))
        if ok:
            hi = mid
        else:
            lo = mid + 1
    return lo


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=sorted(STEPS))
    ap.add_argument("--lo", type=int, default=100, help="KB known to fail (default 100)")
    ap.add_argument("--hi", type=int, default=256, help="KB known to pass (default 256)")
    ap.add_argument("--pico", action="store_true",
                    help="on the emulated Pico (rp2 MicroPython, 32-bit), not the simulator")
    a = ap.parse_args()
    if a.pico:
        from _pico_helpers import build_bundle
        bundle = build_bundle(Path(tempfile.mkdtemp()) / "bundle")
        a.hi = min(a.hi, 236)   # the rp2 image's whole heap is 240 KB
        mpy = None
    else:
        mpy = F.build_mpy(os.path.join(tempfile.mkdtemp(), "mpy"))
    rows = []
    for name in ([a.only] if a.only else STEPS):
        t = time.monotonic()
        print("%s:" % name, flush=True)
        fn = pico_scenario(name, bundle) if a.pico else sim_scenario(name)
        kb = smallest(fn, a.lo, a.hi, mpy, lambda m: print(m, flush=True))
        rows.append((name, kb, time.monotonic() - t))
    print("\n%s" % ("The emulated Pico (rp2 MicroPython, 32-bit objects)" if a.pico
                     else "The simulator (the unix port, 64-bit objects, its harness in the heap)"))
    print("\n| scenario | smallest heap | / %d KB budget | margin |" % BUDGET_KB)
    print("|---|---:|---:|---:|")
    for name, kb, _ in rows:
        print("| %s | %d KB | %.2f | %+d KB |" % (name, kb, kb / BUDGET_KB, BUDGET_KB - kb))


if __name__ == "__main__":
    main()
