"""A board that breaks the protocol on purpose, over a real pty: CPython, speaking the framing
of firmware/protocol.py, its replies made by a test's function. `bawo sync --port` opens the
pty's other end by name, as it opens /dev/ttyACM0."""

import os
import select
import threading
import tty

from _link_helpers import P


class HostileBoard:
    """reply(typ, payload) -> the OK payload (dict, or any JSON value a broken board might
    send), or ("ERROR", code, text). Every request it saw is in self.seen as (typ, payload)."""

    def __init__(self, reply):
        self.reply = reply
        self.seen = []
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self._stop = False
        self._parser = P.Parser()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self):
        while not self._stop:
            try:
                r, _, _ = select.select([self.master], [], [], 0.05)
                if not r:
                    continue
                data = os.read(self.master, 4096)
            except OSError:
                return
            for f in self._parser.feed(data):
                if not isinstance(f, P.Frame) or f.type in (P.ACK, P.NAK):
                    continue
                self.seen.append((f.type, f.payload))
                out = self.reply(f.type, f.payload)
                if isinstance(out, tuple) and out[0] == "ERROR":
                    frame = P.encode(f.seq, P.ERROR, {"code": out[1], "text": out[2]})
                else:
                    frame = self._frame(f.seq, out)
                self._write(frame)

    @staticmethod
    def _frame(seq, payload):
        # P.encode insists on a dict; a broken board need not.
        head = b"%s%d %d %s " % (P.MARKER, P.VERSION, seq, P.OK.encode())
        js = P.dumps(payload).encode()
        return b"%s%s %08x\n" % (head, js, P.crc32(js, P.crc32(head[3:])))

    def _write(self, data):
        while data:
            try:
                n = os.write(self.master, data)
            except OSError:
                return
            data = data[n:]

    def close(self):
        self._stop = True
        self._t.join(2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


def hello(board="evil-01"):
    return {
        "fw": "0.1.0",
        "proto": P.VERSION,
        "rules": "1",
        "board": board,
        "flash_free": 1000,
        "heap_free": 1000,
        "max_line": P.MAX_LINE,
        "max_chunk": P.MAX_CHUNK,
    }


def records_board(records, broken=None):
    """reply() of a board holding records ({id: bytes}, listed in that order with their
    CRCs); broken(typ, payload, good_reply) may return another reply to send instead."""
    ids = list(records)
    acked = set()

    def reply(typ, p):
        good = _good(typ, p)
        if broken is not None:
            bad = broken(typ, p, good)
            if bad is not None:
                return bad
        return good

    def _good(typ, p):
        if typ == P.HELLO:
            return hello()
        if typ == P.TIME:
            return {}
        if typ == P.LIST:
            start = p.get("start", 0)
            page = [
                {
                    "id": i,
                    "game": "bawo",
                    "plies": 1,
                    "result": "*",
                    "reason": "",
                    "synced": i in acked,
                    "crc": P.crc32(records[i]),
                }
                for i in ids[start : start + 8]
            ]
            nxt = start + len(page)
            return {
                "games": page,
                "start": start,
                "next": nxt if nxt < len(ids) else None,
                "total": len(ids),
            }
        if typ == P.GET:
            gid, off, n = p["id"], p.get("off", 0), min(p.get("n", P.MAX_CHUNK), P.MAX_CHUNK)
            if gid not in records:
                return ("ERROR", P.E_NO_GAME, "no game")
            b = records[gid]
            return {
                "id": gid,
                "off": off,
                "data": P.b64(b[off : off + n]),
                "total": len(b),
                "crc": P.crc32(b),
            }
        if typ == P.ACK_GAME:
            acked.add(p["id"])
            return {"id": p["id"]}
        return ("ERROR", P.E_UNKNOWN_TYPE, "no")

    reply.acked = acked
    return reply
