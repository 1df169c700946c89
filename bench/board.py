"""Frame render time and press-to-frame latency of the firmware in the simulator, next to the
time the LED data itself takes on the wire (WS2812: 24 bits at 800 kHz = 30 us per LED).

    python bench/board.py            (runs the firmware under the MicroPython unix port)

The firmware runs in-process in `micropython`; numbers are this PC's, not the Pico's (an
RP2040 at 125 MHz runs MicroPython bytecode roughly 20-50x slower than a desktop core), so the
ratios show how much slack the LED wire time leaves, and the Pico column multiplies by 30.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT))

MP_SCRIPT = r"""
import sys, time, gc, json
import pinmap, hw_sim
from journal import Journal
import app as A
A.print = lambda *a: None
prof = pinmap.load(sys.argv[1])
game = sys.argv[2]
board = hw_sim.Board(prof)
j = Journal(sys.argv[3], 'bench', log=lambda m: None)
a = A.App(board, j, 'bench', settings={'game': game, 'speed': 5})
a.boot()
a.new_game(game)
N = 60
# Full frame: every block redrawn, then gamma/brightness/limiter and the transmit call.
t0 = time.ticks_us()
for i in range(N):
    a.view.reset(pieces=(game == 'bagh-chal'))
    a.changed()
    a.draw()
    a.view.show()
full_us = time.ticks_diff(time.ticks_us(), t0) / N
# One animation step: one block changes.
t0 = time.ticks_us()
for i in range(N):
    a.scene.shown[0] = (a.scene.shown[0] + 1) & 15
    a.changed()
    a.draw()
    a.view.show()
step_us = time.ticks_diff(time.ticks_us(), t0) / N
# Press to frame: a pocket that flashes red (no move), timed from the loop pass in which the
# debounced press is seen to the transmitted frame; the debounce wait is simulated time.
lat = []
key = 0 if game != 'bagh-chal' else 12
for i in range(20):
    board.press(key)
    frames = board.pixels.frames
    waited = 0
    cpu = 0
    while board.pixels.frames == frames:
        board.clock.advance(1)
        waited += 1
        t = time.ticks_us()
        a.step(board.clock.now)
        cpu = time.ticks_diff(time.ticks_us(), t)
    lat.append((cpu, waited))
    board.release(key)
    for _ in range(400):
        board.clock.advance(1)
        a.step(board.clock.now)
cpu = sum(x[0] for x in lat) / len(lat)
waited = sum(x[1] for x in lat) / len(lat)
print(json.dumps({'leds': prof.n_leds, 'full_us': full_us, 'step_us': step_us,
                  'press_cpu_us': cpu, 'press_wait_ms': waited}))
"""


def main():
    from bawo.firmware import micropython_path, profile_path
    from bawo.sim import micropython_binary

    env = dict(os.environ, MICROPYPATH=micropython_path())
    rows = []
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "bench_mp.py"
        script.write_text(MP_SCRIPT)
        for prof, game in (("bawo-4x8", "bawo"), ("bawo-4x8", "oware"), ("grid-5x5", "bagh-chal")):
            out = subprocess.run(
                [
                    micropython_binary(),
                    str(script),
                    profile_path(prof),
                    game,
                    os.path.join(d, prof + game),
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if out.returncode:
                sys.exit("bench failed: " + (out.stdout + out.stderr)[-800:])
            r = json.loads(out.stdout.strip().splitlines()[-1])
            r["profile"], r["game"] = prof, game
            rows.append(r)
    print(
        "%-9s %-9s %5s %9s %11s %9s %10s %13s %14s"
        % (
            "profile",
            "game",
            "LEDs",
            "wire ms",
            "full fr ms",
            "ratio",
            "1-block ms",
            "press->frame",
            "debounce ms",
        )
    )
    for r in rows:
        wire = r["leds"] * 0.030  # ms
        print(
            "%-9s %-9s %5d %9.2f %11.3f %8.2fx %10.3f %11.3f ms %14.0f"
            % (
                r["profile"],
                r["game"],
                r["leds"],
                wire,
                r["full_us"] / 1000,
                r["full_us"] / 1000 / wire,
                r["step_us"] / 1000,
                r["press_cpu_us"] / 1000,
                r["press_wait_ms"],
            )
        )
    print(
        "\nratio = full-frame render time / LED wire time on this PC; on a Pico multiply the "
        "render columns by ~30\n(the wire time does not change): a 1-block animation step "
        "stays under the wire time of a frame."
    )


if __name__ == "__main__":
    main()
