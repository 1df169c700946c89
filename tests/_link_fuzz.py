"""Well-formed frames against the whole board: the simulator (firmware/board_sim.py, the real
app, handler, link and journal) in a heap it runs short in (conftest.TIGHT_HEAP), from .mpy files as on a
Pico, its serial link a pair of pipes. (The framing fuzz, damaged frames against the parser,
is tests/mp/test_protocol_mp.py.) Used by tests/test_protocol.py (a seeded slice, and the
100,000-frame run behind -m slow) and bench/link_fuzz.py.

Frames have a right CRC and valid JSON: every message type, field values random, at the edges
of their ranges (protocol.SCHEMA) or of the wrong type, in random order, while games are
played (by the host, the board's AI and people) and records are synced. The board must answer
every request exactly once and within a bound, never ERROR 1, 9 or 10, keep the game in
progress when it refuses a NEW, touch no file outside its data directory, and keep every game
it recorded, fetchable (CRC) and replayable afterwards.
"""

import os
import random
import select
import shutil
import time

from _link_helpers import P, host_link
from conftest import TIGHT_HEAP
from bawo.firmware import profile_path
from bawo.sim import BoardProcess, build_mpy
from shared_rules.record import Record

EDGE_INTS = (
    -1,
    0,
    1,
    2,
    255,
    256,
    65535,
    65536,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    1 << 62,
    1 << 64,
    -(1 << 63),
    10**30,
)
JUNK = (
    None,
    True,
    False,
    1.5,
    -0.0,
    1e300,
    "",
    "x",
    "\u00e9\u0000\u0003",
    [],
    [1, "a"],
    {},
    {"a": {"b": [1]}},
    "#BW1 1 OK {} 00000000",
    "../" * 20,
    "a" * 300,
)
PATH_IDS = (
    "../outside-0001",
    "../x/fuzz-0001",
    "/tmp/fuzz-0001",
    "fuzz-0001/../fuzz-0001",
    "fuzz-0001.rec",
    "fuzz-0001.syn",
    "./fuzz-0001",
    "fuzz-00001",
    "other-0001",
    "outside-0001",
    "fuzz-9999",
    "fuzz-0000",
    "cur.jnl",
    "counter",
    "fuzz-0001\x00",
)
BOARD_ID = "fuzz"
REPLY_WAIT_MS = 6  # simulated ms per `w` command while waiting for a reply


def field_value(rng, spec, ctx):
    name, kind, lo, hi, default = spec
    r = rng.randrange(20)
    if r == 0:
        return rng.choice(JUNK)
    if r == 1:
        return rng.choice(EDGE_INTS)
    if kind == P.INT:
        c = rng.randrange(6)
        if c == 0:
            return rng.choice((lo - 1, lo, lo + 1, hi - 1, hi, hi + 1))
        if name == "off":
            return rng.randrange(3000)
        if name == "n":
            return rng.choice((0, 1, 100, 511, 512, 513, 65535))
        if name == "start":
            return rng.randrange(ctx["games"] + 3)
        return rng.randint(lo, hi)
    if kind == P.CHOICE:
        return rng.choice(lo) if rng.randrange(4) else rng.choice(("board-first", "People", "x"))
    if kind == P.GAME_ID:
        c = rng.randrange(4)
        if c < 2 and ctx["ids"]:
            return rng.choice(ctx["ids"])
        if c == 2:
            return rng.choice(PATH_IDS)
        return "%s-%04d" % (BOARD_ID, rng.randrange(ctx["games"] + 3))
    if name == "move":
        if ctx["legal"] and rng.randrange(4):
            return rng.choice(ctx["legal"])
        return rng.choice(("A1+", "B8-", "a1", "f", "zz", "a1-b2", "A9+", "A1", "1", " ", "x" * hi))
    if name == "kind":
        return rng.choice(("bawo", "oware", "bagh-chal", "chess", "BAWO", "x" * hi))
    if name == "position":
        pos = ctx["position"]
        if pos and rng.randrange(2):
            b = bytearray(pos.encode())
            for _ in range(rng.randrange(3)):  # a few characters changed: usually invalid
                b[rng.randrange(len(b))] = rng.choice(b"0123456789,/ NSx9")
            return b.decode()
        return rng.choice(
            (
                "4,4,4,4,4,4/4,4,4,4,4,4 0 0 S",
                "2,2 N",
                "x",
                "9" * hi,
                "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1 S",
            )
        )
    return "".join(chr(32 + rng.randrange(95)) for _ in range(rng.randrange(hi + 2)))


