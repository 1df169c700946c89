# Shared preamble for the check_*.py scripts, which run unchanged under CPython (through
# pytest) and the MicroPython unix port (as scripts): firmware/ on sys.path, a runner.
import sys


def root():
    f = __file__
    i = f.rfind('/tests/mp/')
    if i > 0:
        return f[:i]
    if i == 0 or f.startswith('tests/mp/'):
        return '.'
    return '../..'


ROOT = root()
FIRMWARE = ROOT + '/firmware'
FIRMWARE_SIM = ROOT + '/firmware_sim'
PROFILES = ROOT + '/hardware/profiles'
# As on the board, where the firmware's modules and the shared_rules package share the root.
for _p in (ROOT, FIRMWARE, FIRMWARE_SIM):
    if _p not in sys.path:
        sys.path.insert(0, _p)

MICROPYTHON = sys.implementation.name == 'micropython'


def no_alloc(fn):
    """Run fn() with the heap locked under MicroPython; True if it allocated nothing.
    (fn takes no arguments: a *args call would itself allocate.)"""
    if not MICROPYTHON:
        fn()
        return True
    import micropython

    micropython.heap_lock()
    try:
        fn()
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    return ok


def empty_dir(path):
    """`path` (a directory in /tmp) made if need be, and emptied: a check's board's flash."""
    import os

    for d in ('/tmp', path):
        try:
            os.mkdir(d)
        except OSError:
            pass
    for n in os.listdir(path):
        os.remove(path + '/' + n)
    return path


def tmpdir(tag):
    """A new empty directory /tmp/bawo-<tag>-<n>."""
    import time

    return empty_dir('/tmp/bawo-%s-%d' % (tag, time.time_ns() % 1000000007))


def run(namespace):
    names = sorted(n for n in namespace if n.startswith('test_'))
    failed = 0
    for n in names:
        try:
            namespace[n]()
            print('ok  ', n)
        except Exception as e:
            failed += 1
            print('FAIL', n, type(e).__name__, e)
            if not MICROPYTHON:
                import traceback

                traceback.print_exc()
            else:
                sys.print_exception(e)
    print('%d passed, %d failed' % (len(names) - failed, failed))
    if failed:
        sys.exit(1)


_PROFILES = {}


def prof(name='bawo-4x8'):
    """A reference profile, loaded once."""
    if name not in _PROFILES:
        import pinmap

        _PROFILES[name] = pinmap.load('%s/%s.json' % (PROFILES, name))
    return _PROFILES[name]
