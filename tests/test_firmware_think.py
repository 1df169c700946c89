"""MENU and BACK answer while the board's AI thinks: tests/mp/check_think_abort.py runs the real
app, journal and AI on the simulated board, under CPython and the MicroPython unix port."""

import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_think_abort')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
