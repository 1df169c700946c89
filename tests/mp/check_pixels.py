# Frame buffer, gamma, brightness, current limiter and the _transmit seam.
# Runs under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import pixels
import hw_sim

prof = mpcheck.prof


class Capture(pixels.Pixels):
    def __init__(self, p, brightness=None):
        pixels.Pixels.__init__(self, p, brightness)
        self.sent = []

    def _transmit(self, buf):
        self.sent.append(bytes(buf))


def test_transmit_is_the_only_output():
    p = pixels.Pixels(prof())
    try:
        p.show()
        raise AssertionError('base class transmitted')
    except NotImplementedError:
        pass
    c = Capture(prof())
    c.show()
    c.show()
    assert len(c.sent) == 2 and len(c.sent[0]) == 512 * 3


def test_gamma_table():
    g = Capture(prof())._gamma
    assert g[0] == 0 and g[255] == 255
    assert 35 <= g[128] <= 39  # 255 * 0.502**2.8 = 36.9
    for i in range(255):
        assert g[i] <= g[i + 1]


def test_brightness_and_cap():
    c = Capture(prof(), brightness=255)
    assert c.brightness == prof().brightness_cap == 128
    c.set_brightness(64)
    c.set_pixel(0, 0, (255, 0, 0))
    c.show()
    out = c.sent[-1]
    assert out[0] == 0 and out[1] == (255 * 64 + 127) // 255 and out[2] == 0  # GRB
    c.set_brightness(0)
    c.show()
    assert max(c.sent[-1]) == 0
    c.set_brightness(-5)
    assert c.brightness == 0


def test_limiter_scales_full_white_below_budget():
    for name in ('bawo-4x8', 'grid-5x5'):
        pr = prof(name)
        c = Capture(pr)
        c.fill((255, 255, 255))
        unlimited = c.estimate_ma(3 * pr.n_leds * c._lut[255])
        assert unlimited > pr.budget_ma
        c.show()
        out = c.sent[-1]
        assert c.last_scale < 256
        assert c.last_ma <= pr.budget_ma
        assert c.estimate_ma(sum(out)) == c.last_ma
        assert c.last_ma > pr.budget_ma * 9 // 10  # scaled to the budget, not far below
        assert min(out) == max(out) > 0  # uniform: white stays white


def test_limiter_leaves_small_frames_alone():
    c = Capture(prof())
    c.fill_block(5, 0xFFFFFF)
    c.show()
    assert c.last_scale == 256
    assert max(c.sent[-1]) == c._lut[255]


def test_set_pixel_goes_through_serpentine_map():
    c = Capture(prof(), brightness=128)
    c.set_pixel(16, 0, 0x0000FF)  # panel 1, LED 496
    c.set_pixel(1, 0, 0x00FF00)  # panel 0, LED 31
    c.set_pixel(99, 0, 0xFFFFFF)  # off the canvas: ignored
    c.show()
    out = c.sent[-1]
    top = c._lut[255]
    assert out[496 * 3 + 2] == top and out[496 * 3] == 0
    assert out[31 * 3] == top  # G first on the wire
    assert sum(out) == 2 * top
    assert c.get_pixel(16, 0) == 0x0000FF


def test_fill_block_and_clear():
    c = Capture(prof())
    c.fill_block(31, (10, 20, 30))
    lit = [i for i in range(c.n) if c.buf[3 * i] or c.buf[3 * i + 1] or c.buf[3 * i + 2]]
    assert sorted(lit) == sorted(prof().blocks[31])
    assert c.get_pixel(31, 15) == (10 << 16) | (20 << 8) | 30
    c.clear()
    assert max(c.buf) == 0


def test_paint_equals_one_set_led_a_dot():
    # paint() (viper on MicroPython) writes exactly what set_led() dot by dot writes.
    for name in ('bawo-4x8', 'grid-5x5'):
        p = prof(name)
        a = Capture(p)
        b = Capture(p)
        seed = 12345
        for k in range(len(p.blocks)):
            leds = p.blocks[k]
            n = len(leds)
            for _ in range(3):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                j0 = seed % (n + 1)
                j1 = j0 + (seed >> 8) % (n + 1 - j0)
                color = (seed >> 3) & 0xFFFFFF
                a.paint(leds, j0, j1, color)
                for j in range(j0, j1):
                    b.set_led(leds[j], color)
        assert a.buf == b.buf, name
        assert max(a.buf) > 0
    buf = bytearray(3 * prof().n_leds)
    ref = bytearray(len(buf))
    leds = prof().blocks[7]
    pixels._paint(buf, leds, 2 | 14 << 16, bytearray(b'\x01\x02\x03'))
    pixels._paint_py(ref, leds, 2 | 14 << 16, bytearray(b'\x01\x02\x03'))
    assert buf == ref and max(buf) == 3


def test_grid_lines():
    c = Capture(prof('grid-5x5'))
    # Blocks tile the 15x15 lattice and lines run through them: an empty point shows
    # the lines crossing its centre, an occupied one is painted over them.
    c.fill_lines(0x202020)
    assert c.get_pixel(2, 1) == 0x202020 and c.get_pixel(1, 1) == 0
    c.fill_block(0, 0xFF0000)
    assert c.get_pixel(2, 1) == 0xFF0000 and c.get_pixel(3, 1) == 0x202020
    assert c.get_pixel(5, 2) == 0


def test_sim_pixels_stream_roundtrip():
    from binascii import unhexlify

    class Sink:
        def __init__(self):
            self.lines = []

        def write(self, b):
            self.lines.append(bytes(b))

    s = Sink()
    sp = hw_sim.SimPixels(prof(), brightness=128, out=s)
    sp.set_pixel(16, 0, 0xFF0000)
    sp.show()
    # One frame, one line, written in pieces (write_frame: no 3 KB block at once).
    line = b''.join(s.lines)
    assert sp.frames == 1 and len(s.lines) > 1 and line.count(b'\n') == 1 and line.endswith(b'\n')
    size, data = line.strip().split(b' ')  # as the simulator's terminal reads it (render.py)
    w, h = [int(x) for x in size.split(b'x')]
    rgb = unhexlify(data)
    assert (w, h) == (32, 16) and len(rgb) == 32 * 16 * 3
    o = 3 * 16
    assert rgb[o] == sp._lut[255] and rgb[o + 1] == 0 and sum(rgb) == rgb[o]
    assert sp.wire_rgb(496) == (sp._lut[255], 0, 0)


class _Null(pixels.Pixels):
    def _transmit(self, buf):
        self.n_sent = len(buf)


def _frame(c):
    c.clear()
    for k in range(32):
        c.fill_block(k, 0x40FF10)
    c.set_pixel(3, 4, 0x010203)
    c.set_brightness(100)
    c.show()


def test_render_loop_allocates_nothing():
    c = _Null(prof())
    _frame(c)  # warm up (first call may intern attributes)
    assert mpcheck.no_alloc(lambda: _frame(c))
    assert c.last_scale < 256


if __name__ == '__main__':
    mpcheck.run(globals())
