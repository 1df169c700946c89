"""Random playouts with exact legal moves at every ply; runs under CPython and MicroPython.

python bench/_playouts.py GAME SECONDS      -> one JSON line: plies, playouts, seconds
"""

import sys

from shared_rules import game
from shared_rules.ai import ticks_ms, ticks_diff  # the AI's clock: ticks on MicroPython
from shared_rules.rng import Rng


def playouts(name, seconds, cap=400):
    g = game(name)
    rnd = Rng(12345)
    plies = games = 0
    t0 = ticks_ms()
    while ticks_diff(ticks_ms(), t0) < seconds * 1000:
        pos = g.start()
        n = 0
        while n < cap and g.outcome(pos) is None:
            legal = g.legal_moves(pos)
            pos = g.play(pos, legal[rnd.below(len(legal))])
            n += 1
        plies += n
        games += 1
    dt = ticks_diff(ticks_ms(), t0) / 1000
    return plies, games, dt


if __name__ == "__main__":
    name, sec = sys.argv[1], float(sys.argv[2])
    p, n, dt = playouts(name, sec)
    print('{"plies": %d, "playouts": %d, "seconds": %.3f}' % (p, n, dt))
