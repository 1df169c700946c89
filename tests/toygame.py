"""A toy fourth game, in the test tree only: a tiny mancala of two rows of three pits.

It proves that a game is one module and a registration (issue 29): register() makes it
known, and the simulator's drawing, the board's LEDs, the web page's board view and the
referee take it from its declaration alone. MicroPython-safe, like shared_rules.

Rules: three seeds a pit; a move sows a pit's seeds one a pit, counter-clockwise round the
six pits (a lap skips the pit it left). A last seed that makes 2 or 3 in an opponent's pit
captures that pit. 10 seeds in a store win; a side with no seeds to move ends the game,
each side then storing its own row. The third repetition ends it the same way.

Position text: North's pits c,b,a (as seen from South) / South's A,B,C, the stores, the
side to move: "3,3,3/3,3,3 S:0 N:0 S". A move is its pit: A..C for South, a..c for North.
"""

from shared_rules import register
from shared_rules.errors import InvalidMoveError, InvalidPositionError, IllegalMoveError, quote
from shared_rules.events import PICKUP, DROP, LAP_END, CAPTURE, STORE, SWEEP, TURN_END
from shared_rules.outcome import Outcome
from shared_rules.position import BasePosition, BaseGame, split_fields, parse_count

NAME = "toy"
SIDES = "SN"
GOAL = 10


class Position(BasePosition):
    __slots__ = ("board", "stores", "turn", "_legal")
    GAME = "Toy"

    def __init__(self, board, stores, turn):
        self.board = board  # bytearray(6): South's pits 0..2, North's 3..5
        self.stores = stores  # bytearray(2): South, North
        self.turn = turn
        self._legal = None

    def key(self):
        return bytes(self.board) + bytes(self.stores) + bytes((self.turn,))

    def format(self):
        b = self.board
        return "%d,%d,%d/%d,%d,%d S:%d N:%d %s" % (
            b[5],
            b[4],
            b[3],
            b[0],
            b[1],
            b[2],
            self.stores[0],
            self.stores[1],
            SIDES[self.turn],
        )


def evaluate(g, pos):
    """Seeds stored ahead, for the side to move (shared_rules.evaluate's convention)."""
    t = pos.turn
    return 16 * (pos.stores[t] - pos.stores[1 - t])


def _by_stores(stores, reason):
    if stores[0] == stores[1]:
        return Outcome(None, reason)
    return Outcome(0 if stores[0] > stores[1] else 1, reason)


