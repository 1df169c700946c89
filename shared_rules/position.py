"""What every game and every position share: equality and hashing by key(), text by its game,
the outer form of a position's text (fields separated by spaces, the side to move last), and
the check that a move is legal before it is played."""
from shared_rules.errors import InvalidPositionError, IllegalMoveError, GameOverError, quote


class BaseGame:
    """Subclasses define legal_moves, outcome, parse_move and why_illegal."""

    repetition = 0  # the occurrence of a position that ends the game; 0: repetition is allowed
    # The search's table slot and check key in machine code (a viper kernel), or None.
    table_slot = None
    # play() of a legal action without checking it, for the search's children, or None.
    child = None
    # shared_rules.evaluate's EVALS and NOISY entries of the game in machine code, or None.
    fast_eval = fast_noisy = None

    # What the rest of the project asks of a game (OpenSpiel's GameType/GameInfo): plain
    # data, read by the firmware, the simulator, the terminal, the web page and the tools.
    title = ""            # the game's name in words
    profile = "bawo-4x8"  # the board profile the simulator and the pictures show it on
    split = True          # the two sides' halves drawn apart (mancala rows), else one grid
    pieces = False        # cells hold a side's piece (shown as its letter), not a count
    turn_tint_anim = True  # while a move is animated, the mover's cells keep their tint
    store_win = 0         # the store count that wins ("25 seeds" in Oware), 0: none
    units = (0, "")       # an estimate's score per thing (evaluate.py) and the thing, or (0, "")
    # Node budgets of the search (shared_rules.ai.level_budget): level 5 on the board, level
    # 5 on a PC (times ai.HOST_FACTOR), level 4 on the board (0: its share of level 5).
    budgets = (2000, 500, 0)
    # The position's value for the side to move, evaluate(g, pos) (shared_rules.evaluate).
    evaluation = None

    def takata(self, pos):
        """Whether the mover's cells take the tint of a turn without a capture (Bawo)."""
        return False

    def __repr__(self):
        return type(self).__name__ + "()"

    def __eq__(self, other):
        return type(other) is type(self)

    def key(self, pos):
        """A hashable key of the position, for repetition counting."""
        return pos.key()

    def stage(self, pos):
        """A number that changes with every move that can never be undone (a capture, a
        placement), or None: positions of two stages are never the same, so repetition is
        counted among the positions of the current stage only (State keeps no others)."""
        return None

    def repetition_end(self, pos, events=None):
        """The final position of a game ended by repetition: by default the position itself."""
        return pos

    # How the game sits on a board of pockets (a grid of rows x cols, row 0 the far side from
    # the first player's seat): the one description the board's view, the simulator, the
    # terminal drawing and the web page read. A cell is a pocket or point index as in the
    # game's positions (0..cells-1), then its stores, one a side (cells, cells+1). Each game
    # defines cells, stores, cell_at(rows, cols, r, c) (-1: no cell there), owner(cell, value)
    # (the side, -1: nobody's), label(cell) and move_cell(move, turn, target=False) (the cell
    # pressed first to play it; target: the one pressed second, -1 for a one-press move; an
    # int, not a pair, as the board asks it for every legal move of every position);
    # shared_rules.fits says which grids each game fits without loading its engine.

    def use_kernel(self):
        """Play and search in machine code from now on, where the game has such a kernel and
        the runtime can run it; the same results. Returns whether it is in use."""
        return False

    def try_play(self, pos, move):
        """The position after action `move` if a cheap check proves it legal and the game not
        over, else None: play() then decides, with its error. State.push(m, events=False)
        calls it first, so replaying a record checks one move a ply, not every legal move."""
        return None

    def _legal(self, pos, move):
        """`move` (text or action) as a legal action, or an error saying why it is not."""
        if isinstance(move, str):
            move = self.parse_move(move, pos)
        if move not in self.legal_moves(pos):
            if self.outcome(pos) is not None:
                raise GameOverError("the game is over: no move can be played")
            raise IllegalMoveError(self.why_illegal(pos, move))
        return move


def load_kernel(name):
    """The viper kernel module `name` (shared_rules.*_viper) where the runtime runs machine
    code: MicroPython with the native emitter. None elsewhere: CPython and CircuitPython keep
    the engine's bytecode, which gives the same results."""
    import sys
    if sys.implementation.name != "micropython":
        return None
    try:
        return __import__(name, None, None, ("_",))
    except (ImportError, SyntaxError, ValueError):
        return None  # a port without the native emitter


def split_fields(text, n, form, sides):
    """The n space-separated fields of a position string and the side index (last field)."""
    if not isinstance(text, str):
        raise InvalidPositionError("position must be a string")
    parts = text.split(" ")
    if len(parts) != n:
        raise InvalidPositionError("bad position %s: expected %s" % (quote(text), form))
    side = parts[-1]
    if len(side) != 1 or side not in sides:
        raise InvalidPositionError("bad side to move %s: expected %s or %s" % (quote(side), sides[0], sides[1]))
    return parts, sides.index(side)


def parse_count(text, most, what="count", where=""):
    """A count written in ASCII digits, 0..most (RULES.md 1: on every runtime; str.isdigit()
    and int() would also take other scripts' digits on CPython, and differ on MicroPython)."""
    n = len(text)
    if 0 < n <= 3:
        v = 0
        for ch in text:
            if not "0" <= ch <= "9":
                break
            v = v * 10 + ord(ch) - 48
        else:
            if v <= most:
                return v
    raise InvalidPositionError("bad %s %s%s: expected a whole number 0..%d in ASCII digits"
                               % (what, quote(text), where, most))


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
