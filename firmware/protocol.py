# Bawo Board link protocol: framing shared by the board (MicroPython, flat module `protocol`)
# and the host (CPython, `bawo_firmware.protocol`). Must not import other firmware modules.
# Specification: docs/protocol.md.
import json
import sys

_MP = sys.implementation.name == "micropython"

# binascii.crc32 is in every port the board runs (the journal needs it too): no table of
# our own on the heap.
try:
    from binascii import crc32 as _crc32, b2a_base64, a2b_base64
except ImportError:
    from ubinascii import crc32 as _crc32, b2a_base64, a2b_base64

VERSION = 1
MARKER = b"#BW"  # printable: a frame line typed at a REPL is a Python comment, so harmless
MAX_LINE = 1024  # bytes from marker to CRC inclusive; longer lines are discarded
MAX_CHUNK = 512  # raw record bytes per CHUNK reply (base64 makes it 684)
SEQ_MAX = 65535  # seq runs 1..SEQ_MAX; 0 means "unknown" (only in NAK)

# Requests, host -> board. The reply is OK or ERROR with the request's seq.
HELLO = "HELLO"
TIME = "TIME"
LIST = "LIST"
GET = "GET"
ACK_GAME = "ACK_GAME"
POSITION = "POSITION"
NEW = "NEW"
MOVE = "MOVE"
PEER = "PEER"  # a remote game: the opponent behind the host's side, its offer, the clock
END = "END"    # a remote game ends on the players' word (the club's): resign, agreement, time
SEAT = "SEAT"  # a club tournament's round and table for this board (round 0: none)
REQUESTS = (HELLO, TIME, LIST, GET, ACK_GAME, POSITION, NEW, MOVE, PEER, END, SEAT)
# Board -> host.
OK = "OK"
ERROR = "ERROR"
EVENT = "EVENT"
# Framing level, both directions: seq is the seq of the frame referred to.
ACK = "ACK"
NAK = "NAK"

# EVENT kinds (payload "ev").
EV_START = "start"
EV_MOVE = "move"
EV_END = "end"
EV_OFFER = "offer"   # the person's resign or draw gesture in a host game ("what")

# ERROR codes (payload "code").
E_BAD_FRAME = 1
E_UNKNOWN_TYPE = 2
E_BAD_PAYLOAD = 3
E_NO_GAME = 4
E_ILLEGAL_MOVE = 5
E_BUSY = 6
E_FLASH_FULL = 7
E_VERSION = 8
E_INTERNAL = 9
E_TOO_LARGE = 10
ERROR_TEXT = {
    1: "bad frame",
    2: "unknown message type",
    3: "bad payload",
    4: "no such game",
    5: "illegal move",
    6: "busy",
    7: "flash full",
    8: "unsupported protocol version",
    9: "internal error",
    10: "reply too large",
}

# Request payloads: one schema per request type, checked by args() in one place before any
# handler runs (docs/protocol.md, "Field ranges"). A field is (name, kind, lo, hi, default):
# INT lo..hi inclusive; TEXT printable ASCII of lo..hi characters; GAME_ID a game id as the
# board makes them ("<board>-<n>": letters, digits, '_' and '-', then '-' and 4+ digits) of
# lo..hi characters, so never a path; CHOICE one of the strings in lo. default REQUIRED: the
# field must be there; otherwise an absent or null field takes the default.
INT = 0
TEXT = 1
GAME_ID = 2
CHOICE = 3
REQUIRED = ("required",)
T_MIN = 946684800  # 2000-01-01 00:00:00 UTC; gmtime() of a far-off time kills the board
T_MAX = 4102444799  # 2099-12-31 23:59:59 UTC
OFF_MAX = 1048575  # a record is at most a few tens of kB
OPPONENTS = ("people", "host-first", "host-second")
RESULTS = ("S", "N", "G", "T", "draw")   # END: a side letter of the game, or a draw
REASONS = ("resign", "agreement", "time")   # END: shared_rules.record_text.AGREED
SCHEMA = {
    HELLO: (("proto", INT, 0, 65535, None), ("host", TEXT, 0, 32, None)),
    TIME: (("t", INT, T_MIN, T_MAX, REQUIRED),),
    LIST: (("start", INT, 0, 65535, 0),),
    GET: (("id", GAME_ID, 6, 40, REQUIRED), ("off", INT, 0, OFF_MAX, 0),
          ("n", INT, 0, 65535, MAX_CHUNK)),
    ACK_GAME: (("id", GAME_ID, 6, 40, REQUIRED),),
    POSITION: (("from", INT, 0, 65535, None),),
    NEW: (("kind", TEXT, 1, 16, REQUIRED), ("position", TEXT, 1, 160, None),
          ("opponent", CHOICE, OPPONENTS, 0, None)),
    MOVE: (("move", TEXT, 1, 16, REQUIRED),),
    PEER: (("here", INT, 0, 1, None), ("offer", INT, 0, 1, None), ("bar", INT, 0, 8, None),
           ("low", INT, 0, 1, None)),
    END: (("result", CHOICE, RESULTS, 0, REQUIRED), ("reason", CHOICE, REASONS, 0, REQUIRED)),
    SEAT: (("round", INT, 0, 99, REQUIRED), ("table", INT, 1, 99, 1), ("tour", INT, 1, 65535, 1),
           ("kind", TEXT, 1, 16, None)),
}


