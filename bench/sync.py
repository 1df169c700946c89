"""Sync throughput over a pseudo-terminal, against the raw line rate measured in the same run.

    python bench/sync.py [--games 200] [--raw-kb 2048]

Board: firmware/link.py + firmware/journal.py under the MicroPython unix port, behind the same
pty relay the tests use (tests/_host_helpers.py). Raw rate: the same board process path
streaming bytes as fast as it can write them (no framing, no acks).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _host_helpers import Relay, seed_journal, write_board_script, FIRMWARE  # noqa: E402

from bawo.db import Log  # noqa: E402
from bawo.boardlink import BoardLink  # noqa: E402
from bawo.sync import sync  # noqa: E402
import serial  # noqa: E402

# The raw baseline: the test board's raw mode, which answers "SEND n" with n bytes.
RAW_SCRIPT = r'''
import sys
sys.path.insert(0, %r)
sys.path.insert(0, %r)
from link import stdio
from fake_board import raw_mode
raw_mode(*stdio())
'''


def raw_rate(tmp, nbytes):
    path = os.path.join(tmp, "raw.py")
    with open(path, "w") as f:
        f.write(RAW_SCRIPT % (str(FIRMWARE), str(FIRMWARE.parent / "tests" / "mp")))
    relay = Relay(path)
    try:
        time.sleep(0.3)
        ser = serial.Serial(relay.port_name, 115200, timeout=0.05)
        ser.write(b"SEND %d\n" % nbytes)
        got = 0
        t0 = None
        while got < nbytes:
            d = ser.read(max(1, ser.in_waiting))
            if d and t0 is None:
                t0 = time.perf_counter()
            got += len(d)
        dt = time.perf_counter() - t0
        ser.close()
        return nbytes / dt
    finally:
        relay.close()


def sync_rate(tmp, games):
    journal = os.path.join(tmp, "flash")
    seed_journal(journal, games)
    relay = Relay(write_board_script(os.path.join(tmp, "board.py"), journal))
    try:
        time.sleep(0.3)
        ser = serial.Serial(relay.port_name, 115200, timeout=0.05)
        link = BoardLink(ser)
        link.hello()
        log = Log(os.path.join(tmp, "games.sqlite"))
        rep = sync(link, log)
        log.close()
        ser.close()
        assert len(rep.added) == games, rep.to_dict()
        return rep.bytes, rep.seconds, relay.count
    finally:
        relay.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--raw-kb", type=int, default=2048)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        raw = raw_rate(tmp, a.raw_kb * 1024)
        nbytes, secs, wire = sync_rate(tmp, a.games)
    print("raw line rate over the pty:   %10.0f B/s" % raw)
    print(
        "sync: %d games, %d record bytes (%d bytes on the wire) in %.2f s"
        % (a.games, nbytes, wire, secs)
    )
    print(
        "sync throughput:              %10.1f games/s, %10.0f record B/s, %10.0f wire B/s"
        % (a.games / secs, nbytes / secs, wire / secs)
    )
    print("record bytes / raw rate:      %10.3f" % (nbytes / secs / raw))
    print("wire bytes / raw rate:        %10.3f" % (wire / secs / raw))


if __name__ == "__main__":
    main()
