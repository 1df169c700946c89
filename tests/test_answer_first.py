"""A press is answered within two key scans, its frame before the settings write and after
the move's journal line: tests/mp/check_answer_first.py under CPython and MicroPython."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_answer_first')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
