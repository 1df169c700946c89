# Key matrix scan, debounce, ghosting, wrap-around and the event queue, driven through
# the simulator's bouncing fake Pins. Runs under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import hw_sim
from keys import Keys, PRESSED, KEY_MASK

prof = mpcheck.prof


def board(start=0, **kw):
    return hw_sim.Board(prof(kw.pop('name', 'bawo-4x8')), hw_sim.SimClock(start), **kw)


def test_bounce_is_ignored():
    b = board(bounce_ms=8, seed=7)
    b.press(9)
    b.run(15)
    assert b.events() == [(9, True)]  # eager: reported while the contact still bounces
    b.run(30)
    assert b.events() == []
    b.release(9)
    b.run(25)
    assert b.events() == []  # release bounce + 20 ms open not yet over
    b.run(25)
    assert b.events() == [(9, False)]


def test_press_is_reported_on_the_second_closed_scan():
    # A clean contact: the first closed reading is not enough (a noise spike), the
    # second is, whatever the debounce time; the release waits debounce_ms of open.
    b = board(bounce_ms=0)
    b.press(5)
    b.run(1, scan_ms=2)
    assert b.events() == []
    b.run(1, scan_ms=2)
    assert b.events() == [(5, True)]
    b.release(5)
    b.run(18, scan_ms=2)
    assert b.events() == []
    b.run(4, scan_ms=2)
    assert b.events() == [(5, False)]


def test_single_scan_spike_is_no_press():
    b = board(bounce_ms=0)
    for _ in range(20):
        b.press(7)
        b.run(1, scan_ms=2)
        b.release(7)
        b.run(30, scan_ms=2)
    assert b.events() == [] and not b.keys.is_pressed(7)


def test_bouncing_press_during_release_lockout_gives_one_pair():
    # Contact opens and closes again (bounce) for 15 ms after the release: still
    # pressed until it stays open for debounce_ms, so no second press.
    for seed in range(1, 30):
        b = board(bounce_ms=15, seed=seed)
        b.press(12)
        b.run(30)
        b.release(12)
        b.run(60)
        assert b.events() == [(12, True), (12, False)], seed


def test_raw_bounce_really_flips():
    b = board(bounce_ms=8, seed=3)
    b.press(0)
    seen = set()
    for _ in range(8):
        seen.add(b.switches.closed(0))
        b.clock.advance(1)
    assert seen == {0, 1}


def test_short_tap_gives_one_pair():
    # 12 ms closed with 4 ms of bounce: a quick tap, one press and one release.
    b = board(bounce_ms=4, seed=11)
    b.press(3)
    b.run(12)
    b.release(3)
    b.run(60)
    assert b.events() == [(3, True), (3, False)]


def test_held_key_gives_one_press():
    b = board(seed=5)
    b.press(17)
    b.run(3000, scan_ms=2)
    assert b.events() == [(17, True)]
    assert b.keys.is_pressed(17)


def test_many_seeds_one_press_one_release():
    for seed in range(1, 40):
        b = board(bounce_ms=6, seed=seed)
        b.press(seed % 32)
        b.run(40)
        b.release(seed % 32)
        b.run(40)
        assert b.events() == [(seed % 32, True), (seed % 32, False)], seed


def test_ticks_wraparound():
    period = hw_sim.TICKS_PERIOD
    for start in (period - 22, period - 15, period - 10, period - 3):
        b = board(start=start, seed=2, bounce_ms=0)
        b.press(4)
        b.run(2)
        assert b.events() == [(4, True)], start
        b.release(4)
        b.run(20)
        assert b.events() == [], start  # open for 19 ms: not yet released
        b.run(1)
        assert b.clock.now < 100  # the clock did wrap
        assert b.events() == [(4, False)], start


