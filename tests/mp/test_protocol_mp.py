# Framing tests that run unchanged under CPython and the MicroPython unix port:
#   python3 tests/mp/test_protocol_mp.py      micropython tests/mp/test_protocol_mp.py [n_fuzz]
# tests/test_protocol.py runs this file under both interpreters; pytest also collects it directly.
import sys

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
_FW = _HERE + "/../../firmware"

if sys.implementation.name == "micropython":
    # As on the board: the firmware's modules and the shared_rules package side by side.
    sys.path.insert(0, _FW)
    sys.path.insert(0, _HERE + "/../..")
    import protocol as P
else:  # keep firmware/ off sys.path in CPython: its module names would shadow the stdlib
    import importlib.util

    _spec = importlib.util.spec_from_file_location("_bw_protocol_mp", _FW + "/protocol.py")
    P = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(P)


from shared_rules.rng import Rng  # noqa: E402

CHATTER = [
    b">>> ",
    b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n",
    b'Traceback (most recent call last):\r\n  File "<stdin>", line 1, in <module>\r\n',
    b"NameError: name 'x' isn't defined\r\n>>> ",
    b"soft reboot\r\n",
    b"#BW garbage that only looks like a frame\n",
    b"# a comment\n",
]


def sample(i):
    kinds = ["bawo", "oware", "baghchal"]
    return [
        (P.HELLO, {"proto": 1, "host": "bawo-host"}),
        (P.OK, {"fw": "0.1", "proto": 1, "board": "b%d" % i, "heap_free": 120000 + i}),
        (P.GET, {"id": i, "off": i * 7, "n": 512}),
        (P.EVENT, {"ev": "move", "move": "a%d#b" % i, "position": list(range(i % 32))}),
        (P.ERROR, {"code": 5, "text": "illegal move \"x\" # \u00e9"}),
        (P.NEW, {"kind": kinds[i % 3], "position": None}),
        (P.ACK, {}),
    ][i % 7]


def originals(n):
    out = []
    for i in range(n):
        typ, pl = sample(i)
        out.append(P.encode(i % P.SEQ_MAX + 1, typ, pl))
    return out


def test_roundtrip():
    p = P.Parser()
    for i in range(50):
        typ, pl = sample(i)
        f = P.encode(i + 1, typ, pl)
        assert f.startswith(P.MARKER) and f.endswith(b"\n") and f.count(b"#") == 1
        r = p.feed(f)
        assert len(r) == 1 and isinstance(r[0], P.Frame), r
        assert (r[0].seq, r[0].type, r[0].payload, r[0].ver) == (i + 1, typ, pl, P.VERSION)


def test_byte_at_a_time_and_crlf():
    p = P.Parser()
    f = P.encode(7, P.LIST, {"start": 3})
    got = []
    for b in f[:-1] + b"\r\n":
        got += p.feed(bytes([b]))
    assert len(got) == 1 and got[0].payload == {"start": 3}


def test_resync_after_chatter():
    p = P.Parser()
    f1 = P.encode(1, P.HELLO, {})
    f2 = P.encode(2, P.OK, {"x": 1})
    stream = b"".join(CHATTER) + f1 + b">>> " + f2[:20] + f2 + b"\x00\xff\r\n" + f1[:-1] + b"\r\n"
    got = []
    for i in range(0, len(stream), 5):
        got += p.feed(stream[i : i + 5])
    frames = [r for r in got if isinstance(r, P.Frame)]
    assert [(f.seq, f.type) for f in frames] == [(1, P.HELLO), (2, P.OK), (1, P.HELLO)], got


def test_crc_damage_reports_seq():
    p = P.Parser()
    f = bytearray(P.encode(321, P.GET, {"id": 4, "off": 0, "n": 10}))
    f[20] ^= 0x04
    r = p.feed(bytes(f))
    assert len(r) == 1 and isinstance(r[0], P.Bad) and r[0].reason == P.BAD_CRC and r[0].seq == 321


def test_overlong_line_dropped_then_recovers():
    p = P.Parser(max_line=200)
    junk = b"x" * 500
    big = P.MARKER + b"1 5 OK " + b"y" * 400 + b" 00000000\n"
    f = P.encode(9, P.OK, {})
    got = p.feed(junk + f + big + f)
    frames = [r for r in got if isinstance(r, P.Frame)]
    assert len(frames) == 2 and p.overflows >= 2


def test_crc_is_crc32_ieee():
    assert P.crc32(b"123456789") == 0xCBF43926  # the standard check value
    assert P.crc32(b"x" * 10, P.crc32(b"y")) == P.crc32(b"y" + b"x" * 10)


def mutate(rng, f):
    k = rng.below(6)
    n = len(f)
    if k == 0:  # bit flips
        b = bytearray(f)
        for _ in range(1 + rng.below(3)):
            b[rng.below(n)] ^= 1 << rng.below(8)
        return bytes(b)
    if k == 1:  # truncation
        return f[: rng.below(n)]
    if k == 2:  # duplicated slice
        i = rng.below(n)
        j = i + rng.below(n - i)
        return f[:j] + f[i:j] + f[j:]
    if k == 3:  # insertion of random bytes
        i = rng.below(n)
        junk = bytes([rng.below(256) for _ in range(1 + rng.below(6))])
        return f[:i] + junk + f[i:]
    if k == 4:  # deletion
        i = rng.below(n)
        return f[:i] + f[i + 1 + rng.below(4) :]
    return CHATTER[rng.below(len(CHATTER))] + f  # prompt in front of an intact frame


def fuzz(n, seed=12345):
    """Feed n items (intact, mutated, chatter) in random chunks; returns (accepted, intact)."""
    rng = Rng(seed)
    orig = originals(200)
    valid = {}  # seq -> [(type, payload)]: dicts compare equal whatever their key order
    for f in orig:
        r = P.Parser().feed(f)[0]
        valid.setdefault(r.seq, []).append((r.type, r.payload))
    p = P.Parser()
    accepted = 0
    intact = 0
    pending = []
    for i in range(n):
        f = orig[rng.below(len(orig))]
        k = rng.below(10)
        if k < 3:
            item = b"\n" + f
            intact += 1
        elif k < 9:
            item = mutate(rng, f)
        else:
            item = CHATTER[rng.below(len(CHATTER))]
        pending.append(item)
        if len(pending) >= 8:
            stream = b"".join(pending)
            pending = []
            pos = 0
            while pos < len(stream):
                step = 1 + rng.below(300)
                for r in p.feed(stream[pos : pos + step]):
                    if isinstance(r, P.Frame):
                        accepted += 1
                        ok = (r.type, r.payload) in valid.get(r.seq, ())
                        assert ok, "false accept: %r" % r
                pos += step
    assert accepted >= intact, (accepted, intact)
    return accepted, intact


def test_fuzz_small():
    fuzz(3000)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    tests = [
        test_roundtrip,
        test_byte_at_a_time_and_crlf,
        test_resync_after_chatter,
        test_crc_damage_reports_seq,
        test_overlong_line_dropped_then_recovers,
        test_crc_is_crc32_ieee,
    ]
    failed = 0
    for t in tests:
        try:
            t()
            print("ok", t.__name__)
        except Exception as e:
            failed += 1
            print("FAIL", t.__name__, repr(e))
    try:
        print("ok fuzz", n, fuzz(n))
    except Exception as e:
        failed += 1
        print("FAIL fuzz", repr(e))
    print("ALL OK" if not failed else "FAILED %d" % failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
