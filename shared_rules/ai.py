"""Computer opponents: iterative-deepening alpha-beta with a fixed-size transposition table.

Pure Python for CPython and MicroPython alike. A search stops at a node budget (deterministic:
the same seed and position give the same move on both runtimes) or at a time budget.

>>> from shared_rules import game
>>> g = game("oware")
>>> p = Player(g, level=3, seed=1)
>>> p.choose(g.start()) in g.legal_moves(g.start())
True
"""
from shared_rules.evaluate import BOARDS, EVALS, LEAVES, NOISY, WIN, WIN_BOUND, terminal_score, key_hash
from shared_rules.rng import Rng  # noqa: F401 - part of this module's API

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

try:
    from time import ticks_ms, ticks_diff
except ImportError:
    try:
        # CircuitPython: no time.ticks_ms nor perf_counter; supervisor.ticks_ms wraps at 2**29.
        from supervisor import ticks_ms

        def ticks_diff(a, b):
            return ((a - b + (1 << 28)) & ((1 << 29) - 1)) - (1 << 28)
    except ImportError:
        import time as _time

        def ticks_ms():
            return int(_time.perf_counter() * 1000)

        def ticks_diff(a, b):
            return a - b

_EXACT = const(0)
_LOWER = const(1)
_UPPER = const(2)
_MAX_DEPTH = const(24)  # bounds the recursion, hence the Pico's C stack
_CHECK = const(65521)  # the check key: the hash above the slot number, modulo a prime
_TIME_EVERY = const(15)     # poll the clock when nodes & this == 0
_QDEPTH = const(4)  # captures a quiescence search follows past the nominal depth

# Level table: (chance in 256 of a random move, max depth, share of the level-5 node budget
# in sixths). Level-5 budgets are what a Pico searches in 0.9-1.7 s on its slowest moves
# (docs/ai.md, bench/pico.py; with their viper kernels, shared_rules/*_viper.py).
_LEVELS = ((160, 1, 0), (40, 2, 0), (0, _MAX_DEPTH, 1), (0, _MAX_DEPTH, 3), (0, _MAX_DEPTH, 6))
HOST_FACTOR = const(100)  # bigger budgets for `bawo play` on a PC: under 1 s a move there
# ... times the game's PC budget (its class's budgets): a PC runs the engines' bytecode, so
# these did not grow with the board's budgets (the viper kernels).
# A safety net on the board should the speed estimate be wrong; never reached on a PC.
BOARD_TIME_MS = const(1800)


def level_budget(name, level, host=False):
    """(random-move chance /256, max depth, node budget or None) for a level 1..5."""
    rnd, depth, sixths = _LEVELS[level - 1]
    nodes = None
    if sixths:
        from shared_rules import game_class
        board5, host5, board4 = game_class(name).budgets
        nodes = (host5 if host else board5) * sixths // 6
        if host:
            nodes *= HOST_FACTOR
        elif level == 4 and board4:
            nodes = board4
    return rnd, depth, nodes


def _prime_below(n):
    # A prime table size spreads the slots over every byte of the position, where a power
    # of two would see only the first pocket or two.
    n -= 1
    while True:
        d = 3
        while d * d <= n and n % d:
            d += 2
        if n % 2 and d * d > n:
            return n
        n -= 1


def _inverse(a, m):
    # a's inverse modulo the prime m (extended Euclid: pow's third argument is not on every port)
    t, nt, r, nr = 0, 1, m, a % m
    while nr:
        q = r // nr
        t, nt = nt, t - q * nt
        r, nr = nr, r - q * nr
    return t % m


class _Stop(Exception):
    pass


class _Abort(Exception):
    pass


def _position(pos_or_state):
    return getattr(pos_or_state, "position", pos_or_state)


class RandomPlayer:
    def __init__(self, game, seed=0):
        self.game = game
        self.rng = Rng(seed)
        self.last_info = {}

    def choose(self, pos_or_state):
        moves = self.game.legal_moves(_position(pos_or_state))
        return moves[self.rng.below(len(moves))]


