"""Static evaluation and position hashing for the search in shared_rules.ai.

Every score is from the side to move's point of view (negamax), in small integers so that
the transposition table can keep them in plain lists on MicroPython (no boxed ints).
"""

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

WIN = const(30000)
# Scores beyond this are wins or losses at a distance in plies.
WIN_BOUND = const(29000)


def terminal_score(outcome, turn, ply):
    """Score of a finished game for the side to move; a quicker win scores higher."""
    if outcome.winner is None:
        return 0
    return WIN - ply if outcome.winner == turn else ply - WIN


def bawo(g, pos):
    return bawo_board(g, pos.board, pos.turn)


def bawo_board(g, b, turn):
    # Seeds never leave the board, so material is the share of the 64; the front row both
    # captures and, once empty, loses the game, so its seeds and empty pockets count extra.
    o = turn << 4
    p = 16 - o
    if g.value is not None:  # the same in machine code (shared_rules/bawo_viper.py)
        return g.value(b, o, p, 0, 0)
    s = 0
    for k in range(8):
        x = b[o + k]
        y = b[p + k]
        s += 6 * (x - y)
        if not x:
            s -= 5
        if not y:
            s += 5
        if x >= 2:
            s += 2
        if y >= 2:
            s -= 2
    for k in range(8, 16):
        x = b[o + k]
        y = b[p + k]
        s += 4 * (x - y)
        if x >= 2:
            s += 2
        if y >= 2:
            s -= 2
    # The mover's capturing turn is worth a tempo: it takes a whole facing pocket now.
    if g.capturing_board(b, turn):
        s += 12
    return s


def oware(g, pos):
    # Stores are final; board seeds are not, but seeds on your side keep you mobile, and
    # pits of 1-2 seeds are what the opponent captures next.
    t = pos.turn
    st = pos.stores
    s = 16 * (st[t] - st[1 - t])
    pits = pos.pits
    o = t * 6
    q = 6 - o
    for k in range(6):
        x = pits[o + k]
        y = pits[q + k]
        s += x - y
        if x == 1 or x == 2:
            s -= 3
        if y == 1 or y == 2:
            s += 3
    return s


def bagh_chal(g, pos):
    # From the goats' side, then negated for tigers. Capturable goats count fully when the
    # tigers are to move (one will go), a third otherwise (goats may still cover them).
    b = pos.board
    adj = g.adjacent  # from the game, so loading this module does not load the Bagh-Chal engine
    jumps = g.jumps
    moves = 0
    trapped = 0
    threats = 0
    for p in range(25):
        if b[p] != 2:
            continue
        m = 0
        for q in adj[p]:
            if not b[q]:
                m += 1
        for q, r in jumps[p]:
            if b[q] == 1 and not b[r]:
                m += 1
                threats += 1
        if not m:
            trapped += 1
        moves += m
    s = -120 * pos.captured + 30 * trapped - 3 * moves
    if pos.turn:
        s -= 60 * (threats > 0) + 10 * threats
        return -s
    return s - 10 * threats


def bawo_leaf(g, pos, ply):
    """Score of a Bawo leaf without generating its moves, which is most of a node's cost.

    The game's own outcome() sows every start to find endless ones; a leaf only checks the
    front rows and whether a start of 2 or more seeds exists (endless starts are rare).
    """
    return bawo_leaf_board(g, pos.board, pos.turn, ply)


def bawo_leaf_board(g, b, turn, ply):
    o = turn << 4
    p = 16 - o
    if g.value is not None:
        return g.value(b, o, p, 1, ply)
    mine = theirs = False
    for k in range(8):
        if b[o + k]:
            mine = True
        if b[p + k]:
            theirs = True
    if not mine:
        return ply - WIN
    if not theirs:
        return WIN - ply
    for k in range(o, o + 16):
        if b[k] >= 2:
            return bawo_board(g, b, turn)
    return ply - WIN


def oware_capture(g, pos, m):
    """Seeds move m captures at once, found without sowing, or 0 (quiescence's noisy moves).

    Only sowings of fewer than 12 seeds (a lap or more is rare, and left to the full search):
    the last seed falls in pit j and every pit it passed got one more, so every pit of the
    opponent's row up to j got one.
    """
    pits = pos.pits
    o = pos.turn * 6
    i = o + m
    n = pits[i]
    if not n or n >= 12:
        return 0
    j = i + n
    if j >= 12:
        j -= 12
    opp = 6 - o
    got = 0
    while opp <= j < opp + 6:
        c = pits[j] + 1
        if c != 2 and c != 3:
            break
        got += c
        j -= 1
    return got


def oware_captures(g, pos):
    """The mover's moves that oware_capture counts a capture for, as a mask (bit m: move m)."""
    mask = 0
    for m in range(6):
        if oware_capture(g, pos, m):
            mask |= 1 << m
    return mask


# A game's kernel may have its own twins of these, with the same arguments and results
# (game.fast_eval, game.fast_noisy: shared_rules/oware_viper.py), which the search prefers.
EVALS = {"bawo": bawo, "oware": oware, "bagh-chal": bagh_chal}
# Moves a quiescence search plays at the leaves: (the gain of one move: game, position,
# move -> seeds, 0 if quiet; every noisy move of a position: game, position -> mask of moves).
NOISY = {"oware": (oware_capture, oware_captures)}
# Games whose leaves have a cheaper test than game.outcome + evaluation.
LEAVES = {"bawo": bawo_leaf}
# The same two on a board and the side to move, for games whose generation keeps each
# child's board (game.generated): (evaluation, leaf score).
BOARDS = {"bawo": (bawo_board, bawo_leaf_board)}


def key_hash(g, pos):
    """A position's hash as a non-negative int, the same on CPython and MicroPython.

    Python's hash() of bytes is salted per process on CPython, which would make the
    table's replacement, and so the chosen move, differ from run to run.
    """
    if g.name == "bawo":
        return int.from_bytes(pos.board, "little") * 2 + pos.turn
    return int.from_bytes(pos.key(), "little")
