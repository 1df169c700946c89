"""`bawo solve` and `bawo analyse`: the solver's answers for a position and for every ply of a
game. Bawo values are exact (proof-number search, each answer checked by bawo.proofcheck);
for Oware and Bagh-Chal the level-5 search's score is an estimate, and said to be one."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from shared_rules import has_book

from .errors import BawoError
from .rulestypes import Game, Move
from .text import Writer

if TYPE_CHECKING:
    from shared_rules.record import Record

    from .solve import Solver

VALUE_WORD = {
    "win": "won",
    "loss": "lost",
    "draw": "drawn (neither side can force a win)",
    "unknown": "unknown",
}


# -- solve ----------------------------------------------------------------------------------


def _progress(t0: float) -> Callable[[Solver], None]:
    last = [t0]

    def report(solver: Solver) -> None:
        now = time.monotonic()
        if now - last[0] >= 2.0:
            last[0] = now
            sys.stderr.write(
                "solving: %d nodes, %.0f s, %d positions proved\n"
                % (solver.nodes, now - t0, len(solver.proved[0]) + len(solver.proved[1]))
            )
            sys.stderr.flush()

    return report


def strategy_lines(game: Game, strategy: dict[Any, Move]) -> list[str]:
    """The --tree file: a comment, then `position move` per line, sorted for stable diffs."""
    from shared_rules.bawo import Position

    rows = []
    for k, m in strategy.items():
        pos = Position(bytearray(k[:32]), k[32])
        rows.append("%s %s" % (game.format(pos), game.move_str(m)))
    rows.sort()
    return rows


def solve_command(
    position: str | None = None,
    opening: bool = False,
    max_nodes: int = 2000000,
    max_seconds: float | None = None,
    tree: str | None = None,
    book: str | None = None,
    first_move_only: bool = False,
    as_json: bool = False,
) -> int:
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
        return _write_book(g, book, max_nodes)
    pos = g.start() if opening else g.parse(position)
    o = g.outcome(pos)
    if o is not None:
        raise BawoError(
            "the game is already over in this position: %s won (%s)" % (g.sides[o.winner], o.reason)
        )
    t0 = time.monotonic()
    s = Solver(max_nodes=max_nodes, max_seconds=max_seconds, progress=_progress(t0))
    r = solve(
        pos, solver=s, all_moves=not first_move_only, max_nodes=max_nodes, max_seconds=max_seconds
    )
    me = g.sides[pos.turn]
    out: dict[str, Any] = {
        "position": g.format(pos),
        "side": me,
        "value": r.value,
        "winning": [g.move_str(m) for m in r.winning],
        "unknown": [g.move_str(m) for m in r.unknown],
        "best": None if r.best is None else g.move_str(r.best),
        "nodes": r.nodes,
        "seconds": round(r.seconds, 3),
    }
    if r.value in (WIN, LOSS):
        side = pos.turn if r.value == WIN else 1 - pos.turn
        strategy = r.strategy
        assert strategy is not None  # a win or a loss comes with its checked strategy
        decisions, positions, longest = check(g, pos, lambda p: strategy.get(p.key()), side)
        out["proof"] = {
            "winner": g.sides[side],
            "decisions": decisions,
            "positions": positions,
            "longest": longest,
        }
        if tree:
            text = "# Bawo: %s wins from %s; %d positions with %s to move, each with its move\n" % (
                g.sides[side],
                g.format(pos),
                decisions,
                g.sides[side],
            )
            text += "\n".join(strategy_lines(g, strategy)) + "\n"
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
    _print_solution(out, r, me, tree, max_nodes, max_seconds)
    return 0


def _write_book(g: Any, book: str, max_nodes: int) -> int:
    """`bawo solve --opening --book FILE`: the board's book of the proved opening, written."""
    from .solve import build_book

    data, south, north = build_book(g, max_nodes)
    try:
        with open(book, "wb") as f:
            f.write(data)
    except OSError as e:
        raise BawoError("cannot write %s: %s" % (book, e.strerror or e))
    print(
        "book: %d South moves, %d North replies, %d bytes written to %s"
        % (south, north, len(data), book)
    )
    return 0


