# The real firmware (app, handler, link, journal) on the simulated board, its serial link an
# in-memory wire: the link checks and the well-formed-frame fuzzer (test_protocol_mp.py board)
# drive it request by request, under python3 and the MicroPython unix port.
# Import mpcheck first (firmware/ on sys.path).
import os

import gc
import hw_sim
import protocol as P
from journal import Journal
import mpcheck

BOARD_ID = 'fuzz'


def rmtree(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + '/' + n
        try:
            os.remove(p)
        except OSError:
            rmtree(p)
    os.rmdir(d)


tmpdir = mpcheck.tmpdir


class RealBoard:
    """root: a scratch directory; the board's flash is root/data, the rest of root is
    'outside' (tests put files there that no request may touch)."""

    def __init__(self, root, settings=None, profile='bawo-4x8', min_free=0, board_id=BOARD_ID):
        self.root = root
        self.data = root + '/data'
        # As the board does (hw.load_tables): the profile's tables, its loader forgotten.
        import hw

        prof = hw.load_tables('%s/%s.json' % (mpcheck.PROFILES, profile))
        gc.collect()
        self.board = hw_sim.Board(prof, clock=hw_sim.SimClock(), bounce_ms=3)
        import app as A

        self.clock = self.board.clock
        self.journal = Journal(self.data, board_id, min_free=min_free, log=lambda m: None)
        self.records = []  # ids of the records the app wrote
        self.app = A.App(
            self.board, self.journal, board_id, hook=self._hook, settings=settings or {'speed': 8}
        )
        self.inbox = []
        self.out = []
        self.app.attach_link(self._read, self.out.append)
        self.link = self.app.link
        self.parser = P.Parser()
        self.events = []
        self.seq = 0
        self.app.boot()

    def _hook(self, kind, data):
        if kind == 'record':
            self.records.append(data)

    def _read(self):
        return self.inbox.pop(0) if self.inbox else None

    def step(self, ms=0):
        self.clock.advance(ms)
        self.app.step(self.clock.now)

    def replies(self):
        """Frames the board sent since the last call; EVENTs are ACKed and kept in events."""
        got = self.parser.feed(b''.join(self.out))
        self.out.clear()
        out = []
        for r in got:
            assert isinstance(r, P.Frame), 'the board sent a damaged frame: %r' % r
            if r.type == P.EVENT:
                self.events.append(r.payload)
                self.inbox.append(P.encode(r.seq, P.ACK))
            else:
                out.append(r)
        return out

    def send(self, frame):
        self.inbox.append(frame)
        while self.inbox:
            self.link.poll()

    def request(self, typ, payload=None, seq=None):
        """One request; its reply Frame (OK or ERROR with its seq)."""
        if seq is None:
            self.seq = P.next_seq(self.seq)
            seq = self.seq
        self.send(P.encode(seq, typ, payload))
        rs = [r for r in self.replies() if r.seq == seq and r.type in (P.OK, P.ERROR)]
        assert len(rs) == 1, 'replies to %s %r: %r' % (typ, payload, rs)
        return rs[0]

    def ok(self, typ, payload=None):
        r = self.request(typ, payload)
        assert r.type == P.OK, '%s %r: %r' % (typ, payload, r.payload)
        return r.payload

    def code(self, typ, payload=None, seq=None):
        """The ERROR code of the reply, 0 for OK."""
        r = self.request(typ, payload, seq)
        return 0 if r.type == P.OK else r.payload['code']

    def sync_all(self):
        """What a host's sync does: every game listed, fetched (CRC checked) and acked.
        Returns {id: record bytes}."""
        got = {}
        start = 0
        while start is not None:
            page = self.ok(P.LIST, {'start': start})
            for g in page['games']:
                data = b''
                while True:
                    r = self.ok(P.GET, {'id': g['id'], 'off': len(data), 'n': P.MAX_CHUNK})
                    data += P.unb64(r['data'])
                    if len(data) >= r['total'] or not r['data']:
                        break
                assert len(data) == r['total'] and P.crc32(data) == r['crc'], g['id']
                got[g['id']] = data
                self.ok(P.ACK_GAME, {'id': g['id']})
            start = page['next']
        return got

    def state(self):
        a = self.app
        se = a.session
        return (se.header['id'] if se else None, se.s.ply if se else -1, a.mode)


def snapshot(root, skip):
    """{path: (size, crc32)} of every file under root except under skip."""
    out = {}
    stack = [root]
    while stack:
        d = stack.pop()
        for n in os.listdir(d):
            p = d + '/' + n
            if p == skip:
                continue
            st = os.stat(p)
            if st[0] & 0x4000:
                stack.append(p)
            else:
                with open(p, 'rb') as f:
                    out[p] = (st[6], P.crc32(f.read()))
    return out