def random_request(rng, ctx):
    """(type, payload, version) of one well-formed frame of any type."""
    k = rng.randrange(40)
    if k < 3:
        typ = rng.choice((P.ACK, P.NAK, P.OK, P.ERROR, P.EVENT, "BOGUS", "X" * 16, "A_1"))
        return typ, ({} if rng.randrange(2) else {"code": rng.choice(EDGE_INTS), "ev": "move"}), 1
    typ = P.MOVE if k < 12 else rng.choice(FIRST_REQUESTS)  # most frames of a session are moves
    pl = {}
    for spec in P.SCHEMA[typ]:
        if rng.randrange(8) if spec[0] != "position" else not rng.randrange(3):
            pl[spec[0]] = field_value(rng, spec, ctx)
    if rng.randrange(10) == 0:
        pl[rng.choice(("extra", "x", "id", "t"))] = rng.choice(JUNK)
    ver = 1 if rng.randrange(50) else rng.choice((0, 2, 999))
    if typ == P.TIME:
        # Two TIMEs in three become a remote game's PEER or END, drawn from a second stream:
        # the seeded runs play the same games as before those requests came.
        r2 = ctx.setdefault("rng2", random.Random(len(P.REQUESTS)))
        if r2.randrange(3):
            typ = r2.choice(LATER_REQUESTS)
            pl = {}
            for spec in P.SCHEMA[typ]:
                if r2.randrange(8):
                    pl[spec[0]] = field_value(r2, spec, ctx)
    return typ, pl, ver


# The requests of the protocol's first version, in their order (the seeded runs' stream), and
# those added since (docs/protocol.md "Remote games").
FIRST_REQUESTS = (P.HELLO, P.TIME, P.LIST, P.GET, P.ACK_GAME, P.POSITION, P.NEW, P.MOVE)
LATER_REQUESTS = tuple(t for t in P.REQUESTS if t not in FIRST_REQUESTS)


def encode(ver, seq, typ, pl):
    if ver == P.VERSION:
        return P.encode(seq, typ, pl)
    body = ("%d %d %s %s" % (ver, seq, typ, P.dumps(pl))).encode()
    return b"%s%s %08x\n" % (P.MARKER, body, P.crc32(body))


def sync_walk():
    """A host's sync, one request at a time: yields (type, payload), is sent each reply."""
    start = 0
    while start is not None:
        r = yield (P.LIST, {"start": start})
        if r.type != P.OK:
            return
        for g in r.payload["games"]:
            off = 0
            while True:
                c = yield (P.GET, {"id": g["id"], "off": off, "n": P.MAX_CHUNK})
                if c.type != P.OK or not c.payload["data"]:
                    break
                off += len(P.unb64(c.payload["data"]))
            yield (P.ACK_GAME, {"id": g["id"]})
        start = r.payload["next"]


class Frames:
    """The fuzz's next frame, for both fuzzers (the simulator's and the Pico's): the last one
    again (1 in 10: a host's resend, answered from the cache), the next step of a host's sync
    walk (one is started 1 in 300 frames), or a random well-formed request."""

    def __init__(self, rng):
        self.rng = rng
        self.walk = None
        self.walk_reply = None  # the reply to the walk's last step, sent to it next
        self.last = None
        self.seq = rng.randrange(1, P.SEQ_MAX)

    def next(self, ctx):
        """(frame, type, version, seq, from_walk, again), or None for a frame too long to send."""
        rng = self.rng
        from_walk = False
        again = self.last is not None and rng.randrange(10) == 0
        if again:
            frame, typ, ver, fseq = self.last
        else:
            if self.walk is not None and rng.randrange(10) < 4:
                try:
                    typ, pl = self.walk.send(self.walk_reply)
                    ver, from_walk = 1, True
                except StopIteration:
                    self.walk = None
            if not from_walk:
                if self.walk is None and rng.randrange(300) == 0:
                    self.walk = sync_walk()
                    typ, pl = self.walk.send(None)
                    ver, from_walk = 1, True
                else:
                    typ, pl, ver = random_request(rng, ctx)
            self.seq = P.next_seq(self.seq)
            fseq = self.seq if from_walk or rng.randrange(100) else rng.choice((0, 1, 65535))
            frame = encode(ver, fseq, typ, pl)
            if len(frame) > P.MAX_LINE:
                return None
        self.last = (frame, typ, ver, fseq)
        return frame, typ, ver, fseq, from_walk, again


