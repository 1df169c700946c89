"""The heap the board's firmware needs: on the board's own runtime (--pico, the budget of
issue 25), and the smallest heap per scenario on the unix-port simulator.

    python bench/heap.py --pico [--only sync-new fuzz ...] [--plies 400] [--smallest]
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
It has no budget since issue 25 (the board's runtime has): its figures show how the firmware
degrades, not a number to squeeze.

--pico: the board's own budget, on its own runtime (the emulated RP2040, 32-bit objects, no
harness in the heap), requests sent by pyserial on the emulated USB serial. Each scenario runs
twice in the same run:
  - the frozen image (`bawo build-uf2`), its heap cut to 96 KB (40% of the 240 KB heap) by a
    ballast boot.py takes before main.py runs: it must be answered in full;
  - the stock image with the `bawo flash` bundle on littlefs, on its whole heap less 60 KB held
    by the same ballast: answered in full means at least 60 KB stayed free at its worst moment.
Scenarios: sync-new and play-sync (above), a level-5 game of each game (the board against
itself to the end, tests/heapcheck.py), sync-full (a board whose filesystem is full of records:
LIST, GET and ACK_GAME of every one) and fuzz (tests/_pico_fuzz.py's well-formed frames).
--smallest also bisects the smallest heap of each scenario on the frozen image.
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

    def board_moves(self, limit_s=300.0):
        """Wait until the board has moved: South to move or the game over (the bound is wide:
        the emulator runs slower than the Pico on a loaded PC)."""
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


FROZEN_KB = 96  # the frozen image's budget: 40% of the board's 240 KB heap
HELD_KB = 60  # what the stock image must keep free at its worst moment
# boot.py of the stock runs: holds HELD_KB whatever the heap is.
BOOT_HOLD = b"""import ballast
ballast.keep = bytearray(%d * 1024)
"""


def _with_ballast(install, heap):
    """install's files plus a boot.py that cuts the heap: heap 'NNk' leaves NN KB, 'hold:NN'
    takes NN KB away."""
    import _pico_fuzz

    files = install.copy()
    kind, kb = heap.split(":") if ":" in heap else ("cut", heap.rstrip("k"))
    files["boot.py"] = (BOOT_HOLD if kind == "hold" else _pico_fuzz.BOOT_PY) % int(kb)
    files["ballast.py"] = b"keep = None\n"
    return files


def _boot_with_games(root, install, heap, data):
    """A PicoLink to the emulated Pico with install, the heap cut, and data's games on flash."""
    import _pico_fuzz

    files = _with_ballast(install, heap)
    for f in os.listdir(data):
        with open(os.path.join(data, f), "rb") as fh:
            files["games/" + f] = fh.read()
    try:
        return _pico_fuzz.PicoLink(os.path.join(root, "flash.bin"), files)
    except Exception as e:  # noqa: BLE001 - a board that does not boot fails the size
        raise AssertionError("did not boot: %s" % e)


def link_scenario(name, install):
    def fn(root, heap, _mpy=None):
        data = os.path.join(root, "games")
        os.makedirs(data)
        _pico_data(name, data)
        link = _boot_with_games(root, install, heap, data)
        try:
            r = _PicoRun(link)
            STEPS[name](r)
            return (
                "every request answered; heap free at a HELLO after: %d B"
                % r.ok(P.HELLO)["heap_free"]
            )
        finally:
            link.close()

    return fn


def level5_scenario(game, install, plies):
    """The board against itself at level 5 to the end of a game (or plies), as heapcheck.py
    plays it: the search's worst moments, the journal's writes, the game's end."""
    from _pico_helpers import exec_on_pico

    profile = "grid-5x5" if game == "bagh-chal" else "bawo-4x8"

    def fn(root, heap, _mpy=None):
        files = _with_ballast(install(profile), heap)
        script = (Path(__file__).resolve().parents[1] / "tests" / "heapcheck.py").read_text()
        files["heapcheck.py"] = (script % {"plies": plies, "game": game}).encode()
        r = exec_on_pico(Path(root) / "flash.bin", files, "heapcheck", profile=profile)
        line = [x for x in r.stdout.splitlines() if x.startswith("HEAP ")]
        if r.returncode != 0 or not line:
            raise AssertionError((r.stdout + r.stderr)[-300:])
        f = line[-1].split()
        if not (f[7] == "True" or int(f[3]) >= plies):
            raise AssertionError("stopped at ply %s" % f[3])
        return "%s plies, lowest free %d B" % (f[3], int(f[1]))

    return fn


