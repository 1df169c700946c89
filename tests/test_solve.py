"""The Bawo solver (bawo.solve) and the independent proof check (bawo.proofcheck)."""

import sys
from pathlib import Path

import pytest

from shared_rules import game
from shared_rules.rng import Rng
from bawo.solve import Solver, solve, WIN, LOSS, UNKNOWN
from bawo.proofcheck import check, ProofError
from conftest import run_micropython, ROOT, SIM_HEAP

sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_proof')


@pytest.mark.parametrize('name', harness.check_names(CHECKS))
def test_book_proof_cpython(name):
    getattr(CHECKS, name)()


def test_book_proof_micropython():
    # The unix port's default heap is too small for the check's table of 2,752 positions.
    r = run_micropython(['tests/mp/check_proof.py'], heapsize='8M', path=(ROOT,))
    out = r.stdout + r.stderr
    assert r.returncode == 0 and '3 passed, 0 failed' in out, out
    assert 'book: 1375 South decisions' in out, out


G = game('bawo')


def brute(pos, depth, path=()):
    """Win (True) / loss (False) for the side to move, or None if not settled within depth
    plies; a repetition on the line settles nothing. Plain minimax, no tables."""
    o = G.outcome(pos)
    if o is not None:
        return o.winner == pos.turn
    if depth == 0 or pos.key() in path:
        return None
    path = path + (pos.key(),)
    unknown = False
    for m in G.legal_moves(pos):
        r = brute(G.play(pos, m), depth - 1, path)
        if r is False:
            return True
        if r is None:
            unknown = True
    return None if unknown else False


def endgames(n, before, seed):
    """n positions `before` plies from the end of seeded random games."""
    rng = Rng(seed)
    out = []
    while len(out) < n:
        line = [G.start()]
        while G.outcome(line[-1]) is None:
            moves = G.legal_moves(line[-1])
            line.append(G.play(line[-1], moves[rng.below(len(moves))]))
        if len(line) > before:
            out.append(line[-1 - before])
    return out


def test_solver_agrees_with_plain_minimax():
    # Positions a few plies from the end of random games whose value plain minimax settles
    # within 4 plies; the solver must give the same value, winning moves and a strategy
    # that passes the check.
    settled = []
    before = 1
    for before in range(1, 7):
        for pos in endgames(6, before, seed=before):
            b = brute(pos, 4)
            if b is not None:
                settled.append((pos, b))
    assert len(settled) >= 12, len(settled)
    wins = losses = 0
    for pos, b in settled:
        r = solve(pos, max_nodes=20000)
        assert r.value == (WIN if b else LOSS), (G.format(pos), r.value, b)
        if r.value == WIN:
            wins += 1
            assert r.best in r.winning
            for m in G.legal_moves(pos):
                if m in r.unknown:
                    continue
                child = brute(G.play(pos, m), 3)
                if child is not None:  # a settled child: the move wins iff the child is lost
                    assert (m in r.winning) == (child is False), (G.format(pos), G.move_str(m))
        else:
            losses += 1
        side = pos.turn if r.value == WIN else 1 - pos.turn
        check(G, pos, lambda p: r.strategy.get(p.key()), side)
    assert wins and losses


def test_a_proof_that_fails_its_check_is_unknown_not_a_win(monkeypatch, capsys):
    # Whatever the search (C or Python) claims, solve() answers a win or a loss only after
    # bawo.proofcheck replays the strategy; a search that lies gives "unknown" and says so.
    pos = endgames(1, 9, seed=11)[0]
    assert solve(pos, max_nodes=50000).value in (WIN, LOSS)
    real = Solver.strategy

    def spoiled(self, p, attacker):
        st = real(self, p, attacker)
        del st[next(iter(st))]
        return st

    monkeypatch.setattr(Solver, 'strategy', spoiled)
    r = solve(pos, max_nodes=50000)
    assert r.value == UNKNOWN and r.strategy is None and r.winning == [], r.value
    assert 'a proof failed its check' in capsys.readouterr().err


def test_budget_gives_unknown_not_a_guess():
    r = solve(G.start(), max_nodes=500)
    assert r.value == UNKNOWN and r.strategy is None and r.winning == []


def test_the_solvers_strategy_passes_the_check_and_a_spoiled_one_fails():
    pos = endgames(1, 9, seed=11)[0]
    r = solve(pos, max_nodes=50000)
    assert r.value in (WIN, LOSS)
    side = pos.turn if r.value == WIN else 1 - pos.turn
    assert check(G, pos, lambda p: r.strategy.get(p.key()), side)[0] == len(r.strategy)
    # Drop the strategy's deepest decisions one at a time: each drop is noticed.
    for k in list(r.strategy)[:5]:
        spoiled = dict(r.strategy)
        del spoiled[k]
        with pytest.raises(ProofError, match='no move'):
            check(G, pos, lambda p: spoiled.get(p.key()), side)


