# Board end of the host link (docs/protocol.md). Runs on MicroPython; needs only `protocol`.
import protocol as P

try:
    from time import ticks_ms, ticks_diff
except ImportError:
    import sys as _sys
    if _sys.implementation.name == "circuitpython":
        # supervisor.ticks_ms wraps at 2**29 (the board's clock, app.attach_link's now_ms):
        # compat's ticks_diff wraps there too.
        from compat import ticks_ms, ticks_diff
    else:  # CPython, for host-side tests
        import time as _t

        def ticks_ms():
            return int(_t.monotonic() * 1000)

        def ticks_diff(a, b):
            return a - b


def console():
    """(read, write) over CircuitPython's USB console (usb_cdc.console: the REPL's serial port,
    the one port a Pico running CircuitPython shows unless boot.py enables the data channel).
    Its sys.stdin has no .buffer and reads text, so the bytes come from usb_cdc directly;
    CircuitPython itself turns a Ctrl-C byte into KeyboardInterrupt."""
    import usb_cdc
    ser = usb_cdc.console
    # Never block the game loop on a PC that stopped reading.
    ser.write_timeout = 0.2
    buf = bytearray(256)
    mv = memoryview(buf)

    def read():
        n = ser.in_waiting
        if not n:
            return None
        n = ser.readinto(mv[:min(n, 256)])
        return bytes(mv[:n]) if n else None

    def write(data):
        ser.write(data)

    return read, write


class LinkError(Exception):
    """Raised by a handler to answer a request with an ERROR frame."""

    def __init__(self, code, text=None):
        super().__init__(code, text)
        self.code = code
        self.text = text or P.ERROR_TEXT.get(code, "error")


def stdio():
    """(read, write) over the USB serial REPL stream (rp2) or the terminal (unix port).

    stdin.buffer.read(n) blocks until n bytes arrive on both ports, so read one byte per
    poll-ready check. On the unix port a tty must be in raw mode (termios.setraw(0)) or the
    line discipline buffers lines, echoes, maps CR to LF and turns Ctrl-C into SIGINT.
    A Ctrl-C byte raises KeyboardInterrupt, as on the Pico's USB serial.
    """
    import sys
    if sys.implementation.name == "circuitpython":
        return console()
    import select

    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    rd = sys.stdin.buffer.read
    wr = sys.stdout.buffer.write

    def read():
        buf = None
        while poller.poll(0):
            b = rd(1)
            if not b:
                break
            if b == b"\x03":
                # Ctrl-C: what mpremote sends to stop the program. The rp2 port's USB serial
                # turns it into KeyboardInterrupt before stdin sees it, so this only happens
                # where the port does not (the unix port on a pipe, in the simulator): main.py
                # stops and the board drops to its REPL either way.
                raise KeyboardInterrupt
            if buf is None:
                buf = bytearray(b)
            else:
                buf += b
            if len(buf) >= 256:
                break
        return buf

    def write(data):
        wr(data)
        fl = getattr(sys.stdout, "flush", None)
        if fl:
            fl()

    return read, write


