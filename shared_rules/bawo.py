"""Bawo, the "two-two" beginner rules of central Malawi (RULES.md section 1).

Board: a bytearray of 32 counts. Each side owns 16 pockets in loop order:
index 0..7 are front A1..A8, 8..15 are back B8..B1, so clockwise is +1 (mod 16).
South's pockets are 0..15, North's 16..31. A move is start * 2 + (0 for "+", 1 for "-").
"""
from shared_rules.errors import InvalidMoveError, InvalidPositionError, quote
from shared_rules.events import PICKUP, DROP, LAP_END, CAPTURE, RELAY, DIRECTION, TURN_END
from shared_rules.outcome import Outcome
from shared_rules.position import BasePosition, BaseGame, split_fields, parse_count, load_kernel

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_MAX_TOTAL = const(255)  # a pocket is a byte
_MAX_FAST_LAPS = const(0x3FFFFFFF)  # the viper kernel takes the lap cap as a machine int

SIDES = "SN"

# Display order (rows as drawn from South's seat, left to right) -> global pocket index.
# Row 0 North back, 1 North front, 2 South front, 3 South back.
DISPLAY = bytes([24 + x for x in range(8)] + [23 - x for x in range(8)]
                + [x for x in range(8)] + [15 - x for x in range(8)])


class Position(BasePosition):
    """A Bawo position: 32 counts and the side to move. Treat as immutable."""

    __slots__ = ("board", "turn", "_legal", "_by")
    GAME = "Bawo"

    def __init__(self, board, turn):
        self.board = board
        self.turn = turn
        self._legal = None
        self._by = None  # the game whose lap cap computed _legal

    def key(self):
        return bytes(self.board) + bytes((self.turn,))

    def format(self):
        return format_position(self)


def pocket_name(local):
    """Name of a pocket (loop index 0..15) from its owner's seat: A1..A8, B1..B8."""
    return ("A%d" % (local + 1)) if local < 8 else ("B%d" % (16 - local))


def parse_pocket(text):
    # Either case: a person types b8 as often as B8 (the notation writes capitals).
    if len(text) == 2 and text[0] in "ABab" and "1" <= text[1] <= "8":
        c = ord(text[1]) - 48
        return c - 1 if text[0] in "Aa" else 16 - c
    raise InvalidMoveError("bad pocket %s: expected A1..A8 or B1..B8" % quote(text))


def format_position(pos):
    b = pos.board
    rows = []
    for r in range(4):
        rows.append(",".join([str(b[DISPLAY[r * 8 + x]]) for x in range(8)]))
    return "/".join(rows) + " " + SIDES[pos.turn]


def parse_position(text):
    (rows, _), turn = split_fields(text, 2, "4 rows then a space and S or N", SIDES)
    rows = rows.split("/")
    if len(rows) != 4:
        raise InvalidPositionError("bad position: %d rows, expected 4 separated by '/'" % len(rows))
    b = bytearray(32)
    total = 0
    for r in range(4):
        cells = rows[r].split(",")
        if len(cells) != 8:
            raise InvalidPositionError("bad position: row %d has %d pockets, expected 8" % (r + 1, len(cells)))
        for x in range(8):
            v = parse_count(cells[x], _MAX_TOTAL, "count", " in row %d, pocket %d" % (r + 1, x + 1))
            total += v
            if total > _MAX_TOTAL:
                raise InvalidPositionError("too many seeds: more than %d on the board" % _MAX_TOTAL)
            b[DISPLAY[r * 8 + x]] = v
    return Position(b, turn)


def _front_empty(b, o):
    return not any(b[o:o + 8])