def test_debounce_exact_threshold_across_wrap():
    # Keys driven directly with hand-made timestamps straddling 2**30.
    class P:
        def __init__(self):
            self.v = 1

        def value(self, v=None):
            if v is None:
                return self.v
            self.v = v

    row, col = P(), P()
    k = Keys([row], [col], debounce_ms=20)
    col.v = 0  # reads pressed: one row only, so the row level doesn't matter
    t0 = (1 << 30) - 25
    k.scan(t0)
    k.scan(t0 + 1)
    assert k.get() == 0 | PRESSED
    col.v = 1  # the release needs 20 ms of open readings, counted across the wrap
    t0 = (1 << 30) - 5
    k.scan(t0)
    k.scan((t0 + 19) & ((1 << 30) - 1))
    assert k.get() is None
    k.scan((t0 + 20) & ((1 << 30) - 1))
    assert k.get() == 0
    assert k.get() is None


def test_menu_and_back_buttons():
    b = board(seed=9)
    assert b.keys.menu == 32 and b.keys.back == 33
    b.press(b.keys.back)
    b.run(30)
    b.press(b.keys.menu)
    b.run(30)
    b.release(b.keys.back)
    b.run(30)
    assert b.events() == [(33, True), (32, True), (33, False)]


def test_ghost_rectangle_rejected_without_diodes():
    b = board(diodes=False, bounce_ms=0)
    b.press(0)  # (0, 0)
    b.press(1)  # (0, 1)
    b.run(30)
    assert b.events() == [(0, True), (1, True)]
    b.press(8)  # (1, 0): with (0,0) and (0,1) the sneak path lights (1, 1)
    b.run(50)
    assert b.events() == []  # neither the real (1,0) nor the phantom (1,1)
    assert b.keys.ghost_scans > 0
    assert not b.keys.is_pressed(9) and not b.keys.is_pressed(8)
    b.release(8)
    b.run(30)
    assert b.events() == []
    b.release(0)
    b.run(30)
    assert b.events() == [(0, False)]


def test_three_corners_fine_with_diodes():
    b = board(bounce_ms=0)
    for k in (0, 1, 8):
        b.press(k)
    b.run(30)
    assert sorted(b.events()) == [(0, True), (1, True), (8, True)]
    assert b.keys.ghost_scans == 0


def test_four_corner_reading_rejected_even_with_diodes():
    b = board(bounce_ms=0)
    for k in (0, 1, 8, 9):
        b.press(k)
    b.run(30)
    assert b.events() == [] and b.keys.ghost_scans > 0


def test_ring_buffer_drops_oldest():
    b = board(bounce_ms=0, queue=4)
    for k in (0, 1, 2):
        b.press(k)
        b.run(25)
        b.release(k)
        b.run(25)
    assert b.keys.pending() == 4
    assert b.keys.dropped == 2
    assert b.events() == [(1, True), (1, False), (2, True), (2, False)]
    assert b.keys.get() is None


def test_event_encoding():
    ev = 21 | PRESSED
    assert ev & KEY_MASK == 21 and ev & PRESSED
    import keys

    assert keys.decode(ev) == (21, True) and keys.decode(21) == (21, False)


def test_grid_profile_keys():
    b = board(name='grid-5x5', bounce_ms=3)
    b.press(24)
    b.run(30)
    b.press(b.keys.menu)
    b.run(30)
    assert b.events() == [(24, True), (25, True)]


class _Pin:
    def __init__(self, v=1):
        self.v = v

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


def _scan_many(k, t0, n):
    t = t0
    for _ in range(n):
        k.scan(t)
        t += 1
        while k.get() is not None:
            pass


def test_scan_allocates_nothing():
    rows = [_Pin() for _ in range(4)]
    cols = [_Pin() for _ in range(8)]
    k = Keys(rows, cols, [_Pin(), _Pin()], queue=8)
    cols[3].v = 0  # a "pressed" column: events get queued and popped under the lock
    assert mpcheck.no_alloc(lambda: _scan_many(k, 1000, 200))


if __name__ == '__main__':
    mpcheck.run(globals())
