"""Referee: JSON lines in, one JSON line per position out (see README).

    python -m shared_rules  <  games.jsonl
    micropython -m shared_rules  <  games.jsonl
"""
import sys
import json

from shared_rules import game as _game, winner_name
from shared_rules.errors import RulesError
from shared_rules.state import State


def _obj(pairs):
    # Fixed key order on both runtimes (MicroPython dicts are not ordered).
    return "{" + ", ".join(['"%s": %s' % (k, json.dumps(v)) for k, v in pairs]) + "}"


def _error(ply, msg):
    return _obj((("ply", ply), ("error", msg)))


def _line(s):
    out = s.outcome()
    result = None
    if out is not None:
        result = _obj((("winner", winner_name(s.game, out)), ("reason", out.reason)))
    legal = json.dumps(s.legal_move_strs())
    return '{"ply": %d, "position": %s, "legal": %s, "result": %s}' % (
        s.ply, json.dumps(s.game.format(s.position)), legal, "null" if result is None else result)


def referee(line, write):
    """Adjudicate one input line, calling write(text) for each output line."""
    try:
        req = json.loads(line)
    except ValueError:
        write(_error(0, "not a JSON object: %s" % line.strip()[:60]))
        return
    if not isinstance(req, dict):
        write(_error(0, "expected a JSON object with game, position and moves"))
        return
    try:
        g = _game(req.get("game"))
        pos = req.get("position")
        if pos is not None and not isinstance(pos, str):
            raise RulesError("position must be a string")
        s = State(g, pos)
    except RulesError as e:
        write(_error(0, str(e)))
        return
    moves = req.get("moves", [])
    if not isinstance(moves, list):
        write(_error(0, "moves must be a list of move strings"))
        return
    write(_line(s))
    for m in moves:
        try:
            if not isinstance(m, str):
                raise RulesError("move %s is not a string" % json.dumps(m))
            s.push(m)
        except RulesError as e:
            write(_error(s.ply + 1, str(e)))
            return
        write(_line(s))


def _utf8(raw):
    """Is raw well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
    U+10FFFF)? MicroPython's decoder lets those through, CPython's refuses them."""
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF  # the range of the second byte
        if 0xC2 <= c <= 0xDF:
            k = 1
        elif 0xE0 <= c <= 0xEF:
            k = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            k = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return False
        if i + k >= n or not lo <= raw[i + 1] <= hi:
            return False
        for j in range(i + 2, i + k + 1):
            if not 0x80 <= raw[j] <= 0xBF:
                return False
        i += k + 1
    return True


def _text(raw):
    """A line of input as text, or None if it is not UTF-8. Decoded here, not by the text
    stream: MicroPython's stream raises past the loop, and CPython's depends on the locale."""
    try:
        text = raw.decode("utf-8")
    except UnicodeError:
        return None
    if len(text) != len(raw) and not _utf8(raw):  # not all ASCII: check what MicroPython skips
        return None
    return text


def main():
    def write(text):
        sys.stdout.write(text + "\n")
    read = sys.stdin.buffer.readline
    while True:
        raw = read()
        if not raw:
            break
        line = _text(raw)
        if line is None:
            write(_error(0, "not UTF-8 text: send each game as one line of UTF-8 JSON"))
        elif line.strip():
            try:
                referee(line, write)
            except Exception as e:  # a referee bug must not end the stream of games
                write(_error(-1, "internal error: %s: %s" % (type(e).__name__, e)))


main()
