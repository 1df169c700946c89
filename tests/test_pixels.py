"""LED frame buffer: the tests/mp/check_pixels.py checks under CPython and MicroPython."""

import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_pixels')


test_cpython, test_same_checks_under_micropython = harness.both_runtimes(
    CHECKS, expect=('test_render_loop_allocates_nothing',)
)


def test_stream_to_fd(tmp_path):
    import hw_sim

    path = tmp_path / 'frames.txt'
    with open(path, 'wb') as f:
        sp = hw_sim.SimPixels(CHECKS.prof('grid-5x5'), out=f.fileno())
        sp.fill_block(12, 0x00FF00)
        sp.show()
        sp.show()
    lines = path.read_bytes().splitlines()
    assert len(lines) == 2
    from bawo.sim.leds import _parse_frame  # how the simulator's terminal reads them

    w, h, rgb = _parse_frame(lines[0].decode())
    assert (w, h) == (16, 16)
    x, y = 7, 7  # centre of point 12
    assert rgb[3 * (y * 16 + x) + 1] > 0
