"""What exact legal moves cost in Bawo: random playouts with the exact legal list at every ply
(every candidate start sown to prove it ends within the lap cap) against playouts that only
apply the capture rule and sow the chosen start (not exact: an endless start could be picked).
The gap is the price of the endless-turn rule (RULES.md 1.6).

    python bench/bawo_exactness.py
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared_rules import game  # noqa: E402
from shared_rules import bawo as B  # noqa: E402


def candidates(pos):
    b = pos.board
    o = pos.turn << 4
    p = 16 - o
    starts = []
    cap = False
    for i in range(16):
        n = b[o + i]
        if n >= 2:
            c1 = B._captures(b, o, p, i, n, 1)
            c2 = B._captures(b, o, p, i, n, 15)
            cap = cap or c1 or c2
            starts.append((i << 1, c1))
            starts.append((i << 1 | 1, c2))
    return [a for a, c in starts if c or not cap], cap


def exact(g, rnd, games):
    plies = 0
    for _ in range(games):
        pos = g.start()
        while g.outcome(pos) is None:
            legal = g.legal_moves(pos)
            pos = g.play(pos, legal[rnd.randrange(len(legal))])
            plies += 1
    return plies


def chosen_only(g, rnd, games):
    plies = 0
    for _ in range(games):
        pos = g.start()
        while True:
            b = pos.board
            o = pos.turn << 4
            if B._front_empty(b, o) or B._front_empty(b, 16 - o):
                break
            moves, cap = candidates(pos)
            if not moves:
                break
            m = moves[rnd.randrange(len(moves))]
            nb = bytearray(b)
            g._sow(nb, o, 16 - o, m >> 1, 15 if m & 1 else 1, cap, None)
            pos = B.Position(nb, 1 - pos.turn)
            plies += 1
    return plies


def rate(fn, g, games=300, reps=3):
    best = 0
    for _ in range(reps):
        t0 = time.perf_counter()
        n = fn(g, random.Random(1), games)
        best = max(best, n / (time.perf_counter() - t0))
    return best


if __name__ == "__main__":
    g = game("bawo")
    a = rate(exact, g)
    b = rate(chosen_only, g)
    print("exact legal list at every ply:        %8.0f plies/s" % a)
    print("capture rule only, chosen start sown: %8.0f plies/s  (%.2fx)" % (b, b / a))
