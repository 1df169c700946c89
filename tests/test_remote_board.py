"""A remote game on the board (docs/protocol.md "Remote games": PEER, END, the offer event, and
docs/visual-language.md "A remote game"): tests/mp/check_remote.py under CPython and the
MicroPython unix port, the board's clock in the test's hands."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "mp"))
import harness  # noqa: E402

CHECKS = harness.load('check_remote')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
