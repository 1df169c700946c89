"""Well-formed frames against the board on the Pico's own MicroPython: the rp2 image on the
emulated RP2040 (bawo.pico), the bundle `bawo flash` builds on its flash, its heap cut to 160 KB
by a ballast that boot.py takes before main.py runs, the frames sent by real pyserial on the
emulated USB serial's pty. The same frames as tests/_link_fuzz.py (random_request, sync_walk),
sent as a host sends them: a resend after 2 s without a reply, up to 3, and the board's
EVENTs acknowledged (most of them). Used by tests/test_pico.py (a seeded slice) and
bench/pico_fuzz.py (100,000 frames).

The board must answer every request once, never ERROR 1, 9-for-a-bug or 10, never fall to the
REPL or reboot (its serial output would say so), keep the game in progress when it refuses a
NEW, change no file of its bundle, and at the end a host's sync (bawo.boardlink.BoardLink, the
code `bawo sync` runs) must list, fetch and replay every game on its flash and mark each one
synced. Times are the wall clock's: the emulator runs as fast as it can.
"""

import os
import random
import time

import serial

from _link_fuzz import Frames, Tally, learn, memory_error, wants_reply, _same_answer
from _link_helpers import P, host_link
from bawo.pico import Pico, load_profile, make_flash, read_files
from shared_rules.record import Record

HEAP_KB = 160
# boot.py runs before main.py on an empty heap: what it keeps beyond HEAP_KB stays taken.
BOOT_PY = b"""import gc
gc.collect()
_extra = gc.mem_free() + gc.mem_alloc() - %d * 1024
if _extra > 0:
    import ballast
    ballast.keep = bytearray(_extra)
del _extra
"""
CRASH_SIGNS = (b"Traceback", b"MicroPython v", b"soft reboot", b"\n>>> ")
REPLY_S = 2.0  # a host's wait before it sends a frame again (bawo.boardlink's timeout)


class PicoLink:
    """The emulated Pico's USB serial through pyserial; frames parsed, raw bytes kept for the
    signs of a crash."""

    def __init__(self, flash, files=None):
        """files: what to put on a new flash; None: power on the flash as it is."""
        self.flash = flash
        if files is not None:
            make_flash(flash, files)
        # No LED bytes from the emulator: nothing here looks at them.
        self.pico = Pico(load_profile("bawo-4x8"), flash, options={"frame_bytes": False})
        try:
            self.pico.wait_boot(timeout=300)
        except BaseException:
            self.pico.close()
            raise
        self.port = serial.Serial(self.pico.port, timeout=0)
        self.closed = False
        self.parser = P.Parser()
        self.frames = []
        self.tail = b""  # the last bytes seen, for a crash message
        self.crash = None

    def write(self, data):
        self.port.write(data)

    def read(self, timeout):
        """Read what came within timeout seconds (at least one poll)."""
        end = time.monotonic() + timeout
        while True:
            data = self.port.read(65536)
            if data:
                seen = self.tail + data
                for sign in CRASH_SIGNS:
                    if sign in seen and self.crash is None:
                        self.crash = seen[max(0, seen.find(sign) - 300) :][:1200]
                self.tail = seen[-400:]
                for f in self.parser.feed(data):
                    assert isinstance(f, P.Frame), "the board sent a damaged frame %r" % f
                    self.frames.append(f)
            elif time.monotonic() >= end:
                return
            else:
                time.sleep(0.002)

    def replies(self, seq):
        return [f for f in self.frames if f.seq == seq and f.type in (P.OK, P.ERROR)]

    def request(self, seq, typ, payload=None, tries=3):
        """One request and its reply (OK or ERROR frame) as a host asks: None if none came."""
        frame = P.encode(seq, typ, payload)
        for _ in range(tries):
            self.frames.clear()
            self.write(frame)
            end = time.monotonic() + REPLY_S
            while time.monotonic() < end:
                self.read(0.01)
                r = self.replies(seq)
                if r:
                    return r[-1]
        return None

    def position(self, seq):
        r = self.request(seq, P.POSITION)
        return None if r is None or r.type != P.OK else r.payload

    def alive(self):
        return self.pico.proc.poll() is None

    def close(self, finish_flash=False):
        if self.closed:
            return
        self.closed = True
        try:
            self.port.close()
        finally:
            self.pico.close(finish_flash)


