"""LED render benchmark (not a test): Pixels.show() time per frame - gamma, brightness and
the current limiter, full-white worst case so the limiter runs - under CPython and the
MicroPython unix port, next to the WS2812 wire time per frame (24 bits x 1.25 us = 30 us
per LED at 800 kHz, plus a 280 us latch): the physical limit of the frame rate.

Usage: python bench/leds.py [frames]
The same file is the MicroPython payload: run with `micropython bench/leds.py --mp`.
"""

import sys

FRAMES = 200


def _setup(root):
    sys.path.insert(0, root + '/firmware')


def measure(root, frames):
    """{profile name: ms per show()} measured in this interpreter."""
    _setup(root)
    import pinmap as profile
    import pixels

    try:
        from time import ticks_us, ticks_diff

        def now_us():
            return ticks_us()
    except ImportError:
        from time import perf_counter

        def now_us():
            return int(perf_counter() * 1e6)

        def ticks_diff(a, b):
            return a - b

    class Bench(pixels.Pixels):
        def _transmit(self, buf):
            pass

    res = {}
    if '--bytecode' in sys.argv:
        pixels._apply_lut = pixels._apply_lut_py
        pixels._scale = pixels._scale_py
    for name in ('bawo-4x8', 'grid-5x5'):
        prof = profile.load('%s/hardware/profiles/%s.json' % (root, name))
        px = Bench(prof)
        px.fill(0xFFFFFF)
        px.show()
        t0 = now_us()
        for _ in range(frames):
            px.show()
        res[name] = (ticks_diff(now_us(), t0) / frames / 1000, prof.n_leds, px.last_scale)
    return res


def main():
    import subprocess
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else FRAMES
    cp = measure(root, frames)
    from bawo.tools import venv_tool

    mp_exe = venv_tool('micropython')
    mp, mpb = {}, {}
    if mp_exe:
        for flags, dst in (([], mp), (['--bytecode'], mpb)):
            out = subprocess.run(
                [str(mp_exe), __file__, '--mp', root, str(frames)] + flags,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for line in out.splitlines():
                name, ms = line.split()
                dst[name] = float(ms)
    print('frames per measurement: %d (full white, limiter active)' % frames)
    print(
        '%-10s %5s %9s %18s %18s %18s'
        % (
            'profile',
            'LEDs',
            'wire ms',
            'CPython ms (/wire)',
            'MP viper (/wire)',
            'MP bytecode (/wire)',
        )
    )
    for name, (ms, n, scale) in cp.items():
        wire = n * 24 * 1.25 / 1000 + 0.28
        cells = []
        for m in (ms, mp.get(name), mpb.get(name)):
            cells.append('%.3f (%.4f)' % (m, m / wire) if m is not None else 'n/a')
        print('%-10s %5d %9.2f %18s %18s %18s' % ((name, n, wire) + tuple(cells)))
    print(
        'ratios < 1: rendering is faster than the data line; MicroPython unix uses the '
        'viper loops (pixels_viper.py) like the Pico. The Pico itself is ~10-30x slower '
        'than a PC core: measure there with the same file.'
    )


if __name__ == '__main__':
    if '--mp' in sys.argv:
        i = sys.argv.index('--mp')
        for name, (ms, n, s) in measure(sys.argv[i + 1], int(sys.argv[i + 2])).items():
            print(name, ms)
    else:
        main()