class Tally:
    """Replies by code and by request type, and those for want of memory; a reply that says
    the board failed (a bad frame, an internal error that is not memory, too large) fails."""

    def __init__(self):
        self.codes = {}
        self.by_type = {}
        self.low_memory = {}

    def add(self, typ, f, frame):
        c = 0 if f.type == P.OK else f.payload["code"]
        self.codes[c] = self.codes.get(c, 0) + 1
        by = self.by_type.setdefault(typ if typ in P.REQUESTS else "other", {})
        by[c] = by.get(c, 0) + 1
        if memory_error(f):
            self.low_memory[typ] = self.low_memory.get(typ, 0) + 1
        else:
            assert c not in (P.E_BAD_FRAME, P.E_INTERNAL, P.E_TOO_LARGE), (frame, f.payload)

    def figures(self):
        return {
            "replies": dict(sorted(self.codes.items())),
            "replies by request": {
                t: dict(sorted(c.items())) for t, c in sorted(self.by_type.items())
            },
            "ERROR 9 for want of memory": self.low_memory,
        }


def wants_reply(typ):
    """A request, or a type the board does not know (it answers ERROR 2); not ACK, NAK or a
    reply's type."""
    return typ in P.REQUESTS or typ not in (P.ACK, P.NAK, P.OK, P.ERROR, P.EVENT)


def learn(ctx, typ, reply, cur_id):
    """What a reply tells the fuzz about the game (legal moves, position, id) and the records
    (ids, count) for the frames to come; returns the game's id."""
    if reply.type == P.OK and typ in (P.NEW, P.MOVE, P.POSITION):
        ctx["legal"] = reply.payload.get("legal") or ()
        ctx["position"] = reply.payload.get("position")
        cur_id = reply.payload.get("id", cur_id)
    if reply.type == P.OK and typ == P.LIST:
        ctx["games"] = max(ctx["games"], reply.payload["total"])
        for g in reply.payload["games"]:
            if g["id"] not in ctx["ids"]:
                ctx["ids"].append(g["id"])
    return cur_id


def memory_error(f):
    """An ERROR 9 because the board's heap had no room for the reply: reported, not a crash."""
    return (
        f.type == P.ERROR
        and f.payload.get("code") == P.E_INTERNAL
        and "memory allocation failed" in f.payload.get("text", "")
    )


def snapshot(root, skip):
    out = {}
    for d, dirs, files in os.walk(root):
        if d == skip or d.startswith(skip + os.sep):
            continue
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[p] = fh.read()
    return out


