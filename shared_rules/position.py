"""What every game and every position share: equality and hashing by key(), text by its game,
the outer form of a position's text (fields separated by spaces, the side to move last), and
the check that a move is legal before it is played."""
from shared_rules.errors import InvalidPositionError, IllegalMoveError, GameOverError


class BaseGame:
    """Subclasses define legal_moves, outcome, parse_move and _why_illegal."""

    def __repr__(self):
        return type(self).__name__ + "()"

    def __eq__(self, other):
        return type(other) is type(self)

    def key(self, pos):
        """A hashable key of the position, for repetition counting."""
        return pos.key()

    def _legal(self, pos, move):
        """`move` (text or action) as a legal action, or an error saying why it is not."""
        if isinstance(move, str):
            move = self.parse_move(move, pos)
        if move not in self.legal_moves(pos):
            if self.outcome(pos) is not None:
                raise GameOverError("the game is over: no move can be played")
            raise IllegalMoveError(self._why_illegal(pos, move))
        return move


def split_fields(text, n, form, sides):
    """The n space-separated fields of a position string and the side index (last field)."""
    if not isinstance(text, str):
        raise InvalidPositionError("position must be a string")
    parts = text.split(" ")
    if len(parts) != n:
        raise InvalidPositionError("bad position %r: expected %s" % (text, form))
    side = parts[-1]
    if len(side) != 1 or side not in sides:
        raise InvalidPositionError("bad side to move %r: expected %s or %s" % (side, sides[0], sides[1]))
    return parts, sides.index(side)


class BasePosition:
    """Subclasses define key() (bytes) and GAME, the name of their game class."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is type(self) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __str__(self):
        return self.format()

    def __repr__(self):
        return "%s().parse(%r)" % (self.GAME, self.format())
