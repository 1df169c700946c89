# Key matrix scan + debounce + ghost rejection + event queue, in one class.
# The driver takes ready-made Pin-like objects (anything with .value() / .value(v)),
# so the same code runs on machine.Pin, CircuitPython shims and the simulator's fakes.
from compat import const, ticks_diff

PRESSED = const(0x80)   # event flag: set for a press, clear for a release
KEY_MASK = const(0x7F)  # event & KEY_MASK is the key index (matrix keys, then MENU, BACK)


class Keys:
    """rows: output Pins, driven low one at a time (idle high).
    cols: input Pins with pull-ups; a closed switch on the driven row reads 0.
    buttons: extra input Pins with pull-ups (MENU, BACK), active low, indices after the matrix.
    Key index of switch (r, c) is r * len(cols) + c.

    Events are ints: key | PRESSED for a press, key for a release. get() returns one or None.
    The queue holds `queue` events; when it is full the OLDEST event is dropped (and
    `dropped` counts it), because the newest events best reflect the keys' current state."""

    def __init__(self, rows, cols, buttons=(), debounce_ms=20, queue=32):
        self._rows = tuple(rows)
        self._cols = tuple(cols)
        self._buttons = tuple(buttons)
        self.n_matrix = len(self._rows) * len(self._cols)
        n = self.n_keys = self.n_matrix + len(self._buttons)
        if n > KEY_MASK + 1:
            raise ValueError('too many keys for the event format')
        self.menu = self.n_matrix if len(self._buttons) > 0 else -1
        self.back = self.n_matrix + 1 if len(self._buttons) > 1 else -1
        self.debounce_ms = debounce_ms
        self._state = bytearray(n)      # debounced state, 1 = pressed
        self._raw = bytearray(n)        # last raw reading
        self._since = [0] * n           # ticks of the last raw change (list: no bigints)
        self._masks = [0] * len(self._rows)  # this scan's pressed columns per row
        self._last = [0] * len(self._rows)   # the previous scan's
        self._q = bytearray(queue)
        self._head = 0                  # next event to pop
        self._count = 0
        self.dropped = 0
        self.ghost_scans = 0
        for p in self._rows:
            p.value(1)

    # -- queue ---------------------------------------------------------------
    def _push(self, ev):
        q = self._q
        size = len(q)
        if self._count == size:
            self._head = (self._head + 1) % size
            self._count -= 1
            self.dropped += 1
        q[(self._head + self._count) % size] = ev
        self._count += 1

    def get(self):
        if self._count == 0:
            return None
        ev = self._q[self._head]
        self._head = (self._head + 1) % len(self._q)
        self._count -= 1
        return ev

    def pending(self):
        return self._count

    # -- scanning ------------------------------------------------------------
    def is_pressed(self, key):
        return self._state[key] == 1

    def _debounce(self, k, r, now):
        # Eager press, deferred release (QMK's sym_eager_pk): a press is reported on the
        # second closed reading in a row, so it costs one scan (~2 ms), not debounce_ms;
        # a release only once the contact read open for debounce_ms. While pressed, the
        # contact's bounce is inside a press that is already reported, so it is ignored;
        # release bounce ends before the debounce_ms of open readings do. A single closed
        # reading (a noise spike shorter than one scan) is no press; a spike spanning two
        # scans is (the price of answering a press in 20 ms).
        if r != self._raw[k]:
            self._raw[k] = r
            self._since[k] = now
        elif r != self._state[k] and (r or ticks_diff(now, self._since[k]) >= self.debounce_ms):
            self._state[k] = r
            self._push(k | PRESSED if r else k)

    def scan(self, now_ms):
        """One pass over the matrix and buttons; call every 1-5 ms with ticks_ms()."""
        cols = self._cols
        rows = self._rows
        masks = self._masks
        nr = len(rows)
        # All rows driven at once first: a closed switch anywhere pulls its column low.
        # With every column high (the board at rest) the row-by-row pass below would
        # read nothing, so it is skipped: 16 pin calls instead of 40 on most scans.
        for row in rows:
            row.value(0)
        closed = False
        for c in cols:
            if not c.value():
                closed = True
                break
        for row in rows:
            row.value(1)
        ghost = False
        if not closed:
            for r in range(nr):
                masks[r] = 0
        else:
            for r in range(nr):
                row = rows[r]
                row.value(0)
                m = 0
                bit = 1
                for c in cols:
                    if not c.value():
                        m |= bit
                    bit <<= 1
                row.value(1)
                masks[r] = m
            # Three real presses on three corners of a rectangle read as all four corners
            # when a diode fails or is missing; the phantom can't be told apart, so a
            # reading containing a full rectangle is dropped whole (keys keep their state).
            for i in range(nr - 1):
                mi = masks[i]
                if mi & (mi - 1):
                    for j in range(i + 1, nr):
                        both = mi & masks[j]
                        if both & (both - 1):
                            ghost = True
        if ghost:
            self.ghost_scans += 1
        elif masks == self._last and self._raw == self._state:
            # The usual scan: nothing read differs from the last one and no key waits out
            # its debounce, so every _debounce below would do nothing. Skipping them is
            # most of an idle loop's time on a Pico (and of the emulator's in the tests).
            pass
        else:
            self._masks, self._last = self._last, masks
            nc = len(cols)
            k = 0
            for r in range(nr):
                m = masks[r]
                for c in range(nc):
                    self._debounce(k, (m >> c) & 1, now_ms)
                    k += 1
        k = self.n_matrix
        raw = self._raw
        state = self._state
        for b in self._buttons:
            r = 0 if b.value() else 1
            if r != raw[k] or r != state[k]:   # else _debounce would do nothing
                self._debounce(k, r, now_ms)
            k += 1


class Hold:
    """A key held down: due() names it once, `ms` after its press, if no other press came
    meanwhile and it was not let go (the board's offers in a host game: MENU or BACK held)."""

    def __init__(self, ms):
        self.ms = ms
        self.key = -1
        self.at = 0

    def press(self, key, now, watch):
        # Every press: `key` starts a hold if watch, and any press ends the one before.
        self.key = key if watch else -1
        self.at = now

    def due(self, keys, now):
        k = self.key
        if k < 0:
            return -1
        if not keys.is_pressed(k):
            self.key = -1
            return -1
        if ticks_diff(now, self.at) < self.ms:
            return -1
        self.key = -1
        return k


def decode(ev):
    """(key, pressed) from an event; allocates a tuple, so not for hot loops."""
    return ev & KEY_MASK, bool(ev & PRESSED)
