"""Check a strategy: replay it against every reply and confirm every line ends in its side's
win. Independent of the solver (it uses only shared_rules' legal_moves, play and outcome) and
runs unchanged under CPython and the MicroPython unix port.

`choose(pos)` gives the strategy's move (an action) in a position with its side to move, or
None. A strategy that loops (reaches a position again on one line), names no move or an
illegal one, or lets a line end in a loss fails with ProofError naming the position.

Its hints are written as strings and their names imported for mypy only: MicroPython has no
typing module and no __future__, and never evaluates a hint (CPython, without the future
import, evaluates only the unquoted ones).
"""

TYPE_CHECKING = False  # mypy takes any constant of this name as true
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from .rulestypes import Game, Move, Position


class ProofError(ValueError):
    pass


def check(
    game: "Game",
    pos: "Position",
    choose: "Callable[[Position], Move | None]",
    side: "int | None" = None,
) -> "tuple[int, int, int]":
    """Check the strategy of `side` (default: the side to move) from pos. Returns (decisions, positions, longest):
    the positions where it moved, all positions it reached, the plies of its longest line."""
    if side is None:
        side = pos.turn
    done: dict[Any, int] = {}  # key -> plies to the end of the longest line from there
    # The keys of the current line (a strategy that repeats one would loop).
    on_line: dict[Any, bool] = {}
    decisions = 0
    # Frames: [position, key, moves to try, next index, longest so far]
    stack: list[list[Any]] = []

    def enter(p: "Position") -> None:
        k = p.key()
        if k in on_line:
            raise ProofError("the strategy loops: %s comes again on one line" % game.format(p))
        o = game.outcome(p)
        if o is not None:
            if o.winner != side:
                raise ProofError("a line ends lost (%s) in %s" % (o.reason, game.format(p)))
            done[k] = 0
            return
        if p.turn == side:
            m = choose(p)
            if m is None:
                raise ProofError("the strategy has no move in %s" % game.format(p))
            if m not in game.legal_moves(p):
                raise ProofError("the strategy's move %r is illegal in %s" % (m, game.format(p)))
            moves = [m]
        else:
            moves = list(game.legal_moves(p))
        on_line[k] = True
        stack.append([p, k, moves, 0, 0])

    enter(pos)
    while stack:
        f = stack[-1]
        if f[3] < len(f[2]):
            m = f[2][f[3]]
            f[3] += 1
            child = game.play(f[0], m)
            ck = child.key()
            if ck in done:
                d = done[ck]
            else:
                enter(child)
                if ck not in done:
                    continue
                d = done[ck]
            if d + 1 > f[4]:
                f[4] = d + 1
            continue
        stack.pop()
        del on_line[f[1]]
        done[f[1]] = f[4]
        if f[0].turn == side:
            decisions += 1
        if stack and f[4] + 1 > stack[-1][4]:
            stack[-1][4] = f[4] + 1
    return decisions, len(done), done.get(pos.key(), 0)


def read_strategy(game: "Game", lines: "Iterable[str]") -> "dict[Any, Move]":
    """{key: move} from a strategy file (`bawo solve --tree`): `position move` per line,
    # comments and blank lines skipped. ProofError names a bad line."""
    out: dict[Any, Move] = {}
    n = 0
    for line in lines:
        n += 1
        line = line.strip()
        if not line or line[0] == "#":
            continue
        i = line.rfind(" ")
        try:
            pos = game.parse(line[:i])
            m = game.parse_move(line[i + 1 :], pos)
        except ValueError as e:
            raise ProofError("strategy line %d: %s" % (n, e))
        out[pos.key()] = m
    return out
