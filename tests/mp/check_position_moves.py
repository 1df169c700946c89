# POSITION with `from`: the board pages its move list to a host joining mid-game
# (host/bawo/watch.py, play --board resuming). The real app, handler and link, in memory,
# under python3 and micropython; hostile `from` values are refused or harmless.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import time
import hw_sim
import app
import protocol as P
from handler import Handler
from journal import Journal
from link import Link

TMP = '/tmp/bawo-position-moves-%d' % (time.time_ns() % 1000000007)


def _app(game, plies, seed=1):
    mpcheck.empty_dir(TMP)
    board = hw_sim.Board(
        mpcheck.prof() if game != 'bagh-chal' else mpcheck.prof('grid-5x5'), clock=hw_sim.SimClock()
    )
    a = app.App(
        board,
        Journal(TMP, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': game, 'opponent': 'people', 'speed': 0},
    )
    a.new_game(game, opponent='people')
    x = seed
    while a.session.s.ply < plies and a.session.s.outcome() is None:
        lm = a.session.s.legal_moves
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        a.play(lm[(x >> 8) % len(lm)])
    return a


class _Host:
    """Frames in, replies out, through the board's real Link."""

    def __init__(self, a):
        self.inbox = []
        self.out = bytearray()
        self.link = Link(self._read, self.out.extend, Handler(a))
        self.parser = P.Parser()
        self.seq = 0

    def _read(self):
        return self.inbox.pop(0) if self.inbox else None

    def ask(self, typ, payload):
        self.seq += 1
        frame = P.encode(self.seq, typ, payload)
        assert len(frame) <= P.MAX_LINE + 1
        self.inbox.append(frame)
        self.link.poll()
        got = [r for r in self.parser.feed(bytes(self.out)) if isinstance(r, P.Frame)]
        self.out[:] = b''
        assert len(got) == 1 and got[0].seq == self.seq, got
        return got[0]


def _all_moves(h):
    moves = []
    pages = 0
    while True:
        r = h.ask(P.POSITION, {'from': len(moves)})
        assert r.type == P.OK, r.payload
        assert r.payload['from'] == len(moves)
        moves += r.payload['moves']
        pages += 1
        if len(moves) >= r.payload['ply']:
            return moves, pages, r.payload


def test_pages_give_the_whole_game():
    # Seeds whose random games last (most random Bawo games end within 40 plies).
    for game, seed, pages_at_least in (('bawo', 4, 1), ('oware', 27, 2), ('bagh-chal', 6, 2)):
        a = _app(game, 400, seed)
        assert a.session.s.ply >= 60, (game, a.session.s.ply)
        moves, pages, last = _all_moves(_Host(a))
        assert moves == a.session.s.moves, (game, moves, a.session.s.moves)
        assert last['root'] is None and last['ply'] == a.session.s.ply
        assert pages >= pages_at_least, (game, pages)


def test_without_from_no_moves():
    r = _Host(_app('bawo', 5)).ask(P.POSITION, {})
    assert r.type == P.OK and 'moves' not in r.payload and r.payload['ply'] == 5


def test_hostile_from_values():
    h = _Host(_app('bawo', 5))
    # the range of every field (docs/protocol.md): from is 0..65535
    for bad in (-1, '3', True, 1.5, [], {}, 65536, 10**30):
        r = h.ask(P.POSITION, {'from': bad})
        assert r.type == P.ERROR and r.payload['code'] == P.E_BAD_PAYLOAD, (bad, r)
    for far in (5, 6, 65535):
        r = h.ask(P.POSITION, {'from': far})
        assert r.type == P.OK and r.payload['moves'] == [], (far, r)


if __name__ == '__main__':
    mpcheck.run(globals())
