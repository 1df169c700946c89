"""The Bawo solver: the opening proved from scratch, and how much of real play it settles.

    python bench/solve.py                       # the opening, then 100 level-5 games
    python bench/solve.py --games 10 --skip-10s # a quicker look

1. The opening proved from scratch (bawo.solve), the proof checked by bawo.proofcheck against
   every North reply: nodes, time, nodes/s, beside the peer measured in the same run: the
   engine alone generating and playing the moves of the same number of positions (so the
   ratio is the search's overhead over move generation).
2. Every position of --games level-5 against level-5 games (board budgets, seeds 1..N, sides
   as they fall): the share the solver classifies (won or lost for the side to move, or a
   draw) within 1 s and within 10 s each, a fresh solver per position; and the level-5
   search's verdict beside it: in positions proved won, how often the move it played
   throws the win away (the next position proved won for the opponent).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))

from shared_rules import game as make_game  # noqa: E402
from shared_rules.ai import Player  # noqa: E402
from bawo.solve import Solver, solve, WIN, LOSS, UNKNOWN  # noqa: E402
from bawo.proofcheck import check  # noqa: E402


def opening(g):
    s = Solver(max_nodes=10 ** 7)
    t = time.perf_counter()
    ok = s.prove(g.start(), 0)
    secs = time.perf_counter() - t
    st = s.strategy(g.start(), 0)
    t = time.perf_counter()
    decisions, positions, longest = check(g, g.start(), lambda p: st.get(p.key()))
    check_secs = time.perf_counter() - t
    # Peer: the engine generating and playing every move of as many positions, no search.
    pos_list = list(s.proved[0].keys())[:2000]
    from shared_rules.bawo import Position
    t = time.perf_counter()
    n = 0
    while n < s.nodes:
        for k in pos_list:
            p = Position(bytearray(k[:32]), k[32])
            for m in g.legal_moves(p):
                g.play(p, m)
            n += 1
            if n >= s.nodes:
                break
    peer = time.perf_counter() - t
    print("## The opening, proved from scratch\n")
    print("| result | expansions | time | expansions/s | engine alone (same count) | ratio |"
          " South decisions | positions | longest line | check time |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("| %s | %d | %.1f s | %.0f | %.1f s | %.2fx | %d | %d | %d plies | %.2f s |" % (
        "South wins" if ok else ok, s.nodes, secs, s.nodes / secs, peer, secs / peer,
        decisions, positions, longest, check_secs))
    sys.stdout.flush()


def games(g, n):
    """(position, the move level 5 played there) for every position of n L5-L5 games."""
    out = []
    for seed in range(1, n + 1):
        players = [Player(g, level=5, seed=seed), Player(g, level=5, seed=seed + 1000)]
        pos = g.start()
        while g.outcome(pos) is None and len(out) < 10 ** 6:
            m = players[pos.turn].choose(pos)
            out.append((pos, m))
            pos = g.play(pos, m)
        sys.stderr.write("game %d: %d plies so far\n" % (seed, len(out)))
    return out


def classify(g, plays, skip_10s):
    rows = []
    t_all = time.perf_counter()
    for i, (pos, m) in enumerate(plays):
        r1 = solve(pos, all_moves=False, max_nodes=10 ** 9, max_seconds=1.0)
        r10 = r1
        if r1.value == UNKNOWN and not skip_10s:
            r10 = solve(pos, all_moves=False, max_nodes=10 ** 9, max_seconds=10.0)
        rows.append((pos, m, r1.value, r10.value))
        if i % 50 == 49:
            sys.stderr.write("classified %d/%d, %.0f s\n" % (i + 1, len(plays), time.perf_counter() - t_all))
    # The level-5 verdict: a proved-won position whose next position is proved won for the
    # opponent (the next position is the next row of the same game, or a finished game).
    nxt = {}
    for k in range(len(rows) - 1):
        p, m = rows[k][0], rows[k][1]
        after = g.play(p, m)
        if rows[k + 1][0] == after:
            nxt[k] = rows[k + 1][3]
        else:
            o = g.outcome(after)
            nxt[k] = (WIN if o.winner == after.turn else LOSS) if o else None
    p, m = rows[-1][0], rows[-1][1]
    o = g.outcome(g.play(p, m))
    nxt[len(rows) - 1] = (WIN if o and o.winner != p.turn else LOSS) if o else None
    print("\n## Positions of level-5 against level-5 games (board budgets)\n")
    print("| side to move | positions | classified within 1 s | within 10 s | proved won for the mover |"
          " level 5 threw the win away |")
    print("|---|---|---|---|---|---|")
    for side, label in ((None, "both"), (0, "South"), (1, "North")):
        ks = [k for k in range(len(rows)) if side is None or rows[k][0].turn == side]
        total = len(ks)
        if not total:
            continue
        in1 = sum(1 for k in ks if rows[k][2] != UNKNOWN)
        in10 = sum(1 for k in ks if rows[k][3] != UNKNOWN)
        won = [k for k in ks if rows[k][3] == WIN]
        thrown = [k for k in won if nxt[k] == WIN]
        print("| %s | %d | %d (%.1f%%) | %s | %d | %d (%.1f%% of won positions) |" % (
            label, total, in1, 100.0 * in1 / total,
            "not run (--skip-10s)" if skip_10s else "%d (%.1f%%)" % (in10, 100.0 * in10 / total),
            len(won), len(thrown), 100.0 * len(thrown) / max(1, len(won))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--skip-opening", action="store_true")
    ap.add_argument("--skip-10s", action="store_true", help="only the 1 s budget")
    a = ap.parse_args()
    g = make_game("bawo")
    if not a.skip_opening:
        opening(g)
    if a.games:
        classify(g, games(g, a.games), a.skip_10s)


if __name__ == "__main__":
    main()
