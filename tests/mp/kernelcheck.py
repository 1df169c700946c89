# What the checks of the engines' viper kernels share (check_bawo_viper.py,
# check_oware_viper.py): played positions, and the kernel dropped with its engine.
from shared_rules.rng import Rng


def games(cls, *options):
    """(game cls as the board's search runs it, kernel and all where the runtime has one;
    the same game on the bytecode paths only, whoever asks for the kernel)."""

    class Plain(cls):
        def use_kernel(self):
            return False

    fast = cls(*options)
    fast.use_kernel()
    return fast, Plain(*options)


def played_positions(g, count, seed, most):
    """count positions of seeded random games of g, each fewer than `most` plies in."""
    r = Rng(seed)
    out = []
    while len(out) < count:
        pos = g.start()
        for _ in range(r.below(most)):
            if g.outcome(pos) is not None:
                break
            moves = g.legal_moves(pos)
            if not moves:
                break
            pos = g.play(pos, moves[r.below(len(moves))])
        out.append(pos)
    return out


def check_table_slot(fast, plain, random_position):
    """The kernel's slot and check of the search's table against evaluate.key_hash's long
    int, over 3,000 random positions and the three table sizes in use (MicroPython only)."""
    from shared_rules import ai, evaluate

    r = Rng(4)
    sizes = (509, 1021, 16381)
    for k in range(3000):
        pos = random_position(r)
        size = sizes[k % 3]
        h = evaluate.key_hash(plain, pos)
        got = fast.table_slot(pos, size, ai._inverse(size, 65521))
        assert got & 0x3FFF == h % size and got >> 14 == (h // size) % 65521, pos.format()


def searched_alike(fast, plain, positions, budgets, copy):
    """Level 5 with the kernel and without, from each position not over at each budget: the
    same move, node count, score and depth. Returns the nodes searched (on one side)."""
    from shared_rules.ai import Player

    searched = 0
    for pos in positions:
        if fast.outcome(pos) is not None:
            continue
        for budget in budgets:
            infos = []
            for g in (fast, plain):
                p = Player(g, level=5, seed=1, node_budget=budget, time_ms=10**6)
                m = p.choose(copy(pos))
                i = p.last_info
                infos.append((m, i['nodes'], i['score'], i['depth']))
            assert infos[0] == infos[1], (pos.format(), budget, infos)
            searched += infos[0][1]
    return searched
