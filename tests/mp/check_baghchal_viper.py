# Bagh-Chal's machine-code (viper) move generation, blocked-tigers test, evaluation and table
# hash against the bytecode ones, over random and played positions, and the level-5 search on
# both: same moves, same scores, same nodes. Runs under python3 (the bytecode twice: it still
# pins the checks themselves) and micropython (where shared_rules/baghchal_viper.py is in use).
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import kernelcheck  # noqa: E402 - after mpcheck puts the root on sys.path
from shared_rules import baghchal as C
from shared_rules import evaluate
from shared_rules.ai import Player
from shared_rules.rng import Rng

MICROPYTHON = mpcheck.MICROPYTHON


def games():
    return kernelcheck.games(C.BaghChal)


def copy(pos):
    return C.Position(bytearray(pos.board), pos.hand, pos.captured, pos.turn)


def random_position(r):
    # 4 tigers, the goats on the board, in hand and captured adding to 20; crowded boards
    # (tigers hemmed in, jumps blocked) as often as open ones.
    b = bytearray(25)
    free = list(range(25))
    for _ in range(4):
        b[free.pop(r.below(len(free)))] = C.TIGER
    if r.below(3):
        captured = r.below(6)
        hand = r.below(21 - captured)
    else:  # all but a goat or two on the board: the tigers often blocked
        captured = 0
        hand = r.below(3)
    on_board = 20 - captured - hand
    for _ in range(on_board):
        b[free.pop(r.below(len(free)))] = C.GOAT
    return C.Position(b, hand, captured, r.below(2))


SEEN = {'blocked': 0, 'jumps': 0}


def same_engine(fast, plain, pos):
    a = copy(pos)
    c = copy(pos)
    moves = fast.legal_moves(a)
    assert moves == plain.legal_moves(c), (pos.format(), moves, plain.legal_moves(c))
    assert bool(fast._blocked(a.board)) == C._tigers_blocked(c.board), pos.format()
    if C._tigers_blocked(c.board):
        SEEN['blocked'] += 1
    out = fast.outcome(a)
    want = plain.outcome(c)
    assert (out is None) == (want is None) and (out is None or out.winner == want.winner), (
        pos.format()
    )
    ev = fast.fast_eval or evaluate.bagh_chal
    assert ev(fast, a) == evaluate.bagh_chal(plain, c), pos.format()
    for m in moves:
        got = fast.child(a, m)
        assert got.key() == plain.play(c, m, []).key(), (pos.format(), m)
        if m >= 25 and got.captured != pos.captured:
            SEEN['jumps'] += 1
        t = fast.try_play(a, m)
        u = plain.try_play(c, m)
        assert (t is None) == (u is None) and (t is None or t.key() == u.key()), (pos.format(), m)
    return len(moves)


def test_viper_in_use_on_micropython():
    # Only once asked for (its code takes heap): by a search with a node budget (levels 3-5).
    g = C.BaghChal()
    Player(g, level=2)
    assert g._fast_gen is None and g.fast_eval is None
    Player(g, level=3)
    assert (g._fast_gen is not None) == MICROPYTHON
    fast, plain = games()
    if MICROPYTHON:
        assert fast.fast_eval is not None and fast.table_slot is not None
        print('fast path: viper')
    else:
        assert fast.fast_eval is None and fast.table_slot is None
    assert plain._fast_gen is None and plain.fast_eval is None
    assert plain._blocked is C._tigers_blocked
    assert (Player(fast, level=5)._slot is not None) == MICROPYTHON


def test_random_positions_play_alike():
    r = Rng(12)
    fast, plain = games()
    total = 0
    for _ in range(2000):
        total += same_engine(fast, plain, random_position(r))
    assert total > 15000 and SEEN['blocked'] > 50 and SEEN['jumps'] > 500, (total, SEEN)


def test_played_positions_play_alike():
    fast, plain = games()
    total = 0
    for pos in kernelcheck.played_positions(C.BaghChal(), 300, 3, 80):
        total += same_engine(fast, plain, pos)
    assert total > 3000, total


def test_table_slot_is_key_hashs():
    fast, plain = games()
    if not MICROPYTHON:
        return
    kernelcheck.check_table_slot(fast, plain, random_position)


def test_level_5_searches_alike():
    # The same move, score, depth and node count at every budget, kernel or not.
    fast, plain = games()
    searched = kernelcheck.searched_alike(
        fast, plain, kernelcheck.played_positions(C.BaghChal(), 24, 5, 60), (60, 500, 1500), copy
    )
    assert searched > 10000, searched


if __name__ == '__main__':
    mpcheck.run(globals())
