"""Oware, Abapa rules (RULES.md section 2).

Pits: a bytearray of 12 counts in sowing (counter-clockwise) order: South's A..F are 0..5,
North's a..f are 6..11. Stores are separate. A move is the pit index in the mover's row, 0..5.
"""
from shared_rules.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, quote
from shared_rules.events import PICKUP, DROP, LAP_END, CAPTURE, STORE, TURN_END, SWEEP
from shared_rules.outcome import Outcome
from shared_rules.position import BasePosition, BaseGame, split_fields, parse_count, load_kernel

SIDES = "SN"
_NAMES = ("South", "North")
_TOTAL = 48
_TURN = (b"\x00", b"\x01")


class Position(BasePosition):
    """An Oware position: pits, the two stores and the side to move. Treat as immutable."""

    __slots__ = ("pits", "stores", "turn", "_legal")
    GAME = "Oware"

    def __init__(self, pits, stores, turn):
        self.pits = pits
        self.stores = stores  # bytearray(2): South, North
        self.turn = turn
        self._legal = None

    @property
    def board(self):
        return self.pits

    def key(self):
        return bytes(self.pits + self.stores) + _TURN[self.turn]

    def format(self):
        return format_position(self)


def format_position(pos):
    p = pos.pits
    north = ",".join([str(p[k]) for k in range(11, 5, -1)])
    south = ",".join([str(p[k]) for k in range(6)])
    return "%s/%s S:%d N:%d %s" % (north, south, pos.stores[0], pos.stores[1], SIDES[pos.turn])


def parse_position(text):
    (rows, s, n, _), turn = split_fields(text, 4, "'pits S:<n> N:<n> <side>'", SIDES)
    if not s.startswith("S:") or not n.startswith("N:"):
        raise InvalidPositionError("bad stores %s %s: expected S:<n> N:<n>" % (quote(s), quote(n)))
    rows = rows.split("/")
    if len(rows) != 2:
        raise InvalidPositionError("bad position: %d rows, expected 2 separated by '/'" % len(rows))
    pits = bytearray(12)
    for r in range(2):
        cells = rows[r].split(",")
        if len(cells) != 6:
            raise InvalidPositionError("bad position: %s row has %d pits, expected 6"
                                       % ("North's" if r == 0 else "South's", len(cells)))
        for x in range(6):
            pits[11 - x if r == 0 else x] = parse_count(cells[x], _TOTAL)
    stores = bytearray(2)
    for k, t in ((0, s[2:]), (1, n[2:])):
        stores[k] = parse_count(t, _TOTAL, "store")
    total = sum(pits) + stores[0] + stores[1]
    if total != _TOTAL:
        raise InvalidPositionError("impossible position: %d seeds in all, Oware has %d" % (total, _TOTAL))
    return Position(pits, stores, turn)


def _row_empty_from(p, a, b):
    # Pits past the last seed get nothing from the move; any seed there survives the capture.
    for k in range(a, b):
        if p[k]:
            return False
    return True


def _row_empty(p, o):
    for k in range(o, o + 6):
        if p[k]:
            return False
    return True