def full_board(data, install, board="pico-00000000"):
    """Finished records on a board's /games until its 1.4 MB littlefs is full (each record
    takes a 4 KB block), less what install's files take and what a game in progress needs;
    how many. 2,000 records would need about 8 MB: a Pico's filesystem holds some 340."""
    from bawo.pico import FS_BLOCK, FS_BLOCKS

    taken = sum(-(-len(b) // FS_BLOCK) for b in install.values())
    n = FS_BLOCKS - 40 - taken  # the menu, the settings, a game's journal and littlefs's own
    seed_journal(data, n, board=board)
    return n


def sync_full_scenario(install):
    from bawo.boardlink import BoardLink

    def fn(root, heap, _mpy=None):
        data = os.path.join(root, "games")
        n = full_board(data, install)
        link = _boot_with_games(root, install, heap, data)
        try:
            host = BoardLink(link.port, timeout=5.0)
            host.hello()
            games = host.list_games()
            if len(games) != n:
                raise AssertionError("LIST gave %d of %d records" % (len(games), n))
            for g in games:
                host.fetch_record(g["id"])
                host.ack_game(g["id"])
        except AssertionError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of the link fails the size
            raise AssertionError("%s: %s" % (type(e).__name__, e))
        finally:
            link.close()
        return "%d records" % n

    return fn


def fuzz_scenario(install, frames=300):
    import _pico_fuzz

    def fn(root, heap, _mpy=None):
        fig = _pico_fuzz.run(
            frames, 5, os.path.join(root, "w"), install, heap_kb=int(heap.rstrip("k"))
        )
        return "%d frames, heap at HELLO %d B" % (frames, fig["heap_free at HELLO"])

    return fn


def whole_heap_kb(install):
    """The heap MicroPython has on the emulated Pico with install, in KB: gc's free and
    allocated bytes as boot.py sees them, before the firmware runs."""
    from _pico_helpers import exec_on_pico

    files = install.copy()
    files["heapsize.py"] = b"import gc\nprint('WHOLE', gc.mem_free() + gc.mem_alloc())\n"
    with tempfile.TemporaryDirectory() as d:
        r = exec_on_pico(Path(d) / "flash.bin", files, "heapsize")
    line = [x for x in r.stdout.splitlines() if x.startswith("WHOLE ")]
    assert line, r.stdout + r.stderr
    return int(line[0].split()[1]) // 1024


def pico_rows(names, plies, frames, smallest_kb, say, images=("frozen", "stock")):
    """The table of issue 25: each scenario on the frozen image at FROZEN_KB and on the stock
    image with HELD_KB held back."""
    from _pico_helpers import build_bundle, frozen_install

    bundles = {}

    def stock(profile="bawo-4x8"):
        if profile not in bundles:
            bundles[profile] = build_bundle(Path(tempfile.mkdtemp()) / "bundle", profile)
        return bundles[profile]

    frozen = frozen_install

    def make(name, install):
        if name in STEPS:
            return link_scenario(name, install())
        if name.startswith("level5-"):
            return level5_scenario(name[7:], install, plies)
        if name == "sync-full":
            return sync_full_scenario(install())
        return fuzz_scenario(install(), frames)

    def attempt(fn, heap):
        with tempfile.TemporaryDirectory() as d:
            t = time.monotonic()
            try:
                note = fn(d, heap) or ""
                return True, note, time.monotonic() - t
            except (AssertionError, SimError) as e:
                return False, str(e)[:160], time.monotonic() - t

    rows = []
    for name in names:
        say("%s:" % name)
        ok_f, note_f = None, "not run"
        if "frozen" in images:
            ok_f, note_f, t_f = attempt(make(name, frozen), "%dk" % FROZEN_KB)
            say(
                "  frozen image at %d KB: %s %s (%.0f s)"
                % (FROZEN_KB, "ok" if ok_f else "FAILS", note_f, t_f)
            )
        if "stock" not in images:
            rows.append((name, ok_f, note_f, None, "not run", None))
            continue
        if name == "fuzz":
            # The fuzz's own ballast cuts to a size: the stock image's whole heap less HELD_KB.
            whole = whole_heap_kb(stock())
            heap = "%dk" % (whole - HELD_KB)
        else:
            heap = "hold:%d" % HELD_KB
        ok_s, note_s, t_s = attempt(make(name, stock), heap)
        say(
            "  stock image, %d KB held back: %s %s (%.0f s)"
            % (HELD_KB, "ok" if ok_s else "FAILS", note_s, t_s)
        )
        small = None
        if smallest_kb:
            small = smallest(make(name, frozen), 16, FROZEN_KB, None, lambda m: say("  " + m))
        rows.append((name, ok_f, note_f, ok_s, note_s, small))
    return rows


def smallest(fn, lo, hi, mpy, say):
    def passes(kb):
        with tempfile.TemporaryDirectory() as d:
            try:
                fn(d, "%dk" % kb, mpy)
                return True, ""
            except (AssertionError, SimError) as e:  # SimError: the simulator did not boot
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


def _verdict(ok):
    return "" if ok is None else "met: " if ok else "**missed**: "


PICO_SCENARIOS = (
    "sync-new",
    "play-sync",
    "level5-bawo",
    "level5-oware",
    "level5-bagh-chal",
    "sync-full",
    "fuzz",
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="scenarios (default all of the runtime's)")
    ap.add_argument("--lo", type=int, default=100, help="KB known to fail (default 100)")
    ap.add_argument("--hi", type=int, default=256, help="KB known to pass (default 256)")
    ap.add_argument(
        "--pico",
        action="store_true",
        help="on the emulated Pico (rp2 MicroPython, 32-bit): the board's own budget",
    )
    ap.add_argument(
        "--plies",
        type=int,
        default=400,
        help="--pico: plies of each level-5 game (default 400: to the end)",
    )
    ap.add_argument("--frames", type=int, default=300, help="--pico: frames of the fuzz")
    ap.add_argument(
        "--images",
        nargs="*",
        default=["frozen", "stock"],
        choices=("frozen", "stock"),
        help="--pico: which installs (default both, in the same run)",
    )
    ap.add_argument(
        "--smallest",
        action="store_true",
        help="--pico: also bisect the smallest heap of each on the frozen image",
    )
    a = ap.parse_args()
    say = lambda m: print(m, flush=True)  # noqa: E731
    if a.pico:
        names = a.only or PICO_SCENARIOS
        bad = [n for n in names if n not in PICO_SCENARIOS]
        if bad:
            raise SystemExit(
                "no such scenario: %s (choose from %s)"
                % (", ".join(bad), ", ".join(PICO_SCENARIOS))
            )
        t = time.monotonic()
        rows = pico_rows(names, a.plies, a.frames, a.smallest, say, a.images)
        print(
            "\nThe emulated Pico (rp2 MicroPython, 32-bit objects), %.0f s" % (time.monotonic() - t)
        )
        print(
            "\n| scenario | frozen image, heap cut to %d KB | stock image + bundle, %d KB held back |%s"
            % (FROZEN_KB, HELD_KB, " smallest heap, frozen |" if a.smallest else "")
        )
        print("|---|---|---|%s" % ("---:|" if a.smallest else ""))
        for name, ok_f, note_f, ok_s, note_s, small in rows:
            print(
                "| %s | %s | %s |%s"
                % (
                    name,
                    _verdict(ok_f) + note_f,
                    _verdict(ok_s) + note_s,
                    " %s KB |" % small if a.smallest else "",
                )
            )
        met = all(r[1] is not False and r[3] is not False for r in rows)
        print("\nbudget %s" % ("met by every scenario" if met else "MISSED"))
        return 0 if met else 1
    for n in a.only or ():
        if n not in STEPS:
            raise SystemExit("no such scenario: %s" % n)
    mpy = F.build_mpy(os.path.join(tempfile.mkdtemp(), "mpy"))
    rows = []
    for name in a.only or STEPS:
        t = time.monotonic()
        print("%s:" % name, flush=True)
        kb = smallest(sim_scenario(name), a.lo, a.hi, mpy, say)
        rows.append((name, kb, time.monotonic() - t))
    print(
        "\nThe simulator (the unix port, 64-bit objects, its harness in the heap): no target "
        "since issue 25, kept to see graceful degradation"
    )
    print("\n| scenario | smallest heap |")
    print("|---|---:|")
    for name, kb, _ in rows:
        print("| %s | %d KB |" % (name, kb))


if __name__ == "__main__":
    sys.exit(main())
