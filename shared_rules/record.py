"""Game records (RULES.md section 4): a header and the move list, as text or as a dict.

Text form, PGN-like:

    [Game "bawo"]
    [Rules "1"]
    [Id "pico-1a2b-0007"]
    [Result "S"]
    [Reason "front row empty"]

    1. A1+ B7- 2. A4- ...

Result is the winning side (S, N, G, T), "draw", or "*" for an unfinished game. A game may
also end while its moves go on (AGREED): Reason "resign" or "time" with the winner as its
Result, "agreement" with "draw"; any other Reason must be the one the moves give. Tags beyond
TAGS are kept as they are (a name of letters, digits and _); the dict form holds them in "tags".
"""
from shared_rules import game as _game, GAMES, RULES_VERSION, winner_name
from shared_rules.errors import RecordError, RulesError, quote
from shared_rules.state import State

# The text form's writer (tags, their check, the wrapped move text) is record_text.py: the
# board loads it alone to write a record.
from shared_rules.record_text import (TAGS, check_tag, text_of_state, _quote, _text,  # noqa: F401
                                     _header_of_state)
from shared_rules.record_end import AGREED, end_error  # noqa: F401


# When a game began (the Start tag): the board writes "2025-06-03 10:00:00" (UTC) from a clock
# the host sets within T_MIN..T_MAX (firmware/protocol.py). A reader takes that or ISO 8601
# with a zone ("...T12:00:00+02:00", "...Z") and refuses a time no board can write: a year
# 9999 or 0001 once made every reader of the log fail on the one row.
START_MIN = 946684800    # 2000-01-01T00:00:00Z
START_MAX = 4102444799   # 2099-12-31T23:59:59Z
_MAX_OFFSET = 14 * 60    # minutes: the widest zone in use (UTC+14, UTC-12)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MAX_NAME = 32

try:
    _isascii = str.isascii
except AttributeError:  # MicroPython
    _isascii = None


def _digits(s):
    # ASCII digits only (CPython's int() also takes other scripts' digits and spaces).
    if _isascii is not None:   # CPython: checked in C (the log sorts by this, row by row)
        return _isascii(s) and s.isdigit()
    for c in s:
        if not "0" <= c <= "9":
            return False
    return len(s) > 0


def _num(s, lo, hi):
    if not s or len(s) > 6 or not _digits(s):
        return None
    n = int(s)
    return n if lo <= n <= hi else None


def _days_from_civil(y, m, d):
    # Days since 1970-01-01 of a proleptic Gregorian date (no datetime on MicroPython).
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def start_time(value):
    """(seconds since 1970 UTC, microseconds, zone offset in minutes or None) of a Start tag
    value; RecordError unless it is a date and time a board could have written. The one rule:
    the readers check it, and the log shows and sorts by it (bawo.db.played)."""
    t = _start_time(value) if isinstance(value, str) and 16 <= len(value) <= 32 else None
    if t is None:
        raise RecordError("record: Start %s is not a time a board writes: YYYY-MM-DD HH:MM:SS "
                          "(UTC, or ending in Z or +HH:MM), between 2000 and 2099"
                          % quote(value if not isinstance(value, str) else value[:40]))
    return t


def _start_time(v):
    # "YYYY-MM-DD?HH:MM" then [":SS"][".f"][zone]; the fixed part's 12 digits checked at once.
    if v[4] != "-" or v[7] != "-" or v[10] not in "T " or v[13] != ":":
        return None
    if not _digits(v[0:4] + v[5:7] + v[8:10] + v[11:13] + v[14:16]):
        return None
    y, mo, d, h, mi = int(v[0:4]), int(v[5:7]), int(v[8:10]), int(v[11:13]), int(v[14:16])
    if not (1 <= mo <= 12 and 1 <= d and h <= 23 and mi <= 59):
        return None
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if d > _DAYS[mo - 1] + (mo == 2 and leap):
        return None
    rest, off, sec, frac = v[16:], None, 0, 0
    if rest[-1:] == "Z":
        rest, off = rest[:-1], 0
    elif len(rest) >= 6 and rest[-6] in "+-" and rest[-3] == ":":
        oh, om = _num(rest[-5:-3], 0, 14), _num(rest[-2:], 0, 59)
        if oh is None or om is None or oh * 60 + om > _MAX_OFFSET:
            return None
        off = (oh * 60 + om) * (-1 if rest[-6] == "-" else 1)
        rest = rest[:-6]
    if rest:
        if rest[0] != ":" or len(rest) < 3:
            return None
        sec = _num(rest[1:3], 0, 59)
        if sec is None:
            return None
        rest = rest[3:]
        if rest:
            f = _num(rest[1:], 0, 999999) if rest[0] == "." else None
            if f is None:
                return None
            frac = f * 10 ** (7 - len(rest))
    t = _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - (off or 0) * 60
    return (t, frac, off) if START_MIN <= t <= START_MAX else None