class GreedyPlayer:
    """One ply: the move whose resulting position evaluates best, ties broken at random."""

    def __init__(self, game, seed=0):
        self.game = game
        self.rng = Rng(seed)
        self.evaluate = EVALS.get(game.name) or type(game).evaluation
        self.last_info = {}

    def choose(self, pos_or_state):
        g = self.game
        pos = _position(pos_or_state)
        moves = list(g.legal_moves(pos))
        self.rng.shuffle(moves)
        children = [g.play(pos, m) for m in moves]
        best = None
        bs = -WIN - 1
        for i in range(len(moves)):
            c = children[i]
            out = g.outcome(c)
            s = -terminal_score(out, c.turn, 1) if out is not None else -self.evaluate(g, c)
            if s > bs:
                bs = s
                best = moves[i]
        return best


class Player:
    """Alpha-beta player. level 1..5; node_budget / time_ms override the level's budget.

    `host=True` gives the bigger budgets of a PC. `tt_bits` sets the table size (the largest
    prime below 2**bits slots, 7 bytes each: 7 KB for the board's default of 10).
    `poll`: called every 16 nodes; if it returns True the search is abandoned and choose()
    returns None (last_info["aborted"]). It does not change the move otherwise.
    """

    def __init__(self, game, level=5, seed=0, node_budget=None, time_ms=None, host=False,
                 tt_bits=None, max_depth=None, poll=None):
        self.game = game
        self.poll = poll
        self.level = level
        self.rng = Rng(seed)
        rnd, depth, nodes = level_budget(game.name, level, host)
        self.random_chance = rnd
        self.max_depth = max_depth or depth
        self.stack_stops = 0   # searches cut short by the interpreter's stack
        self.node_budget = node_budget if node_budget is not None else nodes
        if time_ms is None and nodes is not None and not host:
            time_ms = BOARD_TIME_MS
        self.time_ms = time_ms
        if self.node_budget is not None:
            # A kernel's machine code takes heap: worth it for the searches of levels 3-5, not
            # for the one or two plies of levels 1-2. Once loaded, the game keeps using it.
            game.use_kernel()
        self.evaluate = game.fast_eval or EVALS.get(game.name) or type(game).evaluation
        self._leaf = LEAVES.get(game.name)
        self._noisy, self._noisy_moves = game.fast_noisy or NOISY.get(game.name, (None, None))
        # Children of the search come from legal_moves: a game may make them unchecked.
        self._child = game.child if game.child is not None else game.play
        self._boards = BOARDS.get(game.name)
        self._qdepth = _QDEPTH
        self.order_eval = self.evaluate
        if tt_bits is None:
            tt_bits = 14 if host else 9
        n = _prime_below(1 << tt_bits)
        self._size = n
        # Parallel bytearrays, allocated once, 7 bytes a slot on any runtime and no block over
        # 2n bytes (a fragmented heap has few large holes): a 16-bit check key (with the slot
        # number, about 26 bits of the hash are verified), the score + 32768 in 16 bits,
        # depth << 2 | bound flag, the best move as its index in legal_moves, the generation.
        self._tchk = bytearray(2 * n)
        self._tscore = bytearray(2 * n)
        self._tdf = bytearray(n)
        self._tmove = bytearray(n)
        self._tgen = bytearray(n)
        self._gen = 0
        # A kernel finds key_hash's slot and check without the long int (and its heap).
        self._slot = None
        if game.table_slot is not None and n < 16384 and n != _CHECK:
            self._slot = game.table_slot
            self._inv = _inverse(n, _CHECK)
        self.last_info = {}

    def choose(self, pos_or_state):
        g = self.game
        pos = _position(pos_or_state)
        moves = list(g.legal_moves(pos))
        if not moves:
            raise ValueError("no legal move: the game is over")
        self.rng.shuffle(moves)
        if self.random_chance and self.rng.below(256) < self.random_chance:
            # The caller's keys and link still get a look, as during a search.
            if self.poll is not None and self.poll():
                self.last_info = {"aborted": True, "nodes": 0}
                return None
            self.last_info = {"depth": 0, "nodes": 0, "time_ms": 0, "score": 0, "random": True}
            return moves[0]
        try:
            return self._search(pos, moves)
        except _Abort:
            self.last_info = {"aborted": True, "nodes": self.nodes,
                              "time_ms": ticks_diff(ticks_ms(), self._t0)}
            return None

    # -- search -------------------------------------------------------------------------

    def _new_generation(self):
        # Entries of earlier searches are ignored, so a choice depends only on the position
        # and the seed, not on the game so far; clearing happens once per 255 searches.
        self._gen += 1
        if self._gen > 255:
            self._gen = 1
            self._tgen[:] = bytes(len(self._tgen))

    def _search(self, pos, moves):
        g = self.game
        self._new_generation()
        self.nodes = 0
        self._t0 = ticks_ms()
        budget = self.node_budget
        self._budget = budget if budget is not None else 1 << 30
        tm = self.time_ms
        if tm is None and budget is None:
            tm = 2000
        self._deadline = tm
        n = len(moves)
        if n == 1:
            self.last_info = {"depth": 0, "nodes": 0, "time_ms": 0, "score": 0, "move": moves[0]}
            return moves[0]
        order = list(range(n))
        scores = [0] * n
        best = order[0]
        best_score = 0
        depth_done = 0
        for depth in range(1, self.max_depth + 1):
            alpha = -WIN - 1
            it_best = -1
            try:
                for k in range(n):
                    i = order[k]
                    s = -self._negamax(g.play(pos, moves[i]), depth - 1, -WIN - 1, -alpha, 1)
                    scores[i] = s
                    if s > alpha:
                        alpha = s
                        it_best = i
            except (_Stop, RuntimeError) as e:
                # The partial iteration searched the previous best first, so any move that
                # beat it already is at least as good a choice. RuntimeError: this depth is
                # deeper than the interpreter's stack (CircuitPython's pystack is a few KB;
                # MicroPython and CPython say "maximum recursion depth"): searched no deeper.
                if not isinstance(e, _Stop):
                    self.stack_stops += 1
                if it_best >= 0:
                    best = it_best
                    best_score = alpha
                break
            best = it_best
            best_score = alpha
            depth_done = depth
            if alpha >= WIN_BOUND or alpha <= -WIN_BOUND:
                break  # a forced result: deeper search cannot change it
            # Best first; index order keeps equal scores in the shuffled order on any sort.
            order.sort(key=lambda i: (i - (scores[i] << 8)) if i != best else -(1 << 30))
        self.last_info = {"depth": depth_done, "nodes": self.nodes,
                          "time_ms": ticks_diff(ticks_ms(), self._t0), "score": best_score,
                          "move": moves[best]}
        return moves[best]

    def _visit(self):
        # One more node of the budget; the clock and the caller's poll every 16.
        nodes = self.nodes + 1
        if nodes > self._budget:
            raise _Stop
        self.nodes = nodes
        if not nodes & _TIME_EVERY:
            if self._deadline is not None and ticks_diff(ticks_ms(), self._t0) >= self._deadline:
                raise _Stop
            if self.poll is not None and self.poll():
                raise _Abort

    def _negamax(self, pos, depth, alpha, beta, ply):
        self._visit()
        g = self.game
        if depth <= 0 and self._leaf is not None:
            return self._leaf(g, pos, ply)
        out = g.outcome(pos)
        if out is not None:
            return terminal_score(out, pos.turn, ply)
        if depth <= 0:
            if self._noisy is not None:
                return self._quiesce(pos, alpha, beta, ply, self._qdepth)
            return self.evaluate(g, pos)
        if self._slot is not None:
            check = self._slot(pos, self._size, self._inv)
            slot = check & 0x3FFF
            check >>= 14
        else:
            h = key_hash(g, pos)
            slot = h % self._size
            check = (h // self._size) % _CHECK
        tc = self._tchk
        s2 = slot << 1
        tmove = -1
        hit = self._tgen[slot] == self._gen and tc[s2] == check & 255 and tc[s2 + 1] == check >> 8
        if hit:
            tmove = self._tmove[slot]
            v = self._tdf[slot]
            if v >> 2 >= depth:
                s = (self._tscore[s2] | (self._tscore[s2 + 1] << 8)) - 32768
                if s >= WIN_BOUND:
                    s -= ply
                elif s <= -WIN_BOUND:
                    s += ply
                f = v & 3
                if f == _EXACT:
                    return s
                if f == _LOWER:
                    if s >= beta:
                        return s
                elif s <= alpha:
                    return s
        moves = g.legal_moves(pos)
        n = len(moves)
        noisy = self._noisy
        if depth >= 2 and n > 1 and noisy is not None:
            # Biggest capture first, found without sowing: in Oware the static ordering below
            # cost a third of the search, and the nodes it paid for buy more (docs/ai.md).
            keys = [(-noisy(g, pos, moves[i]) << 8) + i for i in range(n)]
            keys.sort()
            order = [k & 255 for k in keys]
        elif depth >= 2 and n > 1:
            # Order by the opponent's static view of each reply; index breaks ties so any
            # sort (MicroPython's is not stable) gives one order.
            ev = self.order_eval
            keys = None
            if self._boards is not None and ev is self.evaluate:
                keys = self._board_keys(pos, moves)
            if keys is None:
                child = self._child
                keys = [(ev(g, child(pos, moves[i])) << 8) + i for i in range(n)]
            keys.sort()
            order = [k & 255 for k in keys]
        else:
            order = list(range(n))
        if 0 <= tmove < n and order[0] != tmove:
            order.remove(tmove)
            order.insert(0, tmove)
        alpha0 = alpha
        best = -WIN - 1
        bmove = order[0]
        if depth == 1 and self._boards is not None and self._leaf is not None:
            s = self._leaves(pos, moves, order, alpha, beta, ply)
            if s is not None:
                best = s
                bmove = self._bmove
                order = ()
        for i in order:
            # RAM, not speed: a child is made when its turn comes, so only the positions
            # along the line are alive (on a 160 KB heap all the children of every node on
            # the line were most of the search's memory); making one again is a copy or one
            # sowing, a small part of a node's cost.
            s = -self._negamax(self._child(pos, moves[i]), depth - 1, -beta, -alpha, ply + 1)
            if s > best:
                best = s
                bmove = i
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        if best <= alpha0:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        # Replace by depth: keep a deeper entry of another position from this search.
        if hit or self._tgen[slot] != self._gen or depth >= self._tdf[slot] >> 2:
            st = best
            if st >= WIN_BOUND:
                st += ply
            elif st <= -WIN_BOUND:
                st -= ply
            st += 32768
            tc[s2] = check & 255
            tc[s2 + 1] = check >> 8
            self._tscore[s2] = st & 255
            self._tscore[s2 + 1] = st >> 8
            self._tdf[slot] = (depth << 2) | flag
            self._tmove[slot] = bmove
            self._tgen[slot] = self._gen
        return best

    # Bawo: its generation already made every child's board (game.generated); scoring those
    # directly saves a Position, and at depth 1 a call, per child: half a leaf's cost on the
    # Pico. Methods of their own, so the other games' _negamax frames do not grow.

    def _board_keys(self, pos, moves):
        # The ordering keys of _negamax from the children's boards, or None.
        kids = self.game.generated(pos)
        if kids is None:
            return None
        g = self.game
        eb = self._boards[0]
        t = 1 - pos.turn
        return [(eb(g, kids[moves[i]], t) << 8) + i for i in range(len(moves))]

    def _leaves(self, pos, moves, order, alpha, beta, ply):
        # _negamax's loop over children that are leaves, on their boards: each is still a
        # node of the budget, in the same order, so the search is the same (tests/mp/
        # check_bawo_viper.py). Returns the best score (its index in self._bmove), or None.
        kids = self.game.generated(pos)
        if kids is None:
            return None
        g = self.game
        leaf = self._boards[1]
        t = 1 - pos.turn
        best = -WIN - 1
        bmove = order[0]
        for i in order:
            self._visit()  # leaves generate nothing: kids stays this node's
            s = -leaf(g, kids[moves[i]], t, ply + 1)
            if s > best:
                best = s
                bmove = i
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        self._bmove = bmove
        return best

    def _quiesce(self, pos, alpha, beta, ply, qd):
        # A leaf in the middle of an exchange scores what the side to move can take next, not
        # the seeds it shows; the side to move may also stand on its static score. Each
        # capture searched is a node of the budget, so the time per move stays bounded.
        g = self.game
        best = self.evaluate(g, pos)
        if best >= beta or not qd:
            return best
        if best > alpha:
            alpha = best
        noisy = self._noisy_moves(g, pos)
        for m in range(6):
            if not noisy >> m & 1:
                continue
            # try_play is None for the rare capture that would leave the opponent no seed
            # (legal only when nothing else feeds): left to the full search.
            c = g.try_play(pos, m)
            if c is None:
                continue
            self._visit()
            out = g.outcome(c)
            if out is not None:
                s = -terminal_score(out, c.turn, ply + 1)
            else:
                s = -self._quiesce(c, -beta, -alpha, ply + 1, qd - 1)
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        return best