class SimLink:
    """The simulator's serial port as two pipes; the simulated clock runs only when told."""

    def __init__(self, root, heap, seed, mpy=None, ai=True, board_id=BOARD_ID):
        self.data = os.path.join(root, "data")
        os.makedirs(self.data, exist_ok=True)
        self.mpy = mpy = mpy or build_mpy(os.path.join(root, "mpy"))
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        # The board's paths relative to its data dir (its cwd): a path is a string on the
        # board's heap, so with absolute ones a seed's run changed with the temp dir's name.
        profile = os.path.join(root, "bawo-4x8.json")
        if not os.path.exists(profile):
            shutil.copy(profile_path("bawo-4x8"), profile)
        self.b = BoardProcess(
            profile,
            self.data,
            heap=heap,
            mpy_dir=os.path.relpath(mpy, self.data),
            link=(to_r, from_w),
            seed=seed,
            extra_env={
                "BAWO_DATA": ".",
                "BAWO_BOARD_ID": board_id,
                "BAWO_PROFILE": os.path.relpath(profile, self.data),
                "BAWO_LEVEL": "1",
                "BAWO_OPPONENT": "board-second" if ai else "people",
                "BAWO_SPEED": "7",
                "BAWO_MIN_FREE": "0",
                "BAWO_HEAP": "1",
            },
        )
        os.close(to_r)
        os.close(from_w)
        self.parser = P.Parser()
        self.frames = []
        self.sim_ms = 0
        self.mute_probes = 0
        self.marks = 0
        self.raw = None  # a bytearray: the link's bytes go there, unparsed (_PipePort)

    def write(self, data):
        os.write(self.to_w, data)

    def run(self, ms):
        """ms of simulated time, back once the board has run them (a mark after the `w`)
        with everything it sent meanwhile read: the same seed makes the same run whatever
        the machine's load (it used to race the board in real time: ERROR 9s of one seed
        ranged from 7,000 to 23,000 in 100,000 frames)."""
        b = self.b
        b.send("w %d" % ms)
        self.sim_ms += ms
        self.marks += 1
        b.send("y %d" % self.marks)
        want = "Y %d" % self.marks
        while True:
            while b"\n" in b._buf:
                if b.readline(0) == want:
                    while select.select([self.from_r], [], [], 0)[0]:
                        self.read(0)
                    return
            # Both pipes read as they fill: a board blocked on a full one never reaches the mark.
            r, _, _ = select.select([b._out, self.from_r], [], [], 120)
            if not r:
                raise AssertionError("the board did not run %d ms within 120 s" % ms)
            if self.from_r in r:
                self.read(0)
            if b._out in r:
                chunk = os.read(b._out.fileno(), 65536)
                if not chunk:
                    raise AssertionError("the board stopped: %s" % b.stderr_text())
                b._buf += chunk

    def drain(self):
        # The simulator's own pipe (messages, journal and record lines): read as it comes,
        # or the board blocks writing it.
        b = self.b
        while select.select([b._out], [], [], 0)[0]:
            chunk = os.read(b._out.fileno(), 65536)
            if not chunk:
                break
            b._buf += chunk
        while b"\n" in b._buf:
            b.readline(0)

    def read(self, timeout=0.0):
        r, _, _ = select.select([self.from_r], [], [], timeout)
        if r:
            chunk = os.read(self.from_r, 65536)
            if not chunk:
                self.drain()
                raise AssertionError(
                    "the board closed its serial port: %s %s"
                    % (self.b.stderr_text(), [x for x in self.b.log if x.startswith("M crash")])
                )
            if self.raw is not None:
                self.raw += chunk
                return
            for f in self.parser.feed(chunk):
                assert isinstance(f, P.Frame), "the board sent a damaged frame %r" % f
                self.frames.append(f)

    def replies(self, seq):
        """The OK/ERROR frames with seq received so far: run() returns with all the board
        sent, so there is nothing to wait for in real time (a seed makes one run)."""
        return [f for f in self.frames if f.seq == seq and f.type in (P.OK, P.ERROR)]

    def request(self, seq, typ, payload=None, tries=40, step_ms=6):
        """One request and its reply (OK or ERROR frame), the board's clock run step_ms at a
        time; None if none came within tries steps."""
        self.frames.clear()
        self.write(P.encode(seq, typ, payload))
        for _ in range(tries):
            self.run(step_ms)
            r = self.replies(seq)
            if r:
                return r[-1]
        return None

    def position(self, seq):
        """The board's POSITION reply payload (None if it had no memory for it)."""
        probe = P.encode(seq, P.POSITION)
        self.frames.clear()
        self.write(probe)
        for i in range(20):
            self.run(REPLY_WAIT_MS)
            r = self.replies(seq)
            if r:
                self.frames.clear()
                return None if memory_error(r[-1]) else r[-1].payload
            if i % 5 == 4 or any(f.type == P.NAK for f in self.frames):
                self.frames.clear()
                self.write(probe)
        self.mute_probes += 1  # a full heap: counted; the main loop catches a mute board
        return None

    def alive(self):
        return self.b.proc.poll() is None

    def idle_status(self):
        """The board's status once idle, with its heap figures (BAWO_HEAP=1: 'peak', the
        high-water 'live' and 'live_now', what a collection left)."""
        import json

        self.b.send("i")
        return json.loads(self.b.expect("I ", timeout=30)[2:])

    def heap(self):
        """The board's heap figures, for a failure message."""
        try:
            d = self.idle_status()
        except Exception as e:  # noqa: BLE001 - only a message
            return "heap unknown (%s)" % e
        return "heap: peak %s, live %s, mode %s, game %s, opponent %s" % (
            d.get("peak"),
            d.get("live"),
            d.get("mode"),
            d.get("game"),
            d.get("opponent"),
        )

    def close(self):
        self.b.quit()
        os.close(self.to_w)
        os.close(self.from_r)


