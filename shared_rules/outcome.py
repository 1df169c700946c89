"""The result of a finished game: who won and why."""


class Outcome:
    """winner is a side index (0 moves first) or None for a draw; reason is a short phrase."""

    __slots__ = ("winner", "reason")

    def __init__(self, winner, reason):
        self.winner = winner
        self.reason = reason

    def __eq__(self, other):
        return (isinstance(other, Outcome) and self.winner == other.winner
                and self.reason == other.reason)

    def __repr__(self):
        return "Outcome(%r, %r)" % (self.winner, self.reason)
