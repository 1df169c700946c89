"""POSITION's move pages (a host joining mid-game): tests/mp/check_position_moves.py runs the
real app, handler and link under CPython and the MicroPython unix port."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_position_moves')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