def _name_ok(name):
    if not 0 < len(name) <= _MAX_NAME or not ("A" <= name[0] <= "Z" or "a" <= name[0] <= "z"):
        return False
    for c in name:
        if not ("A" <= c <= "Z" or "a" <= c <= "z" or "0" <= c <= "9" or c == "_"):
            return False
    return True


def read_tag(name, value):
    """RecordError unless name and value make a tag a reader takes: check_tag's one line of
    text, a name of letters, digits and _ (a letter first, at most 32; a name of TAGS in its
    own case only), and a Start a board could write."""
    check_tag(name, value)
    if name not in TAGS:
        if not _name_ok(name) or name.lower() in _LOWER:
            raise RecordError("record: bad tag name %s: a name is letters, digits and _, a letter "
                              "first, at most %d, and not another case of %s"
                              % (quote(name[:40]), _MAX_NAME, "/".join(TAGS)))
    elif name == "Start":
        start_time(value)


_LOWER = tuple(t.lower() for t in TAGS)

def _moves_ok(moves):
    # Each move one word of printable ASCII, as every game's notation is: the text form
    # splits its move text at spaces, so anything else would not read back the same.
    try:
        joined = " ".join(moves)   # TypeError on anything but strings, checked in C
    except TypeError:
        return False
    if len(joined.split()) != len(moves):   # an empty move, or one holding a space
        return False
    if _isascii is not None:
        return _isascii(joined) and joined.isprintable()
    for c in joined:
        if not 32 <= ord(c) < 127:
            return False
    return True


def _bad_move(moves):
    # The RecordError naming the first move _moves_ok refuses, and its ply.
    for k in range(len(moves)):
        m = moves[k]
        if not isinstance(m, str) or not m or not _moves_ok([m]):
            raise RecordError("record: 'moves' must be a list of move strings, each one word of "
                              "printable ASCII: ply %d is %s" % (k + 1, quote(m)[:60]), k + 1)
    raise RecordError("record: 'moves' must be a list of move strings")


def _tag_value(name, v):
    # A number is taken as its text (a hand-written {"rules": 1}); anything else is refused.
    if not isinstance(v, str):
        if not isinstance(v, int) or isinstance(v, bool):
            raise RecordError("record: tag %s must be text" % quote(str(name)[:40]))
        v = str(v)
    if not isinstance(name, str):
        raise RecordError("record: a tag name must be text")
    read_tag(name, v)
    return v


