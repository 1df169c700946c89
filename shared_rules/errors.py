"""Errors raised by shared_rules. All subclass ValueError (python-chess style)."""


class RulesError(ValueError):
    """Base class: bad input to the rules engine."""


class InvalidPositionError(RulesError):
    """A position string that cannot be parsed or describes an impossible position."""


class InvalidMoveError(RulesError):
    """A move string that cannot be parsed."""


class IllegalMoveError(RulesError):
    """A well-formed move that is not legal in the position."""


class GameOverError(IllegalMoveError):
    """A move played in a finished game."""


class RecordError(RulesError):
    """A game record that cannot be read or does not replay.

    `ply` is the 1-based ply that fails to replay, or None for a bad header.
    """

    def __init__(self, message, ply=None):
        super().__init__(message)  # RulesError.__init__ does not exist on MicroPython
        self.ply = ply