class Loop:
    """A two-position game in which the side to move can only go round: a strategy for it
    never ends a line, and the check must say so instead of running for ever."""

    class P:
        def __init__(self, k, turn):
            self.k, self.turn = k, turn

        def key(self):
            return bytes((self.k, self.turn))

    def outcome(self, p):
        return None

    def legal_moves(self, p):
        return [0]

    def play(self, p, m):
        return Loop.P(1 - p.k, 1 - p.turn)

    def format(self, p):
        return 'loop%d' % p.k


def test_a_strategy_that_loops_fails():
    g = Loop()
    with pytest.raises(ProofError, match='loops'):
        check(g, Loop.P(0, 0), lambda p: 0)


def played(n, seed):
    """Every third position of n seeded random games."""
    rng = Rng(seed)
    out = []
    for _ in range(n):
        line = [G.start()]
        while G.outcome(line[-1]) is None:
            moves = G.legal_moves(line[-1])
            line.append(G.play(line[-1], moves[rng.below(len(moves))]))
        out += line[1::3]
    return out


@pytest.mark.parametrize('budget', [200, 3000])
def test_the_c_search_expands_the_same_tree_as_the_python_one(budget):
    # bawo._pnsearch (built at install; CI has a compiler, so it must be there) against
    # solve.py's own search: per position and attacker the same answer after the same number
    # of expansions, and the same tables, entry for entry.
    positions = played(4, seed=5)
    assert len(positions) >= 30
    answers = set()
    for pos in positions:
        for attacker in (0, 1):
            py, c = Solver(max_nodes=budget, fast=False), Solver(max_nodes=budget, fast=True)
            a, b = py.prove(pos, attacker), c.prove(pos, attacker)
            where = (G.format(pos), attacker)
            assert (a, py.nodes) == (b, c.nodes), where
            assert len(py.proved[attacker]) == len(c.proved[attacker]), where
            assert len(py.disproved[attacker]) == len(c.disproved[attacker]), where
            assert all(c.proved[attacker][k] == m for k, m in py.proved[attacker].items()), where
            assert all(k in c.disproved[attacker] for k in py.disproved[attacker]), where
            answers.add(a)
    assert answers == {True, False, None}, answers  # proofs, disproofs and budgets all met


def test_opening_proved_from_scratch():
    # About 10^5 expansions: 0.1 s in C (bench/solve.py measures it beside the Python search).
    s = Solver(max_nodes=400000, fast=True)
    assert s.prove(G.start(), 0) is True
    assert s.nodes == 94506  # the pure-Python search's count (the slow test below)
    st = s.strategy(G.start(), 0)
    decisions, _, longest = check(G, G.start(), lambda p: st.get(p.key()))
    assert decisions == len(st) and longest <= 60


@pytest.mark.slow
def test_opening_proved_from_scratch_in_python(request):
    # The same proof by the pure-Python search: 5-50 s.
    if "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("long run: pytest -m slow")
    s = Solver(max_nodes=400000, fast=False)
    assert s.prove(G.start(), 0) is True and s.nodes == 94506
    st = s.strategy(G.start(), 0)
    decisions, _, longest = check(G, G.start(), lambda p: st.get(p.key()))
    assert decisions == len(st) and longest <= 60


def test_the_book_on_the_board_is_the_one_the_solver_builds():
    # firmware/bawo_book.bin is golden data: `bawo solve --opening --book FILE` rebuilds it
    # byte for byte, so nobody can hand-edit a move into the board's book.
    from bawo.solve import build_book

    data, south, north = build_book()
    assert (south, north) == (1375, 743)
    assert data == (ROOT / 'firmware' / 'bawo_book.bin').read_bytes()


def test_the_c_search_refuses_what_is_not_a_position_and_stops_when_asked():
    from bawo import _pnsearch

    s = _pnsearch.Search()
    key = G.start().key()
    for bad in (key[:32], key + b'\0', bytes(32) + b'\x02', 'x' * 33):
        with pytest.raises(ValueError):
            s.prove(bad, 0, 10, -1.0, None)
        with pytest.raises(ValueError):
            s.get(0, bad)
    for attacker in (-1, 2):
        with pytest.raises(ValueError):
            s.prove(key, attacker, 10, -1.0, None)
        with pytest.raises(ValueError):
            s.counts(attacker)
    with pytest.raises(ValueError):
        _pnsearch.Search(max_laps=0)

    # A progress callback that raises (Ctrl-C's KeyboardInterrupt, say) ends the search with
    # its exception; the solver stays usable and its tables hold only what was exact.
    class Stop(Exception):
        pass

    def stop():
        raise Stop()

    with pytest.raises(Stop):
        s.prove(key, 0, 10**6, -1.0, stop)
    assert s.nodes == 16384 and s.live == 0  # the tree is freed on every way out
    assert s.prove(key, 0, 10**6, -1.0, None) is True
    assert s.get(0, key) in G.legal_moves(G.start())
    # The tree's size is a budget like time: past it the answer is unknown, memory stays flat.
    small = _pnsearch.Search(max_tree=1000)
    for _ in range(3):
        assert small.prove(key, 0, 10**7, -1.0, None) is None and small.live == 0


BOARD = harness.load('check_board_book')


