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
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import _link_fuzz as F  # noqa: E402
from _link_helpers import P  # noqa: E402
from _host_helpers import seed_journal  # noqa: E402
from test_journal_memory import old_board  # noqa: E402
from bawo.sim import SimError  # noqa: E402

BUDGET_KB = 160


class _Run:
    def __init__(self, s):
        self.s = s
        self.seq = 0

    def ok(self, typ, payload=None):
        self.seq += 1
        r = self.s.request(self.seq, typ, payload)
        if r is None or r.type != P.OK:
            raise AssertionError("%s: %r" % (typ, r))
        return r.payload


def sync_new(root, heap, mpy):
    data = os.path.join(root, "data")
    old_board(Path(data))
    s = F.SimLink(root, heap, 1, mpy=mpy, ai=False, board_id="testboard")
    try:
        r = _Run(s)
        r.ok(P.HELLO)
        for _ in range(3):
            games = r.ok(P.LIST, {"start": 0})["games"]
        for g in games:
            r.ok(P.GET, {"id": g["id"]})
            r.ok(P.ACK_GAME, {"id": g["id"]})
        r.ok(P.LIST, {"start": 0})
        r.ok(P.NEW, {"kind": "bawo"})
    finally:
        s.b.kill()


def play_sync(root, heap, mpy):
    seed_journal(os.path.join(root, "data"), 3, board=F.BOARD_ID)
    s = F.SimLink(root, heap, 1, mpy=mpy, ai=True)
    try:
        r = _Run(s)
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
                s.run(3000)   # the board's move
    finally:
        s.b.kill()


SCENARIOS = {"sync-new": sync_new, "play-sync": play_sync}


def smallest(fn, lo, hi, mpy, say):
    def passes(kb):
        with tempfile.TemporaryDirectory() as d:
            try:
                fn(d, "%dk" % kb, mpy)
                return True, ""
            except (AssertionError, SimError) as e:   # SimError: the board did not boot
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
    ap.add_argument("--only", choices=sorted(SCENARIOS))
    ap.add_argument("--lo", type=int, default=100, help="KB known to fail (default 100)")
    ap.add_argument("--hi", type=int, default=256, help="KB known to pass (default 256)")
    a = ap.parse_args()
    mpy = F.build_mpy(os.path.join(tempfile.mkdtemp(), "mpy"))
    rows = []
    for name in ([a.only] if a.only else SCENARIOS):
        t = time.monotonic()
        print("%s:" % name, flush=True)
        kb = smallest(SCENARIOS[name], a.lo, a.hi, mpy, lambda m: print(m, flush=True))
        rows.append((name, kb, time.monotonic() - t))
    print("\n| scenario | smallest heap | / %d KB budget | margin |" % BUDGET_KB)
    print("|---|---:|---:|---:|")
    for name, kb, _ in rows:
        print("| %s | %d KB | %.2f | %+d KB |" % (name, kb, kb / BUDGET_KB, BUDGET_KB - kb))


if __name__ == "__main__":
    main()
