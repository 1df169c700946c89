"""What every game's position shares: equality and hashing by key(), text by its game."""


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
