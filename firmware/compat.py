# Lets the same firmware file import on MicroPython, CircuitPython and CPython.
# Ticks are only ever compared with ticks_diff. Where we supply ticks ourselves we use
# the Pico's period (2**30), so the simulator wraps exactly where the board does.
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

TICKS_PERIOD = 1 << 30
_native = False
try:
    import time as _time
    # The unix port's ticks wrap at 2**62, not the Pico's 2**30: only a port whose
    # period matches uses the built-ins.
    if _time.ticks_add(0, -1) == TICKS_PERIOD - 1:
        from time import ticks_ms, ticks_diff, ticks_add
        _native = True
except AttributeError:
    pass

if not _native:
    try:
        # CircuitPython: supervisor.ticks_ms wraps at 2**29 and has no ticks_diff.
        from supervisor import ticks_ms
        TICKS_PERIOD = 1 << 29
    except ImportError:
        import time as _time

        def ticks_ms():
            if hasattr(_time, 'ticks_ms'):
                return _time.ticks_ms() & (TICKS_PERIOD - 1)
            return int(_time.monotonic() * 1000) & (TICKS_PERIOD - 1)

    def ticks_add(t, delta):
        return (t + delta) & (TICKS_PERIOD - 1)

    def ticks_diff(a, b):
        # Signed distance a - b on the ticks circle, same contract as MicroPython's.
        half = TICKS_PERIOD >> 1
        return ((a - b + half) & (TICKS_PERIOD - 1)) - half