class Bawo(BaseGame):
    """The game of Bawo, two-two rules. `max_laps` is the endless-turn cap (RULES.md 1.6)."""

    name = "bawo"
    sides = SIDES
    words = ("pocket", "rows")  # what one cell and a side's cells are called, for messages
    title = "Bawo"
    budgets = (2000, 500, 0)

    def __init__(self, max_laps=1000):
        self.max_laps = max_laps
        # Results of the last legal-move generation, one board per action, reused by play()
        # so a playout does not sow each chosen move twice.
        self._after = [bytearray(32) for _ in range(32)]
        self._after_pos = None
        # The viper kernel's generation, sowing and evaluation (use_kernel), or None.
        self._fast = self._fast_sow = self._out = None
        self.value = None  # evaluate.bawo_board's and bawo_leaf_board's twin

    def use_kernel(self):
        """Generate, sow and evaluate in machine code from now on where the runtime can
        (MicroPython with the native emitter: shared_rules/bawo_viper.py, most of a search
        node, 4x faster on a Pico). The same results as the bytecode, which CPython and
        CircuitPython keep (tests/mp/check_bawo_viper.py). The search asks for it
        (shared_rules.ai.Player): its code takes heap, which a board not searching keeps.
        Returns whether it is in use."""
        if self._fast is None and self.max_laps <= _MAX_FAST_LAPS:
            k = load_kernel("shared_rules.bawo_viper")
            if k is not None:
                self._fast = k.gen
                self._fast_sow = k.sow
                self.value = k.value
                self.table_slot = k.slot  # the search's hash (shared_rules.ai)
                self._out = bytearray(32)
        return self._fast is not None

    def __repr__(self):
        return "Bawo()" if self.max_laps == 1000 else "Bawo(max_laps=%d)" % self.max_laps

    def __eq__(self, other):
        return isinstance(other, Bawo) and other.max_laps == self.max_laps

    def start(self):
        return Position(bytearray(b"\x02" * 32), 0)

    def parse(self, text):
        return parse_position(text)

    def format(self, pos):
        return format_position(pos)

    def parse_move(self, text, pos=None):
        if not isinstance(text, str) or len(text) != 3 or text[2] not in "+-":
            raise InvalidMoveError("bad move %s: expected a pocket and a direction, like A1+ or B3-" % quote(text))
        return parse_pocket(text[:2]) * 2 + (text[2] == "-")

    def move_str(self, move, pos=None):
        return pocket_name(move >> 1) + ("-" if move & 1 else "+")

    # -- on a board (shared_rules/position.py): the 4x8 grid as South sees it, DISPLAY's rows
    cells = 32
    stores = 0

    def cell_at(self, rows, cols, r, c):
        return DISPLAY[r * 8 + c] if rows == 4 and cols == 8 else -1

    def owner(self, cell, value=0):
        return cell >> 4

    def label(self, cell):
        return pocket_name(cell & 15)

    def move_cell(self, move, turn, target=False):
        i = move >> 1
        if target:   # the next pocket in the move's direction
            i = (i - 1) & 15 if move & 1 else (i + 1) & 15
        return (turn << 4) + i

    def takata(self, pos):
        return not self.capturing(pos)

    def capturing(self, pos):
        """True if the side to move has a start whose first sowing captures (a capturing turn)."""
        return self.capturing_board(pos.board, pos.turn)

    def capturing_board(self, b, turn):
        """capturing() of board `b` with `turn` to move, no Position needed."""
        o = turn << 4
        p = 16 - o
        for i in range(16):
            n = b[o + i]
            if n >= 2 and (_captures(b, o, p, i, n, 1) or _captures(b, o, p, i, n, 15)):
                return True
        return False

    def legal_moves(self, pos):
        """Exact legal moves, ascending: starts of >= 2 seeds, capturing ones if any, not endless."""
        if pos._legal is not None and pos._by is self:
            return pos._legal
        b = pos.board
        o = pos.turn << 4
        p = 16 - o
        if self._fast is not None:
            moves = list(self._out[:self._fast(b, o, p, self.max_laps, self._after, self._out)])
            pos._legal = moves
            pos._by = self
            self._after_pos = pos
            return moves
        starts = []  # (action, captures) for every start of 2 or more seeds
        cap = False
        for i in range(16):
            n = b[o + i]
            if n >= 2:
                c1 = _captures(b, o, p, i, n, 1)
                c2 = _captures(b, o, p, i, n, 15)
                cap = cap or c1 or c2
                starts.append((i << 1, c1))
                starts.append((i << 1 | 1, c2))
        after = self._after
        moves = []
        for a, c in starts:
            if cap and not c:
                continue
            s = after[a]
            s[:] = b
            if self._sow(s, o, p, a >> 1, 15 if a & 1 else 1, cap, None):
                moves.append(a)
        pos._legal = moves
        pos._by = self
        self._after_pos = pos
        return moves

    def generated(self, pos):
        """The board after each legal move of `pos`, by action, while legal_moves(pos) was the
        last generation (the search scores them without making a Position); else None."""
        return self._after if self._after_pos is pos else None

    def play(self, pos, move, events=None):
        """Return the position after `move` (an action int or text); `pos` is not changed.

        If `events` is a list, the sowing is appended to it event by event.
        """
        move = self._legal(pos, move)
        if events is None and self._after_pos is pos:
            return Position(bytearray(self._after[move]), 1 - pos.turn)
        b = bytearray(pos.board)
        o = pos.turn << 4
        p = 16 - o
        i = move >> 1
        step = 15 if move & 1 else 1
        # A legal move captures exactly when the turn is a capturing one (captures are
        # compulsory), so its own first sowing says which: no need to try every start.
        self._sow(b, o, p, i, step, _captures(b, o, p, i, b[o + i], step), events)
        return Position(b, 1 - pos.turn)

    def try_play(self, pos, move):
        """The position after action `move` when a cheap check proves it legal and the game
        not over, else None (then play() decides, with its error). One sowing instead of
        every start's: a capturing start that ends is legal whatever the others do; a takata
        start needs only that no start captures. A legal move also means the mover has one,
        so the game goes on (RULES.md 1, end)."""
        b = pos.board
        o = pos.turn << 4
        p = 16 - o
        if not 0 <= move < 32 or _front_empty(b, o) or _front_empty(b, p):
            return None
        i = move >> 1
        n = b[o + i]
        if n < 2:
            return None
        step = 15 if move & 1 else 1
        cap = _captures(b, o, p, i, n, step)
        if not cap and self.capturing(pos):
            return None
        s = bytearray(b)
        if not self._sow(s, o, p, i, step, cap, None):
            return None
        return Position(s, 1 - pos.turn)

    def why_illegal(self, pos, move):
        text = self.move_str(move)
        if not 0 <= move < 32:
            return "illegal move %r" % move
        b = pos.board
        o = pos.turn << 4
        n = b[o + (move >> 1)]
        if n < 2:
            return "illegal move %s: the pocket holds %d seed%s, a start needs 2 or more" % (
                text, n, "" if n == 1 else "s")
        # A capturing start that is illegal is endless (RULES.md 1.6), whatever else captures.
        if self.capturing(pos) and not _captures(b, o, 16 - o, move >> 1, n, 15 if move & 1 else 1):
            return "illegal move %s: a capture is available, so the turn must start with a capturing move" % text
        return "illegal move %s: the turn would never end (more than %d laps)" % (text, self.max_laps)

    def outcome(self, pos):
        """Outcome(winner, reason) if the game is over in `pos`, else None (RULES.md 1, end)."""
        b = pos.board
        t = pos.turn
        if _front_empty(b, t << 4):
            return Outcome(1 - t, "front row empty")
        if _front_empty(b, 16 - (t << 4)):
            return Outcome(t, "mover's front row empty")
        if not self.legal_moves(pos):
            return Outcome(1 - t, "no legal move")
        return None

    def _sow(self, b, o, p, i, step, cap, ev):
        """Play a whole turn on board `b` in place. False if it is endless (RULES.md 1.6)."""
        if ev is None and self._fast_sow is not None:
            return self._fast_sow(b, o, p, i, step, cap, self.max_laps) == 1
        n = b[o + i]
        b[o + i] = 0
        if ev is not None:
            ev.append((PICKUP, o + i, n))
        pos = i
        laps = 0
        maxl = self.max_laps
        while laps < maxl:
            laps += 1
            if ev is None:
                if n >= 16:
                    # Whole loops: every pocket, the emptied start included, gets one per loop.
                    q = n >> 4
                    n &= 15
                    for k in range(o, o + 16):
                        b[k] += q
                for _ in range(n):
                    pos = (pos + step) & 15
                    b[o + pos] += 1
            else:
                for _ in range(n):
                    pos = (pos + step) & 15
                    b[o + pos] += 1
                    ev.append((DROP, o + pos, b[o + pos]))
            c = b[o + pos]
            if ev is not None:
                ev.append((LAP_END, o + pos, c))
            if c == 1:
                if ev is not None:
                    ev.append((TURN_END, o + pos, 0))
                return True
            if cap and pos < 8 and b[p + 7 - pos]:
                n = b[p + 7 - pos]
                b[p + 7 - pos] = 0
                if pos <= 1:
                    step = 1
                    e = 0
                elif pos >= 6:
                    step = 15
                    e = 7
                else:
                    e = 0 if step == 1 else 7
                if ev is not None:
                    ev.append((CAPTURE, p + 7 - pos, n))
                    ev.append((DIRECTION, 1 if step == 1 else -1, o + e))
                pos = (e - step) & 15
            else:
                n = c
                b[o + pos] = 0
                if ev is not None:
                    ev.append((RELAY, o + pos, n))
        return False


def _captures(b, o, p, i, n, step):
    """Does the first sowing of n seeds from i end in a non-empty front pocket facing seeds?"""
    last = (i + n * step) & 15
    if last >= 8 or not b[p + 7 - last]:
        return False
    before = ((n - 1) >> 4) + (0 if last == i else b[o + last])
    return before > 0
