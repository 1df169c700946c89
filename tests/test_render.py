"""The board's look as parts of their own: render.draw a pure function of its Scene, the App
lending the scene its game for a frame only, the Animator a step at a time:
tests/mp/check_render.py under CPython and MicroPython."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_render')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)
