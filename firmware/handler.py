# The host link's requests (firmware/link.py) answered from the app and its journal.
from shared_rules import RULES_VERSION
from shared_rules.errors import RulesError
from link import LinkError
import protocol as P
import gc

from buildinfo import VERSION, SOURCE, KIND

# Bytes of move texts in one POSITION reply: the rest of it (legal moves, position) takes at
# most ~450 of the frame's 1024.
MOVES_ROOM = 400


class Handler:
    """The host link's requests (firmware/link.py) on top of the app and its journal."""

    def __init__(self, app):
        self.app = app

    def _err(self, code, text):
        return LinkError(code, text)

    def hello(self):
        # The fields docs/protocol.md lists (link.py adds proto, max_line, max_chunk), then
        # this board's own: its profile and the games it can play.
        a = self.app
        try:
            flash = a.journal.free_bytes()
        except OSError:
            flash = -1
        mem_free = getattr(gc, 'mem_free', None)
        return {'fw': VERSION, 'build': SOURCE, 'image': KIND,
                'rules': RULES_VERSION, 'board': a.journal.board_id,
                'flash_free': flash, 'heap_free': mem_free() if mem_free else -1,
                'profile': a.profile.name, 'games': a.games}

    def _own(self, gid):
        # The protocol let through only ids of the form the board makes, "<name>-<digits>"
        # (never a path). Any record of that form in the board's data is the board's to
        # serve, whichever board id made it (a board whose id changed, a flash moved to
        # another Pico): LIST lists them, so GET and ACK_GAME must reach them, or sync
        # would stop on them for good.
        return gid

    def set_time(self, t):
        self.app.set_time(t)
        return {}

    def _records(self):
        # A sync's requests wait for the search to end (the host asks again: at most the
        # board's ~2 s a move), without stopping it.
        if self.app.thinking:
            raise self._err(P.E_BUSY, 'busy: the board is thinking, ask again')
        return self.app.journal

    def list_games(self):
        return self._records().list_games()

    def get_chunk(self, gid, off, n):
        r = self._records().record_bytes(self._own(gid), off, n)
        if r is None:
            raise self._err(P.E_NO_GAME, 'no game %s' % gid)
        return r

    def ack_game(self, gid):
        if not self._records().mark_synced(self._own(gid)):
            raise self._err(P.E_NO_GAME, 'no game %s' % gid)
        return {'id': gid}

    def position(self, first=None):
        """The game on the board. first: also its moves from ply first + 1 on, as many as
        fit one frame ('moves'), and its set-up position ('root', None for the usual
        start): a host that joins mid-game pages through them (host/bawo/watch.py)."""
        snap = self.app.snapshot(moves=False, legal=True)
        if 'game' not in snap:
            return {'mode': 'menu', 'game': None}
        res = None
        if 'result' in snap:
            res = {'result': snap['result'], 'reason': snap['reason']}
        d = {'mode': snap['mode'], 'game': snap['game'],
             'id': snap['id'], 'position': snap['pos'],
             'turn': snap['turn'], 'ply': snap['ply'], 'result': res,
             'opponent': snap['opponent'],
             'legal': snap['legal']}
        if first is not None:
            page = []
            room = MOVES_ROOM
            for m in self.app.moves(first):   # a page's worth, never the whole game's list
                if room <= len(m) + 3:
                    break
                room -= len(m) + 3
                page.append(m)
            d['moves'] = page
            d['from'] = first
            d['root'] = snap.get('root')
        return d

    def _not_thinking(self):
        # Requests that change the game wait for the search to stop: the search asked the
        # link for news, so changing its position under it is not an option. It stops within
        # 16 nodes; the host asks again (host/bawo/link.py BoardLink.request, on 6).
        a = self.app
        if a.thinking:
            a.abort_think = True
            raise self._err(P.E_BUSY, 'busy: the board is thinking, ask again')

    def new_game(self, kind, position=None, opponent=None):
        a = self.app
        if kind not in a.games:
            raise self._err(P.E_BAD_PAYLOAD, 'game %s not playable here: %s'
                            % (kind, ', '.join(a.games)))
        self._not_thinking()
        try:
            started = a.new_game(kind, position, opponent)
        except RulesError as e:
            raise self._err(P.E_BAD_PAYLOAD, str(e)[:80])
        if not started:
            if a.unresumed:
                raise self._err(P.E_INTERNAL, 'no memory to resume the game in progress '
                                '(kept on flash): ask again later')
            raise self._err(P.E_FLASH_FULL, 'flash full: sync the board first')
        return self._done()

    def move(self, text):
        a = self.app
        if not a.playing() or a.session.ended is not None:
            raise self._err(P.E_NO_GAME, 'no game in progress')
        self._not_thinking()
        try:
            m = a.legal_move(text)
        except RulesError as e:
            raise self._err(P.E_ILLEGAL_MOVE, str(e)[:120])   # the rules' longest reason fits
        a.skip()
        se = a.session
        mover = se.s.turn
        if not a.play(m, True):
            raise self._err(P.E_FLASH_FULL, 'flash full')
        p = se.peer
        if p is not None and p.mine == 'draw' and mover == se.host_side:
            p.mine = None   # the opponent moved: the person's draw offer is declined
            a.show_remote()
        return self._done()

    def peer(self, here, offer, bar, low):
        """PEER: the opponent behind the host's side, shown on the board (accepted and
        ignored without a host game in progress)."""
        se = self.app.session
        if se is not None and se.host_side >= 0 and not se.over():
            import remote
            remote.peer(self.app, here, offer, bar, low)
        return {}

    def end(self, result, reason):
        """END: a host game ends with that result and reason, its record on flash before
        the answer (docs/protocol.md)."""
        a = self.app
        se = a.session
        if se is None or se.host_side < 0 or se.over():
            raise self._err(P.E_NO_GAME, 'no host game in progress')
        self._not_thinking()
        import remote
        remote.end(a, result, reason)
        return self._done()

    def seat(self, rnd, table, tour, kind):
        """SEAT: a club tournament's round and table for this board (round 0: none), shown
        while the board is idle; kind, the round's game, must be one it plays."""
        a = self.app
        if kind is not None and kind not in a.games:
            raise self._err(P.E_BAD_PAYLOAD, 'game %s not playable here: %s'
                            % (kind, ', '.join(a.games)))
        import seat
        seat.take(a, rnd, table, tour, kind)
        return {}

    def _done(self):
        # The game has changed (a NEW, a MOVE) and is journaled: the answer must say so, an
        # ERROR would have the host think nothing happened. A heap too full for the position
        # is collected and asked once more. (Shedding the AI and the records' code as well
        # doubled the fuzz's ERROR 9s: each came back by import at the next move or sync.)
        try:
            return self.position()
        except MemoryError:
            gc.collect()
            return self.position()
