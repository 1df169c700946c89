"""The Bawo solver: the opening proved from scratch, and how much of real play it settles.

    python bench/solve.py                       # the opening, then 100 level-5 games
    python bench/solve.py --games 10 --skip-10s # a quicker look

1. The opening proved from scratch (bawo.solve), the proof checked by bawo.proofcheck against
   every North reply: nodes, time, nodes/s, beside two peers measured in the same run: the
   pure-Python search (Solver(fast=False): the same tree, so the same expansion count, and
   the ratio is the C search's speed-up), and the engine alone generating and playing the
   moves of as many positions (what one expansion costs in shared_rules).
2. Every position of --games level-5 against level-5 games (board budgets, seeds 1..N, sides
   as they fall): the share the solver classifies (won or lost for the side to move, or a
   draw) within 1 s and within 10 s each, a fresh solver per position; and the level-5
   search's verdict beside it: in positions proved won, how often the move it played
   throws the win away (the next position proved won for the opponent). Level 5 against
   itself plays nearly the same game whatever its seed, so each game starts with --opening
   seeded random plies (default 2; their positions count too), and the table says how many
   of the positions are distinct.
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


def opening(g, fast):
    def run(fast):
        s = Solver(max_nodes=10**7, fast=fast)
        t = time.perf_counter()
        ok = s.prove(g.start(), 0)
        return s, ok, time.perf_counter() - t

    s, ok, secs = run(fast)
    st = s.strategy(g.start(), 0)
    t = time.perf_counter()
    decisions, positions, longest = check(g, g.start(), lambda p: st.get(p.key()))
    check_secs = time.perf_counter() - t
    # Peer 1: the pure-Python search, the same tree (so the same count), in the same run.
    py, py_ok, py_secs = run(False) if s.fast else (s, ok, secs)
    if (py.nodes, py_ok) != (s.nodes, ok):
        raise SystemExit(
            "the C and Python searches differ: %d/%s against %d/%s" % (s.nodes, ok, py.nodes, py_ok)
        )
    # Peer 2: the engine generating and playing every move of as many positions, no search.
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
    print(
        "| search | result | expansions | time | expansions/s | pure-Python search (same tree) |"
        " speed-up | engine alone (same count) | South decisions | positions | longest line |"
        " check time |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        "| %s | %s | %d | %.2f s | %.0f | %.1f s | %.0fx | %.1f s | %d | %d | %d plies | %.2f s |"
        % (
            "C (bawo._pnsearch)" if s.fast else "pure Python",
            "South wins" if ok else ok,
            s.nodes,
            secs,
            s.nodes / secs,
            py_secs,
            py_secs / secs,
            peer,
            decisions,
            positions,
            longest,
            check_secs,
        )
    )
    sys.stdout.flush()


def games(g, n, opening_plies):
    """(position, the move played there) for every position of n L5-L5 games, each opened by
    opening_plies seeded random plies."""
    from shared_rules.rng import Rng

    out = []
    for seed in range(1, n + 1):
        players = [Player(g, level=5, seed=seed), Player(g, level=5, seed=seed + 1000)]
        rng = Rng(seed)
        pos = g.start()
        ply = 0
        while g.outcome(pos) is None and len(out) < 10**6:
            if ply < opening_plies:
                legal = g.legal_moves(pos)
                m = legal[rng.below(len(legal))]
            else:
                m = players[pos.turn].choose(pos)
            out.append((pos, m))
            pos = g.play(pos, m)
            ply += 1
        sys.stderr.write("game %d: %d plies so far\n" % (seed, len(out)))
    return out


def classify(g, plays, skip_10s, fast):
    rows = []
    t_all = time.perf_counter()
    for i, (pos, m) in enumerate(plays):
        r1 = solve(pos, Solver(fast=fast), all_moves=False, max_nodes=10**9, max_seconds=1.0)
        r10 = r1
        if r1.value == UNKNOWN and not skip_10s:
            r10 = solve(pos, Solver(fast=fast), all_moves=False, max_nodes=10**9, max_seconds=10.0)
        rows.append((pos, m, r1.value, r10.value))
        if i % 50 == 49:
            sys.stderr.write(
                "classified %d/%d, %.0f s\n" % (i + 1, len(plays), time.perf_counter() - t_all)
            )
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
    print(
        "%d positions, %d distinct, %d seeded random plies at the start of each game; %s search.\n"
        % (
            len(rows),
            len(set(r[0].key() for r in rows)),
            OPENING[0],
            "C" if Solver(fast=fast).fast else "pure-Python",
        )
    )
    print(
        "| side to move | positions | classified within 1 s | within 10 s | proved won for the mover |"
        " level 5 threw the win away |"
    )
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
        print(
            "| %s | %d | %d (%.1f%%) | %s | %d | %d (%.1f%% of won positions) |"
            % (
                label,
                total,
                in1,
                100.0 * in1 / total,
                "not run (--skip-10s)"
                if skip_10s
                else "%d (%.1f%%)" % (in10, 100.0 * in10 / total),
                len(won),
                len(thrown),
                100.0 * len(thrown) / max(1, len(won)),
            )
        )


OPENING = [2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--skip-opening", action="store_true")
    ap.add_argument("--skip-10s", action="store_true", help="only the 1 s budget")
    ap.add_argument(
        "--opening",
        type=int,
        default=2,
        metavar="PLIES",
        help="seeded random plies before level 5 plays each game (default 2)",
    )
    ap.add_argument(
        "--python",
        action="store_true",
        help="the pure-Python search only, even where the C search is built",
    )
    a = ap.parse_args()
    if a.games < 0 or a.opening < 0:
        ap.error("--games and --opening are counts: 0 or more")
    fast = False if a.python else None
    OPENING[0] = a.opening
    g = make_game("bawo")
    if not a.skip_opening:
        opening(g, fast)
    if a.games:
        classify(g, games(g, a.games, a.opening), a.skip_10s, fast)


if __name__ == "__main__":
    main()
