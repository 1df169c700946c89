"""Key matrix: the tests/mp/check_keys.py checks under CPython and MicroPython, plus
CPython-only property tests and the CircuitPython backend against fake keypad modules."""

import sys
import types
from pathlib import Path

from hypothesis import given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_keys')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)


@settings(max_examples=60, deadline=None)
@given(
    start=st.integers(0, (1 << 30) - 1),
    seed=st.integers(1, 1 << 20),
    plan=st.lists(st.tuples(st.integers(0, 33), st.integers(25, 400)), min_size=1, max_size=8),
)
def test_random_presses_give_clean_pairs(start, seed, plan):
    # Any key, any start time (incl. across the wrap), any hold >= debounce + bounce:
    # exactly one press and one release per physical press.
    b = CHECKS.board(start=start, seed=seed, bounce_ms=4)
    want = []
    for key, hold in plan:
        b.press(key)
        b.run(hold)
        b.release(key)
        b.run(30)
        want += [(key, True), (key, False)]
    assert b.events() == want


def _fake_circuitpython(monkeypatch):
    created = {}

    class Event:
        def __init__(self, key_number=0, pressed=True):
            self.key_number = key_number
            self.pressed = pressed

    class EventQueue:
        def __init__(self):
            self.items = []
            self.overflowed = False

        def get_into(self, ev):
            if not self.items:
                return False
            ev.key_number, ev.pressed = self.items.pop(0)
            return True

    class KeyMatrix:
        def __init__(
            self,
            row_pins,
            column_pins,
            columns_to_anodes=True,
            interval=0.02,
            max_events=64,
            debounce_threshold=1,
        ):
            created['matrix'] = dict(
                rows=row_pins,
                cols=column_pins,
                anodes=columns_to_anodes,
                interval=interval,
                threshold=debounce_threshold,
            )
            self.events = EventQueue()
            created['matrix_obj'] = self

    class Keys:
        def __init__(
            self,
            pins,
            *,
            value_when_pressed,
            pull=True,
            interval=0.02,
            max_events=64,
            debounce_threshold=1,
        ):
            created['buttons'] = dict(pins=pins, active=value_when_pressed, pull=pull)
            self.events = EventQueue()
            created['buttons_obj'] = self

    class NeoPixel:
        def __init__(self, pin, n, *, bpp=3, brightness=1.0, auto_write=True, pixel_order=None):
            self.pin = ('dio', pin)
            created['np'] = dict(n=n, auto_write=auto_write, order=pixel_order)

    sent = []
    mods = {
        'board': types.SimpleNamespace(**{'GP%d' % i: 'GP%d' % i for i in range(29)}),
        'keypad': types.SimpleNamespace(KeyMatrix=KeyMatrix, Keys=Keys, Event=Event),
        'neopixel': types.SimpleNamespace(NeoPixel=NeoPixel, GRB='GRB', RGB='RGB'),
        'neopixel_write': types.SimpleNamespace(
            neopixel_write=lambda pin, buf: sent.append((pin, bytes(buf)))
        ),
    }
    for k, v in mods.items():
        monkeypatch.setitem(sys.modules, k, v)
    monkeypatch.delitem(sys.modules, 'hw_circuitpython', raising=False)
    return created, sent


def test_circuitpython_backend_with_fake_keypad(monkeypatch):
    created, sent = _fake_circuitpython(monkeypatch)
    import hw_circuitpython

    prof = CHECKS.prof()
    b = hw_circuitpython.open_board(prof)
    m = created['matrix']
    assert m['rows'] == ['GP2', 'GP3', 'GP4', 'GP5'] and m['cols'][0] == 'GP6'
    assert m['anodes'] is True and m['threshold'] == 4
    assert created['buttons'] == dict(pins=('GP14', 'GP15'), active=False, pull=True)
    created['matrix_obj'].events.items += [(10, True), (10, False)]
    created['buttons_obj'].events.items += [(1, True)]
    b.keys.scan(0)
    got = []
    while (ev := b.keys.get()) is not None:
        got.append((ev & 0x7F, bool(ev & 0x80)))
    assert got == [(10, True), (10, False), (33, True)]
    assert b.keys.is_pressed(33) and b.keys.back == 33
    b.pixels.fill_block(0, 0xFFFFFF)
    b.pixels.show()
    assert created['np'] == dict(n=512, auto_write=False, order='GRB')
    assert sent[-1][0] == ('dio', 'GP16') and sent[-1][1] == bytes(b.pixels.out)


def test_rp2_backend_with_fake_machine(monkeypatch):
    pins = {}

    class Pin:
        OUT, IN, PULL_UP = 'out', 'in', 'pull_up'

        def __init__(self, gpio, mode, pull=None, value=None):
            self.gpio, self.mode, self.pull, self.v = gpio, mode, pull, value
            pins[gpio] = self

        def value(self, v=None):
            if v is None:
                return 1
            self.v = v

    writes = []

    class NeoPixel:
        def __init__(self, pin, n, bpp=3, timing=1):
            self.pin, self.buf = pin, bytearray(n * bpp)

        def write(self):
            writes.append(bytes(self.buf))

    monkeypatch.setitem(sys.modules, 'machine', types.SimpleNamespace(Pin=Pin))
    monkeypatch.setitem(sys.modules, 'neopixel', types.SimpleNamespace(NeoPixel=NeoPixel))
    monkeypatch.delitem(sys.modules, 'hw_rp2', raising=False)
    import hw_rp2

    b = hw_rp2.open_board(CHECKS.prof())
    assert [pins[g].mode for g in (2, 3, 4, 5)] == ['out'] * 4
    assert all(pins[g].pull == 'pull_up' for g in list(range(6, 16)))
    assert pins[16].mode == 'out'
    b.keys.scan(0)
    b.pixels.fill((1, 2, 3))
    b.pixels.show()
    assert writes and writes[-1] == bytes(b.pixels.out)


def test_open_board_picks_sim_here():
    import hw

    assert hw.backend_name() == 'sim'
    b = hw.open_board(str(harness.ROOT / 'hardware/profiles/grid-5x5.json'))
    assert type(b).__module__ == 'hw_sim' and b.profile.n_keys == 25
