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

# name -> (module, class), filled by register(); what must be known without loading an
# engine (the grid it fits, its menu colour, whether a proved book plays it) is kept beside.
GAMES = {}
_INFO = {}
_LAZY = {"Bawo": "shared_rules.bawo", "Oware": "shared_rules.oware",
         "BaghChal": "shared_rules.baghchal", "State": "shared_rules.state"}


def register(name, module, cls, grid, color=0xE0E0E0, book=False):
    """Make game `name` known: its engine is class `cls` of `module`, loaded on first use.
    grid: (min rows, min cols, max rows, max cols) of the pocket grids it fits (0: no
    maximum); color: its pocket in the board's menu (0xRRGGBB); book: it is solved
    (bawo.solve, the exact analysis) and a proved book plays it at level 5. The rest of what the project asks of a game is on its class."""
    GAMES[name] = (module, cls)
    _INFO[name] = (grid, color, book)


# The built-in games: a new game is its engine module and a line here (a test registers its own).
register("bawo", "shared_rules.bawo", "Bawo", (4, 8, 4, 8), 0xFFA030, True)
register("oware", "shared_rules.oware", "Oware", (2, 8, 0, 0), 0x30E030)
register("bagh-chal", "shared_rules.baghchal", "BaghChal", (5, 5, 5, 5), 0xFF6000)


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
    return game_class(name)(**options)


def fits(name, rows, cols):
    """Whether game `name` lays out on a rows x cols grid of pockets (every cell of its
    cell_at has a place there), answered without loading its engine."""
    info = _INFO.get(name)
    if info is None:
        return False
    r0, c0, r1, c1 = info[0]
    return r0 <= rows and c0 <= cols and (not r1 or rows <= r1) and (not c1 or cols <= c1)


def color(name):
    """Game `name`'s colour in the board's menu (0xRRGGBB)."""
    return _INFO[name][1]


def has_book(name):
    """Whether a proved book plays game `name` at level 5 (docs/ai.md)."""
    info = _INFO.get(name)
    return bool(info and info[2])


def game_class(name):
    """The engine class of game `name` (its declaration: title, profile, budgets...)."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise RulesError("unknown game %s: expected one of %s" % (quote(name), ", ".join(sorted(GAMES))))
    return _load(spec[0], spec[1])


def winner_name(g, outcome):
    """The winning side as written in positions (S, N, G, T), or None for a draw."""
    return None if outcome.winner is None else g.sides[outcome.winner]
