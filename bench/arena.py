"""Strength of the AI levels: many seeded games per pairing, sides swapped, Wilson intervals.

A benchmark, not a test (it takes many minutes). Prints a markdown table (docs/ai.md).

    python bench/arena.py --games 200 --jobs 2                 # every pairing
    python bench/arena.py --games 40 --only oware:L5-greedy   # some pairings
    python bench/arena.py --mcts-games 60 --mcts-ms 350      # Oware against OpenSpiel's MCTS
    python bench/arena.py --games 20 --jobs 1 --only bawo:B5-M1000 oware:L5-M5000  # our MCTS

Rules of the arena: the State class referees (repetition draws included); a game still going
after --max-plies plies (default 300) is adjudicated a draw. Games come in pairs, sides
swapped; --opening N starts each pair with the same N seeded random plies (default 0: Bawo is
so sharp that random opening moves decide many games; variety then comes from the players'
seeded tie-breaks, and the table counts the distinct games). Levels play with the board's
budgets (host=False), so the figures are those of the Pico, not of `bawo play`.

`Mk` is the project's own UCT with uniform random rollouts, k playouts a move (bawo.mcts,
issue 10's yardstick). `B5` is Bawo's level 5 as the board plays it from the opening: the book
(firmware/bawo_book.bin, firmware/book.py) while the game stays on its line, else the search.
`--progress` prints each game's result on stderr as it ends. `L5@af09eca` (or `B5@REV`) is
level 5 as the search was at a git revision (its shared_rules/ai.py and evaluate.py, today's
engines), to measure a change of the AI against the AI before it in one run.

Against OpenSpiel's Oware the two rule sets differ (docs/ai.md): OpenSpiel allows a grand
slam but captures nothing with it, where ours forbids the move while another feeds; and it
ends a game at the first repetition since the last capture, each side collecting its row,
where ours waits for the third occurrence. Every ply both engines are stepped together; if
their legal moves differ, or OpenSpiel's game ends and ours does not, the game stops there
and is adjudicated as OpenSpiel would: each side adds the seeds of its own row to its store.
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from shared_rules import game as make_game, State  # noqa: E402
from shared_rules.ai import Player, GreedyPlayer, RandomPlayer  # noqa: E402
from bawo.mcts import MctsPlayer  # noqa: E402

FIRMWARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "firmware")

GAMES = ("bawo", "oware", "bagh-chal")


def make_player(spec, g, seed, side=0):
    if "@" in spec:  # Ln@REV, B5@REV: the search of git revision REV (ai.py + evaluate.py)
        spec, rev = spec.split("@")
        player = _old_ai(rev).Player(g, level=int(spec[1:]), seed=seed)
        if spec == "B5":
            return _book_player(player, side)
        return player
    if spec == "random":
        return RandomPlayer(g, seed)
    if spec == "greedy":
        return GreedyPlayer(g, seed)
    if spec.startswith("L"):
        return Player(g, level=int(spec[1:]), seed=seed)
    if spec.startswith("H"):  # the PC's budgets (host=True), as `bawo play` uses them
        return Player(g, level=int(spec[1:]), seed=seed, host=True)
    if spec.startswith("N"):  # level 5 with another node budget: how sensitive the results are
        return Player(g, level=5, seed=seed, node_budget=int(spec[1:]))
    if spec.startswith("M"):  # the project's UCT, k playouts a move
        return MctsPlayer(g, playouts=int(spec[1:]), seed=seed)
    if spec == "B5":  # level 5 with the board's opening book (Bawo from the opening)
        return _book_player(Player(g, level=5, seed=seed), side)
    raise ValueError(spec)


def _book_player(player, side):
    sys.path.insert(0, FIRMWARE)
    import book

    return book.BookOpponent(player, book_path=os.path.join(FIRMWARE, "bawo_book.bin"), side=side)


_OLD = {}


def _old_ai(rev):
    """The search as it was at `rev`, to measure a change against it in one arena."""
    if rev not in _OLD:
        import subprocess
        import types

        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        mods = {}
        real = sys.modules.get("shared_rules.evaluate")
        try:
            for name in ("evaluate", "ai"):
                src = subprocess.run(
                    ["git", "show", "%s:shared_rules/%s.py" % (rev, name)],
                    cwd=root,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                m = types.ModuleType("old_%s_%s" % (name, rev))
                exec(compile(src, m.__name__, "exec"), m.__dict__)
                mods[name] = m
                sys.modules["shared_rules.evaluate"] = mods["evaluate"]
        finally:
            if real is not None:
                sys.modules["shared_rules.evaluate"] = real
        _OLD[rev] = mods["ai"]
    return _OLD[rev]


def play_one(task):
    """One game. Returns (key, a_side, winner_is_a (1/0/-1 draw), plies, adjudicated, a_ms, b_ms)."""
    name, a, b, seed, a_side, max_plies, extra = task
    g = make_game(name)
    if b == "mcts":
        return _play_mcts(task)
    pa = make_player(a, g, seed, a_side)
    pb = make_player(b, g, seed + 7919, 1 - a_side)
    players = [pb, pb]
    players[a_side] = pa
    st = State(g)
    # The two games of a pair share a seeded random opening, sides swapped: without it most
    # games of a pairing would repeat one line, since the players are deterministic.
    opener = RandomPlayer(g, 1 + seed // 2)
    for _ in range(extra or 0):
        if st.outcome() is not None:
            break
        st.push(opener.choose(st))
    spent = [0.0, 0.0]
    while st.outcome() is None and st.ply < max_plies:
        t = time.perf_counter()
        m = players[st.turn].choose(st)
        spent[st.turn] += time.perf_counter() - t
        st.push(m)
    out = st.outcome()
    res = -1 if out is None or out.winner is None else int(out.winner == a_side)
    return (
        (name, a, b),
        a_side,
        res,
        st.ply,
        out is None,
        spent[a_side],
        spent[1 - a_side],
        " ".join(st.moves),
    )


def _play_mcts(task):
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    name, a, b, seed, a_side, max_plies, extra = task
    sims, ms, opening = extra
    g = make_game("oware")
    og = pyspiel.load_game("oware")
    bot = mcts.MCTSBot(
        og,
        uct_c=2,
        max_simulations=sims,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
        random_state=np.random.RandomState(seed + 1),
    )
    me = Player(g, level=5, seed=seed, host=True, node_budget=10**9, time_ms=ms)
    st = State(g)
    os_state = og.new_initial_state()
    # Openings: a few seeded random plies so that the games differ (both engines agree there).
    opener = RandomPlayer(g, 1 + seed // 2)
    for _ in range(opening):
        m = opener.choose(st)
        st.push(m)
        os_state.apply_action(m)
    spent = [0.0, 0.0]
    adjudicated = False
    moved = [0, 0]
    while True:
        out = st.outcome()
        if out is not None:
            break
        if st.ply >= max_plies:
            adjudicated = True
            out = None
            break
        ours = sorted(st.legal_moves)
        theirs = [] if os_state.is_terminal() else sorted(os_state.legal_actions())
        if ours != theirs:
            adjudicated = True
            out = _adjudicate(st.position)
            break
        t = time.perf_counter()
        if st.turn == a_side:
            m = me.choose(st)
        else:
            m = bot.step(os_state)
        spent[st.turn] += time.perf_counter() - t
        moved[st.turn] += 1
        st.push(m)
        os_state.apply_action(m)
    res = -1 if out is None or out.winner is None else int(out.winner == a_side)
    return (
        ("oware", a, "mcts%d" % sims),
        a_side,
        res,
        st.ply,
        adjudicated,
        spent[a_side] / max(1, moved[a_side]),
        spent[1 - a_side] / max(1, moved[1 - a_side]),
        " ".join(st.moves),
    )


def _adjudicate(pos):
    s = [pos.stores[0] + sum(pos.pits[0:6]), pos.stores[1] + sum(pos.pits[6:12])]

    class Adjudged:
        winner = None if s[0] == s[1] else (0 if s[0] > s[1] else 1)

    return Adjudged


def _progress(args, r, t0):
    if args.progress:
        key, a_side, res, plies = r[:4]
        print(
            "%s %s-%s A as side %d: %s in %d plies (%.0f s)"
            % (
                key[0],
                key[1],
                key[2],
                a_side,
                {1: "A wins", 0: "B wins", -1: "draw"}[res],
                plies,
                time.time() - t0,
            ),
            file=sys.stderr,
            flush=True,
        )


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def pairings():
    out = []
    for name in GAMES:
        for lv in range(1, 6):
            out.append((name, "L%d" % lv, "random"))
            out.append((name, "L%d" % lv, "greedy"))
            if lv > 1:
                out.append((name, "L%d" % lv, "L%d" % (lv - 1)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--games", type=int, default=200, help="games per pairing (half with each side)"
    )
    ap.add_argument(
        "--only",
        nargs="*",
        help="pairings as game:A-B, e.g. oware:L5-greedy "
        "(Ln: level n with the board's budgets, Hn: with the PC's, Nk: level 5 with k nodes, "
        "Ln@REV: level n of git revision REV's shared_rules/ai.py)",
    )
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--progress", action="store_true", help="each game's result on stderr")
    ap.add_argument(
        "--opening",
        type=int,
        default=0,
        help="random plies before each pair of games "
        "(0: the diversity comes from the seeded tie-breaks only)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--side",
        type=int,
        choices=(0, 1),
        help="A plays only this side (0: South or "
        "Goats, 1: North or Tigers), every game; default: sides swapped game by game",
    )
    ap.add_argument(
        "--mcts-games", type=int, default=0, help="Oware games of L5 against OpenSpiel MCTS"
    )
    ap.add_argument("--mcts-sims", type=int, default=1000)
    ap.add_argument("--mcts-ms", type=int, default=350, help="our time per move against MCTS")
    ap.add_argument("--mcts-opening", type=int, default=2, help="random plies before the game")
    args = ap.parse_args(argv)

    pairs = pairings()
    if args.only is not None:
        want = set()
        for o in args.only:
            name, ab = o.split(":")
            a, b = ab.split("-")
            want.add((name, a, b))
        pairs = sorted(want, key=lambda p: (GAMES.index(p[0]), p))
    tasks = []
    for name, a, b in pairs:
        for k in range(args.games):
            side = k & 1 if args.side is None else args.side
            tasks.append((name, a, b, args.seed * 200006 + k, side, args.max_plies, args.opening))
    for k in range(args.mcts_games):
        tasks.append(
            (
                "oware",
                "L5",
                "mcts",
                args.seed * 200006 + k,
                k & 1,
                args.max_plies,
                (args.mcts_sims, args.mcts_ms, args.mcts_opening),
            )
        )
    # Slow games first so that the two workers finish together.
    tasks.sort(key=lambda t: (t[2] != "mcts", t[1] != "L5"))
    t0 = time.time()
    if args.jobs > 1:
        import multiprocessing

        results = []
        with multiprocessing.Pool(args.jobs) as pool:
            for r in pool.imap_unordered(play_one, tasks, chunksize=1):
                results.append(r)
                _progress(args, r, t0)
    else:
        results = []
        for t in tasks:
            results.append(play_one(t))
            _progress(args, results[-1], t0)
    agg = {}
    for key, a_side, res, plies, adj, a_t, b_t, moves in results:
        r = agg.setdefault(
            key,
            {
                "n": 0,
                "w": 0,
                "d": 0,
                "l": 0,
                "ws": [0, 0],
                "ns": [0, 0],
                "plies": 0,
                "adj": 0,
                "at": 0.0,
                "bt": 0.0,
                "seen": set(),
            },
        )
        r["seen"].add((a_side, moves))
        r["n"] += 1
        r["ns"][a_side] += 1
        if res == 1:
            r["w"] += 1
            r["ws"][a_side] += 1
        elif res == 0:
            r["l"] += 1
        else:
            r["d"] += 1
        r["plies"] += plies
        r["adj"] += adj
        r["at"] += a_t
        r["bt"] += b_t
    print(
        "| game | A | B | games | A wins | draws | B wins | A win % [Wilson 95%] "
        "| A wins as side 0 (S/Goats) | as side 1 (N/Tigers) | mean plies | capped/adjudicated "
        "| distinct games |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    order = {p: i for i, p in enumerate(pairs)}
    for key in sorted(agg, key=lambda k: (GAMES.index(k[0]), order.get(k, 999), k)):
        r = agg[key]
        lo, hi = wilson(r["w"], r["n"])
        side = ["%d/%d" % (r["ws"][s], r["ns"][s]) if r["ns"][s] else "-" for s in (0, 1)]
        b = key[2]
        if b.startswith("mcts"):
            b += " (%.2f s/move vs our %.2f)" % (r["bt"] / r["n"], r["at"] / r["n"])
        elif b.startswith("M"):  # per game: our MCTS reports game totals
            b += " (%.1f s/game vs our %.1f)" % (r["bt"] / r["n"], r["at"] / r["n"])
        print(
            "| %s | %s | %s | %d | %d | %d | %d | %.1f [%.1f, %.1f] | %s | %s | %.0f | %d | %d |"
            % (
                key[0],
                key[1],
                b,
                r["n"],
                r["w"],
                r["d"],
                r["l"],
                100.0 * r["w"] / r["n"],
                100 * lo,
                100 * hi,
                side[0],
                side[1],
                r["plies"] / r["n"],
                r["adj"],
                len(r["seen"]),
            )
        )
    print("\n%d games in %.0f s with %d jobs" % (len(results), time.time() - t0, args.jobs))


if __name__ == "__main__":
    main()
