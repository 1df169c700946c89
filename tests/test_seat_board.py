"""A club tournament's seat on the board (docs/protocol.md "SEAT", docs/visual-language.md
"The seat card"): tests/mp/check_seat.py under CPython and the MicroPython unix port, the
board's clock in the test's hands."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "mp"))
import harness  # noqa: E402

CHECKS = harness.load('check_seat')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
