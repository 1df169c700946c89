# Unix-port entry point: the real app on the simulated board (hw_sim), driven by a
# command pipe. Started by `bawo sim` (host/bawo/sim/) and the tests; see there for the
# process layout. Settings come from the environment:
#   BAWO_PROFILE  profile JSON path          BAWO_DATA   directory used as the flash
#   BAWO_IN / BAWO_OUT  fds of the command pipe (in) and the status/frame pipe (out)
#   BAWO_CLOCK    'fake' (lockstep with the commands, fast) or 'real'
#   BAWO_FRAMES   1: stream every LED frame on BAWO_OUT
#   BAWO_SEED, BAWO_BOARD_ID, BAWO_FLASH (modelled flash bytes), BAWO_MIN_FREE,
#   BAWO_SPEED, BAWO_GAME, BAWO_OPPONENT (settings values, e.g. oware, board-both), BAWO_LEVEL (1-5),
#   BAWO_LINK (0: no serial link), BAWO_HEAP (1: report the heap high-water),
#   BAWO_BOUNCE (ms each switch contact bounces), BAWO_TIME (epoch seconds: the board's clock),
#   BAWO_LFS      '<image file>:<KB>': the flash is littlefs in that image (made if missing),
#                 mounted at /flash, games in /flash/games: real ENOSPC when it is full
#
# Commands on BAWO_IN and replies on BAWO_OUT: simpipe.py states them (the host's end uses it;
# this end does not import it: 2.5 KB of the 160 KB heap test, which has no such room today;
# tests/test_sim.py::test_board_sim_speaks_simpipe holds this end to it).
# A Ctrl-C byte on the serial link stops the program with exit status REPL_EXIT (3): the
# simulator then runs the MicroPython REPL on the same port, as a Pico does under mpremote.
import os
import sys
import gc
import json
import select
from compat import ticks_ms, ticks_add, ticks_diff

# Real clock: 'p K' and 'r K' wait in the taps' queue as K | _HOLD and K | _LET, so a key held
# while another is tapped (BACK held, MENU pressed: a hint) reaches the keys in that order.
_HOLD = 0x10000
_LET = 0x20000


class _Pipe:
    # MicroPython's file flush() is fsync(), which a pipe refuses (EINVAL); writes to an
    # fd-backed file are unbuffered anyway, so frames go out with write() alone.
    def __init__(self, f):
        self.write = f.write


def env(name, default=None):
    v = os.getenv(name)
    return default if v is None or v == '' else v