def _print_solution(
    out: dict[str, Any],
    r: Any,
    me: str,
    tree: str | None,
    max_nodes: int,
    max_seconds: float | None,
) -> None:
    """`bawo solve`'s answer in words: the value, the winning moves, the proof, the search."""
    from .solve import WIN, LOSS

    print("position: %s" % out["position"])
    if r.value == WIN:
        print("value: win for %s, the side to move" % me)
        print(
            "winning moves: %s%s"
            % (
                " ".join(out["winning"]),
                ("  (not settled: %s)" % " ".join(out["unknown"])) if r.unknown else "",
            )
        )
        print("best move: %s" % out["best"])
    elif r.value == LOSS:
        print("value: loss for %s, the side to move: every move loses" % me)
    elif r.value == "draw":
        print("value: neither side can force a win (the game can go on for ever)")
    else:
        print(
            "value: unknown within the budget (%d nodes%s): raise --max-nodes or --max-seconds"
            % (max_nodes, "" if max_seconds is None else ", %g s" % max_seconds)
        )
    if "proof" in out:
        p = out["proof"]
        print(
            "proof: %d positions with %s to move, %d positions in all, longest line %d plies; "
            "checked against every reply"
            % (p["decisions"], p["winner"], p["positions"], p["longest"])
        )
        if tree:
            print("strategy written to %s" % tree)
    print(
        "search: %d nodes in %.1f s (%.0f nodes/s)"
        % (r.nodes, r.seconds, r.nodes / max(r.seconds, 1e-6))
    )


# -- analyse --------------------------------------------------------------------------------

SIDE = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}
OTHER = {"S": "N", "N": "S", "G": "T", "T": "G"}


# An estimate's score in the game's own things: the evaluator counts 16 a stored seed in
# Oware and 120 a captured goat in Bagh-Chal (shared_rules/evaluate.py).
def _units(game: str | None) -> tuple[int, str]:
    from shared_rules import GAMES, game_class

    units = game_class(game).units if game in GAMES else (0, "")
    return units if units[0] else (1, "point")


OVER = 10**6  # analyse_estimate's score of a finished game (won: +, lost: -)


def _positions(rec: Record) -> tuple[Game, list[Any]]:
    from shared_rules import game, State

    g = game(rec.header.get("Game"))
    s = State(g, rec.header.get("Position"))
    positions = [s.position]
    for m in rec.moves:
        s.push(m)
        positions.append(s.position)
    return g, positions