def run(n, seed, root, heap=TIGHT_HEAP, progress=None, ai=True):
    """n well-formed frames against the simulated board; returns a dict of figures.
    Raises AssertionError on the first broken promise."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "x"))
    for name in ("outside-0001.rec", "fuzz-0001.rec", "x/fuzz-0001.rec", "x/fuzz-0001.syn"):
        with open(os.path.join(root, name), "wb") as f:
            f.write(b'[Game "bawo"]\n#crc 00000000\n')
    outside = None
    sim = SimLink(root, heap, seed, ai=ai)
    tally = Tally()
    nomem_naks = 0
    resends = 0
    unanswered = 0
    mute = 0
    slowest = 0
    t0 = time.monotonic()
    try:
        outside = snapshot(root, sim.data)
        ctx = {"legal": (), "position": None, "ids": [], "games": 0}
        cur_id = None
        frames = Frames(rng)
        for i in range(n):
            nxt = frames.next(ctx)
            if nxt is None:
                continue
            frame, typ, ver, fseq, from_walk, _ = nxt
            seq = frames.seq
            before = None
            if typ == P.NEW and cur_id is not None:
                p = sim.position(seq ^ 0x2000 or 1)
                before = None if p is None else p.get("id")
            sim.frames.clear()
            sim.write(frame)
            wants = wants_reply(typ)
            waited = 0
            reply = None
            mine = None  # a frame that wants no reply (ACK, NAK, a reply's type) gets none
            nak_resent = False
            while True:
                sim.run(REPLY_WAIT_MS)
                waited += REPLY_WAIT_MS
                if not wants:
                    sim.read(0)
                    break
                mine = sim.replies(fseq)
                if mine:
                    break
                naks = [f for f in sim.frames if f.type == P.NAK and f.seq in (0, fseq)]
                if naks:  # the board had no room to read it: send it again, as a host does
                    nomem_naks += len(naks)
                    sim.frames = [f for f in sim.frames if f.type != P.NAK]
                    sim.write(frame)
                    nak_resent = True
                if waited % (REPLY_WAIT_MS * 5) == 0:
                    # A second without a reply: a host's timeout, it sends the frame again;
                    # after 3 resends it gives up (a full heap can cost a reply). The board
                    # must answer again soon after: a board that stays mute, or only NAKs
                    # for want of memory, hangs as far as any host can tell.
                    if waited >= REPLY_WAIT_MS * 5 * 4:
                        unanswered += 1
                        mute += 1
                        assert mute <= 20, "the board hangs: no reply to 20 requests: %r %s" % (
                            sim.b.log[-5:],
                            sim.heap(),
                        )
                        break
                    if not naks:
                        resends += 1
                        sim.write(frame)
            if mine:
                mute = 0
            slowest = max(slowest, waited)
            for f in sim.frames:
                if f.type == P.EVENT:
                    if rng.randrange(20):
                        sim.write(P.encode(f.seq, P.ACK))
                    if f.payload.get("ev") == P.EV_START:
                        cur_id = f.payload["id"]
                    continue
                if f.type in (P.OK, P.ERROR):
                    tally.add(typ, f, frame)
            if wants and not mine and from_walk:
                frames.walk = None
            if wants and mine:
                # One reply; a resend may bring the same reply again (answered from the cache):
                # after a timeout, or after a NAK 0 that was not this frame's. A reply to seq 0
                # may be an earlier seq-0 frame's, late: the same refusal. HELLO always runs
                # (docs/protocol.md): its free heap and flash may differ, nothing else.
                assert len(mine) == 1 or (
                    (waited > REPLY_WAIT_MS * 5 or nak_resent or fseq == 0)
                    and all(_same_answer(typ, m, mine[0]) for m in mine)
                ), (frame, sim.frames)
                reply = mine[0]
                if typ not in P.REQUESTS:
                    assert reply.payload["code"] in (P.E_UNKNOWN_TYPE, P.E_VERSION), reply
                if from_walk:
                    frames.walk_reply = reply
                cur_id = learn(ctx, typ, reply, cur_id)
                if (
                    reply.type == P.ERROR
                    and typ == P.NEW
                    and before is not None
                    and reply.payload["code"] != P.E_BUSY
                    and not memory_error(reply)
                ):
                    # A refused NEW leaves the game in progress as it was.
                    after = sim.position(seq ^ 0x4000 or 1)
                    if after is not None:
                        assert after.get("id") == before, (frame, reply, before, after)
            if rng.randrange(10) == 0:
                sim.run(rng.choice((20, 100, 400)))  # animations, the board's moves
            assert sim.alive(), "the board died: %s" % sim.b.stderr_text()
            if progress and i % 1000 == 0:
                progress(i, tally.codes)
        # Afterwards: the board runs, nothing outside its data changed, and every game it
        # recorded is there: a host's sync fetches each (CRC checked) and it replays.
        sim.run(5000)
        sim.read(0.05)
        assert sim.alive(), "the board died: %s" % sim.b.stderr_text()
        assert snapshot(root, sim.data) == outside, "a file outside the board's data changed"
        recorded = [x[2:] for x in sim.b.log if x.startswith("R ")]
        # First on the running board; on a tight heap its AI can leave no room for a LIST
        # page (see the notes), so then as a person would: power cycle, then sync. Either
        # way every game recorded must list, fetch (CRC) and replay.
        playing = _game_at(sim)
        try:
            ids = _sync_all(_PatientLink(_PipePort(sim), timeout=1.0, retries=2, tries=3))
            where = "running board"
            why = None
        except AssertionError as e:
            why = str(e)[:200]
            sim.close()
            sim = SimLink(root, heap, seed, mpy=sim.mpy, ai=ai)
            ids = _sync_all(_PatientLink(_PipePort(sim), timeout=2.0, retries=3))
            where = "board restarted"
            # The game in progress is resumed where it was (a journal with a gap was set
            # aside at this power-on, the game lost: the fuzz found that once).
            after = _game_at(sim)
            # (Its board's AI may have moved since, or ended it: then it is a record.)
            assert (
                playing is None
                or (after is not None and after[0] == playing[0] and after[1] >= playing[1])
                or (after is None and playing[0] in ids)
            ), (playing, after)
        assert set(recorded) <= set(ids), (recorded, ids)
        bad = [x for x in os.listdir(sim.data) if x.endswith(".bad")]
        assert not bad, "set aside, though nothing damaged them: %s" % bad
        return dict(
            {"frames": n, "seed": seed},
            **tally.figures(),
            **{
                "games recorded": len(recorded),
                "games synced at the end": len(ids),
                "synced from": where,
                "running board's sync": why or "done",
                "slowest reply (simulated ms)": slowest,
                "NAK 0 for want of memory": nomem_naks,
                "resends after 1 s without reply": resends,
                "requests unanswered after 3 resends": unanswered + sim.mute_probes,
                "seconds": round(time.monotonic() - t0, 1),
            },
        )
    finally:
        sim.close()


def _game_at(sim):
    """(id, ply) of the game in progress (None: none, or the board had no room to say)."""
    for i in range(5):
        p = sim.position(7000 + i)
        if p is not None:
            return (p["id"], p["ply"]) if p.get("game") and not p.get("result") else None
        sim.run(500)
    return None


def _same_answer(typ, a, b):
    if typ == P.HELLO and a.type == b.type == P.OK:
        vary = ("heap_free", "flash_free")
        return {k: v for k, v in a.payload.items() if k not in vary} == {
            k: v for k, v in b.payload.items() if k not in vary
        }
    return (a.type, a.payload) == (b.type, b.payload)


def _sync_all(link):
    try:
        link.hello()
        ids = [g["id"] for g in link.list_games()]
        for gid in ids:
            Record.from_text(link.fetch_record(gid).decode()).replay()
            link.ack_game(gid)
        return ids
    finally:
        link.port.close()


class _PatientLink(host_link.BoardLink):
    """A host that asks again, a little later, when the board had no memory for the reply."""

    def __init__(self, port, tries=20, **kw):
        super().__init__(port, **kw)
        self.tries = tries
        self.nomem = 0

    def request(self, typ, payload=None, timeout=None):
        for _ in range(self.tries):
            try:
                return super().request(typ, payload, timeout)
            except host_link.BoardLinkError as e:
                if e.code is not None and (e.code != P.E_INTERNAL or "memory" not in str(e)):
                    raise
                self.nomem += 1
                self.port.sim.run(500)
        raise AssertionError("the board never had room to answer %s %r" % (typ, payload))


class _PipePort:
    """A pyserial-like port on the simulator's pipes for BoardLink; the clock runs on reads."""

    def __init__(self, sim):
        self.sim = sim
        self.timeout = 0.05
        self.buf = sim.raw = bytearray()  # SimLink.run reads the link into it

    def close(self):
        # The board's frames go to the fuzz's own reads again: left in this port's bytes,
        # the POSITION after a restart's sync went unseen, and a game the board had resumed
        # looked lost.
        self.sim.raw = None

    def write(self, b):
        self.sim.write(b)

    def read(self, n):
        if not self.buf:
            self.sim.run(REPLY_WAIT_MS)
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    @property
    def in_waiting(self):
        return len(self.buf)
