# Viper versions of pixels.py's two per-frame loops (MicroPython only; CPython and
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
