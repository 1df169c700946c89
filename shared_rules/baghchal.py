"""Bagh-Chal (RULES.md section 3).

Board: a bytearray of 25 points, index rank * 5 + file (a1 = 0, e5 = 24), holding
0 empty, 1 goat, 2 tiger. A move is a point (placement, 0..24) or 25 + from * 25 + to.
"""
from shared_rules.errors import InvalidMoveError, InvalidPositionError, quote
from shared_rules.events import PLACE, STEP, JUMP, TAKE, TURN_END
from shared_rules.outcome import Outcome
from shared_rules.position import BasePosition, BaseGame, split_fields, parse_count, load_kernel

SIDES = "GT"
EMPTY = 0
GOAT = 1
TIGER = 2
_CHARS = ".GT"


def _tables():
    adj = []
    jumps = []
    for p in range(25):
        f, r = p % 5, p // 5
        dirs = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        if (f + r) % 2 == 0:
            dirs += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        a = []
        j = []
        for df, dr in dirs:
            if 0 <= f + df < 5 and 0 <= r + dr < 5:
                a.append((r + dr) * 5 + f + df)
                if 0 <= f + 2 * df < 5 and 0 <= r + 2 * dr < 5:
                    j.append(((r + dr) * 5 + f + df, (r + 2 * dr) * 5 + f + 2 * df))
        adj.append(bytes(a))
        jumps.append(tuple(j))
    return tuple(adj), tuple(jumps)


ADJ, JUMPS = _tables()