class Sim:
    def __init__(self):
        self.fake = env('BAWO_CLOCK', 'fake') == 'fake'
        out_fd = env('BAWO_OUT')
        self.out = open(int(out_fd), 'wb') if out_fd else None
        in_fd = env('BAWO_IN')
        self.inp = open(int(in_fd), 'rb') if in_fd else sys.stdin.buffer
        self.poller = select.poll()
        self.poller.register(self.inp, select.POLLIN)
        self.peak = 0   # gc.mem_alloc high-water sampled every loop (garbage included)
        self.live = 0   # high-water of what survives a gc.collect() when idle
        self.live_now = 0   # what survived the last one
        self.heap = env('BAWO_HEAP') in ('1', '2')
        self.search_live = 0 if env('BAWO_HEAP') == '2' else -1
        self._wrapped = None
        self.last_version = -1
        self.taps = []        # real clock: keys to tap, one after another
        self.tap_key = -1     # the key a tap is on now
        self.tap_down = False
        self.tap_at = 0       # ticks: its earliest release
        self.hold_key = -1    # a queued press or release, until the debounced keys see it
        self.hold_down = False
        self.crash_after = -1

    def frames_pipe(self):
        return _Pipe(self.out)

    def journal_log(self, m):
        self.hook('msg', 'journal: ' + m)

    def emit(self, kind, text=None):
        """One line on the status pipe, '<kind> <text>', written in its parts: a record's or a
        status's text and its copies would take the board's heap (MicroPython's files take a
        str as its UTF-8 bytes, no copy)."""
        if self.out is not None:
            w = self.out.write
            w(kind)
            if text is not None:
                w(' ')
                w(text)
            w(b'\n')

    def hook(self, kind, data):
        if kind == 'journal':
            self.emit('J', '%d %s' % data)
        elif kind == 'record':
            self.emit('R', data)
        elif kind == 'msg':
            self.emit('M', data)

    def start(self):
        import sim_boot
        sim_boot.start(self)

    def status(self, moves=True):
        try:
            d = self.app.snapshot(moves)
            if self.heap:
                d['peak'] = self.peak
                d['live'] = self.live
                d['live_now'] = self.live_now
                if self.search_live >= 0:
                    d['search_live'] = self.search_live
            return json.dumps(d)
        except MemoryError:
            if not moves:
                raise
        # A long game's moves as a list, on a full heap: the status without them. The harness
        # takes this room, not the board (a Pico sends none of it), so it must not stop one.
        d = None
        gc.collect()
        return self.status(False)

    def tick(self):
        self.app.step(self.clock.now)
        if self.heap:
            m = gc.mem_alloc()
            if m > self.peak:
                self.peak = m
            o = self.app.opponent
            if self.search_live >= 0 and o is not None and o is not self._wrapped \
                    and getattr(o, 'poll', None) is not None:
                self._wrapped = o
                self._poll = o.poll
                o.poll = self._sample

    def _sample(self):
        # BAWO_HEAP=2: what stays alive during the searches (slow: a collection a poll).
        gc.collect()
        m = gc.mem_alloc()
        if m > self.search_live:
            self.search_live = m
        return self._poll()

    def run_for(self, ms):
        for _ in range(ms):
            self.clock.advance(1)
            self.tick()

    def step_taps(self, now):
        # A tap holds its key until the debounced keys have seen it down, and the next
        # waits until they have seen it up: a slow pass of the loop loses no press.
        k = self.hold_key
        if k >= 0:
            if self.board.keys.is_pressed(k) == self.hold_down:
                self.hold_key = -1
            return
        k = self.tap_key
        if k >= 0:
            held = self.board.keys.is_pressed(k)
            if self.tap_down:
                if held and ticks_diff(now, self.tap_at) >= 0:
                    self.board.release(k)
                    self.tap_down = False
            elif not held:
                self.tap_key = -1
        elif self.taps:
            k = self.taps.pop(0)
            if k >= _HOLD:
                self.hold_down = k < _LET
                k &= 0xFFFF
                self.hold_key = k
                if self.hold_down:
                    self.board.press(k)
                else:
                    self.board.release(k)
                return
            self.tap_key = k
            self.board.press(k)
            self.tap_down = True
            self.tap_at = ticks_add(now, 40)

    def settled(self):
        if self.taps or self.tap_key >= 0 or self.hold_key >= 0:
            return False   # a tap still to come or under way
        k = self.board.keys
        sw = self.board.switches
        for i in range(k.n_keys):
            if k.is_pressed(i) != (sw.closed_now[i] == 1):
                return False
        return True

    def run_idle(self, limit_ms=3600000):
        a = self.app
        t = 0
        while t < limit_ms:
            self.step_taps(self.clock.now)
            self.tick()
            if not a.busy() and self.settled():
                return True
            if self.settled():
                d = a.next_due()
                step = 1 if d is None else max(1, d)
            else:
                step = 1
            if self.fake:
                self.clock.advance(step)
            else:
                # A real-clock board waits in real time: a clock run ahead here would go back
                # when the serving loop reads the real ticks again (debounce and taps run on it).
                import time
                time.sleep_ms(min(step, 2))
                step = max(1, ticks_diff(ticks_ms(), self.clock.now))
                self.clock.set(ticks_ms())
            t += step
        return False

    def crash_hook(self, path, line):
        self.crash_after -= 1
        if self.crash_after > 0:
            return
        # The power goes after half the line reached the file: the test kills us now.
        with open(path, 'ab') as f:
            f.write(line[:len(line) // 2])
            f.flush()
        self.emit('X')
        import time
        while True:
            time.sleep(1)

    def command(self, line):
        parts = line.split()
        if not parts:
            return True
        c = parts[0]
        b = self.board
        if c == 'p' or c == 'r':
            k = int(parts[1])
            if not self.fake:
                if k < _HOLD:
                    self.taps.append(k | (_HOLD if c == 'p' else _LET))
            elif c == 'p':
                b.press(k)
            else:
                b.release(k)
        elif c == 't':
            k = int(parts[1])
            if self.fake:
                b.press(k)
                self.run_for(40)
                b.release(k)
                self.run_for(40)
            else:
                # One at a time, as a finger does: presses a few ms apart would bounce
                # into either order (keys typed fast reach us together).
                self.taps.append(k)
        elif c == 'w':
            self.run_for(int(parts[1]))
        elif c == 'i':
            self.run_idle()
            if self.heap:
                gc.collect()
                m = self.live_now = gc.mem_alloc()
                if m > self.live:
                    self.live = m
            self.emit('I', self.status())
        elif c == 's':
            self.emit('S', self.status())
        elif c == 'f':
            if self.out is not None:
                b.pixels.write_frame(self.out.write)
        elif c == 'crash':
            self.crash_after = int(parts[1])
            self.app.journal.crash_hook = self.crash_hook
        elif c == 'y':
            self.emit('Y', parts[1])
        elif c == 'q':
            return False
        return True

    def serve_fake(self):
        while True:
            line = self.inp.readline()
            if not line:
                return
            if not self.command(line.decode()):
                return

    def serve_real(self):
        import time
        buf = b''
        while True:
            while self.poller.poll(0):
                ch = self.inp.read(1)
                if not ch:
                    return
                if ch == b'\n':
                    if not self.command(buf.decode()):
                        return
                    buf = b''
                else:
                    buf += ch
            now = ticks_ms()
            self.clock.set(now)
            self.step_taps(now)
            self.tick()
            if self.app.version != self.last_version:
                self.last_version = self.app.version
                self.emit('S', self.status())
            time.sleep_ms(2)


REPL_EXIT = 3  # exit status: Ctrl-C on the serial port; `bawo sim` starts the REPL


def main():
    s = Sim()
    try:
        s.start()   # inside: a firmware that fails at boot says why too
        if s.fake:
            s.serve_fake()
        else:
            s.serve_real()
    except Exception as e:
        # Say where, on the status pipe; the app goes first: printing needs memory too.
        s.app = None
        gc.collect()
        import io
        buf = io.StringIO()
        sys.print_exception(e, buf)
        s.emit('M', 'crash: ' + buf.getvalue().replace('\n', ' | '))
        raise
    except KeyboardInterrupt:
        # As a Pico's main.py stopped by mpremote: the program ends and the port's REPL
        # takes over (the simulator starts it on the same pipes, in the flash directory).
        s.emit('M', 'KeyboardInterrupt: program stopped, REPL on the serial port')
        sys.exit(REPL_EXIT)


main()