class Toy(BaseGame):
    # The declaration: what the project asks of a game (shared_rules/position.py).
    name = NAME
    title = "Toy mancala"
    sides = SIDES
    words = ("pit", "row")
    repetition = 3
    profile = "bawo-4x8"
    store_win = GOAL
    units = (16, "seed")
    budgets = (300, 20, 0)
    evaluation = evaluate
    cells = 6
    stores = 2

    def start(self):
        return Position(bytearray(b"\x03" * 6), bytearray(2), 0)

    def parse(self, text):
        (rows, s, n, _), turn = split_fields(text, 4, "c,b,a/A,B,C S:n N:n and S or N", SIDES)
        rows = rows.split("/")
        if len(rows) != 2:
            raise InvalidPositionError("bad position: %d rows, expected 2" % len(rows))
        b = bytearray(6)
        for r in range(2):
            cells = rows[r].split(",")
            if len(cells) != 3:
                raise InvalidPositionError(
                    "bad position: row %d has %d pits, expected 3" % (r + 1, len(cells))
                )
            for x in range(3):
                b[5 - x if r == 0 else x] = parse_count(cells[x], 18)
        if s[:2] != "S:" or n[:2] != "N:":
            raise InvalidPositionError("bad stores: expected S:n N:n")
        stores = bytearray((parse_count(s[2:], 18, "store"), parse_count(n[2:], 18, "store")))
        if sum(b) + stores[0] + stores[1] != 18:
            raise InvalidPositionError(
                "bad position: %d seeds, expected 18" % (sum(b) + stores[0] + stores[1])
            )
        return Position(b, stores, turn)

    def format(self, pos):
        return pos.format()

    def parse_move(self, text, pos=None):
        if isinstance(text, str) and len(text) == 1 and text in "ABCabc":
            side = 0 if text in "ABC" else 1
            if pos is not None and side != pos.turn:
                raise IllegalMoveError("illegal move %s: that pit is %s's" % (text, SIDES[side]))
            return "ABCabc".index(text) % 3
        raise InvalidMoveError("bad move %s: expected A..C or a..c" % quote(text))

    def move_str(self, move, pos=None):
        return "ABCabc"[move + (3 if pos is not None and pos.turn else 0)]

    # On a board: the two middle rows, five columns centred; North's store at the left.
    def cell_at(self, rows, cols, r, c):
        mid = rows // 2
        x = c - (cols - 5) // 2
        if rows < 2 or cols < 5 or not 0 <= x <= 4:
            return -1
        if r == mid:
            return x - 1 if 1 <= x <= 3 else (6 if x == 4 else -1)
        if r == mid - 1:
            return 6 - x if 1 <= x <= 3 else (7 if x == 0 else -1)
        return -1

    def owner(self, cell, value=0):
        return cell // 3 if cell < 6 else cell - 6

    def label(self, cell):
        return SIDES[cell - 6] if cell >= 6 else "ABCabc"[cell]

    def move_cell(self, move, turn, target=False):
        return -1 if target else turn * 3 + move

    def legal_moves(self, pos):
        if pos._legal is None:
            if self._over(pos):
                pos._legal = []
            else:
                o = pos.turn * 3
                pos._legal = [m for m in range(3) if pos.board[o + m]]
        return pos._legal

    def _over(self, pos):
        s = pos.stores
        return s[0] >= GOAL or s[1] >= GOAL or not sum(pos.board[pos.turn * 3 : pos.turn * 3 + 3])

    def why_illegal(self, pos, move):
        return "illegal move %s: the pit is empty" % self.move_str(move, pos)

    def play(self, pos, move, events=None):
        move = self._legal(pos, move)
        b = bytearray(pos.board)
        stores = bytearray(pos.stores)
        o = pos.turn * 3
        i = o + move
        n = b[i]
        b[i] = 0
        if events is not None:
            events.append((PICKUP, i, n))
        j = i
        while n:
            j = (j + 1) % 6
            if j == i:
                continue
            b[j] += 1
            n -= 1
            if events is not None:
                events.append((DROP, j, b[j]))
        if events is not None:
            events.append((LAP_END, j, b[j]))
        if j // 3 != pos.turn and 2 <= b[j] <= 3:
            got = b[j]
            if events is not None:
                events.append((CAPTURE, j, got))
                events.append((STORE, pos.turn, got))
            b[j] = 0
            stores[pos.turn] += got
        if events is not None:
            events.append((TURN_END, 0, 0))
        return Position(b, stores, 1 - pos.turn)

    def outcome(self, pos):
        s = pos.stores
        if s[0] >= GOAL or s[1] >= GOAL:
            return _by_stores(s, "%d seeds" % GOAL)
        if not sum(pos.board[pos.turn * 3 : pos.turn * 3 + 3]):
            return _by_stores(self.repetition_end(pos).stores, "no seeds to move")
        return None

    def stage(self, pos):
        return pos.stores[0] + pos.stores[1]

    def repetition_end(self, pos, events=None):
        b = bytearray(6)
        stores = bytearray(pos.stores)
        for side in (0, 1):
            got = sum(pos.board[side * 3 : side * 3 + 3])
            if got:
                stores[side] += got
                if events is not None:
                    events.append((SWEEP, side, got))
                    events.append((STORE, side, got))
        return Position(b, stores, pos.turn)

    def repetition_outcome(self, pos):
        return _by_stores(self.repetition_end(pos).stores, "threefold repetition")


def install():
    """The registration: the one line a built-in game has in shared_rules/__init__.py."""
    register(NAME, "toygame", "Toy", (2, 5, 0, 0), 0x3080FF)