@pytest.mark.parametrize('name', harness.check_names(BOARD))
def test_board_book_cpython(name):
    getattr(BOARD, name)()


def test_board_book_micropython():
    # The board's own opponent code (opponent.with_book, book.BookOpponent, the level-5 AI) under
    # the unix port: as South from the opening it wins against every North reply.
    r = run_micropython(['tests/mp/check_board_book.py'], heapsize='8M', path=(ROOT,))
    out = r.stdout + r.stderr
    assert r.returncode == 0 and '%d passed, 0 failed' % len(harness.check_names(BOARD)) in out, out
    assert 'board as South: 1375 decisions' in out and 'AI moves 0' in out, out


def test_the_books_north_replies_leave_south_the_largest_proof():
    # bawo.solve.hardest_replies over the book's own South strategy picks, in every North
    # position, the reply the book holds for North.
    from bawo.solve import hardest_replies

    sys.path.insert(0, str(ROOT / 'firmware'))
    import book

    b = book.Book(str(ROOT / 'firmware' / 'bawo_book.bin'))

    class Lookup:
        def __getitem__(self, k):
            return b.lookup(k)

    north = hardest_replies(G, G.start(), Lookup(), 0)
    assert len(north) + 1375 == b.count
    assert all(b.lookup(k) == m for k, m in north.items())
    b.close()


def test_the_simulated_board_as_deployed_plays_the_book(tmp_path):
    # The firmware as on a Pico (.mpy files and the book from build_mpy, a bounded heap) under
    # the unix port: as South at level 5 it plays the book's moves, North pressing replies.
    import time
    from bawo.sim import BoardProcess, build_mpy, choose_settings, presses_for, key_of_cell

    sys.path.insert(0, str(ROOT / 'firmware'))
    import book

    bk = book.Book(str(ROOT / 'firmware' / 'bawo_book.bin'))
    mpy = build_mpy(tmp_path / 'mpy')
    assert (mpy / 'bawo_book.bin').exists()
    b = BoardProcess('bawo-4x8', str(tmp_path / 'flash'), heap=SIM_HEAP, speed=None, mpy_dir=mpy)
    try:
        choose_settings(b, 'bawo', 'board-first', None, 5)
        b.menu()
        cells = key_of_cell(b.profile_file, 'bawo')
        st = b.idle()
        deadline = time.monotonic() + 120
        while st['ply'] < 8 and not st.get('result') and time.monotonic() < deadline:
            if st['ply'] % 2 == 1:  # North, the person: the first legal move
                mv = G.move_str(G.legal_moves(G.parse(st['pos']))[0])
                for k in presses_for('bawo', st['pos'], mv, cells):
                    b.tap(k)
            st = b.idle()
        assert st['ply'] >= 8 or st.get('result') == 'S', st
        s = G.start()
        for k, m in enumerate(st['moves']):
            if k % 2 == 0:
                assert bk.lookup(s.key()) == G.parse_move(m), (k, m)
            s = G.play(s, m)
    finally:
        b.quit()
        bk.close()


# Two positions from seeded random games (5 random plies each way) that the solver proves won
# for South, where level 1 with these seeds plays a move that throws the win away.
PROVED_WON = (
    ("1,0,3,0,1,0,1,3/0,1,5,1,1,2,3,4/1,2,8,0,3,6,0,0/1,0,5,5,2,0,4,1 S", 30),
    ("2,1,0,1,4,4,1,3/3,0,3,0,2,2,3,2/0,0,1,0,9,4,0,1/1,3,1,4,4,1,0,4 S", 34),
)


@pytest.mark.parametrize("text,seed", PROVED_WON)
def test_the_pcs_player_plays_the_proved_move(text, seed):
    # Issue 10: `bawo play` plays the solver's move whenever the position is proved.
    from shared_rules.ai import Player
    from bawo.solve import ProvenPlayer

    pos = G.parse(text)
    r = solve(pos, max_nodes=20000)
    assert r.value == WIN and not r.unknown
    weak = Player(G, level=1, seed=seed)
    assert weak.choose(pos) not in r.winning  # the search alone throws it away
    p = ProvenPlayer(Player(G, level=1, seed=seed), seconds=None)  # nodes only: any load
    assert p.choose(pos) in r.winning and p.last_info["proved"]
    # The strategy is kept: every later South move of the won game comes from it.
    pos2 = G.play(pos, p.last_info["move"])
    if G.outcome(pos2) is None:
        after = G.play(pos2, G.legal_moves(pos2)[0])
        if G.outcome(after) is None:
            assert after.key() in p.strategy


def test_bawo_play_level_5_is_the_proved_player_and_plays_the_book_from_the_opening():
    from bawo.solve import host_player, ProvenPlayer, open_book
    from shared_rules import game

    p = host_player(G, 5, 1)
    assert isinstance(p, ProvenPlayer)
    bk = open_book()
    try:
        assert p.choose(G.start()) == bk.lookup(G.start().key())
    finally:
        bk.close()
    assert not isinstance(host_player(G, 4, 1), ProvenPlayer)
    assert not isinstance(host_player(game("oware"), 5, 1), ProvenPlayer)