def run(n, seed, work, bundle, heap_kb=HEAP_KB, progress=None):
    """n well-formed frames against the emulated Pico; a dict of figures. Raises
    AssertionError on the first broken promise."""
    rng = random.Random(seed)
    os.makedirs(work, exist_ok=True)
    flash = os.path.join(work, "flash.bin")
    files = bundle.copy()
    files["boot.py"] = BOOT_PY % heap_kb
    files["ballast.py"] = b"keep = None\n"
    link = PicoLink(flash, files)
    tally = Tally()
    nomem_naks = resends = unanswered = mute = 0
    slowest = 0.0
    t0 = time.monotonic()
    try:
        hello = link.request(1, P.HELLO)
        assert hello is not None and hello.type == P.OK, hello
        heap_free_at_hello = hello.payload.get("heap_free")
        assert heap_free_at_hello < heap_kb * 1024, (
            "the ballast did not cut the heap: %r" % hello.payload
        )
        ctx = {"legal": (), "position": None, "ids": [], "games": 0}
        cur_id = None
        frames = Frames(rng)
        for i in range(n):
            nxt = frames.next(ctx)
            if nxt is None:
                continue
            frame, typ, ver, fseq, from_walk, again = nxt
            seq = frames.seq
            before = None
            if typ == P.NEW and cur_id is not None:
                p = link.position(seq ^ 0x2000 or 1)
                before = None if p is None else p.get("id")
            link.frames.clear()
            link.write(frame)
            wants = wants_reply(typ)
            t_sent = time.monotonic()
            sent_at = t_sent
            sends = 1
            mine = None
            nak_resent = False
            while True:
                link.read(0.005)
                if not wants:
                    link.read(0.02)
                    break
                mine = link.replies(fseq)
                if mine:
                    break
                naks = [f for f in link.frames if f.type == P.NAK and f.seq in (0, fseq)]
                if naks:
                    nomem_naks += len(naks)
                    link.frames = [f for f in link.frames if f.type != P.NAK]
                    link.write(frame)
                    nak_resent = True
                if time.monotonic() - sent_at > REPLY_S:
                    if sends > 3:
                        unanswered += 1
                        mute += 1
                        assert mute <= 20, (
                            "the board hangs: no reply to 20 requests (%r)" % link.tail
                        )
                        break
                    resends += 1
                    sends += 1
                    sent_at = time.monotonic()
                    link.write(frame)
                assert link.crash is None, "the board crashed: %r" % link.crash
            if mine:
                mute = 0
                link.read(0.005)  # a resend's late second answer, for the check below
                mine = link.replies(fseq)
            slowest = max(slowest, time.monotonic() - t_sent)
            for f in link.frames:
                if f.type == P.EVENT:
                    if rng.randrange(20):
                        link.write(P.encode(f.seq, P.ACK))
                    if f.payload.get("ev") == P.EV_START:
                        cur_id = f.payload["id"]
                    continue
                if f.type in (P.OK, P.ERROR) and f.seq == fseq:
                    tally.add(typ, f, frame)
            if wants and not mine and from_walk:
                frames.walk = None
            if wants and mine:
                # One reply; a frame sent more than once (a resend after a timeout, after a
                # NAK, or the same frame again) may bring the same answer again, late: the
                # wall clock, not a simulated one, decides when it comes.
                assert len(mine) == 1 or (
                    (sends > 1 or again or nak_resent or fseq == 0)
                    and all(_same_answer(typ, m, mine[0]) for m in mine)
                ), (frame, mine)
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
                    after = link.position(seq ^ 0x4000 or 1)
                    if after is not None:
                        assert after.get("id") == before, (frame, reply, before, after)
            if rng.randrange(10) == 0:
                link.read(rng.choice((0.02, 0.1, 0.4)))  # animations, the board's moves
            assert link.alive(), "the emulated Pico stopped: %s" % link.pico.why()
            assert link.crash is None, "the board crashed: %r" % link.crash
            if progress and i % 1000 == 0:
                progress(i, tally.codes)
        link.read(2.0)
        assert link.crash is None, "the board crashed: %r" % link.crash
        # Afterwards a host's sync on the running board (the code `bawo sync` runs); if the
        # board has no room for it, as a person would: power cycle, then sync.
        try:
            ids = _sync_all(link.port)
            where, why = "running board", None
        except AssertionError as e:
            why = str(e)[:200]
            link.close()
            link = PicoLink(flash)
            ids = _sync_all(link.port)
            where = "board restarted"
        # Powered off once the flash chip has ended what it was doing: a cut inside a sector
        # erase or a page program (what the emulator's quit was) left a block the host's
        # littlefs reader refused once in about ten runs (LFS_ERR_CORRUPT), though the board's
        # own littlefs recovers from it at its next power-on (the power-cut tests). What is
        # checked here is the data a sync left, not a cut.
        link.read(1.0)
        link.close(finish_flash=True)
        on_flash = read_files(flash)
        left = sorted(k for k in on_flash if k.startswith("games/") and k.endswith(".rec"))
        assert not left, "games on flash the sync did not take: %s" % left
        changed = sorted(k for k in bundle if on_flash.get(k) != bundle[k])
        assert not changed, "the bundle's files changed: %s" % changed
        synced = sorted(k for k in on_flash if k.startswith("games/") and k.endswith(".syn"))
        return dict(
            {
                "frames": n,
                "seed": seed,
                "heap": "%d KB" % heap_kb,
                "heap_free at HELLO": heap_free_at_hello,
            },
            **tally.figures(),
            **{
                "games on flash, all synced": len(synced),
                "games in the final sync": len(ids),
                "synced from": where,
                "running board's sync": why or "done",
                "slowest reply (s, wall)": round(slowest, 2),
                "NAK 0 for want of memory": nomem_naks,
                "resends after 2 s without reply": resends,
                "requests unanswered after 3 resends": unanswered,
                "seconds": round(time.monotonic() - t0, 1),
            },
        )
    finally:
        link.close()


def _sync_all(port):
    """A host's whole sync (HELLO, LIST, GET, replay, ACK_GAME) by bawo.boardlink.BoardLink; the ids.
    A request the board had no room for is asked again (bawo.boardlink does so 5 times itself)."""
    link = host_link.BoardLink(port, timeout=2.0, retries=3)

    def patient(fn, *a):
        for _ in range(20):
            try:
                return fn(*a)
            except host_link.BoardLinkError as e:
                if e.code is not None and (e.code != P.E_INTERNAL or "memory" not in str(e)):
                    raise
                time.sleep(0.5)
        raise AssertionError("the board never had room for %s%r" % (fn.__name__, a))

    patient(link.hello)
    ids = [g["id"] for g in patient(link.list_games)]
    for gid in ids:
        Record.from_text(patient(link.fetch_record, gid).decode()).replay()
        patient(link.ack_game, gid)
    return ids
