"""shared_rules: the rules of Bawo (two-two), Oware (Abapa) and Bagh-Chal, identical on
CPython and MicroPython. See RULES.md; the API follows python-chess and OpenSpiel:
a game object holds the options, positions are small, moves are small integers with text on top.
"""
from shared_rules.errors import (RulesError, InvalidPositionError, InvalidMoveError,
                                 IllegalMoveError, GameOverError, RecordError)
from shared_rules.outcome import Outcome
from shared_rules.bawo import Bawo
from shared_rules.oware import Oware
from shared_rules.baghchal import BaghChal
from shared_rules.state import State

__version__ = "0.1.0"
RULES_VERSION = "1"

GAMES = {"bawo": Bawo, "oware": Oware, "bagh-chal": BaghChal}


def game(name):
    """The game object for a name in GAMES; a RulesError names the choices otherwise."""
    cls = GAMES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise RulesError("unknown game %r: expected one of %s" % (name, ", ".join(sorted(GAMES))))
    return cls()


def winner_name(g, outcome):
    """The winning side as written in positions (S, N, G, T), or None for a draw."""
    return None if outcome.winner is None else g.sides[outcome.winner]
