# A move shown step by step (docs/visual-language.md): the engine's events for it, 3 bytes
# each rather than a tuple each, applied one at a time to the cells' shown values at the
# board's speed, after the start of a move the board or a host plays has blinked. It writes
# only what the renderer reads (render.Scene's shown values, and its own hand, last-seed and
# capture cells); the App's loop says when.
from compat import const, ticks_diff, ticks_add
from shared_rules import events as E

_INTRO_MS = const(1200)        # the start of a move the board (or a host) plays blinks this
_INTRO_BLINK_MS = const(200)   # long, on and off at this pace, before its sowing is shown
_GOAT = const(1)               # view.GOAT: a placed goat's cell value

_EVENTS = const(1000)          # a move's events held, 3 bytes each (past them: see Animator)

# Milliseconds per seed for speed levels 1..8 (index 0 unused); level 8 is instant.
SPEED_MS = (0, 700, 450, 300, 200, 120, 70, 35, 0)


class Animator:
    """The events of one move (the engine appends them: state.push(move, animator)) and
    where their showing is. Past its capacity the rest is dropped: the move then jumps to
    its end."""

    def __init__(self, n=_EVENTS):
        self.b = bytearray(3 * n)
        self.n = 0
        self.cap = n
        self.full = False
        self.on = False       # a move is being shown
        self.i = 0            # its next event,
        self.at = 0           # due at these ticks
        self.mover = 0        # the side whose move it is
        self.hand = -1        # the cells being emptied, just sown and captured
        self.mark = -1
        self.capt = -1
        self.intro = -1       # the start cell blinking before the board's move
        self.intro_until = 0
        self.intro_on = 0

    # -- the engine's side: an event sink -----------------------------------------------
    def clear(self):
        self.n = 0
        self.full = False

    def append(self, ev):
        if self.n >= self.cap:
            self.full = True
            return
        at = self.n * 3
        b = self.b
        b[at] = ev[0]
        b[at + 1] = ev[1] & 0xFF   # DIRECTION's -1 comes back as 255; it is not drawn
        b[at + 2] = ev[2] & 0xFF
        self.n += 1

    def __len__(self):
        return self.n

    # -- the showing --------------------------------------------------------------------
    def begin(self, now, mover, start=-1):
        """Show the events appended, from ticks `now`; `start` >= 0 blinks that cell first."""
        self.on = True
        self.i = 0
        self.mover = mover
        self.intro = start
        if start >= 0:
            self.intro_on = 1
            self.intro_until = ticks_add(now, _INTRO_MS)
            self.at = self.intro_until
        else:
            self.at = now

    def end(self):
        self.on = False
        self.intro = -1

    def due_in(self, now):
        """Milliseconds until the next step or blink (<= 0: due)."""
        d = ticks_diff(self.at, now)
        if self.intro >= 0 and d > 0:
            d = (d - 1) % _INTRO_BLINK_MS + 1
        return d

    def advance(self, now, shown, cells, ms):
        """Every step due at ticks `now` applied to `shown` (its stores after `cells` cells;
        `ms` a seed's time at the board's speed). True if there is something new to draw;
        `on` is False once every step has been shown (the caller ends the move)."""
        did = False
        if self.intro >= 0:
            on = 1 - ticks_diff(now, self.intro_until) // _INTRO_BLINK_MS % 2
            if on != self.intro_on:
                self.intro_on = on
                did = True
        while ticks_diff(now, self.at) >= 0:
            if self.intro >= 0:
                self.intro = -1
                did = True
                continue
            if self.i >= self.n:
                self.on = False
                return True
            self.step(now, shown, cells, ms)
            did = True
            if self.at != now:
                break
        return did

    def step(self, now, shown, cells, ms):
        """The next event applied; the one after it is due at ticks `now` + its wait."""
        at = self.i * 3
        eb = self.b
        code, a, b = eb[at], eb[at + 1], eb[at + 2]
        self.i += 1
        wait = ms
        if code == E.PICKUP:
            shown[a] = 0
            self.hand = a
            self.mark = -1
            self.capt = -1
            wait = ms * 2
        elif code == E.DROP:
            shown[a] = b
            self.mark = a
        elif code == E.CAPTURE:
            shown[a] = 0
            self.capt = a
            self.mark = -1
            wait = ms * 3
        elif code == E.RELAY:
            shown[a] = 0
            self.hand = a
            self.mark = -1
            wait = ms * 2
        elif code == E.STORE:
            shown[cells + a] += b
            wait = ms * 2
        elif code == E.SWEEP:   # a row emptied at the end: its STORE follows in this frame
            for i in range(a * 6, a * 6 + 6):
                shown[i] = 0
            wait = 0
        elif code == E.PLACE:
            shown[a] = _GOAT
            self.mark = a
        elif code == E.STEP or code == E.JUMP:
            shown[b] = shown[a]
            shown[a] = 0
            self.hand = a
            self.mark = b
        elif code == E.TAKE:
            shown[a] = 0
            self.capt = a
            wait = ms * 2
        else:
            wait = 0
        self.at = ticks_add(now, wait)
