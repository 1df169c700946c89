# MicroPython on the Pico: builds machine.Pin objects from the profile and hands them
# to Keys; LEDs go out through the built-in neopixel module (PIO-free bitstream).
import time
from machine import Pin
import neopixel
from keys import Keys
from pixels import Pixels


class NeoPixels(Pixels):
    def __init__(self, profile, pin, brightness=None):
        Pixels.__init__(self, profile, brightness)
        # timing=1: 800 kHz WS2812B. NeoPixel.write() sends self.buf as-is, so pointing
        # buf at our output buffer avoids a per-frame copy (its ORDER is only used by
        # __setitem__, which we never call).
        self._np = neopixel.NeoPixel(pin, profile.n_leds, bpp=3, timing=1)
        self._np.buf = self.out

    def _transmit(self, buf):
        np = self._np
        if np.buf is not buf:
            np.buf = buf
        np.write()


class Board:
    def __init__(self, profile, queue=32, brightness=None):
        self.profile = profile
        # Idle rows high; Keys drives one low at a time. Diodes point column -> row
        # (anode on the column) so a pressed key pulls its column low only when its
        # own row is driven. A Python call between drive and read (several us) covers
        # the RC settling of the pull-up (~50 kOhm) with the wiring's capacitance.
        rows = [Pin(g, Pin.OUT, value=1) for g in profile.key_rows]
        cols = [Pin(g, Pin.IN, Pin.PULL_UP) for g in profile.key_cols]
        buttons = [Pin(profile.menu_pin, Pin.IN, Pin.PULL_UP),
                   Pin(profile.back_pin, Pin.IN, Pin.PULL_UP)]
        self.keys = Keys(rows, cols, buttons, profile.debounce_ms, queue)
        self.pixels = NeoPixels(profile, Pin(profile.data_pin, Pin.OUT), brightness)

    def ticks_ms(self):
        return time.ticks_ms()


def open_board(profile, **kw):
    return Board(profile, **kw)