def id_ok(b):
    # b: bytes. "<name>-<digits>", at least 4 digits, name of [A-Za-z0-9_-].
    n = len(b)
    i = n
    while i > 0 and 48 <= b[i - 1] <= 57:
        i -= 1
    if n - i < 4 or i < 2 or b[i - 1] != 45:
        return False
    for k in range(i - 1):
        c = b[k] | 32  # lower case
        if not (48 <= c <= 57 or 97 <= c <= 122 or c == 45 or c == 127):  # '_' | 32 == 127
            return False
    return True


def args(typ, payload):
    """The values of a request's fields in SCHEMA order, defaults filled in; or, if a field
    is missing, of the wrong type or out of range, a str saying which (ERROR 3).
    Fields not in the schema are ignored (forward compatibility)."""
    out = []
    for name, kind, lo, hi, default in SCHEMA[typ]:
        v = payload.get(name)
        if v is None:
            if default is REQUIRED:
                return name + " missing"
            v = default
        elif kind == INT:
            if type(v) is not int or not lo <= v <= hi:  # bool is not int here
                return "%s not an integer in %d..%d" % (name, lo, hi)
        elif kind == CHOICE:
            if v not in lo:
                return "%s not one of %s" % (name, "/".join(lo))
        else:
            b = v.encode() if type(v) is str else None
            if b is None or not lo <= len(b) <= hi or (b and (min(b) < 32 or max(b) > 126)):
                return "%s not text of %d..%d printable characters" % (name, lo, hi)
            if kind == GAME_ID and not id_ok(b):
                return name + " not a game id"
        out.append(v)
    return out


# Bad.reason values: "crc" / "syntax" mean line noise (answer NAK, the sender resends);
# "payload" means the CRC was right but the content is not a valid frame (resending is useless).
BAD_CRC = "crc"
BAD_SYNTAX = "syntax"
BAD_PAYLOAD = "payload"


def crc32(data, crc=0):
    return _crc32(data, crc) & 0xFFFFFFFF


def dumps(obj):
    try:
        s = json.dumps(obj, separators=(",", ":"))
    except TypeError:  # MicroPython built without MICROPY_PY_JSON_SEPARATORS
        s = json.dumps(obj)
    # '#' can only occur inside JSON strings; escaping it keeps the marker unique in a frame,
    # so the last marker on a line is always the start of the frame.
    if "#" in s:
        s = s.replace("#", "\\u0023")
    return s


def encode(seq, typ, payload=None):
    """Return one frame (bytes, ending in b'\\n'). payload: dict (None -> {})."""
    # Built from two pieces, the CRC carried over: a full board heap must find room for the
    # JSON and the frame, not also for copies of the whole body on the way.
    head = b"%s%d %d %s " % (MARKER, VERSION, seq, typ.encode())
    js = dumps({} if payload is None else payload).encode()
    if len(head) + len(js) + 9 > MAX_LINE:
        raise ValueError("frame too long")
    return b"%s%s %08x\n" % (head, js, crc32(js, crc32(memoryview(head)[3:])))


def b64(data):
    return b2a_base64(data).rstrip(b"\n").decode()


def unb64(text):
    return a2b_base64(text)


class Frame:
    """A frame that passed the CRC and syntax checks."""

    def __init__(self, ver, seq, typ, payload, crc):
        self.ver = ver
        self.seq = seq
        self.type = typ
        self.payload = payload
        self.crc = crc  # identifies a byte-identical resend

    def __repr__(self):
        return "Frame(%d, %d, %s, %r)" % (self.ver, self.seq, self.type, self.payload)


class Bad:
    """A line with the marker that is not a valid frame. seq is a best guess (0 = unknown)."""

    def __init__(self, seq, reason):
        self.seq = seq
        self.reason = reason

    def __repr__(self):
        return "Bad(%d, %s)" % (self.seq, self.reason)


