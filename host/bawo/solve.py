"""An exact solver for Bawo two-two positions: proof-number search over shared_rules' engine.

`solve(pos)` answers for the side to move: "win" (with every winning move and a strategy that
wins against every reply), "loss" (the opponent's winning strategy), "draw" (neither side can
force a win, so the game could go on for ever: Bawo has no repetition rule) or "unknown"
(the node or time budget ran out).

The search is best-first proof-number search on a tree whose solved nodes go to a table keyed
by the position's bytes and side. The attacker (the side whose win is being proved) is fixed
per search, so "proved" means the attacker can force a win and "disproved" that it cannot.
A child that repeats a position on its own path counts as a failure for the attacker: a
repetition never helps the attacker, because a forced win can always be played without one
(each move brings the game closer to the end). Such a failure depends on the path, so a
disproof built on one stays in its tree node and never goes to the table; proofs never depend
on one, so every proof in the table holds wherever the position occurs. A strategy read back
from the table is acyclic: a position is proved only after the children its proof uses.

The search runs in C where `bawo._pnsearch` is built (host/bawo/_pnsearch.c: the same tree,
node for node), in Python otherwise; either way solve() answers a win or a loss only once
bawo.proofcheck has replayed the winner's strategy.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Container, Sequence
from typing import Any

from shared_rules import game as _game, has_book

from .rulestypes import Game, Move, Position

INF = 1 << 40
WIN, LOSS, DRAW, UNKNOWN = "win", "loss", "draw", "unknown"


class Node:
    __slots__ = ("pos", "key", "parent", "move", "pn", "dn", "kids", "tainted", "or_node")

    def __init__(
        self, pos: Position, key: Any, parent: Node | None, move: Move | None, or_node: bool
    ) -> None:
        self.pos = pos
        self.key = key
        self.parent = parent
        self.move = move
        self.or_node = or_node
        self.pn = 1
        self.dn = 1
        self.kids: Sequence[Node] | None = None
        self.tainted = False  # a disproof that rests on a repetition on this node's path


class OutOfBudget(Exception):
    pass


def _front_empty(b: Any, o: int) -> bool:
    return not any(b[o : o + 8])


def _settled(b: Any, t: int) -> int | None:
    """Winner (side index) if the game is over with side t to move, else None.

    RULES.md 1, end of the game, in its order; a side whose only starts are endless is found
    when the node is expanded (the engine's legal_moves says so), not here.
    """
    if _front_empty(b, t << 4):
        return 1 - t
    if _front_empty(b, 16 - (t << 4)):
        return t
    o = t << 4
    for i in range(o, o + 16):
        if b[i] >= 2:
            return None
    return 1 - t


def _fast_search() -> Any:
    """bawo._pnsearch.Search, the same search in C (built by setup.py where a C compiler is),
    or None."""
    try:
        from ._pnsearch import Search
    except ImportError:
        return None
    return Search


class _FastTable:
    """One attacker's table of the C search, read as solve.py's dict (proved) or set
    (disproved) is."""

    def __init__(self, search: Any, attacker: int, proved: bool) -> None:
        self._s = search
        self._a = attacker
        self._proved = proved

    def _value(self, key: Any) -> Any:
        v = self._s.get(self._a, key)
        return None if v is None or (v is False) == self._proved else v

    def __contains__(self, key: Any) -> bool:
        return self._value(key) is not None

    def __getitem__(self, key: Any) -> Any:
        v = self._value(key)
        if v is None:
            raise KeyError(key)
        return v

    def get(self, key: Any, default: Any = None) -> Any:
        v = self._value(key)
        return default if v is None else v

    def __len__(self) -> int:
        return self._s.counts(self._a)[0 if self._proved else 1]

    def keys(self) -> Any:
        if not self._proved:
            raise TypeError("the C search lists proved keys only")
        return self._s.proved_keys(self._a)


class Solver:
    """A reusable solver: proofs found by one call help the next (the tables are kept).

    fast: None uses the C search where it is built (bawo._pnsearch), False never, True
    insists. Both search the same tree in the same order, so they give the same answers after
    the same number of expansions; the C one is about 30x faster (bench/solve.py)."""

    def __init__(
        self,
        game: Game | None = None,
        max_nodes: int = 2000000,
        max_seconds: float | None = None,
        progress: Callable[[Solver], object] | None = None,
        fast: bool | None = None,
    ) -> None:
        self.game = game or _game("bawo")
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds
        self.progress = progress  # called as progress(solver) every 2**14 expansions
        search = _fast_search() if fast is not False else None
        if fast and search is None:
            raise ImportError("bawo._pnsearch is not built (it needs a C compiler at install)")
        self._fast = search and search(max_laps=self.game.max_laps)
        # Per attacker: a dict and a set in Python, their C counterparts (_FastTable) in C.
        self.proved: tuple[Any, Any]
        self.disproved: tuple[Any, Any]
        if self._fast is not None:
            self.proved = (_FastTable(self._fast, 0, True), _FastTable(self._fast, 1, True))
            self.disproved = (_FastTable(self._fast, 0, False), _FastTable(self._fast, 1, False))
        else:
            # Per attacker: key -> winning move (attacker to move) or -1 (defender to move,
            # all replies lose); and the set of keys from which the attacker cannot force a win.
            self.proved = ({}, {})
            self.disproved = (set(), set())
        self._nodes = 0  # expansions, over the solver's life (the Python search's)
        self._deadline: float | None = None
        self._node_limit = 0

    @property
    def nodes(self) -> int:
        """Expansions over the solver's life."""
        return self._nodes if self._fast is None else self._fast.nodes

    @property
    def fast(self) -> bool:
        """True if the C search does the work."""
        return self._fast is not None

    # -- the search --------------------------------------------------------------------------

    def prove(
        self,
        pos: Position,
        attacker: int,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
    ) -> bool | None:
        """True if `attacker` can force a win from pos, False if it cannot, None if the budget
        ran out. The budgets count from this call (defaults: the solver's)."""
        mn = self.max_nodes if max_nodes is None else max_nodes
        ms = self.max_seconds if max_seconds is None else max_seconds
        if self._fast is not None:
            progress = self.progress
            tick = None if progress is None else (lambda: progress(self))
            return self._fast.prove(
                pos.key(), attacker, mn, -1.0 if ms is None else max(ms, 0.0), tick
            )
        self._node_limit = self.nodes + mn
        self._deadline = None if ms is None else time.monotonic() + ms
        key = pos.key()
        if key in self.proved[attacker]:
            return True
        if key in self.disproved[attacker]:
            return False
        root = Node(pos, key, None, None, pos.turn == attacker)
        self._init_leaf(root, attacker, ())
        if root.pn == 0 or root.dn == 0:
            return root.pn == 0
        if mn <= 0 or (ms is not None and ms <= 0):
            return None
        try:
            self._search(root, attacker)
        except OutOfBudget:
            return None
        return root.pn == 0

    def _init_leaf(self, n: Node, attacker: int, path: Container[Any]) -> None:
        if n.key in path:
            n.pn, n.dn, n.tainted = INF, 0, True
            return
        if n.key in self.proved[attacker]:
            n.pn, n.dn = 0, INF
            return
        if n.key in self.disproved[attacker]:
            n.pn, n.dn = INF, 0
            return
        w = _settled(n.pos.board, n.pos.turn)
        if w is not None:
            if w == attacker:
                n.pn, n.dn = 0, INF
                self.proved[attacker][n.key] = -1
            else:
                n.pn, n.dn = INF, 0
                self.disproved[attacker].add(n.key)

    def _search(self, root: Node, attacker: int) -> None:
        proved = self.proved[attacker]
        disproved = self.disproved[attacker]
        # The line from the root to the node being worked on, and its keys. After a back-up
        # the next descent starts at the deepest node whose numbers did not change: the
        # most-proving node is still below it (Allis).
        line = [root]
        path = {root.key}
        while root.pn and root.dn:
            n = line[-1]
            while n.kids is not None:
                best = n.kids[0]
                v = INF + 1
                if n.or_node:
                    for c in n.kids:
                        if c.pn < v:
                            v, best = c.pn, c
                else:
                    for c in n.kids:
                        if c.dn < v:
                            v, best = c.dn, c
                n = best
                line.append(n)
                path.add(n.key)
            self._expand(n, attacker, path)
            while self._update(n, proved, disproved) and n is not root:
                line.pop()
                path.discard(n.key)
                n = line[-1]

    def _expand(self, n: Node, attacker: int, path: Container[Any]) -> None:
        self._nodes += 1
        if self._nodes >= self._node_limit:
            raise OutOfBudget()
        if not self._nodes & 255:
            if self._deadline is not None and time.monotonic() > self._deadline:
                raise OutOfBudget()
            if self.progress is not None and not self._nodes & 16383:
                self.progress(self)
        game = self.game
        pos = n.pos
        moves = game.legal_moves(pos)
        kids: list[tuple[int, int, Node]] = []
        child_or = not n.or_node
        mover = pos.turn
        o = mover << 4
        for m in moves:
            cpos = game.play(pos, m)
            c = Node(cpos, cpos.key(), n, m, child_or)
            self._init_leaf(c, attacker, path)
            # Move ordering: the mover's seed count after the move, most first, so ties go
            # to captures (a proof by the attacker's greed is usually short).
            kids.append((-sum(cpos.board[o : o + 16]), len(kids), c))
        kids.sort()
        n.kids = [k[2] for k in kids]
        if not moves:  # only endless starts: the side to move loses
            n.kids = []

    def _update(self, n: Node, proved: Any, disproved: Any) -> bool:
        """Recompute n's numbers from its children; False if they did not change."""
        kids = n.kids
        if kids is None:
            return True
        old_pn, old_dn = n.pn, n.dn
        if n.or_node:
            pn, dn, tainted, win = INF, 0, False, None
            for c in kids:
                if c.pn < pn:
                    pn = c.pn
                    if pn == 0:
                        win = c
                        break
                dn += c.dn
                tainted = tainted or c.tainted
            if win is not None:
                n.pn, n.dn = 0, INF
                proved[n.key] = win.move
            else:
                n.pn, n.dn = pn, min(dn, INF)
                if n.dn == 0:
                    n.tainted = tainted
                    if not tainted:
                        disproved.add(n.key)
        else:
            pn, dn, loss = 0, INF, None
            for c in kids:
                if c.dn == 0:
                    # Prefer a refutation that holds on every path.
                    if loss is None or (loss.tainted and not c.tainted):
                        loss = c
                elif c.dn < dn:
                    dn = c.dn
                pn += c.pn
            if loss is not None:
                n.pn, n.dn, n.tainted = INF, 0, loss.tainted
                if not loss.tainted:
                    disproved.add(n.key)
            else:
                n.pn, n.dn = min(pn, INF), dn
                if n.pn == 0:
                    proved[n.key] = -1
        if n.pn == 0 or n.dn == 0:
            n.kids = ()  # solved: the table holds what the strategy needs; free the subtree
            return True
        return n.pn != old_pn or n.dn != old_dn

    # -- reading the answer -------------------------------------------------------------------

    def strategy(self, pos: Position, attacker: int) -> dict[Any, Move]:
        """The attacker's winning strategy from a proved pos: {key: move} for every position
        with the attacker to move that the strategy reaches against every defence."""
        proved = self.proved[attacker]
        game = self.game
        out: dict[Any, Move] = {}
        seen = set()
        stack = [pos]
        while stack:
            p = stack.pop()
            k = p.key()
            if k in seen:
                continue
            seen.add(k)
            if _settled(p.board, p.turn) is not None or not game.legal_moves(p):
                continue
            if p.turn == attacker:
                m = proved[k]
                out[k] = m
                stack.append(game.play(p, m))
            else:
                for m in game.legal_moves(p):
                    stack.append(game.play(p, m))
        return out


class Result:
    """What solve() found. value is WIN, LOSS, DRAW or UNKNOWN for the side to move."""

    def __init__(
        self,
        pos: Position,
        value: str,
        winning: list[Move],
        unknown: list[Move],
        best: Move | None,
        strategy: dict[Any, Move] | None,
        nodes: int,
        seconds: float,
    ) -> None:
        self.pos = pos
        self.value = value
        self.winning = winning  # every winning move of the side to move (actions)
        self.unknown = unknown  # moves whose value the budget did not settle
        self.best = best  # the strategy's move at pos, if the side to move wins
        self.strategy = strategy  # {key: move} of the winner, or None
        self.nodes = nodes
        self.seconds = seconds


def _checked(
    game: Game, pos: Position, strategy: dict[Any, Move], side: int
) -> dict[Any, Move] | None:
    """strategy if bawo.proofcheck, replaying it through shared_rules against every reply,
    confirms that it wins for side from pos; else None, said on stderr (a solver bug: the
    answer becomes "unknown", never a wrong "win")."""
    from .proofcheck import check, ProofError

    try:
        check(game, pos, lambda p: strategy.get(p.key()), side)
    except ProofError as e:
        sys.stderr.write(
            "bawo: a proof failed its check, so the position counts as unknown: %s\n" % e
        )
        return None
    return strategy


def solve(
    pos: Position, solver: Solver | None = None, all_moves: bool = True, **budgets: Any
) -> Result:
    """Solve pos for the side to move (see the module's doc). Budgets: max_nodes, max_seconds,
    for the whole call. A win or loss is answered only when bawo.proofcheck confirms the
    winner's strategy; so is every move in `winning`."""
    s = solver or Solver(**budgets)
    t0 = time.monotonic()
    n0 = s.nodes
    max_nodes = budgets.get("max_nodes", s.max_nodes)
    max_seconds = budgets.get("max_seconds", s.max_seconds)

    def left() -> tuple[int, float | None]:
        nodes = max_nodes - (s.nodes - n0)
        secs = None if max_seconds is None else max_seconds - (time.monotonic() - t0)
        return nodes, secs

    me = pos.turn
    g = s.game
    value, strategy, best = UNKNOWN, None, None
    winning: list[Move] = []
    unknown: list[Move] = []
    b = left()
    r = s.prove(pos, me, *b)
    if r:
        strategy = _checked(g, pos, s.strategy(pos, me), me)
        if strategy is not None:
            value = WIN
            best = strategy.get(pos.key())
    elif r is False:
        b = left()
        r2 = s.prove(pos, 1 - me, *b)
        if r2:
            strategy = _checked(g, pos, s.strategy(pos, 1 - me), 1 - me)
            if strategy is not None:
                value = LOSS
        elif r2 is False:
            value = DRAW
    if value == WIN and all_moves:
        # Every move, in rounds of growing budgets, so one hard move does not take it all.
        todo = [m for m in g.legal_moves(pos)]
        slice_ = 1000
        while todo:
            more = []
            for m in todo:
                nodes, secs = left()
                child = g.play(pos, m)
                r = s.prove(child, me, min(nodes, slice_), secs)
                if r and _checked(g, child, s.strategy(child, me), me) is not None:
                    winning.append(m)
                elif r is None:
                    more.append(m)
            nodes, secs = left()
            if nodes <= 0 or (secs is not None and secs <= 0):
                unknown = more
                break
            todo = more
            slice_ *= 4
        winning.sort()
    elif value == WIN:
        assert best is not None  # the winner's strategy has a move at pos
        winning = [best]
    return Result(pos, value, winning, unknown, best, strategy, s.nodes - n0, time.monotonic() - t0)


# -- the opening book -------------------------------------------------------------------------


def open_book(path: str | None = None) -> Any:
    """The firmware's book of South's proved strategy from the opening, or None if absent."""
    from .firmware import book_path, module

    book = module("book")
    try:
        return book.Book(path or book_path())
    except OSError:
        return None


def book_value(game: Game, pos: Position, bk: Any) -> str | None:
    """WIN or LOSS for the side to move if the book's South strategy, replayed from pos against
    every reply by bawo.proofcheck, wins for South; else None. Exact: a position the book
    does not cover (or covers by a hash collision) fails the check and gives None."""
    from .proofcheck import check, ProofError

    if bk is None:
        return None
    try:
        check(game, pos, lambda p: bk.lookup(p.key()), 0)
    except ProofError:
        return None
    return WIN if pos.turn == 0 else LOSS


def hardest_replies(
    game: Game, pos: Position, strategy: dict[Any, Move], side: int
) -> dict[Any, Move]:
    """{key: move} for the loser of a proved strategy: in each of its positions the strategy
    reaches, the reply that leaves the winner the largest proof (the most decisions of the
    winner, counted along every line: the hardest win to find)."""
    size: dict[Any, int] = {}
    out: dict[Any, Move] = {}

    def walk(p: Position) -> int:
        k = p.key()
        if k in size:
            return size[k]
        if game.outcome(p) is not None:
            size[k] = 0
            return 0
        if p.turn == side:
            n = 1 + walk(game.play(p, strategy[k]))
        else:
            best: tuple[int, Move] | None = None
            n = 0
            for m in game.legal_moves(p):
                s = walk(game.play(p, m))
                n += s
                if best is None or s > best[0]:
                    best = (s, m)
            assert best is not None  # a game not over has a legal move
            out[k] = best[1]
        size[k] = n
        return n

    walk(pos)
    return out


def build_book(game: Game | None = None, max_nodes: int = 400000) -> tuple[bytes, int, int]:
    """The board's book file (firmware/book.py's format): South's proved strategy from the
    opening, and North's hardest reply in each North position it reaches. Returns
    (bytes, South entries, North entries)."""
    from .firmware import module

    g = game or _game("bawo")
    s = Solver(max_nodes=max_nodes)
    if not s.prove(g.start(), 0):
        raise ValueError("the opening was not proved within %d nodes" % max_nodes)
    south = s.strategy(g.start(), 0)
    north = hardest_replies(g, g.start(), south, 0)
    book = module("book")
    entries = dict(south)
    entries.update(north)
    return book.pack(entries), len(south), len(north)


# -- the PC's player ----------------------------------------------------------------------------


class ProvenPlayer:
    """The PC's Bawo player (`bawo play`, level 5): the proved move whenever the position is
    proved won for the side to move, the search's move otherwise. Proved by the book (its
    South strategy, checked from the position by bawo.proofcheck) or by solve() within
    `seconds`; a strategy once found is kept, so the rest of a won game costs nothing."""

    def __init__(self, ai: Any, seconds: float = 1.0, max_nodes: int = 300000) -> None:
        self.ai = ai
        self.game = ai.game
        self.seconds = seconds
        self.max_nodes = max_nodes
        self.strategy: dict[Any, Move] = {}
        self.last_info: dict[str, Any] = {}

    def choose(self, pos_or_state: Any) -> Move:
        g = self.game
        pos = getattr(pos_or_state, "position", pos_or_state)
        legal = g.legal_moves(pos)
        m = self.strategy.get(pos.key())
        if m is None and pos.turn == 0:
            bk = open_book()
            if bk is not None:
                try:
                    if book_value(g, pos, bk) == WIN:
                        m = bk.lookup(pos.key())
                finally:
                    bk.close()
        if m is None:
            r = solve(pos, all_moves=False, max_nodes=self.max_nodes, max_seconds=self.seconds)
            if r.value == WIN and r.strategy is not None:
                self.strategy.update(r.strategy)
                m = r.best
        if m is not None and m in legal:
            self.last_info = {"proved": True, "move": m}
            return m
        m = self.ai.choose(pos_or_state)
        self.last_info = self.ai.last_info
        return m


def host_player(game: Game, level: int, seed: int) -> Any:
    """The PC's AI for `bawo play` and the web page: the search with the PC's budgets; in Bawo
    at level 5 the proved move wherever the solver or the book proves the position won."""
    from shared_rules.ai import Player

    ai = Player(game, level=level, seed=seed, host=True)
    if has_book(game.name) and level == 5:
        return ProvenPlayer(ai)
    return ai
