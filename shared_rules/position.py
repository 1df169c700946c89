"""What every game's position shares: equality and hashing by key(), text by its game,
and the outer form of its text: fields separated by spaces, the side to move last."""
from shared_rules.errors import InvalidPositionError


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
