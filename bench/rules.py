"""Benchmark: random playouts per second and plies per second, exact legal moves at every ply,
for each game under CPython and the MicroPython unix port, beside the peers measured in the
same run: OpenSpiel's Oware (pip install open-spiel) and the `baghchal` package.

    python bench/rules.py [--seconds 5]

Prints a markdown table with ratios and whether each target of issue 2 is met.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from bawo.tools import venv_tool

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def ours(runtime, name, seconds):
    exe = [sys.executable] if runtime == "cpython" else [venv_tool("micropython")]
    env = dict(os.environ, PYTHONPATH=str(ROOT), MICROPYPATH=".frozen:" + str(ROOT))
    out = subprocess.run(
        exe + [str(HERE / "_playouts.py"), name, str(seconds)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        check=True,
    ).stdout
    d = json.loads(out)
    return d["plies"] / d["seconds"], d["playouts"] / d["seconds"]


def openspiel_oware(seconds):
    import pyspiel

    g = pyspiel.load_game("oware")
    rnd = random.Random(1)
    plies = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = g.new_initial_state()
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[rnd.randrange(len(legal))])
            plies += 1
        games += 1
    dt = time.perf_counter() - t0
    return plies / dt, games / dt


def baghchal_package(seconds):
    cwd = os.getcwd()
    from baghchal.env import Board  # it chdirs into its package on import

    os.chdir(cwd)
    rnd = random.Random(1)
    plies = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        b = Board()
        n = 0
        while not b.is_game_over() and n < 400:
            legal = sorted(b.possible_moves())
            b.move(legal[rnd.randrange(len(legal))])
            plies += 1
            n += 1
        games += 1
    dt = time.perf_counter() - t0
    return plies / dt, games / dt


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    a = ap.parse_args()
    t = a.seconds
    res = {}
    for name in ("bawo", "oware", "bagh-chal"):
        for rt in ("cpython", "micropython"):
            print("measuring %s on %s ..." % (name, rt), file=sys.stderr)
            res[name, rt] = ours(rt, name, t)
    print("measuring OpenSpiel oware ...", file=sys.stderr)
    try:
        res["oware", "openspiel"] = openspiel_oware(t)
    except ImportError:
        res["oware", "openspiel"] = None
    print("measuring baghchal package ...", file=sys.stderr)
    try:
        res["bagh-chal", "baghchal"] = baghchal_package(t)
    except ImportError:
        res["bagh-chal", "baghchal"] = None

    print("| game | runtime | plies/s | playouts/s | ratio |")
    print("|---|---|---:|---:|---|")
    for name, peer in (("bawo", None), ("oware", "openspiel"), ("bagh-chal", "baghchal")):
        cp = res[name, "cpython"][0]
        for rt in ("cpython", "micropython"):
            pl, po = res[name, rt]
            ratio = "" if rt == "cpython" else "%.2fx CPython" % (pl / cp)
            if rt == "cpython" and peer and res[name, peer]:
                ratio = "%.2fx %s" % (pl / res[name, peer][0], peer)
            print("| %s | %s | %.0f | %.0f | %s |" % (name, rt, pl, po, ratio))
        if peer:
            r = res[name, peer]
            print(
                "| %s | %s (peer) | %s | %s | |"
                % (name, peer, "%.0f" % r[0] if r else "not installed", "%.0f" % r[1] if r else "")
            )
    print()
    checks = [
        (
            "Bawo >= 120,000 plies/s on CPython",
            res["bawo", "cpython"][0] >= 120000,
            "%.0f" % res["bawo", "cpython"][0],
        ),
    ]
    if res["oware", "openspiel"]:
        r = res["oware", "cpython"][0] / res["oware", "openspiel"][0]
        checks.append(("Oware >= 0.5x OpenSpiel", r >= 0.5, "%.2fx" % r))
    if res["bagh-chal", "baghchal"]:
        r = res["bagh-chal", "cpython"][0] / res["bagh-chal", "baghchal"][0]
        checks.append(("Bagh-Chal >= 20x baghchal", r >= 20, "%.1fx" % r))
    for name in ("bawo", "oware", "bagh-chal"):
        r = res[name, "cpython"][0] / res[name, "micropython"][0]
        checks.append(
            ("%s: MicroPython within 3x of CPython" % name, r <= 3, "CPython is %.2fx faster" % r)
        )
    for what, ok, fig in checks:
        print("- %s: %s (%s)" % (what, "met" if ok else "MISSED", fig))


if __name__ == "__main__":
    main()
