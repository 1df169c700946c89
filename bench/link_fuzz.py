"""Well-formed frames against the simulated board in a tight heap (tests/_link_fuzz.py):

    python bench/link_fuzz.py [--frames 100000] [--seed 12] [--heap 192k] [--keep DIR]
    python bench/link_fuzz.py --frames 10000 --seeds 1-16

One seed: progress every 1000 frames (replies by code so far) and the figures at the end:
replies by code, requests the full heap left unanswered, games recorded and synced after.
Also behind `pytest -m slow tests/test_protocol.py -k 100k`.

--pico: the same frames against the board on the Pico's own MicroPython (the rp2 image on the
emulated RP2040, its heap cut to --heap by a ballast taken at boot, the frames sent by pyserial
on the emulated USB serial: tests/_pico_fuzz.py). About 80 ms of wall clock a frame.

--seeds A-B: one run a seed, a line each, then the totals: where the final sync found every
game (the running board, or only a restarted one), runs that failed (the assertion: a crash,
a hang, a game not resumed or not synced) and ERROR 9 replies (no room for the answer). On
this heap one seed's run is a chaotic path (a few bytes elsewhere send it elsewhere), so
compare firmware over many seeds, not one.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import _link_fuzz  # noqa: E402


def _seeds(text):
    a, _, b = text.partition("-")
    if not (a.isdigit() and (not b or b.isdigit())) or int(b or a) < int(a):
        raise argparse.ArgumentTypeError("%r: give seeds as A-B, e.g. 1-16" % text)
    return range(int(a), int(b or a) + 1)


def _run(a, seed, tmp, progress=None):
    if a.pico:
        import _pico_fuzz
        from _pico_helpers import build_bundle

        kb = int(a.heap.rstrip("kK"))
        return _pico_fuzz.run(
            a.frames,
            seed,
            str(Path(tmp) / "pico"),
            build_bundle(Path(tmp) / "bundle"),
            heap_kb=kb,
            progress=progress,
        )
    return _link_fuzz.run(a.frames, seed, tmp, heap=a.heap, progress=progress)


def _recorded(fig):
    return fig.get("games recorded", fig.get("games on flash, all synced"))


def _many(a):
    rows = []
    for seed in a.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                fig = _run(a, seed, tmp)
                row = (
                    seed,
                    fig["synced from"],
                    _recorded(fig),
                    sum(fig["ERROR 9 for want of memory"].values()),
                    "",
                )
            except AssertionError as e:
                row = (seed, "failed", 0, 0, str(e)[:120])
        rows.append(row)
        print("seed %3d: %-15s %4d games, %5d ERROR 9 %s" % row, flush=True)
    n = len(rows)
    running = sum(r[1] == "running board" for r in rows)
    restarted = sum(r[1] == "board restarted" for r in rows)
    failed = sum(r[1] == "failed" for r in rows)
    print(
        "\n%d runs of %d frames, heap %s: synced by the running board %d/%d, only after a "
        "restart %d, failed %d; ERROR 9 %d; games recorded %d"
        % (
            n,
            a.frames,
            a.heap,
            running,
            n,
            restarted,
            failed,
            sum(r[3] for r in rows),
            sum(r[2] for r in rows),
        )
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--seeds", type=_seeds, metavar="A-B", help="one run a seed, and the totals")
    ap.add_argument("--heap", default=_link_fuzz.TIGHT_HEAP)
    ap.add_argument(
        "--pico",
        action="store_true",
        help="the emulated Pico (rp2 MicroPython) instead of the simulator",
    )
    ap.add_argument(
        "--keep",
        metavar="DIR",
        help="run in DIR (new or empty) and leave the board's data there, to look at",
    )
    a = ap.parse_args()
    if a.seeds:
        if a.keep:
            ap.error("--keep takes one --seed")
        return _many(a)
    if a.keep:
        Path(a.keep).mkdir(parents=True, exist_ok=True)
        if any(Path(a.keep).iterdir()):
            ap.error("--keep %s: not empty" % a.keep)
    with tempfile.TemporaryDirectory() as tmp:
        fig = _run(
            a, a.seed, a.keep or tmp, progress=lambda i, c: print(i, json.dumps(c), flush=True)
        )
    print(json.dumps(fig, indent=1))


if __name__ == "__main__":
    main()
