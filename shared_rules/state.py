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
        # The position as played when the last move ended the game by repetition; `position`
        # is then the game's final position (Oware's collected seeds, RULES.md 2).
        self._repeated = None

    def _count(self, pos, delta):
        """Count pos once more (or less); returns its count, 0 for games without repetition."""
        if getattr(self.game, "repetition", 0):
            k = self.game.key(pos)
            n = self._seen[k] = self._seen.get(k, 0) + delta
            return n
        return 0

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
        self._moves.append((move, g.move_str(move, old)))
        h = self.history
        if h is None or h > 0:
            past = self._past
            if past:
                past[-1]._legal = None  # an older position's move cache is dead weight
            past.append(old)
            if h is not None and len(past) > h:
                past.pop(0)
        self.position = new
        if g.repetition and self._count(new, 1) >= g.repetition and g.outcome(new) is None:
            self._repeated = new
            self.position = g.repetition_end(new, None if events is False else events)
        return events

    def pop(self):
        """Undo the last move; returns it as text."""
        if not self._moves:
            raise RulesError("no move to undo")
        self._count(self.position if self._repeated is None else self._repeated, -1)
        self._repeated = None
        move, text = self._moves.pop()
        if self._past:
            self.position = self._past.pop()
        else:
            pos = self.root
            for m, _ in self._moves:
                pos = self.game.play(pos, m)
            self.position = pos
        return text
