"""MENU and BACK answer while the board's AI thinks: tests/mp/check_think_abort.py runs the real
app, journal and AI on the simulated board, under CPython and the MicroPython unix port."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_think_abort')


@pytest.mark.parametrize('name', harness.check_names(CHECKS))
def test_cpython(name):
    getattr(CHECKS, name)()


def test_same_checks_under_micropython():
    harness.run_micropython('check_think_abort.py')
