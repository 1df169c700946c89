"""Well-formed frames against the simulated board under a 160 KB heap (tests/_link_fuzz.py):

    python bench/link_fuzz.py [--frames 100000] [--seed 12] [--heap 160k] [--keep DIR]

Prints progress every 1000 frames (replies by code so far) and the figures at the end:
replies by code, requests the full heap left unanswered, games recorded and synced after.
Also behind `pytest -m slow tests/test_protocol.py -k 100k`.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import _link_fuzz  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--heap", default="160k")
    ap.add_argument("--keep", metavar="DIR",
                    help="run in DIR (new or empty) and leave the board's data there, to look at")
    a = ap.parse_args()
    if a.keep:
        Path(a.keep).mkdir(parents=True, exist_ok=True)
        if any(Path(a.keep).iterdir()):
            ap.error("--keep %s: not empty" % a.keep)
    with tempfile.TemporaryDirectory() as tmp:
        fig = _link_fuzz.run(a.frames, a.seed, a.keep or tmp, heap=a.heap,
                             progress=lambda i, c: print(i, json.dumps(c), flush=True))
    print(json.dumps(fig, indent=1))


if __name__ == "__main__":
    main()
