# Board end of the host link (docs/protocol.md). Runs on MicroPython; needs only `protocol`.
import protocol as P
# The board's clock and its wrap: compat's (the unix port's own ticks wrap at 2**62, and the
# simulator's board clock at the Pico's 2**30: their ticks_diff across its wrap said an event
# sent before it was never due, and a quiet link never quiet).
from compat import ticks_ms, ticks_diff


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

    buf = bytearray(256)  # one buffer for good: a growing one needs the heap each time

    def read():
        n = 0
        while n < 256 and poller.poll(0):
            b = rd(1)
            if not b:
                break
            if b == b"\x03":
                # Ctrl-C: what mpremote sends to stop the program. The rp2 port's USB serial
                # turns it into KeyboardInterrupt before stdin sees it, so this only happens
                # where the port does not (the unix port on a pipe, in the simulator): main.py
                # stops and the board drops to its REPL either way.
                raise KeyboardInterrupt
            buf[n] = b[0]
            n += 1
        return buf[:n] if n else None

    def write(data):
        wr(data)
        fl = getattr(sys.stdout, "flush", None)
        if fl:
            fl()

    return read, write


QUIET_POLLS = 250   # polls without input before the link looks less often
QUIET_EVERY = 4
GET_LEAST = 48      # bytes a GET still answers with when the heap has no room for more


