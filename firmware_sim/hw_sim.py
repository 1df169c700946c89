# Simulated board for the MicroPython unix port and CPython: fake Pins that behave like
# the real matrix (contacts bounce, diodes optional), a settable ticks source that can
# wrap, and SimPixels whose _transmit keeps the frame and can stream it as hex lines.
# Readings go through the real Keys and Pixels classes, so the sim tests the firmware.
from compat import ticks_add, TICKS_PERIOD
from keys import Keys
from pixels import Pixels
from shared_rules.rng import Rng

try:
    from binascii import hexlify
except ImportError:
    from ubinascii import hexlify


class SimClock:
    """Millisecond ticks under test control; start near TICKS_PERIOD to test wrap-around."""

    def __init__(self, start=0):
        self.now = start % TICKS_PERIOD

    def ticks_ms(self):
        return self.now

    def advance(self, ms):
        self.now = ticks_add(self.now, ms)

    def set(self, t):
        self.now = t % TICKS_PERIOD


class SimSwitches:
    """Physical contacts. For bounce_ms after each change the contact reads at random."""

    def __init__(self, n, clock, bounce_ms=5, seed=1):
        self.clock = clock
        self.bounce_ms = bounce_ms
        self.closed_now = bytearray(n)
        self._changed = [-10 ** 6] * n
        self._rng = Rng(seed)

    def set(self, k, closed):
        self.closed_now[k] = 1 if closed else 0
        self._changed[k] = self.clock.now

    def closed(self, k):
        age = (self.clock.now - self._changed[k]) % TICKS_PERIOD
        if age < self.bounce_ms:
            return self._rng.next() & 1
        return self.closed_now[k]


class SimPin:
    """machine.Pin look-alike: value() reads, value(v) drives."""

    def __init__(self, name, read=None):
        self.name = name
        self.level = 1
        self._read = read

    def value(self, v=None):
        if v is None:
            return self._read() if self._read else self.level
        self.level = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)


class SimPixels(Pixels):
    """Keeps the last transmitted frame; with `out` (an fd or a binary stream) also writes
    each frame as one line: b'<w>x<h> <hex of R,G,B per canvas pixel, row-major>\\n'."""

    def __init__(self, profile, brightness=None, out=None):
        Pixels.__init__(self, profile, brightness)
        # The frame last sent: the wire buffer itself, which only the next show() changes
        # (no copy: a frame's bytes on the 160 KB heap, as a Pico's transmit keeps none).
        self.last = self.out
        self._row = bytearray(3 * profile.width)   # write_frame's, for good
        self.frames = 0
        self._fd = None
        self._stream = None
        if isinstance(out, int):
            try:
                import os
                os.write  # noqa: B018 - CPython path
                self._fd = out
            except (ImportError, AttributeError):
                self._stream = open(out, 'wb')  # MicroPython unix: open() takes an fd
        else:
            self._stream = out

    def _transmit(self, buf):
        self.last = buf
        self.frames += 1
        if self._fd is not None:
            import os
            fd = self._fd
            self.write_frame(lambda b: os.write(fd, b))
        elif self._stream is not None:
            self.write_frame(self._stream.write)
            if hasattr(self._stream, 'flush'):
                self._stream.flush()

    def write_frame(self, write):
        """The last frame as one line, '<w>x<h> <hex>\\n', through write(bytes) a canvas row
        at a time from one row buffer: the whole line is 3 KB, more than a fragmented 160 KB
        heap offers in one block, and the canvas 1.5 KB a frame (a simulator's tool, not part
        of the board's budget: whole, it cost `bawo sim --heap 160k` every frame, and MENU
        in its menu started nothing; as a canvas a frame, the board's search found no room)."""
        p = self.profile
        row = self._row
        write(b'%dx%d ' % (p.width, p.height))
        for y in range(p.height):
            self._fill_row(y, row)
            write(hexlify(row))
        write(b'\n')

    def _fill_row(self, y, row):
        # Canvas row y of the last frame into row (3 bytes a pixel, R,G,B; black: no LED).
        p = self.profile
        w = p.width
        f = self.last
        m = p.led_map
        ro, go, bo = self._ro, self._go, self._bo
        for x in range(w):
            i = m[y * w + x]
            o = 3 * x
            if i == 0xFFFF:
                row[o] = row[o + 1] = row[o + 2] = 0
            else:
                i *= 3
                row[o] = f[i + ro]
                row[o + 1] = f[i + go]
                row[o + 2] = f[i + bo]

    def wire_rgb(self, i):
        """(r, g, b) of LED i in the last transmitted frame."""
        o = i * 3
        f = self.last
        return f[o + self._ro], f[o + self._go], f[o + self._bo]

    def canvas_rgb(self):
        """Last frame as R,G,B bytes per canvas pixel in row-major order (black: no LED)."""
        p = self.profile
        n = 3 * p.width
        out = bytearray(n * p.height)
        mv = memoryview(out)
        for y in range(p.height):
            self._fill_row(y, mv[n * y:n * (y + 1)])
        return bytes(out)