class Link:
    """Board side: parse host frames, dispatch requests to handler, send events.

    handler methods (all optional; a missing one answers ERROR 2):
      hello() -> dict; set_time(t); list_games() -> [dict]; get_chunk(id, off, n) ->
      (bytes, total, crc32); ack_game(id); position() -> dict; new_game(kind, position) -> dict;
      move(text) -> dict. Raise LinkError(code, text) to refuse.
    """

    def __init__(self, read, write, handler, now_ms=ticks_ms, event_timeout_ms=1000,
                 event_retries=3, max_pending=8):
        self._read = read
        self._write = write
        self.handler = handler
        self._now = now_ms
        self.parser = P.Parser()
        self.event_timeout_ms = event_timeout_ms
        self.event_retries = event_retries
        self.max_pending = max_pending
        self.connected = False  # events are only sent after the host has spoken
        self._seq = 0
        self._last_key = None  # (seq, crc) of the last request answered
        self._last_reply = None
        self._last_sent = None
        self._pending = []  # [seq, frame, sent_at, tries] of events not yet ACKed
        self.stats = {"rx": 0, "bad": 0, "naks_sent": 0, "resends": 0, "errors": 0, "dup": 0}

    def _send(self, frame):
        self._last_sent = frame
        try:
            self._write(frame)
        except Exception:  # a dead port must not kill the game loop
            pass

    def poll(self):
        """Handle whatever input is waiting; resend overdue events. Never raises on bad input."""
        data = self._read()
        n = 0
        if data:
            for r in self.parser.feed(data):
                n += 1
                try:
                    self._handle(r)
                except Exception as e:  # last line of defence: keep the board running
                    self.stats["errors"] += 1
                    self._send(P.encode(getattr(r, "seq", 0), P.ERROR,
                                        {"code": P.E_INTERNAL, "text": str(e)[:60]}))
        if self._pending:
            self._resend_events()
        return n

    def run(self, idle=None, sleep_ms=2):
        import time

        while True:
            if not self.poll():
                if idle is not None:
                    idle()
                if sleep_ms:
                    time.sleep_ms(sleep_ms) if hasattr(time, "sleep_ms") else time.sleep(sleep_ms / 1000)

    def _handle(self, r):
        if not isinstance(r, P.Frame):
            self.stats["bad"] += 1
            if r.reason == P.BAD_PAYLOAD:
                self._send(P.encode(r.seq, P.ERROR, {"code": P.E_BAD_FRAME,
                                                           "text": P.ERROR_TEXT[P.E_BAD_FRAME]}))
            else:
                self.stats["naks_sent"] += 1
                self._send(P.encode(r.seq, P.NAK))
            return
        self.stats["rx"] += 1
        self.connected = True
        t = r.type
        if t == P.NAK:
            self._on_nak(r.seq)
            return
        if t == P.ACK:
            self._pending = [p for p in self._pending if p[0] != r.seq]
            return
        if t not in P.REQUESTS:
            if t in (P.OK, P.ERROR, P.EVENT):
                return  # our own frames echoed back (e.g. by a terminal): not for us
            self._reply(r, P.ERROR, {"code": P.E_UNKNOWN_TYPE, "text": "unknown type " + t})
            return
        if r.ver != P.VERSION:
            self._reply(r, P.ERROR, {"code": P.E_VERSION,
                                     "text": "board speaks protocol %d" % P.VERSION})
            return
        key = (r.seq, r.crc)
        if key == self._last_key and t != P.HELLO:
            # A resend of the request we already executed (our reply was lost): replay the reply
            # rather than, say, playing the same move twice.
            self.stats["dup"] += 1
            self._send(self._last_reply)
            return
        try:
            body = self._dispatch(t, r.payload)
            typ = P.OK
        except LinkError as e:
            typ, body = P.ERROR, {"code": e.code, "text": e.text}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            typ, body = P.ERROR, {"code": P.E_BAD_PAYLOAD, "text": str(e)[:60]}
        self._last_key = key
        self._reply(r, typ, body)

    def _reply(self, r, typ, body):
        try:
            frame = P.encode(r.seq, typ, body)
        except ValueError:
            frame = P.encode(r.seq, P.ERROR, {"code": P.E_TOO_LARGE, "text": P.ERROR_TEXT[P.E_TOO_LARGE]})
        self._last_reply = frame
        self._send(frame)

    def _on_nak(self, seq):
        self.stats["resends"] += 1
        for p in self._pending:
            if p[0] == seq:
                p[2] = self._now()
                self._send(p[1])
                return
        if self._last_reply is not None and self._last_key is not None and self._last_key[0] == seq:
            self._send(self._last_reply)
        elif self._last_sent is not None:
            self._send(self._last_sent)

    def _dispatch(self, t, a):
        h = self.handler
        if t == P.HELLO:
            info = dict(h.hello()) if hasattr(h, "hello") else {}
            info["proto"] = P.VERSION
            info["max_line"] = P.MAX_LINE
            info["max_chunk"] = P.MAX_CHUNK
            self._last_key = None
            return info
        if t == P.GET:
            gid = a["id"]
            off = int(a.get("off", 0))
            n = min(int(a.get("n", P.MAX_CHUNK)), P.MAX_CHUNK)
            if off < 0 or n < 0:
                raise ValueError("negative offset or length")
            data, total, crc = self._call("get_chunk", gid, off, n)
            return {"id": gid, "off": off, "data": P.b64(data), "total": total, "crc": crc}
        if t == P.LIST:
            return self._list_page(self._call("list_games"), int(a.get("start", 0)))
        if t == P.TIME:
            return self._call("set_time", int(a["t"]))
        if t == P.ACK_GAME:
            return self._call("ack_game", a["id"])
        if t == P.POSITION:
            return self._call("position")
        if t == P.NEW:
            if "opponent" in a:  # only then: handlers without the argument still work
                return self._call("new_game", a["kind"], a.get("position"), a["opponent"])
            return self._call("new_game", a["kind"], a.get("position"))
        if t == P.MOVE:
            return self._call("move", a["move"])
        raise LinkError(P.E_UNKNOWN_TYPE)

    def _call(self, name, *args):
        fn = getattr(self.handler, name, None)
        if fn is None:
            raise LinkError(P.E_UNKNOWN_TYPE, "board does not support " + name)
        res = fn(*args)
        return {} if res is None else res

    def _list_page(self, games, start):
        # As many games as fit in one frame; the host asks again from "next".
        page = []
        size = 60
        i = start
        while i < len(games):
            s = len(P._dumps(games[i])) + 1
            if size + s > P.MAX_LINE - 40 and page:
                break
            page.append(games[i])
            size += s
            i += 1
        return {"games": page, "start": start, "next": i if i < len(games) else None,
                "total": len(games)}

    def send_event(self, ev, data=None):
        """Send an EVENT (ev: protocol.EV_*); resent until the host ACKs it. False if no host."""
        if not self.connected:
            return False
        body = {"ev": ev}
        if data:
            body.update(data)
        self._seq = P.next_seq(self._seq)
        frame = P.encode(self._seq, P.EVENT, body)
        if len(self._pending) >= self.max_pending:
            self._pending.pop(0)
        self._pending.append([self._seq, frame, self._now(), 0])
        self._send(frame)
        return True

    def _resend_events(self):
        now = self._now()
        keep = []
        for p in self._pending:
            if ticks_diff(now, p[2]) >= self.event_timeout_ms:
                if p[3] >= self.event_retries:
                    continue  # host gone: drop rather than grow
                p[3] += 1
                p[2] = now
                self.stats["resends"] += 1
                self._send(p[1])
            keep.append(p)
        self._pending = keep
