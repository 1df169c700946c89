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


def main():
    def write(text):
        sys.stdout.write(text + "\n")
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        if line.strip():
            try:
                referee(line, write)
            except Exception as e:  # a referee bug must not end the stream of games
                write(_error(-1, "internal error: %s: %s" % (type(e).__name__, e)))


main()
