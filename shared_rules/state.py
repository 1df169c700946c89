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
        self._moves = []  # (action, text) of every move from the root
        self._past = []   # the positions before the last len(_past) moves
        self._seen = {}
        self._count(position, 1)

    def _count(self, pos, delta):
        if getattr(self.game, "repetition", 0):
            k = self.game.key(pos)
            self._seen[k] = self._seen.get(k, 0) + delta

    def __repr__(self):
        return "State(%r, %r)" % (self.game, self.game.format(self.position))

    @property
    def turn(self):
        return self.position.turn

    @property
    def ply(self):
        return len(self._moves)

    @property
    def moves(self):
        """The moves played from the root, as text."""
        return [t for _, t in self._moves]

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
        out = self.game.outcome(self.position)
        if out is None and getattr(self.game, "repetition", 0):
            if self._seen.get(self.game.key(self.position), 0) >= self.game.repetition:
                out = self.game.repetition_outcome(self.position)
        return out

    def is_over(self):
        return self.outcome() is not None

    def parse_move(self, text):
        return self.game.parse_move(text, self.position)

    def move_str(self, move):
        return self.game.move_str(move, self.position)

    def push(self, move, events=None):
        """Play a move (action int or text); returns the events to animate (a list, or the
        `events` sink given, anything with append()); events=False skips them (faster)."""
        if isinstance(move, str):
            move = self.game.parse_move(move, self.position)
        out = self.outcome()
        if out is not None:
            raise GameOverError("the game is over (%s): no move can be played" % out.reason)
        if events is None:
            events = []
        old = self.position
        new = self.game.play(old, move, None if events is False else events)
        self._moves.append((move, self.game.move_str(move, old)))
        if self.history is None or self.history > 0:
            if self._past:
                self._past[-1]._legal = None  # an older position's move cache is dead weight
            self._past.append(old)
            if self.history is not None and len(self._past) > self.history:
                self._past.pop(0)
        self.position = new
        self._count(new, 1)
        return events

    def pop(self):
        """Undo the last move; returns it as text."""
        if not self._moves:
            raise RulesError("no move to undo")
        self._count(self.position, -1)
        move, text = self._moves.pop()
        if self._past:
            self.position = self._past.pop()
        else:
            pos = self.root
            for m, _ in self._moves:
                pos = self.game.play(pos, m)
            self.position = pos
        return text