class Record:
    """A header dict (TAGS) and a list of move strings."""

    def __init__(self, header, moves):
        self.header = header
        self.moves = moves

    def __repr__(self):
        return "Record(%r, %r)" % (self.header, self.moves)

    def __eq__(self, other):
        return isinstance(other, Record) and self.header == other.header and self.moves == other.moves

    @classmethod
    def from_state(cls, state, **tags):
        return cls(_header_of_state(state, tags), state.moves)

    def replay(self):
        """Replay the moves from the start; returns the State. RecordError names the failing ply."""
        h = self.header
        name = h.get("Game")
        if name not in GAMES:
            raise RecordError("record: unknown game %r: expected one of %s" % (name, ", ".join(sorted(GAMES))))
        rules = h.get("Rules")
        # Rules we do not know are not guessed at (RULES.md 4), a missing version included.
        if rules is None:
            raise RecordError("record has no [Rules] tag: its rules version is not known, so it is not replayed")
        if rules != RULES_VERSION:
            raise RecordError("record: rules version %r is not known here (this engine plays %r): "
                              "update shared_rules" % (rules, RULES_VERSION))
        g = _game(name)
        try:
            s = State(g, h.get("Position"))
        except RulesError as e:
            raise RecordError("record: bad Position tag: %s" % e)
        for k in range(len(self.moves)):
            try:
                s.push(self.moves[k], False)
            except RulesError as e:
                raise RecordError("record does not replay at ply %d (%s): %s" % (k + 1, self.moves[k], e), k + 1)
        # A person's move may be typed in either case; a record's is written as the rules
        # write it, so one game has one text (and one hash).
        k = 0
        for t in s.iter_moves():
            if t != self.moves[k]:
                raise RecordError("record does not replay at ply %d (%s): the notation writes %s"
                                  % (k + 1, self.moves[k], t), k + 1)
            k += 1
        result = h.get("Result", "*")
        reason = h.get("Reason")
        out = s.outcome()
        if out is None and reason in AGREED:
            # Resigned, drawn by agreement or lost on time while the moves go on
            # (RULES.md 4, the remote game's end): the result must fit the reason.
            bad = end_error(g, result, reason)
            if bad is not None:
                raise RecordError("record ends by %s but %s" % (reason, bad), len(self.moves))
            return s
        if out is None:
            got = "*"
        else:
            w = winner_name(g, out)
            got = "draw" if w is None else w
        if result != got:
            raise RecordError("record says the result is %s but the moves give %s" % (result, got), len(self.moves))
        if out is None and reason is not None:
            raise RecordError("record gives the reason %r but the moves do not end the game" % reason,
                              len(self.moves))
        if out is not None and reason is None:
            raise RecordError("record has no [Reason] tag but the moves end the game (%s)" % out.reason,
                              len(self.moves))
        if out is not None and reason != out.reason:
            raise RecordError("record says the reason is %r but the moves give %r" % (reason, out.reason),
                              len(self.moves))
        return s

    def to_dict(self):
        """The dict form: TAGS under their lower-case names, every other tag as it is in
        "tags", and "moves"; from_dict reads it back to the same record."""
        d = {}
        extra = {}
        for k in self.header:
            if k in TAGS:
                d[k.lower()] = self.header[k]
            else:
                extra[k] = self.header[k]
        if extra:
            d["tags"] = extra
        d["moves"] = list(self.moves)
        return d

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict):
            raise RecordError("record: expected an object")
        h = {}
        for t in TAGS:
            v = d.get(t.lower())
            if v is not None:
                h[t] = _tag_value(t, v)
        extra = d.get("tags")
        if extra is not None:
            if not isinstance(extra, dict):
                raise RecordError("record: 'tags' must be an object of tag names and their text")
            for t in extra:
                if t in TAGS:
                    raise RecordError("record: tag %s belongs beside 'moves', not in 'tags'" % quote(t))
                h[t] = _tag_value(t, extra[t])
        moves = d.get("moves", [])
        if not isinstance(moves, list):
            raise RecordError("record: 'moves' must be a list of move strings")
        if not _moves_ok(moves):
            _bad_move(moves)
        return cls(h, list(moves))

    def to_text(self):
        return _text(self.header, self.moves)

    @classmethod
    def from_text(cls, text):
        header = {}
        moves = []
        n = 0
        for line in text.split("\n"):
            n += 1
            line = line.strip()
            if not line:
                continue
            if line[0] == "[":
                if line[-1] != "]" or " " not in line:
                    raise RecordError("record line %d: bad tag %r: expected [Name \"value\"]" % (n, line))
                name, value = line[1:-1].split(" ", 1)
                value = value.strip()
                if len(value) < 2 or value[0] != '"' or value[-1] != '"':
                    raise RecordError("record line %d: tag %s needs a quoted value" % (n, name))
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
                if name in header:
                    raise RecordError("record line %d: tag %s is given twice" % (n, quote(name[:40])))
                read_tag(name, value)
                header[name] = value
                continue
            while "{" in line:  # a {comment}, as `bawo export --analyse` writes after a move
                i = line.find("{")
                j = line.find("}", i)
                if j < 0:
                    raise RecordError("record line %d: a comment opened with { is not closed on its line" % n)
                line = line[:i] + " " + line[j + 1:]
            for w in line.split():
                if w[-1] == "." and w[:-1].isdigit():
                    continue
                moves.append(w)
        if moves and moves[-1] in ("*", "draw", "S", "N", "G", "T"):
            moves.pop()
        if "Game" not in header:
            raise RecordError("record has no [Game] tag")
        return cls(header, moves)
