"""`bawo solve` and `bawo analyse`: the solver's answers for a position and for every ply of a
game. Bawo values are exact (proof-number search, each answer checked by bawo.proofcheck);
for Oware and Bagh-Chal the level-5 search's score is an estimate, and said to be one."""
import json
import sys
import time

from .errors import BawoError

VALUE_WORD = {"win": "won", "loss": "lost", "draw": "drawn (neither side can force a win)",
              "unknown": "unknown"}


# -- solve ----------------------------------------------------------------------------------

def _progress(t0):
    last = [t0]

    def report(solver):
        now = time.monotonic()
        if now - last[0] >= 2.0:
            last[0] = now
            sys.stderr.write("solving: %d nodes, %.0f s, %d positions proved\n"
                             % (solver.nodes, now - t0, len(solver.proved[0]) + len(solver.proved[1])))
            sys.stderr.flush()
    return report


def strategy_lines(game, strategy):
    """The --tree file: a comment, then `position move` per line, sorted for stable diffs."""
    from shared_rules.bawo import Position
    rows = []
    for k, m in strategy.items():
        pos = Position(bytearray(k[:32]), k[32])
        rows.append("%s %s" % (game.format(pos), game.move_str(m)))
    rows.sort()
    return rows


def solve_command(position=None, opening=False, max_nodes=2000000, max_seconds=None, tree=None,
                  book=None, first_move_only=False, as_json=False):
    """`bawo solve`: the value of `position` (a Bawo position's text) or of the opening, every
    winning move and the proof, printed; tree: a file for the winner's strategy; book (with
    opening): a file for the board's book."""
    from shared_rules import game
    from .solve import Solver, solve, WIN, LOSS
    from .proofcheck import check
    g = game("bawo")
    if opening == (position is not None):
        raise BawoError("give a POSITION or --opening (one of them)")
    if book:
        if not opening:
            raise BawoError("--book needs --opening: the book holds the strategy from the opening")
        from .solve import build_book
        data, south, north = build_book(g, max_nodes)
        try:
            with open(book, "wb") as f:
                f.write(data)
        except OSError as e:
            raise BawoError("cannot write %s: %s" % (book, e.strerror or e))
        print("book: %d South moves, %d North replies, %d bytes written to %s"
              % (south, north, len(data), book))
        return 0
    pos = g.start() if opening else g.parse(position)
    o = g.outcome(pos)
    if o is not None:
        raise BawoError("the game is already over in this position: %s won (%s)" % (g.sides[o.winner], o.reason))
    t0 = time.monotonic()
    s = Solver(max_nodes=max_nodes, max_seconds=max_seconds, progress=_progress(t0))
    r = solve(pos, solver=s, all_moves=not first_move_only,
              max_nodes=max_nodes, max_seconds=max_seconds)
    me = g.sides[pos.turn]
    out = {"position": g.format(pos), "side": me, "value": r.value,
           "winning": [g.move_str(m) for m in r.winning],
           "unknown": [g.move_str(m) for m in r.unknown],
           "best": None if r.best is None else g.move_str(r.best),
           "nodes": r.nodes, "seconds": round(r.seconds, 3)}
    if r.value in (WIN, LOSS):
        side = pos.turn if r.value == WIN else 1 - pos.turn
        decisions, positions, longest = check(g, pos, lambda p: r.strategy.get(p.key()), side)
        out["proof"] = {"winner": g.sides[side], "decisions": decisions, "positions": positions,
                        "longest": longest}
        if tree:
            text = "# Bawo: %s wins from %s; %d positions with %s to move, each with its move\n" % (
                g.sides[side], g.format(pos), decisions, g.sides[side])
            text += "\n".join(strategy_lines(g, r.strategy)) + "\n"
            try:
                with open(tree, "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise BawoError("cannot write %s: %s" % (tree, e.strerror or e))
            out["tree"] = tree
    elif tree:
        sys.stderr.write("no strategy to write: the value is %s\n" % r.value)
    if as_json:
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return 0
    print("position: %s" % out["position"])
    if r.value == WIN:
        print("value: win for %s, the side to move" % me)
        print("winning moves: %s%s" % (" ".join(out["winning"]),
                                      ("  (not settled: %s)" % " ".join(out["unknown"])) if r.unknown else ""))
        print("best move: %s" % out["best"])
    elif r.value == LOSS:
        print("value: loss for %s, the side to move: every move loses" % me)
    elif r.value == "draw":
        print("value: neither side can force a win (the game can go on for ever)")
    else:
        print("value: unknown within the budget (%d nodes%s): raise --max-nodes or --max-seconds"
              % (max_nodes, "" if max_seconds is None else ", %g s" % max_seconds))
    if "proof" in out:
        p = out["proof"]
        print("proof: %d positions with %s to move, %d positions in all, longest line %d plies; "
              "checked against every reply" % (p["decisions"], p["winner"], p["positions"], p["longest"]))
        if tree:
            print("strategy written to %s" % tree)
    print("search: %d nodes in %.1f s (%.0f nodes/s)" % (r.nodes, r.seconds, r.nodes / max(r.seconds, 1e-6)))
    return 0


# -- analyse --------------------------------------------------------------------------------

def analyse_bawo(rec, max_nodes=200000, max_seconds=2.0, solver=None, progress=False):
    """One dict per ply: ply (1-based), side, move, before (value for the mover of the
    position it moved in), after (the value that move left it), mistake (won -> lost),
    winning (the winning moves when it was won) and missed (True if its move was not one)."""
    from shared_rules import game, State
    from .solve import Solver, solve, WIN, LOSS, open_book, book_value
    g = game("bawo")
    s = State(g, rec.header.get("Position"))
    positions = [s.position]
    for m in rec.moves:
        s.push(m)
        positions.append(s.position)
    solver = solver or Solver(max_nodes=max_nodes, max_seconds=max_seconds)
    bk = open_book()
    values = []  # for the side to move in each position
    t0 = time.monotonic()
    for i, pos in enumerate(positions):
        if callable(progress):  # bawo serve's page: (positions done, of)
            progress(i, len(positions))
        elif progress and time.monotonic() - t0 > 2:
            sys.stderr.write("analysing: position %d of %d\r" % (i + 1, len(positions)))
            sys.stderr.flush()
        o = g.outcome(pos)
        if o is not None:
            values.append(WIN if o.winner == pos.turn else LOSS)
            continue
        v = book_value(g, pos, bk)  # the opening's proof, checked from here
        if v is not None:
            values.append(v)
            continue
        values.append(solve(pos, solver=solver, all_moves=False, max_nodes=max_nodes,
                            max_seconds=max_seconds).value)
    marks = []
    flip = {WIN: LOSS, LOSS: WIN}
    for k, m in enumerate(rec.moves):
        before = values[k]
        after = flip.get(values[k + 1], values[k + 1])  # for the mover
        mv = g.move_str(g.parse_move(m))
        missed = before == WIN and after != WIN
        winning = []
        if missed:  # only then are the winning moves worth their search
            found = set(solve(positions[k], solver=solver, max_nodes=max_nodes,
                              max_seconds=max_seconds).winning)
            for x in g.legal_moves(positions[k]):  # and the book's, checked from each child
                if x not in found and book_value(g, g.play(positions[k], x), bk) == LOSS:
                    found.add(x)
            winning = [g.move_str(x) for x in sorted(found)]
        marks.append({"ply": k + 1, "side": g.sides[positions[k].turn], "move": mv,
                      "before": before, "after": after,
                      "mistake": before == WIN and after == LOSS,
                      "winning": winning, "missed": missed})
    if bk is not None:
        bk.close()
    return marks


def analyse_estimate(rec, level=5, progress=None):
    """Oware and Bagh-Chal: the level-5 search's score (board budgets, for the mover) before
    each ply and after it, and the loss the ply caused. An estimate, not a proof."""
    from shared_rules import game, State
    from shared_rules.ai import Player
    name = rec.header.get("Game")
    g = game(name)
    s = State(g, rec.header.get("Position"))
    positions = [s.position]
    for m in rec.moves:
        s.push(m)
        positions.append(s.position)
    ai = Player(g, level=level, seed=0, time_ms=10 ** 6)
    scores = []  # for the side to move
    for i, pos in enumerate(positions):
        if callable(progress):
            progress(i, len(positions))
        o = g.outcome(pos)
        if o is not None:
            scores.append(0 if o.winner is None else (10 ** 6 if o.winner == pos.turn else -10 ** 6))
            continue
        ai.choose(pos)
        scores.append(ai.last_info.get("score", 0))
    marks = []
    for k, m in enumerate(rec.moves):
        before, after = scores[k], -scores[k + 1]
        marks.append({"ply": k + 1, "side": g.sides[positions[k].turn], "move": m,
                      "score": before, "after": after, "drop": max(0, before - after),
                      "estimate": True})
    worst = sorted((x for x in marks if x["drop"] > 0), key=lambda x: -x["drop"])[:3]
    for x in marks:
        x["worst"] = x in worst
    return marks


def analyse(rec, max_nodes=200000, max_seconds=2.0, progress=False):
    rec.replay()  # a record that does not replay is refused with the failing ply
    if rec.header.get("Game") == "bawo":
        return analyse_bawo(rec, max_nodes, max_seconds, progress=progress)
    return analyse_estimate(rec, progress=progress)


def mark_text(x):
    """A ply's mark in a few words (the comment written by export, the note of show)."""
    if x.get("estimate"):
        t = "estimate: score %d -> %d" % (x["score"], x["after"])
        return t + ("; loses the most" if x["worst"] else "")
    t = "%s -> %s" % (x["before"], x["after"])
    if x["mistake"]:
        t += "; the mistake"
    if x["missed"] and x["winning"]:
        t += "; winning: " + " ".join(x["winning"])
    return t


def analyse_command(rec, max_nodes=200000, max_seconds=2.0, as_json=False):
    """`bawo analyse`: every ply of record `rec` valued, and where the game was lost, printed."""
    max_seconds = max_seconds or 2.0
    marks = analyse(rec, max_nodes, max_seconds, progress=sys.stderr.isatty())
    if as_json:
        sys.stdout.write(json.dumps(marks, indent=1) + "\n")
        return 0
    bawo = rec.header.get("Game") == "bawo"
    if bawo:
        print("values for the side to move; budget %d nodes, %g s a position" % (max_nodes, max_seconds))
    else:
        print("ESTIMATE: level-5 search scores for the mover (board budgets), not a proof")
    for x in marks:
        print("%4d. %s %-6s %s" % (x["ply"], x["side"], x["move"], mark_text(x)))
    if bawo:
        mistakes = [x for x in marks if x["mistake"]]
        if mistakes:
            print("the game was lost at ply %s" % ", ".join("%d (%s %s)" % (x["ply"], x["side"], x["move"]) for x in mistakes))
        else:
            print("no ply turned a won position into a lost one (within the budget)")
    return 0


# -- marks in show and export ----------------------------------------------------------------

def _comment(x):
    # A comment never holds the braces that delimit it.
    return mark_text(x).replace("{", "(").replace("}", ")")


def to_text_marked(rec, marks):
    """The record's text (RULES.md 4) with each ply's mark as a {comment} after its move;
    Record.from_text skips the comments, so the file imports as the plain record."""
    head = rec.to_text().split("\n\n", 1)[0]
    lines = [head, ""]
    for k, m in enumerate(rec.moves):
        num = ("%d. " % (k // 2 + 1)) if k % 2 == 0 else ""
        lines.append("%s%s {%s}" % (num, m, _comment(marks[k])))
    lines.append(rec.header.get("Result", "*"))
    return "\n".join(lines) + "\n"


def write_marked(rows, fmt, out, max_nodes=200000, max_seconds=2.0):
    """`bawo export --analyse`: JSON lines with a "marks" field (one object per ply), or text
    with a comment per ply."""
    from shared_rules.record import Record
    if fmt == "csv":
        raise BawoError("--analyse writes jsonl or text: the CSV summary has no plies")
    first = True
    for r in rows:
        rec = Record.from_text(r["record"])
        marks = analyse(rec, max_nodes, max_seconds)
        if fmt == "jsonl":
            d = rec.to_dict()
            d["marks"] = marks
            out.write(json.dumps(d, ensure_ascii=False) + "\n")
        else:
            if not first:
                out.write("\n")
            out.write(to_text_marked(rec, marks))
        first = False