def iter_bawo(
    rec: Record,
    max_nodes: int = 200000,
    max_seconds: float = 2.0,
    solver: Solver | None = None,
    progress: bool | Callable[[int, int], object] = False,
) -> Iterator[dict[str, Any]]:
    """analyse_bawo's marks one at a time, each as soon as its two positions are valued."""
    from .solve import Solver, solve, WIN, LOSS, open_book, book_value

    g, positions = _positions(rec)
    solver = solver or Solver(max_nodes=max_nodes, max_seconds=max_seconds)
    bk = open_book()
    t0 = time.monotonic()
    flip = {WIN: LOSS, LOSS: WIN}

    def value(i: int) -> str:  # for the side to move in position i
        pos = positions[i]
        if callable(progress):  # bawo serve's page: (positions done, of)
            progress(i, len(positions))
        elif progress and time.monotonic() - t0 > 2:
            sys.stderr.write("analysing: position %d of %d\r" % (i + 1, len(positions)))
            sys.stderr.flush()
        o = g.outcome(pos)
        if o is not None:
            return WIN if o.winner == pos.turn else LOSS
        v = book_value(g, pos, bk)  # the opening's proof, checked from here
        if v is not None:
            return v
        return solve(
            pos, solver=solver, all_moves=False, max_nodes=max_nodes, max_seconds=max_seconds
        ).value

    try:
        nxt = value(0)
        for k, m in enumerate(rec.moves):
            before, nxt = nxt, value(k + 1)
            after = flip.get(nxt, nxt)  # for the mover
            played = g.parse_move(m)
            mv = g.move_str(played)
            winning: list[str] = []
            if before == WIN and after != WIN:  # only then are the winning moves worth their search
                found = set(
                    solve(
                        positions[k], solver=solver, max_nodes=max_nodes, max_seconds=max_seconds
                    ).winning
                )
                for x in g.legal_moves(positions[k]):  # and the book's, checked from each child
                    if x not in found and book_value(g, g.play(positions[k], x), bk) == LOSS:
                        found.add(x)
                if played in found:
                    # Its child was not settled alone, but the search of all moves proved it a
                    # win: the move keeps the win (never "unknown" beside "winning: it").
                    after = WIN
                winning = [g.move_str(x) for x in sorted(found)]
            missed = before == WIN and after != WIN
            yield {
                "ply": k + 1,
                "side": g.sides[positions[k].turn],
                "move": mv,
                "before": before,
                "after": after,
                "mistake": before == WIN and after == LOSS,
                "winning": winning if missed else [],
                "missed": missed,
            }
    finally:
        if bk is not None:
            bk.close()


def analyse_bawo(
    rec: Record,
    max_nodes: int = 200000,
    max_seconds: float = 2.0,
    solver: Solver | None = None,
    progress: bool | Callable[[int, int], object] = False,
) -> list[dict[str, Any]]:
    """One dict per ply: ply (1-based), side, move, before (value for the mover of the
    position it moved in), after (the value that move left it), mistake (won -> lost),
    winning (the winning moves when it was won) and missed (True if its move was not one)."""
    return list(iter_bawo(rec, max_nodes, max_seconds, solver, progress))


def iter_estimate(
    rec: Record, level: int = 5, progress: Callable[[int, int], object] | None = None
) -> Iterator[dict[str, Any]]:
    """analyse_estimate's marks one at a time (without `worst`, which needs them all)."""
    from shared_rules.ai import Player

    g, positions = _positions(rec)
    ai = Player(g, level=level, seed=0, time_ms=10**6)

    def score(i: int) -> int:  # for the side to move
        pos = positions[i]
        if callable(progress):
            progress(i, len(positions))
        o = g.outcome(pos)
        if o is not None:
            return 0 if o.winner is None else (OVER if o.winner == pos.turn else -OVER)
        ai.choose(pos)
        return ai.last_info.get("score", 0)

    nxt = score(0)
    for k, m in enumerate(rec.moves):
        before, nxt = nxt, score(k + 1)
        after = -nxt
        yield {
            "ply": k + 1,
            "side": g.sides[positions[k].turn],
            "move": m,
            "game": g.name,
            "score": before,
            "after": after,
            "drop": max(0, before - after),
            "estimate": True,
        }