class Board:
    """Simulated board with the same .keys / .pixels / .ticks_ms() as the real backends.
    diodes=False models a matrix without diodes (three corners ghost the fourth)."""

    def __init__(self, profile, clock=None, bounce_ms=5, seed=1, diodes=None,
                 out=None, queue=32):
        self.profile = profile
        self.clock = clock or SimClock()
        self.diodes = profile.diodes if diodes is None else diodes
        nr = len(profile.key_rows)
        nc = len(profile.key_cols)
        self._nc = nc
        self.switches = SimSwitches(nr * nc + 2, self.clock, bounce_ms, seed)
        self.row_pins = [SimPin('GP%d' % g) for g in profile.key_rows]
        self.col_pins = [SimPin('GP%d' % g, self._col_reader(c))
                         for c, g in enumerate(profile.key_cols)]
        self.button_pins = [SimPin('GP%d' % profile.menu_pin, self._button_reader(nr * nc)),
                            SimPin('GP%d' % profile.back_pin, self._button_reader(nr * nc + 1))]
        self.keys = Keys(self.row_pins, self.col_pins, self.button_pins,
                         profile.debounce_ms, queue)
        self.pixels = SimPixels(profile, out=out)

    def _col_reader(self, c):
        return lambda: self._col_level(c)

    def _button_reader(self, k):
        return lambda: 0 if self.switches.closed(k) else 1

    def _col_level(self, c):
        nc = self._nc
        sw = self.switches
        rows = self.row_pins
        for r in range(len(rows)):
            if rows[r].level == 0:
                if sw.closed(r * nc + c):
                    return 0
                if not self.diodes:
                    # Sneak path: driven row r -> (r, c2) -> column c2 -> (r2, c2) -> row r2 -> (r2, c).
                    for c2 in range(nc):
                        if c2 != c and sw.closed(r * nc + c2):
                            for r2 in range(len(rows)):
                                if r2 != r and sw.closed(r2 * nc + c2) and sw.closed(r2 * nc + c):
                                    return 0
        return 1

    def ticks_ms(self):
        return self.clock.now

    def press(self, key):
        self.switches.set(key, True)

    def release(self, key):
        self.switches.set(key, False)

    def run(self, ms, scan_ms=1):
        """Advance the clock by ms, scanning every scan_ms like the firmware's loop."""
        t = 0
        while t < ms:
            self.clock.advance(scan_ms)
            self.keys.scan(self.clock.now)
            t += scan_ms

    def events(self):
        """Drain the key queue as a list of (key, pressed)."""
        out = []
        while True:
            ev = self.keys.get()
            if ev is None:
                return out
            out.append((ev & 0x7F, bool(ev & 0x80)))


def open_board(profile, **kw):
    return Board(profile, **kw)
