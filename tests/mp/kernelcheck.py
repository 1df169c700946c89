# What the checks of the engines' viper kernels share (check_bawo_viper.py,
# check_oware_viper.py): played positions, and the kernel dropped with its engine.
import sys
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


def check_unload_drops_the_kernel(module, micropython):
    # The kernel's machine code lives on the heap: playing another game must free it too.
    import shared_rules
    for name, (module_name, cls) in shared_rules.GAMES.items():
        if module_name == module.__name__:
            break
    other = 'oware' if name == 'bawo' else 'bawo'
    kernel = module.__name__ + '_viper'
    getattr(module, cls)().use_kernel()
    shared_rules.unload(keep=name)
    assert (kernel in sys.modules) == micropython
    shared_rules.unload(keep=other)
    assert kernel not in sys.modules
    if micropython:
        assert module.__name__ not in sys.modules
    sys.modules[module.__name__] = module  # the module the script holds, for the checks after