def _worst(marks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    worst = sorted((x for x in marks if x["drop"] > 0), key=lambda x: -x["drop"])[:3]
    for x in marks:
        x["worst"] = x in worst
    return marks


def analyse_estimate(
    rec: Record, level: int = 5, progress: Callable[[int, int], object] | None = None
) -> list[dict[str, Any]]:
    """Oware and Bagh-Chal: the level-5 search's score (board budgets, for the mover) before
    each ply and after it, and the loss the ply caused. An estimate, not a proof."""
    return _worst(list(iter_estimate(rec, level, progress)))


def iter_analyse(
    rec: Record,
    max_nodes: int = 200000,
    max_seconds: float = 2.0,
    progress: bool | Callable[[int, int], object] = False,
) -> Iterator[dict[str, Any]]:
    """analyse()'s marks one at a time, as each is found (estimates without `worst`)."""
    rec.replay()  # a record that does not replay is refused with the failing ply
    if has_book(rec.header.get("Game")):
        return iter_bawo(rec, max_nodes, max_seconds, progress=progress)
    return iter_estimate(rec, progress=progress if callable(progress) else None)


def analyse(
    rec: Record,
    max_nodes: int = 200000,
    max_seconds: float = 2.0,
    progress: bool | Callable[[int, int], object] = False,
) -> list[dict[str, Any]]:
    marks = list(iter_analyse(rec, max_nodes, max_seconds, progress))
    return marks if has_book(rec.header.get("Game")) else _worst(marks)


# -- marks in a player's words ----------------------------------------------------------------


def value_text(side: str, value: str) -> str:
    """A Bawo value for `side`, the side to move, as a player reads it."""
    me, them = SIDE.get(side, side), SIDE.get(OTHER.get(side, ""), "the other side")
    return {
        "win": "%s can force a win" % me,
        "loss": "%s can force a win" % them,
        "draw": "neither side can force a win",
    }.get(value, "not settled within the budget")


def score_text(game: str | None, side: str, score: int) -> str:
    """An estimate's score for `side` in the game's things: seeds or goats ahead, or a win."""
    me, them = SIDE.get(side, side), SIDE.get(OTHER.get(side, ""), "the other side")
    from shared_rules.evaluate import WIN, WIN_BOUND

    if score >= OVER:
        return "%s has won" % me
    if score <= -OVER:
        return "%s has won" % them
    if score > WIN_BOUND:
        return "%s can force a win in %d plies" % (me, WIN - score)
    if score < -WIN_BOUND:
        return "%s can force a win in %d plies" % (them, WIN + score)
    unit, name = _units(game)
    v = abs(score) / unit
    if v < 0.05:
        return "level"
    return "%s %.1f %ss ahead" % (me if score > 0 else them, v, name)


def _moves(texts: list[str]) -> str:
    return " or ".join(texts) if len(texts) < 3 else ", ".join(texts[:-1]) + " or " + texts[-1]


def mark_text(x: dict[str, Any]) -> str:
    """A ply's mark in a player's words (the comment written by export, the note of show,
    the line of `bawo analyse` and of the game page)."""
    me = SIDE.get(x["side"], x["side"])
    them = SIDE.get(OTHER.get(x["side"], ""), "the other side")
    if x.get("estimate"):
        g = x.get("game")
        t = "%s before, %s after" % (
            score_text(g, x["side"], x["score"]),
            score_text(g, x["side"], x["after"]),
        )
        if x["drop"] > 0 and abs(x["score"]) < OVER and abs(x["after"]) < OVER:
            unit, name = _units(g)
            if x["drop"] / unit >= 0.05:
                t += "; costs %s %.1f %ss" % (me, x["drop"] / unit, name)
        return t + ("; one of the three costliest moves" if x.get("worst") else "")
    b, a = x["before"], x["after"]
    if x["missed"] and x["winning"]:
        t = "%s can force a win: %s" % (me, _moves(x["winning"]))
        if x["mistake"]:
            return t + "; %s throws it away, %s can force a win now" % (x["move"], them)
        return t + "; after %s it is %s" % (x["move"], value_text(x["side"], a))
    if b == "win":
        return "%s can force a win, and %s keeps it" % (me, x["move"])
    if b == "loss":
        return "%s can force a win whatever %s plays" % (them, me)
    if a == "win":
        return "%s can force a win after %s" % (me, x["move"])
    if a == "loss":
        return "after %s, %s can force a win" % (x["move"], them)
    return "not settled within the budget"


def curve(marks: list[dict[str, Any]]) -> list[float]:
    """The evaluation over the game, one value a position (0 .. plies) in -1..1 from the first
    side's view (South, Goats): Bawo's values 1 (South can force a win), -1, or 0 (not
    settled, drawn); an estimate's score in seeds or goats over 10, clipped (a win is 1)."""

    def first_view(x: dict[str, Any], v: Any) -> float:  # v: for x's mover
        if x.get("estimate"):
            r = max(-1.0, min(1.0, v / _units(x.get("game"))[0] / 10.0))
        else:
            r = {"win": 1.0, "loss": -1.0}.get(v, 0.0)
        return round(r if x["side"] in ("S", "G") else -r, 3)

    out = [first_view(x, x["score"] if x.get("estimate") else x["before"]) for x in marks]
    if marks:
        out.append(first_view(marks[-1], marks[-1]["after"]))  # the position the game ends in
    return out


def analyse_command(
    rec: Record, max_nodes: int = 200000, max_seconds: float = 2.0, as_json: bool = False
) -> int:
    """`bawo analyse`: every ply of record `rec` valued and printed as it is found, and where
    the game was lost; a Ctrl-C keeps what was printed and says so in one line."""
    max_seconds = max_seconds or 2.0
    marks: list[dict[str, Any]] = []
    found = iter_analyse(rec, max_nodes, max_seconds, progress=sys.stderr.isatty())
    bawo = has_book(rec.header.get("Game"))
    if not as_json:
        if bawo:
            print(
                "values for the side to move; budget %d nodes, %g s a position"
                % (max_nodes, max_seconds)
            )
        else:
            print("ESTIMATE: the level-5 search's view for the mover (board budgets), not a proof")
        sys.stdout.flush()
    try:
        for x in found:
            marks.append(x)
            if not as_json:
                print("%4d. %s %-6s %s" % (x["ply"], x["side"], x["move"], mark_text(x)))
                sys.stdout.flush()
    except KeyboardInterrupt:
        if as_json:
            sys.stdout.write(json.dumps(marks, indent=1) + "\n")
        sys.stderr.write(
            "\nstopped at ply %d of %d: the %d mark%s above are kept\n"
            % (len(marks) + 1, len(rec.moves), len(marks), "" if len(marks) == 1 else "s")
        )
        return 130
    if not bawo:
        _worst(marks)
    if as_json:
        sys.stdout.write(json.dumps(marks, indent=1) + "\n")
        return 0
    if bawo:
        mistakes = [x for x in marks if x["mistake"]]
        if mistakes:
            print(
                "the game was lost at ply %s"
                % ", ".join("%d (%s %s)" % (x["ply"], x["side"], x["move"]) for x in mistakes)
            )
        else:
            print("no ply turned a won position into a lost one (within the budget)")
    else:
        worst = [x for x in marks if x["worst"]]
        print(
            "the costliest moves: %s"
            % (
                ", ".join("ply %d (%s %s)" % (x["ply"], x["side"], x["move"]) for x in worst)
                or "none"
            )
        )
    return 0


# -- marks in show and export ----------------------------------------------------------------


def _comment(x: dict[str, Any]) -> str:
    # A comment never holds the braces that delimit it.
    return mark_text(x).replace("{", "(").replace("}", ")")


def to_text_marked(rec: Record, marks: list[dict[str, Any]]) -> str:
    """The record's text (RULES.md 4) with each ply's mark as a {comment} after its move;
    Record.from_text skips the comments, so the file imports as the plain record."""
    head = rec.to_text().split("\n\n", 1)[0]
    lines = [head, ""]
    for k, m in enumerate(rec.moves):
        num = ("%d. " % (k // 2 + 1)) if k % 2 == 0 else ""
        lines.append("%s%s {%s}" % (num, m, _comment(marks[k])))
    lines.append(rec.header.get("Result", "*"))
    return "\n".join(lines) + "\n"


def write_marked(
    rows: Iterable[Any], fmt: str, out: Writer, max_nodes: int = 200000, max_seconds: float = 2.0
) -> int:
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
    return 0  # no stored record written as unreadable: one that no longer reads fails
