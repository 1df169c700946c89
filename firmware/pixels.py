# Frame buffer for the LED canvas: drawing helpers, gamma, brightness and a current
# limiter. All hardware output goes through _transmit(buf); backends override only that.
# show() and the drawing helpers allocate nothing: every buffer is made in __init__.
import sys
from compat import const

NO_LED = const(0xFFFF)
GAMMA = 2.8  # the curve Adafruit uses for WS2812 perceptual correction

# Current model, per WS2812B: ~20 mA per colour channel at full PWM (Adafruit NeoPixel
# Uberguide, "Powering NeoPixels": 60 mA per pixel at full white) and ~1 mA quiescent
# for the driver IC (WS2812B datasheet/common measurements: 0.6-1 mA). Draw is taken as
# linear in the PWM value. The numbers live in the profile (power.led_ma_per_channel,
# power.led_idle_ma) so a measured panel can correct them.


def _rgb(color):
    if isinstance(color, int):
        return color
    return (color[0] << 16) | (color[1] << 8) | color[2]


class Pixels:
    def __init__(self, profile, brightness=None):
        self.profile = profile
        n = self.n = profile.n_leds
        self.buf = bytearray(3 * n)   # logical colours, wire order (GRB), before gamma
        self.out = bytearray(3 * n)   # what goes on the wire
        # Cleared by the viper loop where there is one (multiplying by 0); elsewhere copied
        # from zeros, which costs a frame's bytes of heap but no slow Python loop a frame.
        self._zero = None if _scale is not _scale_py else bytes(3 * n)
        self._c3 = bytearray(3)       # paint()'s colour in wire order
        self._map = profile.led_map
        self._w = profile.width
        self._h = profile.height
        if profile.order == 'GRB':
            self._ro, self._go, self._bo = 1, 0, 2
        else:
            self._ro, self._go, self._bo = 0, 1, 2
        g = self._gamma = bytearray(256)
        for i in range(256):
            g[i] = int(255 * (i / 255) ** GAMMA + 0.5)
        self._lut = bytearray(256)    # gamma then brightness, rebuilt on set_brightness
        self.cap = profile.brightness_cap
        self._per_ch = int(profile.led_ma_per_channel + 0.5)
        self._idle_ma = int(profile.led_idle_ma * n + 0.5)
        self.budget_ma = profile.budget_ma
        # Largest sum of output channel values whose estimated draw fits the budget.
        self._allowed = (self.budget_ma - self._idle_ma) * 255 // self._per_ch
        self.last_ma = self._idle_ma  # estimate for the last frame shown (after limiting)
        self.last_scale = 256         # limiter factor of the last frame, /256
        self.brightness = 0
        self.set_brightness(self.cap if brightness is None else brightness)

    def set_brightness(self, b):
        """0..255, clamped to the profile's brightness cap."""
        b = max(0, min(int(b), self.cap))
        self.brightness = b
        g = self._gamma
        lut = self._lut
        for i in range(256):
            lut[i] = (g[i] * b + 127) // 255

    def estimate_ma(self, channel_sum):
        return self._idle_ma + channel_sum * self._per_ch // 255

    # -- drawing -------------------------------------------------------------
    def clear(self):
        if self._zero is None:
            _scale(self.buf, len(self.buf), 0)
        else:
            self.buf[:] = self._zero

    def _put(self, i, c):
        o = i * 3
        buf = self.buf
        buf[o + self._ro] = (c >> 16) & 0xFF
        buf[o + self._go] = (c >> 8) & 0xFF
        buf[o + self._bo] = c & 0xFF

    def set_led(self, i, color):
        self._put(i, _rgb(color))

    def paint(self, leds, j0, j1, color):
        """LEDs leds[j0:j1] in one 0xRRGGBB colour; leds is an array('H') of LED indices
        (a profile block). A block's dots are runs of one colour: one call a run instead
        of one a dot, which on a Pico was most of a frame's drawing time."""
        if j1 > j0:
            c = self._c3
            c[self._ro] = (color >> 16) & 0xFF
            c[self._go] = (color >> 8) & 0xFF
            c[self._bo] = color & 0xFF
            _paint(self.buf, leds, j0 | j1 << 16, c)

    def set_pixel(self, x, y, color):
        if 0 <= x < self._w and 0 <= y < self._h:
            i = self._map[y * self._w + x]
            if i != NO_LED:
                self._put(i, _rgb(color))

    def get_pixel(self, x, y):
        """0xRRGGBB of canvas pixel (x, y) in the frame buffer (before gamma)."""
        o = self._map[y * self._w + x] * 3
        b = self.buf
        return (b[o + self._ro] << 16) | (b[o + self._go] << 8) | b[o + self._bo]

    def fill_block(self, pocket, color):
        c = _rgb(color)
        for i in self.profile.blocks[pocket]:
            self._put(i, c)

    def fill_lines(self, color):
        c = _rgb(color)
        for i in self.profile.line_leds:
            self._put(i, c)

    def fill(self, color):
        c = _rgb(color)
        for i in range(self.n):
            self._put(i, c)

    # -- output --------------------------------------------------------------
    def render(self):
        """Apply gamma, brightness and the current limiter into self.out."""
        total = _apply_lut(self.buf, self.out, self._lut, len(self.buf))
        if total > self._allowed:
            s = self._allowed * 256 // total   # < 256; fits a small int (total < 2**19)
            total = _scale(self.out, len(self.out), s)
            self.last_scale = s
        else:
            self.last_scale = 256
        self.last_ma = self.estimate_ma(total)
        return self.out

    def show(self):
        self._transmit(self.render())

    def _transmit(self, buf):
        raise NotImplementedError('a backend provides _transmit')


def _apply_lut_py(src, out, lut, n):
    total = 0
    for i in range(n):
        v = lut[src[i]]
        out[i] = v
        total += v
    return total


def _paint_py(buf, leds, span, c):
    c0 = c[0]
    c1 = c[1]
    c2 = c[2]
    for j in range(span & 0xFFFF, span >> 16):
        o = leds[j] * 3
        buf[o] = c0
        buf[o + 1] = c1
        buf[o + 2] = c2
    return 0


def _scale_py(out, n, s):
    total = 0
    for i in range(n):
        v = (out[i] * s) >> 8
        out[i] = v
        total += v
    return total


_apply_lut = _apply_lut_py
_scale = _scale_py
_paint = _paint_py

if sys.implementation.name == 'micropython':
    # Same loops compiled to machine code (viper); a port built without the native
    # emitter rejects the module, and the bytecode loops above stay in use.
    try:
        from pixels_viper import apply_lut as _apply_lut, scale as _scale, paint as _paint
    except (ImportError, SyntaxError):
        pass