def _halve(body):
    """Cut the page a reply carries to half, in place; False if it has none to cut."""
    # Only the three paged replies: HELLO's "games", say, is not a page.
    if not isinstance(body, dict):
        return False
    if "next" in body and "start" in body and len(body.get("games", ())) > 1:   # LIST
        k = len(body["games"]) // 2
        body["games"] = body["games"][:k]
        body["next"] = body["start"] + k
        return True
    if "off" in body and len(body.get("data", "")) > 8:                        # GET
        body["data"] = body["data"][:len(body["data"]) // 8 * 4]   # whole base64 quanta
        return True
    if "from" in body and len(body.get("moves", ())) > 1:                      # POSITION
        body["moves"] = body["moves"][:len(body["moves"]) // 2]
        return True
    return False


class Link:
    """Board side: parse host frames, dispatch requests to handler, send events.

    handler methods (all optional; a missing one answers ERROR 2):
      hello() -> dict; set_time(t); list_games() -> [dict]; get_chunk(id, off, n) ->
      (bytes, total, crc32); ack_game(id); position() -> dict;
      new_game(kind, position, opponent) -> dict; move(text) -> dict;
      peer(here, offer, bar, low) -> dict; end(result, reason) -> dict;
      seat(round, table, tour, kind) -> dict.
      Raise LinkError(code, text) to refuse. Their arguments are already checked against
      protocol.SCHEMA (type and range); absent optional ones are None (or the default).
    """

    def __init__(self, read, write, handler=None, now_ms=ticks_ms, event_timeout_ms=1000,
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
        self._last_body = None  # (type, payload) of a reply there was no room to encode
        self._last_sent = None
        self._pending = []  # [seq, frame, sent_at, tries] of events not yet ACKed
        self.stats = {"rx": 0, "bad": 0, "naks_sent": 0, "resends": 0, "errors": 0, "dup": 0,
                      "nomem": 0}
        self._quiet = 0  # polls in a row that found nothing
        self._skip = 0   # polls left that do not look

    def _send(self, frame):
        self._last_sent = frame
        try:
            self._write(frame)
        except Exception:  # a dead port must not kill the game loop
            pass

    def poll(self):
        """Handle whatever input is waiting; resend overdue events. Never raises on bad input."""
        n = 0
        data = None
        if self._skip:
            # No host has spoken for a while: look every QUIET_EVERY-th poll only. The look
            # (a stream poll) is a sixth of an idle main-loop pass on a Pico; a host's first
            # request waits a few more milliseconds, the ones after it none.
            self._skip -= 1
        else:
            try:
                data = self._read()
            except MemoryError:  # what was read is lost: the host resends it
                self.stats["nomem"] += 1
            if data:
                self._quiet = 0
            elif self._quiet < QUIET_POLLS:
                self._quiet += 1
            else:
                self._skip = QUIET_EVERY - 1
        if data:
            try:
                results = self.parser.feed(data)
            except MemoryError:
                # No room on the heap to decode what came: drop it and have the host send
                # again (NAK 0), when the board may have room again.
                self.parser.reset()
                results = ()
                self.stats["nomem"] += 1
                self._try_send(0, P.NAK, None)
            for r in results:
                n += 1
                try:
                    self._handle(r)
                except Exception as e:  # last line of defence: keep the board running
                    self.stats["errors"] += 1
                    body = {"code": P.E_INTERNAL, "text": str(e)[:60]}
                    if isinstance(r, P.Frame) and r.seq:
                        # Remembered with the request, as every answer is: a resend gets this
                        # ERROR again, never a second, different answer (a host asks again
                        # with a new request).
                        try:
                            self._reply(r, P.ERROR, body)
                        except MemoryError:
                            self.stats["nomem"] += 1
                    else:
                        self._try_send(getattr(r, "seq", 0), P.ERROR, body)
        if self._pending:
            self._resend_events()
        return n

    def _try_send(self, seq, typ, body):
        try:
            self._send(P.encode(seq, typ, body))
        except MemoryError:  # nothing to say it with: the host times out and resends
            pass

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
            if self._last_reply is None:  # it was run, but no room to write the reply then
                self._reply(r, self._last_body[0], self._last_body[1])
            else:
                self._send(self._last_reply)
            return
        # Every field checked against its schema before any handler runs: a handler only
        # ever sees values in range, so anything it raises besides LinkError is a bug of the
        # board (ERROR 9 from poll), not the host's.
        a = P.args(t, r.payload) if r.seq else "seq 0 is no request's"
        if isinstance(a, str):
            typ, body = P.ERROR, {"code": P.E_BAD_PAYLOAD, "text": "bad payload: " + a}
        else:
            try:
                body = self._dispatch(t, a)
                typ = P.OK
            except LinkError as e:
                typ, body = P.ERROR, {"code": e.code, "text": e.text}
        self._reply(r, typ, body)

    def _reply(self, r, typ, body):
        # The reply and the request it answers are remembered together, whatever the
        # answer: a resend of that request gets this frame again, never another's, and is
        # not run again. Without room on the heap for the frame, the reply itself is kept
        # until the host asks again.
        self._last_key = (r.seq, r.crc)
        self._last_reply = None
        self._last_body = (typ, body)
        while True:
            try:
                frame = P.encode(r.seq, typ, body)
                break
            except ValueError:
                frame = P.encode(r.seq, P.ERROR, {"code": P.E_TOO_LARGE, "text": P.ERROR_TEXT[P.E_TOO_LARGE]})
                break
            except MemoryError:
                # A page (LIST's games, GET's bytes, POSITION's moves) goes out half as big
                # and the host asks on from where it ends: a tight heap answers slower, never
                # with silence (a frame of 1 KB wants a block of 1 KB, which a fragmented heap
                # may not have for a long time).
                if not _halve(body):
                    self.stats["nomem"] += 1
                    return
        self._last_body = None
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
        # a: the request's field values in protocol.SCHEMA order, already checked.
        h = self.handler
        if t == P.HELLO:
            info = dict(h.hello()) if hasattr(h, "hello") else {}
            info["proto"] = P.VERSION
            info["max_line"] = P.MAX_LINE
            info["max_chunk"] = P.MAX_CHUNK
            self._last_key = None
            return info
        if t == P.GET:
            gid, off, n = a
            n = min(n, P.MAX_CHUNK)
            while True:
                try:
                    data, total, crc = self._call("get_chunk", gid, off, n)
                    return {"id": gid, "off": off, "data": P.b64(data), "total": total, "crc": crc}
                except MemoryError:
                    # No room for n bytes and their base64: fewer, the host asks on from where
                    # they end (as _halve does for the frame). The fuzz's last sync of a
                    # running board stopped on such a GET.
                    data = None
                    n //= 2
                    if n < GET_LEAST:
                        raise
        if t == P.LIST:
            return self._list_page(self._call("list_games"), a[0])
        if t == P.TIME:
            return self._call("set_time", a[0])
        if t == P.ACK_GAME:
            return self._call("ack_game", a[0])
        if t == P.POSITION:
            if a[0] is not None:  # only then: handlers without the argument still work
                return self._call("position", a[0])
            return self._call("position")
        if t == P.NEW:
            return self._call("new_game", a[0], a[1], a[2])
        if t == P.MOVE:
            return self._call("move", a[0])
        if t == P.PEER:
            return self._call("peer", a[0], a[1], a[2], a[3])
        if t == P.END:
            return self._call("end", a[0], a[1])
        if t == P.SEAT:
            return self._call("seat", a[0], a[1], a[2], a[3])
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
            try:
                g = games[i]
                s = len(P.dumps(g)) + 1
            except MemoryError:
                if page:   # a shorter page: the host asks on from "next"
                    break
                raise
            if size + s > P.MAX_LINE - 40 and page:
                break
            page.append(g)
            size += s
            g = None
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
                    # Host gone: drop rather than grow, and send no more events until a host
                    # speaks.
                    self.connected = False
                    continue
                p[3] += 1
                p[2] = now
                self.stats["resends"] += 1
                self._send(p[1])
            keep.append(p)
        self._pending = keep