def point_name(p):
    return "abcde"[p % 5] + str(p // 5 + 1)


def parse_point(text):
    # Either case: C3 is c3 (the notation writes small letters).
    if len(text) == 2 and "1" <= text[1] <= "5":
        x = ord(text[0]) | 32
        if 97 <= x <= 101:
            return (ord(text[1]) - 49) * 5 + x - 97
    raise InvalidMoveError("bad point %s: expected a1..e5" % quote(text))


class Position(BasePosition):
    """A Bagh-Chal position. Treat as immutable."""

    __slots__ = ("board", "hand", "captured", "turn", "_legal")
    GAME = "BaghChal"

    def __init__(self, board, hand, captured, turn):
        self.board = board
        self.hand = hand
        self.captured = captured
        self.turn = turn
        self._legal = None

    def key(self):
        return bytes(self.board) + bytes((self.hand, self.captured, self.turn))

    def format(self):
        return format_position(self)


def format_position(pos):
    b = pos.board
    ranks = []
    for r in range(4, -1, -1):
        ranks.append("".join([_CHARS[b[r * 5 + f]] for f in range(5)]))
    return "%s H:%d C:%d %s" % ("/".join(ranks), pos.hand, pos.captured, SIDES[pos.turn])


def parse_position(text):
    (ranks, h, c, _), turn = split_fields(text, 4, "'ranks H:<n> C:<n> <side>'", SIDES)
    if not h.startswith("H:"):
        raise InvalidPositionError("bad goats in hand %s: expected H:<n>" % quote(h))
    if not c.startswith("C:"):
        raise InvalidPositionError("bad captured goats %s: expected C:<n>" % quote(c))
    hand = parse_count(h[2:], 20, "goats in hand")
    cap = parse_count(c[2:], 20, "captured goats")
    ranks = ranks.split("/")
    if len(ranks) != 5:
        raise InvalidPositionError("bad position: %d ranks, expected 5 separated by '/'" % len(ranks))
    b = bytearray(25)
    for k in range(5):
        row = ranks[k]
        if len(row) != 5:
            raise InvalidPositionError("bad position: rank %d has %d points, expected 5" % (5 - k, len(row)))
        for f in range(5):
            ch = row[f]
            if ch not in _CHARS:
                raise InvalidPositionError("bad point %s at %s: expected T, G or ." % (quote(ch), point_name((4 - k) * 5 + f)))
            b[(4 - k) * 5 + f] = _CHARS.index(ch)
    tigers = goats = 0
    for v in b:
        if v == TIGER:
            tigers += 1
        elif v == GOAT:
            goats += 1
    if tigers != 4:
        raise InvalidPositionError("impossible position: %d tigers, Bagh-Chal has 4" % tigers)
    if hand > 20 or cap > 20 or goats + hand + cap != 20:
        raise InvalidPositionError("impossible position: %d goats on the board + %d in hand + %d captured "
                                   "is not 20" % (goats, hand, cap))
    return Position(b, hand, cap, turn)


def _tiger_moves(b, out):
    for p in range(25):
        if b[p] == TIGER:
            for q in ADJ[p]:
                if not b[q]:
                    out.append(25 + p * 25 + q)
            for q, r in JUMPS[p]:
                if b[q] == GOAT and not b[r]:
                    out.append(25 + p * 25 + r)
    return out


def _tigers_blocked(b):
    for p in range(25):
        if b[p] == TIGER:
            for q in ADJ[p]:
                if not b[q]:
                    return False
            for q, r in JUMPS[p]:
                if b[q] == GOAT and not b[r]:
                    return False
    return True


class BaghChal(BaseGame):
    """The game of Bagh-Chal: goats (side 0, move first) against tigers (side 1)."""

    name = "bagh-chal"
    sides = SIDES
    words = ("piece", "pieces")  # what one cell and a side's cells are called, for messages
    repetition = 3
    title = "Bagh-Chal"
    profile = "grid-5x5"
    split = False
    pieces = True
    units = (120, "goat")  # evaluate.bagh_chal counts 120 a captured goat
    # Level 4 searches 400 nodes, not 800: Bagh-Chal's goats play worse at 533-1,200 nodes
    # than at 266 or 1,600 (measured against greedy tigers; docs/ai.md, "Every level").
    budgets = (1600, 500, 400)
    adjacent = ADJ  # the lines: for each point, its neighbours; and (over, landing) jumps
    jumps = JUMPS

    # -- on a board (shared_rules/position.py): the 5x5 points, a1 at the bottom left
    cells = 25
    stores = 0

    def cell_at(self, rows, cols, r, c):
        return (4 - r) * 5 + c if rows == 5 and cols == 5 else -1

    def owner(self, cell, value=0):
        # The pieces move: a point belongs to the side whose piece stands on it.
        return 0 if value == GOAT else (1 if value == TIGER else -1)

    def label(self, cell):
        return point_name(cell)

    def move_cell(self, move, turn, target=False):
        if move < 25:
            return -1 if target else move   # a goat placed: one press
        return (move - 25) % 25 if target else (move - 25) // 25

    def __init__(self):
        # The viper kernel's generation and blocked-tigers test (use_kernel), or None.
        self._fast_gen = None
        self._blocked = _tigers_blocked

    def use_kernel(self):
        """Generate the moves, test the tigers and evaluate in machine code from now on where
        the runtime can (MicroPython with the native emitter: shared_rules/baghchal_viper.py).
        The same results as the bytecode, which CPython and CircuitPython keep
        (tests/mp/check_baghchal_viper.py). The search asks for it (shared_rules.ai.Player).
        Returns whether it is in use."""
        if self._fast_gen is None:
            k = load_kernel("shared_rules.baghchal_viper")
            if k is not None:
                from array import array
                self._out = array("H", bytes(512))   # 256 moves; at most 160 are legal
                self._fast_gen = k.gen
                self._blocked = k.blocked
                self.fast_eval = k.value
                self.table_slot = k.slot  # the search's hash (shared_rules.ai)
        return self._fast_gen is not None

    def start(self):
        b = bytearray(25)
        for p in (0, 4, 20, 24):
            b[p] = TIGER
        return Position(b, 20, 0, 0)

    def parse(self, text):
        return parse_position(text)

    def format(self, pos):
        return format_position(pos)

    def parse_move(self, text, pos=None):
        if isinstance(text, str):
            if len(text) == 2:
                return parse_point(text)
            if len(text) == 5 and text[2] in "-xX":
                a, b = parse_point(text[:2]), parse_point(text[3:])
                if not (b in ADJ[a] if text[2] == "-" else b in [r for q, r in JUMPS[a]]):
                    kind = "a step is written a1-a2" if text[2] == "-" else "a jump is written a1xa3"
                    raise InvalidMoveError("bad move %s: %s, between points on a line" % (quote(text), kind))
                return 25 + a * 25 + b
        raise InvalidMoveError("bad move %s: expected a point (c3), a step (a1-a2) or a jump (a1xa3)" % quote(text))

    def move_str(self, move, pos=None):
        if move < 25:
            return point_name(move)
        a, b = divmod(move - 25, 25)
        return point_name(a) + ("-" if b in ADJ[a] else "x") + point_name(b)

    def legal_moves(self, pos):
        if pos._legal is not None:
            return pos._legal
        b = pos.board
        if self._fast_gen is not None:
            out = list(self._out[:self._fast_gen(b, pos.turn, pos.hand, self._out)])
            pos._legal = out
            return out
        out = []
        if pos.turn == 1:
            _tiger_moves(b, out)
        elif pos.hand:
            for p in range(25):
                if not b[p]:
                    out.append(p)
        else:
            for p in range(25):
                if b[p] == GOAT:
                    for q in ADJ[p]:
                        if not b[q]:
                            out.append(25 + p * 25 + q)
        out.sort()
        pos._legal = out
        return out

    def play(self, pos, move, events=None):
        return self.child(pos, self._legal(pos, move), events)

    def child(self, pos, move, events=None):
        """play() of an action from legal_moves(pos), unchecked: the search's children."""
        b = bytearray(pos.board)
        hand, cap = pos.hand, pos.captured
        if move < 25:
            b[move] = GOAT
            hand -= 1
            if events is not None:
                events.append((PLACE, move, 0))
        else:
            a, c = divmod(move - 25, 25)
            b[c] = b[a]
            b[a] = EMPTY
            if c in ADJ[a]:
                if events is not None:
                    events.append((STEP, a, c))
            else:
                mid = (a + c) // 2
                b[mid] = EMPTY
                cap += 1
                if events is not None:
                    events.append((JUMP, a, c))
                    events.append((TAKE, mid, 0))
        if events is not None:
            events.append((TURN_END, 0, 0))
        return Position(b, hand, cap, 1 - pos.turn)

    def try_play(self, pos, move):
        """The position after action `move` when a cheap check proves it legal and the game
        not over, else None (then play() decides, with its error). A legal tiger move means
        the tigers can move; a legal goat move, that the goats can."""
        b = pos.board
        if pos.captured >= 5 or not 0 <= move < 650:
            return None
        hand, cap = pos.hand, pos.captured
        if move < 25:
            if pos.turn or not hand or b[move]:
                return None
            if self._blocked(b):
                return None
            b = bytearray(b)
            b[move] = GOAT
            hand -= 1
        else:
            a, c = divmod(move - 25, 25)
            if b[c] or b[a] != (GOAT if pos.turn == 0 else TIGER):
                return None
            if c in ADJ[a]:
                if pos.turn == 0 and (hand or self._blocked(b)):
                    return None
            else:
                mid = (a + c) // 2
                if pos.turn == 0 or b[mid] != GOAT or (mid, c) not in JUMPS[a]:
                    return None
                cap += 1
            b = bytearray(b)
            b[c] = b[a]
            b[a] = EMPTY
            if cap != pos.captured:
                b[mid] = EMPTY
        return Position(b, hand, cap, 1 - pos.turn)

    def why_illegal(self, pos, move):
        text = self.move_str(move) if 0 <= move < 650 else repr(move)
        if pos.turn == 0:
            if pos.hand and move >= 25:
                return "illegal move %s: goats still in hand must be placed first" % text
            if not pos.hand and move < 25:
                return "illegal move %s: all 20 goats are placed, goats now step" % text
            return "illegal move %s: not an empty point or a goat's step along a line" % text
        return "illegal move %s: tigers step along a line or jump one goat to an empty point" % text

    def outcome(self, pos):
        if pos.captured >= 5:
            return Outcome(1, "5 goats captured")
        if self._blocked(pos.board):
            return Outcome(0, "tigers cannot move")
        if pos.turn == 0 and not self.legal_moves(pos):
            return Outcome(1, "goats cannot move")
        return None

    def stage(self, pos):
        # A placement empties the hand by one, a jump captures one: neither is undone.
        return pos.hand * 256 + pos.captured

    def repetition_outcome(self, pos):
        return Outcome(None, "threefold repetition")