def _guess_seq(body):
    # Only used to pick which frame to resend; a wrong guess makes the peer resend its last frame.
    parts = body.split(b" ", 2)
    if len(parts) > 2 and parts[1].isdigit() and len(parts[1]) <= 5:
        n = int(parts[1])
        if n <= SEQ_MAX:
            return n
    return 0


def decode(body):
    """Decode the bytes after the marker (no newline). Returns Frame or Bad."""
    n = len(body)
    if n < 16 or body[n - 9] != 32:
        return Bad(_guess_seq(body), BAD_SYNTAX)
    mv = memoryview(body)
    c = crc32(mv[: n - 9])
    if b"%08x" % c != body[n - 8 :]:
        return Bad(_guess_seq(body), BAD_CRC)
    # Only the short header fields are copied out: a 1 KB frame must decode on a heap
    # with little room left in one piece.
    a = body.find(b" ")
    b = body.find(b" ", a + 1) if a > 0 else -1
    d = body.find(b" ", b + 1) if b > 0 else -1
    if d < 0 or d >= n - 9:
        return Bad(0, BAD_PAYLOAD)
    ver, seq, typ = body[:a], body[a + 1 : b], body[b + 1 : d]
    if not (ver.isdigit() and seq.isdigit() and len(seq) <= 5 and len(ver) <= 3):
        return Bad(0, BAD_PAYLOAD)
    seq = int(seq)
    if seq > SEQ_MAX or not typ or len(typ) > 16 or not typ.isupper():
        return Bad(0, BAD_PAYLOAD)
    try:
        js = mv[d + 1 : n - 9]
        # MicroPython's json reads the buffer in place; CPython's wants str.
        payload = json.loads(js if _MP else bytes(js).decode())
    except MemoryError:
        raise  # not the frame's fault: the link asks for it again
    except Exception:  # ValueError, UnicodeError, RecursionError on nested junk
        return Bad(seq, BAD_PAYLOAD)
    if not isinstance(payload, dict):
        return Bad(seq, BAD_PAYLOAD)
    return Frame(int(ver), seq, typ.decode(), payload, c)


class Parser:
    """Incremental receiver: feed() arbitrary chunks, get back Frame/Bad objects.

    Lines without the marker (REPL prompts, prints, tracebacks) are skipped; a frame starts at
    the last marker of its line, so a prompt or a cut-off frame before it does not matter.
    The line buffer is a fixed bytearray of max_line bytes: the per-byte work is done by
    bytes.find in C, and an over-long line is dropped (restarting at any later marker).
    """

    def __init__(self, max_line=MAX_LINE):
        self._buf = bytearray(max_line)
        self._mv = memoryview(self._buf)
        self._n = 0
        self._max = max_line
        self.frames = 0
        self.bad = 0
        self.overflows = 0
        self.chatter_lines = 0

    def reset(self):
        self._n = 0

    def feed(self, data):
        out = []
        start = 0
        end = len(data)
        while start < end:
            nl = data.find(b"\n", start)
            stop = end if nl < 0 else nl
            if stop > start:
                self._append(data, start, stop)
            if nl < 0:
                break
            r = self._line()
            if r is not None:
                out.append(r)
            start = nl + 1
        return out

    def _append(self, data, a, b):
        n = self._n
        k = b - a
        if n + k <= self._max:
            self._mv[n : n + k] = data[a:b]
            self._n = n + k
            return
        # Too long for one frame: keep only the part from the last marker on (rare path).
        self.overflows += 1
        i = data.rfind(MARKER, a, b)
        if i >= 0:
            if b - i <= self._max:
                self._mv[0 : b - i] = data[i:b]
                self._n = b - i
            else:
                self._n = 0
            return
        buf = self._buf
        j = buf.rfind(MARKER, 0, n)
        if j < 0:  # the marker may straddle the old bytes and the new ones
            m = n - 2 if n >= 2 else 0
            t = bytes(buf[m:n]) + bytes(data[a : a + 2])
            p = t.find(MARKER)
            if p >= 0:
                j = m + p
        if j < 0 or n - j + k > self._max:
            self._n = 0
            return
        buf[0 : n - j] = buf[j:n]
        n -= j
        self._mv[n : n + k] = data[a:b]
        self._n = n + k

    def _line(self):
        buf = self._buf
        n = self._n
        self._n = 0
        while n and buf[n - 1] == 13:
            n -= 1
        i = buf.rfind(MARKER, 0, n)
        if i < 0:
            if n:
                self.chatter_lines += 1
            return None
        r = decode(bytes(self._mv[i + 3 : n]))
        if isinstance(r, Frame):
            self.frames += 1
        else:
            self.bad += 1
        return r


def next_seq(seq):
    return 1 if seq >= SEQ_MAX else seq + 1
