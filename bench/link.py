"""Link benchmark: frame encode/decode rates (CPython, MicroPython unix port) and pty throughput.

    python bench/link.py [record_bytes]

The pty figures go through the same two-pty wire as tests/test_link_pty.py, with the board side
running firmware/link.py under the MicroPython unix port; the raw baseline is the same board
process writing plain bytes, measured in the same run.
"""

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _link_helpers import FIRMWARE, P, Wire, host_link, micropython  # noqa: E402

import serial  # noqa: E402

CODEC = r"""
import sys, time
try:
    now = time.perf_counter
except AttributeError:
    now = lambda: time.ticks_us() / 1e6
data = P.b64(bytes(range(256)) * 2)
pay = {"id": 3, "off": 1024, "data": data, "total": 40000, "crc": 123456789}
small = {"ev": "move", "move": "a3", "position": [2] * 32}
for name, pl in (("chunk", pay), ("event", small)):
    n = 2000
    t = now()
    for i in range(n):
        f = P.encode(i + 1, "OK", pl)
    te = now() - t
    blob = f * 50
    p = P.Parser()
    t = now()
    for _ in range(n // 50):
        p.feed(blob)
    td = now() - t
    print("%s %d %.0f %.0f" % (name, len(f), n / te, n / td))
"""


def codec_rates():
    out = {}
    ns = {"P": P}
    import io
    import contextlib

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(CODEC, ns)
    out["cpython"] = buf.getvalue()
    mp = "import sys\nsys.path.insert(0, %r)\nimport protocol as P\n" % str(FIRMWARE) + CODEC
    r = subprocess.run([micropython(), "-c", mp], capture_output=True, text=True, timeout=300)
    out["micropython"] = r.stdout if r.returncode == 0 else "failed: " + r.stderr
    return out


def pty_rates(nbytes):
    w = Wire()
    try:
        w.start_board("link", str(nbytes))
        port = serial.Serial(port=w.host_port_name, timeout=0.05)
        link = host_link.BoardLink(port, timeout=2.0)
        link.hello()
        t = time.perf_counter()
        n_rt = 200
        for _ in range(n_rt):
            link.set_time(1_750_000_000)
        rt = n_rt / (time.perf_counter() - t)
        t = time.perf_counter()
        rec = link.fetch_record("fake-01-0003")
        proto = len(rec) / (time.perf_counter() - t)
        port.close()
    finally:
        w.close()
    w = Wire()
    try:
        w.start_board("raw")
        port = serial.Serial(port=w.host_port_name, timeout=0.05)
        time.sleep(0.3)
        port.reset_input_buffer()
        t = time.perf_counter()
        port.write(b"SEND %d\n" % nbytes)
        got = 0
        while got < nbytes and time.perf_counter() - t < 60:
            got += len(port.read(max(1, port.in_waiting)))
        raw = got / (time.perf_counter() - t)
        port.close()
    finally:
        w.close()
    return rt, proto, raw


def main():
    nbytes = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
    for interp, text in codec_rates().items():
        for line in text.split("\n"):
            if line and not line.startswith("failed"):
                name, size, enc, dec = line.split()
                print(
                    "%-11s %-5s frame %4s B: encode %8s frames/s, decode %8s frames/s"
                    % (interp, name, size, enc, dec)
                )
            elif line:
                print(interp, line)
    rt, proto, raw = pty_rates(nbytes)
    print("pty request round trips (TIME/OK): %.0f /s" % rt)
    print("pty record fetch via protocol: %.0f B/s (%d B record)" % (proto, nbytes))
    print("pty raw bytes, same wire, same run: %.0f B/s" % raw)
    print("protocol / raw throughput ratio: %.3f" % (proto / raw))


if __name__ == "__main__":
    main()
