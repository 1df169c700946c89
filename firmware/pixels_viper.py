# Viper versions of pixels.py's per-frame loops (MicroPython only; CPython and
# CircuitPython never import this file). Identical results to the bytecode loops.
import micropython


@micropython.viper
def apply_lut(src, out, lut, n: int) -> int:
    s = ptr8(src)
    o = ptr8(out)
    t = ptr8(lut)
    total = 0
    for i in range(n):
        v = t[s[i]]
        o[i] = v
        total += v
    return total


@micropython.viper
def scale(out, n: int, k: int) -> int:
    o = ptr8(out)
    total = 0
    for i in range(n):
        v = (o[i] * k) >> 8
        o[i] = v
        total += v
    return total


@micropython.viper
def paint(buf, leds, span: int, c) -> int:
    b = ptr8(buf)
    L = ptr16(leds)
    p = ptr8(c)
    c0 = p[0]
    c1 = p[1]
    c2 = p[2]
    j = span & 0xFFFF
    j1 = span >> 16
    while j < j1:
        o = L[j] * 3
        b[o] = c0
        b[o + 1] = c1
        b[o + 2] = c2
        j += 1
    return 0
