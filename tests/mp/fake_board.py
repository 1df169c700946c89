# A board for link tests: firmware/link.py on stdin/stdout with a fake game store.
#   micropython tests/mp/fake_board.py [link|raw] [record_bytes]
# "raw" mode is the benchmark baseline: "SEND n\n" on stdin -> n raw bytes on stdout.
import sys

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, _HERE + "/../../firmware")

import protocol as P  # noqa: E402
from link import Link, LinkError, stdio  # noqa: E402


def game_id(i):
    # Game ids as a board makes them: "<board>-<4 digits>".
    return "fake-01-%04d" % i


def record_bytes(i, n):
    # Deterministic content so the host side can check it.
    return bytes([(i * 31 + k * 7) & 0xFF for k in range(n)])


class FakeHandler:
    def __init__(self, big):
        self.clock = 0
        self.games = []
        self.records = {}
        for i in range(1, 31):
            n = big if i == 3 else 40 + i
            self.records[game_id(i)] = record_bytes(i, n)
            self.games.append(
                {
                    "id": game_id(i),
                    "kind": ("bawo", "oware", "baghchal")[i % 3],
                    "plies": 10 + i,
                    "result": "1-0" if i % 2 else "draw",
                    "synced": False,
                }
            )
        self.current = None
        self.link = None

    def hello(self):
        return {
            "fw": "test-0.1",
            "rules": "1",
            "board": "fake-01",
            "flash_free": 500000,
            "heap_free": 100000,
        }

    def set_time(self, t):
        self.clock = t

    def list_games(self):
        print("debug: listing %d games" % len(self.games))  # REPL-style chatter mid-session
        return self.games

    def _game(self, gid):
        for g in self.games:
            if g["id"] == gid:
                return g
        raise LinkError(P.E_NO_GAME, "no game %r" % (gid,))

    def get_chunk(self, gid, off, n):
        self._game(gid)
        rec = self.records[gid]
        return rec[off : off + n], len(rec), P.crc32(rec)

    def ack_game(self, gid):
        self._game(gid)["synced"] = True

    def position(self):
        if self.current is None:
            raise LinkError(P.E_NO_GAME, "no game in progress")
        return self.current

    def new_game(self, kind, position, opponent=None):
        if kind not in ("bawo", "oware", "baghchal"):
            raise LinkError(P.E_BAD_PAYLOAD, "unknown game kind " + kind)
        self.current = {
            "id": game_id(99),
            "kind": kind,
            "position": position or "start",
            "plies": 0,
        }
        self.link.send_event(P.EV_START, {"id": game_id(99), "kind": kind})
        return {"id": game_id(99)}

    def move(self, text):
        if self.current is None:
            raise LinkError(P.E_NO_GAME, "no game in progress")
        if text == "bad":
            raise LinkError(P.E_ILLEGAL_MOVE, "illegal move bad")
        self.current["plies"] += 1
        self.current["position"] = self.current["position"] + "/" + text
        self.link.send_event(P.EV_MOVE, {"move": text, "position": self.current["position"]})
        return self.current


def raw_mode(read, write):
    import time

    line = b""
    while True:
        d = read()
        if not d:
            time.sleep_ms(1)
            continue
        line += d
        if b"\n" in line:
            n = int(line.split(b"\n")[0].split()[1])
            line = b""
            blk = b"x" * 1023 + b"\n"
            while n > 0:
                write(blk[: min(n, 1024)])
                n -= 1024


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "link"
    big = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    read, write = stdio()
    # What a real board prints before main.py takes over the port.
    write(b"MicroPython v1.28.0 on 2026-01-01; fake board\r\n>>> \r\n")
    if mode == "raw":
        raw_mode(read, write)
    h = FakeHandler(big)
    link = Link(read, write, h)
    h.link = link
    link.run(sleep_ms=1)


if __name__ == "__main__":
    main()
