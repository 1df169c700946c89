# CircuitPython backend: keypad.KeyMatrix scans and debounces in the background; we only
# move its events into the same queue/event format as keys.Keys. LEDs use the
# adafruit-circuitpython-neopixel driver's pin with neopixel_write (what its own
# _transmit does), fed from our already gamma/brightness/limited buffer.
import board
import keypad
import neopixel
from neopixel_write import neopixel_write
from compat import ticks_ms
from keys import Keys, PRESSED
from pixels import Pixels


def _pin(gpio):
    return getattr(board, 'GP%d' % gpio)


def _scanner(make, debounce_ms, queue):
    # debounce_threshold (CircuitPython 9+): a change needs N stable scans.
    try:
        return make(interval=0.005, max_events=queue,
                    debounce_threshold=max(1, debounce_ms // 5))
    except TypeError:
        # Older keypad: sampling every debounce_ms is the debounce.
        return make(interval=debounce_ms / 1000, max_events=queue)


class KeypadKeys(Keys):
    def __init__(self, profile, queue=32):
        Keys.__init__(self, (), (), (), profile.debounce_ms, queue)
        n = self.n_matrix = profile.n_keys
        self.n_keys = n + 2
        self.menu = n
        self.back = n + 1
        self._state = bytearray(n + 2)
        rows = [_pin(g) for g in profile.key_rows]
        cols = [_pin(g) for g in profile.key_cols]
        # columns_to_anodes=True: diode anodes on the columns, rows driven low, columns
        # pulled up: the wiring in hardware/. key_number = row * len(cols) + col, the
        # same index keys.Keys uses.
        self._matrix = _scanner(
            lambda **kw: keypad.KeyMatrix(rows, cols, columns_to_anodes=True, **kw),
            profile.debounce_ms, queue)
        self._buttons_kp = _scanner(
            lambda **kw: keypad.Keys((_pin(profile.menu_pin), _pin(profile.back_pin)),
                                     value_when_pressed=False, pull=True, **kw),
            profile.debounce_ms, queue)
        self._ev = keypad.Event()

    def _drain(self, events, base):
        ev = self._ev
        if events.overflowed:
            self.dropped += 1
            events.overflowed = False
        while events.get_into(ev):
            k = base + ev.key_number
            self._state[k] = 1 if ev.pressed else 0
            self._push(k | PRESSED if ev.pressed else k)

    def scan(self, now_ms):
        self._drain(self._matrix.events, 0)
        self._drain(self._buttons_kp.events, self.n_matrix)


class CPPixels(Pixels):
    def __init__(self, profile, brightness=None):
        Pixels.__init__(self, profile, brightness)
        order = neopixel.GRB if profile.order == 'GRB' else neopixel.RGB
        self._np = neopixel.NeoPixel(_pin(profile.data_pin), profile.n_leds,
                                     brightness=1.0, auto_write=False, pixel_order=order)

    def _transmit(self, buf):
        neopixel_write(self._np.pin, buf)


class Board:
    def __init__(self, profile, queue=32, brightness=None):
        self.profile = profile
        self.keys = KeypadKeys(profile, queue)
        self.pixels = CPPixels(profile, brightness)

    def ticks_ms(self):
        return ticks_ms()


def open_board(profile, **kw):
    return Board(profile, **kw)
