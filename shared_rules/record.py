"""Game records (RULES.md section 4): a header and the move list, as text or as a dict.

Text form, PGN-like:

    [Game "bawo"]
    [Rules "1"]
    [Id "pico-1a2b-0007"]
    [Result "S"]
    [Reason "front row empty"]

    1. A1+ B7- 2. A4- ...

Result is the winning side (S, N, G, T), "draw", or "*" for an unfinished game.
"""
from shared_rules import game as _game, GAMES, RULES_VERSION, winner_name
from shared_rules.errors import RecordError, RulesError
from shared_rules.state import State

# The text form's writer (tags, their check, the wrapped move text) is record_text.py: the
# board loads it alone to write a record.
from shared_rules.record_text import (TAGS, check_tag, text_of_state, _quote, _text,  # noqa: F401
                                     _header_of_state)


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
        d = {}
        for k in self.header:
            d[k.lower()] = self.header[k]
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
                v = v if isinstance(v, str) else str(v)
                check_tag(t, v)
                h[t] = v
        moves = d.get("moves", [])
        if not isinstance(moves, list):
            raise RecordError("record: 'moves' must be a list of move strings")
        try:
            "".join(moves)   # TypeError on anything but strings, checked in C (an import's hot path)
        except TypeError:
            raise RecordError("record: 'moves' must be a list of move strings")
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
                check_tag(name, value)
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
