"""A game in progress: a position plus its move stack, with push/pop (python-chess style)."""
from shared_rules.errors import GameOverError, RulesError


class State:
    """Positions of one game from a start position, with undo and repetition counting.

    `history` bounds how many earlier positions are kept for pop(); a pop past them replays
    the moves from the root (exact, slower). The board keeps one: a position per ply of a
    long game does not fit a Pico's heap.

    >>> from shared_rules import Bawo
    >>> s = State(Bawo())
    >>> events = s.push("A1+")
    >>> str(s.position)
    '2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N'
    >>> s.pop()
    'A1+'
    """

    def __init__(self, game, position=None, history=None):
        self.game = game
        if position is None:
            position = game.start()
        elif isinstance(position, str):
            position = game.parse(position)
        self.root = position
        self.position = position
        self.history = history
        # Every move from the root, in flat buffers that grow by doubling: a game's memory is
        # a few bytes a ply (a list of tuples and a dict of keys took 130-190 bytes a ply on
        # the board's 64-bit test build, and a long game starved its heap).
        self._n = 0                # plies
        self._act = bytearray(64)  # the actions, 2 bytes each (little-endian)
        self._txt = bytearray(96)  # the moves as text, each followed by a space
        self._tn = 0               # bytes of _txt in use
        # Games with repetition: the key of every position of the current stage (game.stage:
        # since the last capture or placement; no earlier one can come again), back to back
        # (game.key(pos) has one length per game), counted by an aligned find. A long game's
        # keys took a block of KBs, more than a fragmented board heap had in one piece.
        self._klen = len(game.key(position)) if getattr(game, "repetition", 0) else 0
        self._keys = bytearray(self._klen * 16)
        self._kn = 0
        self._stage = game.stage(position) if self._klen else None
        self._past = []   # the positions before the last len(_past) moves
        self._count(position)
        # The position as played when the last move ended the game by repetition; `position`
        # is then the game's final position (Oware's collected seeds, RULES.md 2).
        self._repeated = None

    def _count(self, pos):
        """Count pos once more; returns how often it has been seen, 0 for games without
        repetition."""
        L = self._klen
        if not L:
            return 0
        k = self.game.key(pos)
        if len(k) != L:   # the aligned count needs one key length per game
            raise RulesError("%s keys of %d bytes, not %d" % (self.game.name, len(k), L))
        buf = self._keys
        end = self._kn * L
        n = 1
        i = buf.find(k, 0, end)
        while i >= 0:
            if i % L == 0:
                n += 1
                i = buf.find(k, i + L, end)
            else:
                i = buf.find(k, i + 1, end)
        self._keys = buf = _put(buf, end, k)
        self._kn += 1
        return n

    def __repr__(self):
        return "State(%r, %r)" % (self.game, self.game.format(self.position))

    def reserve(self, plies, text=0):
        """Room for `plies` more moves (their texts `text` bytes in all) taken at once: a game
        replayed from its journal (the board's power-on) then holds one block a buffer, not a
        doubling series of them (on a tight heap the series failed where one block fitted)."""
        n = self._n + plies
        self._act = _room(self._act, 2 * self._n, 2 * n)
        self._txt = _room(self._txt, self._tn, self._tn + text + plies)
        if self._klen and self._stage is None:   # staged keys stay few: they grow as needed
            self._keys = _room(self._keys, self._kn * self._klen, (self._kn + plies) * self._klen)

    @property
    def turn(self):
        return self.position.turn

    @property
    def ply(self):
        return self._n

    @property
    def moves(self):
        """The moves played from the root, as text."""
        return list(self.iter_moves())

    def iter_moves(self, first=0):
        """The moves from ply first + 1 on, as text, one at a time: a long game's list of
        them is more than a board's heap spares at once. Valid until the next push or pop."""
        return _texts(self._txt, self._tn, first)

    def _action(self, i):
        return self._act[2 * i] | self._act[2 * i + 1] << 8

    @property
    def legal_moves(self):
        """Legal moves (action ints) in the current position; [] once the game is over."""
        if self.outcome() is not None:
            return []
        return self.game.legal_moves(self.position)

    def legal_move_strs(self):
        return sorted([self.game.move_str(m, self.position) for m in self.legal_moves])

    def outcome(self):
        """Outcome(winner, reason) or None while the game goes on."""
        if self._repeated is not None:
            return self.game.repetition_outcome(self.position)
        return self.game.outcome(self.position)

    def is_over(self):
        return self.outcome() is not None

    def parse_move(self, text):
        return self.game.parse_move(text, self.position)

    def move_str(self, move):
        return self.game.move_str(move, self.position)

    def push(self, move, events=None):
        """Play a move (action int or text); returns the events to animate (a list, or the
        `events` sink given, anything with append()); events=False skips them (faster)."""
        g = self.game
        old = self.position
        if isinstance(move, str):
            move = g.parse_move(move, old)
        new = None
        if events is False and self._repeated is None:
            # One move checked, not the whole legal list: what makes a replay fast.
            new = g.try_play(old, move)
        if new is None:
            out = self.outcome()
            if out is not None:
                raise GameOverError("the game is over (%s): no move can be played" % out.reason)
            if events is None:
                events = []
            new = g.play(old, move, None if events is False else events)
        if not 0 <= move < 65536:
            raise RulesError("action %r out of range" % (move,))
        n = self._n
        self._act = _put(self._act, 2 * n, bytes((move & 255, move >> 8)))
        t = g.move_str(move, old).encode()
        self._txt = _put(self._txt, self._tn, t + b" ")
        self._tn += len(t) + 1
        self._n = n + 1
        h = self.history
        if h is None or h > 0:
            past = self._past
            if past:
                past[-1]._legal = None  # an older position's move cache is dead weight
            past.append(old)
            if h is not None and len(past) > h:
                past.pop(0)
        self.position = new
        if self._stage is not None:
            st = g.stage(new)
            if st != self._stage:
                self._stage = st
                self._kn = 0   # a new stage: no position before it can repeat
        if g.repetition and self._count(new) >= g.repetition and g.outcome(new) is None:
            self._repeated = new
            self.position = g.repetition_end(new, None if events is False else events)
        return events

    def pop(self):
        """Undo the last move; returns it as text."""
        if not self._n:
            raise RulesError("no move to undo")
        if self._klen:
            self._kn -= 1
        rekey = self._klen and not self._kn   # the move undone began a stage
        self._repeated = None
        self._n -= 1
        end = self._tn - 1                     # the last move's trailing space
        start = self._txt.rfind(b" ", 0, end) + 1
        text = str(self._txt[start:end], "ascii")
        self._tn = start
        if self._past and not rekey:
            self.position = self._past.pop()
        else:
            if self._past:
                self._past.pop()
            self._replay(rekey)
        return text

    def _replay(self, rekey):
        """The position from the root's moves; rekey: the keys of its stage counted again."""
        g = self.game
        pos = self.root
        if rekey:
            self._kn = 0
            self._stage = g.stage(pos)
            self._count(pos)
        for i in range(self._n):
            pos = g.play(pos, self._action(i))
            if rekey:
                st = g.stage(pos)
                if st != self._stage:
                    self._stage = st
                    self._kn = 0
                self._count(pos)
        self.position = pos


def _texts(buf, end, first):
    # The words of buf[:end] from the (first + 1)-th on, one at a time.
    i = 0
    while i < end:
        j = buf.find(b" ", i, end)
        if first:
            first -= 1
        else:
            yield str(buf[i:j], "ascii")
        i = j + 1


def _put(buf, at, data):
    """buf with data written at `at`: the same bytearray, or one twice as big when it lacks
    room (one allocation per doubling, not one per move)."""
    end = at + len(data)
    buf = _room(buf, at, end, 2 * len(buf))
    buf[at:end] = data
    return buf


def _room(buf, used, size, grow=0):
    """buf if it holds size bytes, else a bytearray of max(size, grow) with buf's first used."""
    if size <= len(buf):
        return buf
    bigger = bytearray(max(grow, size))
    bigger[:used] = memoryview(buf)[:used]
    return bigger