class Oware(BaseGame):
    """The game of Oware (Abapa)."""

    name = "oware"
    sides = SIDES
    words = ("pit", "row")  # what one cell and a side's cells are called, for messages
    repetition = 3  # the third occurrence ends the game (RULES.md 2, [decision])
    title = "Oware"
    turn_tint_anim = False
    store_win = 25
    units = (16, "seed")  # evaluate.oware counts 16 a stored seed
    budgets = (2000, 1000, 0)

    def __init__(self):
        # The viper kernel's sowing and feeding rule (use_kernel), or None.
        self._fast_sow = self._fast_legal = None
        # The search's evaluation and quiescence moves (shared_rules.evaluate) in machine code.
        self.fast_eval = self.fast_noisy = None

    def use_kernel(self):
        """Sow, find the legal moves and evaluate in machine code from now on where the
        runtime can (MicroPython with the native emitter: shared_rules/oware_viper.py). The
        same results as the bytecode, which CPython and CircuitPython keep
        (tests/mp/check_oware_viper.py). The search asks for it (shared_rules.ai.Player):
        its code takes heap, which a board not searching keeps. Returns whether it is in use."""
        if self._fast_sow is None:
            k = load_kernel("shared_rules.oware_viper")
            if k is not None:
                self._scratch = bytearray(12)
                self._scratch_stores = bytearray(2)
                self._fast_legal = k.legal
                self._fast_sow = k.sow
                self.fast_eval = k.value
                self.fast_noisy = (k.capture, k.captures)
                self.table_slot = k.slot  # the search's hash (shared_rules.ai)
        return self._fast_sow is not None

    def start(self):
        return Position(bytearray(b"\x04" * 12), bytearray(2), 0)

    def parse(self, text):
        return parse_position(text)

    def format(self, pos):
        return format_position(pos)

    def parse_move(self, text, pos=None):
        if isinstance(text, str) and len(text) == 1:
            if "A" <= text <= "F":
                m, side = ord(text) - 65, 0
            elif "a" <= text <= "f":
                m, side = ord(text) - 97, 1
            else:
                m = side = -1
            if m >= 0:
                if pos is not None and side != pos.turn:
                    raise IllegalMoveError("illegal move %s: that pit is %s's, and %s is to move"
                                           % (text, _NAMES[side], _NAMES[pos.turn]))
                return m
        raise InvalidMoveError("bad move %s: expected a pit, A..F for South or a..f for North" % quote(text))

    def move_str(self, move, pos=None):
        turn = 0 if pos is None else pos.turn
        return chr((97 if turn else 65) + move)

    # -- on a board (shared_rules/position.py): on the two middle rows of any grid at least
    # 8 wide, centred; South's pits A..F left to right with South's store at their right,
    # North's f..a above them with North's store at the left.
    cells = 12         # pits 0..11
    stores = 2         # cells 12 (South's) and 13 (North's)

    def cell_at(self, rows, cols, r, c):
        mid = rows // 2
        x = c - (cols - 8) // 2
        if rows < 2 or cols < 8 or not 0 <= x <= 7:
            return -1
        if r == mid:
            return x - 1 if 1 <= x <= 6 else (12 if x == 7 else -1)
        if r == mid - 1:
            return 12 - x if 1 <= x <= 6 else (13 if x == 0 else -1)
        return -1

    def owner(self, cell, value=0):
        return cell // 6 if cell < 12 else cell - 12

    def label(self, cell):
        return SIDES[cell - 12] if cell >= 12 else chr(65 + 32 * (cell // 6) + cell % 6)

    def move_cell(self, move, turn, target=False):
        return -1 if target else turn * 6 + move

    def _sow(self, p, stores, o, m, ev):
        """Sow from pit o+m and capture, in place. Returns the seeds captured."""
        i = o + m
        n = p[i]
        p[i] = 0
        if ev is not None:
            ev.append((PICKUP, i, n))
        j = i
        if ev is None and n < 12:
            # The common sowing, fewer than a lap: straight runs, no per-seed checks.
            j = i + n
            if j < 12:
                for k in range(i + 1, j + 1):
                    p[k] += 1
            else:
                j -= 12
                for k in range(i + 1, 12):
                    p[k] += 1
                for k in range(j + 1):
                    p[k] += 1
            n = 0
        while n:
            j += 1
            if j == 12:
                j = 0
            if j == i:  # 12 or more seeds skip the pit they came from
                continue
            p[j] += 1
            n -= 1
            if ev is not None:
                ev.append((DROP, j, p[j]))
        if ev is not None:
            ev.append((LAP_END, j, p[j]))
        got = 0
        opp = 6 - o
        while opp <= j < opp + 6 and 2 <= p[j] <= 3:
            got += p[j]
            if ev is not None:
                ev.append((CAPTURE, j, p[j]))
            p[j] = 0
            j -= 1
        if got:
            stores[o // 6] += got
            if ev is not None:
                ev.append((STORE, o // 6, got))
        return got

    def legal_moves(self, pos):
        """Non-empty pits whose move leaves the opponent a seed; all non-empty pits if none does."""
        if pos._legal is not None:
            return pos._legal
        o = pos.turn * 6
        pits = pos.pits
        if self._fast_legal is not None:
            mask = self._fast_legal(pits, o, self._scratch, self._scratch_stores)
            moves = []
            for m in range(6):
                if mask >> m & 1:
                    moves.append(m)
            pos._legal = moves
            return moves
        opp = 6 - o
        fed = not _row_empty(pits, opp)
        feeding = []
        starving = []
        for m in range(6):
            n = pits[o + m]
            if not n:
                continue
            if n < 12:
                j = o + m + n
                if j >= 12:
                    j -= 12
                # Only a capture can empty a fed row, and only one ending there on 2 or 3;
                # an unfed row is fed by any sowing that reaches it.
                if fed:
                    starves = (opp <= j < opp + 6 and 1 <= pits[j] <= 2
                               and _row_empty_from(pits, j + 1, opp + 6) and self._clears(pos, o, m))
                else:
                    starves = n < 6 - m
            else:
                starves = self._clears(pos, o, m)
            (starving if starves else feeding).append(m)
        pos._legal = feeding or starving
        return pos._legal

    def _clears(self, pos, o, m):
        """Does move m leave the opponent's row empty? (sown on a scratch copy)"""
        scratch = bytearray(pos.pits)
        self._sow(scratch, bytearray(2), o, m, None)
        return _row_empty(scratch, 6 - o)

    def play(self, pos, move, events=None):
        return self.child(pos, self._legal(pos, move), events)

    def child(self, pos, move, events=None):
        """play() of an action from legal_moves(pos), unchecked: the search's children."""
        o = pos.turn * 6
        pits = bytearray(pos.pits)
        stores = bytearray(pos.stores)
        if events is None and self._fast_sow is not None:
            starved = self._fast_sow(pits, stores, o, move) & 256
        else:
            self._sow(pits, stores, o, move, events)
            starved = _row_empty(pits, 6 - o)
        if starved:
            # The forced starving move: the game ends and the mover takes what is left (all
            # of it in the mover's row: the other one is empty).
            left = sum(pits)
            if left:
                for k in range(12):
                    pits[k] = 0
                stores[pos.turn] += left
                if events is not None:
                    events.append((SWEEP, pos.turn, left))
                    events.append((STORE, pos.turn, left))
        if events is not None:
            events.append((TURN_END, 0, 0))
        return Position(pits, stores, 1 - pos.turn)

    def try_play(self, pos, move):
        """The position after action `move` when a cheap check proves it legal and the game
        not over, else None (then play() decides, with its error): a move from a non-empty
        pit that leaves the opponent a seed is legal whatever the others do."""
        s = pos.stores
        o = pos.turn * 6
        # A seed in the pit means the mover's row is not empty: the game goes on.
        if not 0 <= move < 6 or s[0] >= 25 or s[1] >= 25 or not pos.pits[o + move]:
            return None
        pits = bytearray(pos.pits)
        stores = bytearray(s)
        if self._fast_sow is not None:
            if self._fast_sow(pits, stores, o, move) & 256:
                return None
        else:
            self._sow(pits, stores, o, move, None)
            if _row_empty(pits, 6 - o):
                return None
        return Position(pits, stores, 1 - pos.turn)

    def why_illegal(self, pos, move):
        if not 0 <= move < 6:
            return "illegal move %r" % move
        text = self.move_str(move, pos)
        if not pos.pits[pos.turn * 6 + move]:
            return "illegal move %s: the pit is empty" % text
        return "illegal move %s: it leaves the opponent no seeds while another move feeds them" % text

    def outcome(self, pos):
        s = pos.stores
        if s[0] >= 25 or s[1] >= 25:
            return Outcome(0 if s[0] > s[1] else 1, "25 seeds")
        t = pos.turn
        if _row_empty(pos.pits, t * 6):
            # The player to move has no seeds: what is left goes to the player who just moved.
            final = bytearray(s)
            final[1 - t] += sum(pos.pits)
            return _by_stores(final, "opponent cannot move")
        return None

    def stage(self, pos):
        # Seeds leave the pits only for a store: a capture is never undone.
        return pos.stores[0] + pos.stores[1]

    def repetition_end(self, pos, events=None):
        """The final position of a game ended by the third repetition: each side adds the
        seeds of its own row to its store (RULES.md 2)."""
        pits = bytearray(12)
        stores = bytearray(pos.stores)
        for side in (0, 1):
            got = sum(pos.pits[side * 6:side * 6 + 6])
            if got:
                stores[side] += got
                if events is not None:
                    events.append((SWEEP, side, got))
                    events.append((STORE, side, got))
        return Position(pits, stores, pos.turn)

    def repetition_outcome(self, pos):
        """The outcome of a game ended by repetition, from its final position."""
        final = self.repetition_end(pos)
        return _by_stores(final.stores, "threefold repetition")



def _by_stores(s, reason):
    if s[0] == s[1]:
        return Outcome(None, reason)
    return Outcome(0 if s[0] > s[1] else 1, reason)
