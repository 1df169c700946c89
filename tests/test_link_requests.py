"""Well-formed frames with bad content against the real firmware: tests/mp/check_link_requests.py
under CPython and the MicroPython unix port (ranges, game ids, NEW during a game, HELLO)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "mp"))
import harness  # noqa: E402

CHECKS = harness.load('check_link_requests')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
