"""shared_rules: the rules of Bawo (two-two), Oware (Abapa) and Bagh-Chal, identical on
CPython and MicroPython. See RULES.md; the API follows python-chess and OpenSpiel:
a game object holds the options, positions are small, moves are small integers with text on top.

Engines load on first use (`game(name)`, `from shared_rules import Bawo`): a board that
plays one game never imports the others.
"""
from shared_rules.errors import (RulesError, InvalidPositionError, InvalidMoveError,
                                 IllegalMoveError, GameOverError, RecordError, quote)
from shared_rules.outcome import Outcome

__version__ = "0.1.0"
RULES_VERSION = "1"

# name -> (module, class)
GAMES = {"bawo": ("shared_rules.bawo", "Bawo"),
         "oware": ("shared_rules.oware", "Oware"),
         "bagh-chal": ("shared_rules.baghchal", "BaghChal")}
_LAZY = {"Bawo": "shared_rules.bawo", "Oware": "shared_rules.oware",
         "BaghChal": "shared_rules.baghchal", "State": "shared_rules.state"}


def _load(module, attr):
    return getattr(__import__(module, None, None, (attr,)), attr)


def __getattr__(attr):
    module = _LAZY.get(attr)
    if module is not None:
        return _load(module, attr)
    # MicroPython asks here for `from shared_rules import events` before it would import
    # the submodule itself, so import it for it.
    try:
        return __import__("shared_rules." + attr, None, None, ("_",))
    except ImportError:
        raise AttributeError(attr)


def game(name, **options):
    """The game object for a name in GAMES; a RulesError names the choices otherwise."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise RulesError("unknown game %s: expected one of %s" % (quote(name), ", ".join(sorted(GAMES))))
    return _load(spec[0], spec[1])(**options)


def fits(name, rows, cols):
    """Whether game `name` lays out on a rows x cols grid of pockets (every cell of its
    cell_at has a place there), answered without loading its engine."""
    if name == "bawo":
        return rows == 4 and cols == 8
    if name == "oware":
        return rows >= 2 and cols >= 8
    return name == "bagh-chal" and rows == 5 and cols == 5


def winner_name(g, outcome):
    """The winning side as written in positions (S, N, G, T), or None for a draw."""
    return None if outcome.winner is None else g.sides[outcome.winner]
