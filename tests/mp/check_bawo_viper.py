# Bawo's machine-code (viper) legal-move generation and evaluation against the bytecode ones,
# over random and played positions, and the level-5 search on both: same moves, same boards,
# same scores, same nodes. Runs under python3 (bytecode only: the play-with-events check still
# pins the generation's boards) and micropython (where shared_rules/bawo_viper.py is in use).
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import kernelcheck  # noqa: E402 - after mpcheck puts the root on sys.path
from shared_rules import bawo as B
from shared_rules import evaluate
from shared_rules.ai import Player
from shared_rules.rng import Rng

MICROPYTHON = mpcheck.MICROPYTHON


def games(max_laps=1000):
    return kernelcheck.games(B.Bawo, max_laps)


def random_position(r):
    b = bytearray(32)
    kind = r.below(4)
    total = (16, 64, 64, 255)[kind]
    # Few seeds (empty pockets, short sowings), the game's 64, or up to 255 (laps of 16+).
    for _ in range(r.below(total + 1)):
        b[r.below(32)] += 1
    return B.Position(b, r.below(2))


def played_positions(count, seed):
    return kernelcheck.played_positions(B.Bawo(), count, seed, 60)


def same_generation(fast, plain, pos):
    a = B.Position(bytearray(pos.board), pos.turn)
    c = B.Position(bytearray(pos.board), pos.turn)
    moves = fast.legal_moves(a)
    assert moves == plain.legal_moves(c), (pos.format(), moves, plain.legal_moves(c))
    for m in moves:
        # play() hands out the generation's board; play with events sows again, in bytecode.
        got = fast.play(a, m)
        ev = []
        want = plain.play(c, m, ev)
        assert got.board == want.board, (pos.format(), m)
    assert evaluate.bawo(fast, a) == evaluate.bawo(plain, c), pos.format()
    for ply in (0, 7):
        assert evaluate.bawo_leaf(fast, a, ply) == evaluate.bawo_leaf(plain, c, ply), pos.format()
    assert fast.capturing(a) == plain.capturing(c)
    return len(moves)


def test_viper_in_use_on_micropython():
    # Only once asked for (its code takes heap): by the search, for one.
    g = B.Bawo()
    assert g._fast is None and g.value is None
    Player(g, level=5)
    assert (g._fast is not None) == MICROPYTHON
    fast, plain = games()
    if MICROPYTHON:
        assert fast._fast is not None and fast._fast_sow is not None and fast.value is not None
        print('fast path: viper')
    else:
        assert fast._fast is None and fast._fast_sow is None and fast.value is None
    assert plain._fast is None and plain._fast_sow is None and plain.value is None


def test_random_positions_generate_alike():
    r = Rng(10)
    fast, plain = games()
    # A small lap cap makes many sowings endless: the kernel must refuse the same ones.
    fast5, plain5 = games(5)
    total = 0
    endless = 0
    for _ in range(1500):
        pos = random_position(r)
        total += same_generation(fast, plain, pos)
        n = same_generation(fast5, plain5, pos)
        endless += len(fast.legal_moves(B.Position(bytearray(pos.board), pos.turn))) - n
    assert total > 5000 and endless > 50, (total, endless)


def test_played_positions_generate_alike():
    fast, plain = games()
    total = 0
    for pos in played_positions(300, 3):
        total += same_generation(fast, plain, pos)
    assert total > 1500, total


def test_table_slot_is_key_hashs():
    # The kernel's slot and check of the search's table, against evaluate.key_hash's long int.
    from shared_rules import ai

    fast, plain = games()
    for size in (509, 1021, 16381):
        assert ai._inverse(size, 65521) * size % 65521 == 1
    if not MICROPYTHON:
        return
    kernelcheck.check_table_slot(fast, plain, random_position)
    assert Player(fast, level=5)._slot is not None
    assert Player(fast, level=5, tt_bits=16)._slot is None  # 65521 slots: the long int


def test_level_5_searches_alike():
    # The board's path (viper where there is one, leaf children scored on the generation's
    # boards) against the bytecode engine with every child made as a Position and searched
    # by a call, as before: the same move, score, depth and node count at every budget.
    fast, plain = games()
    searched = 0
    for pos in played_positions(40, 5):
        if fast.outcome(pos) is not None:
            continue
        for budget in (60, 500, 2000):
            infos = []
            for g, boards in ((fast, True), (plain, True), (plain, False)):
                p = Player(g, level=5, seed=1, node_budget=budget, time_ms=10**6)
                if not boards:
                    p._boards = None
                m = p.choose(B.Position(bytearray(pos.board), pos.turn))
                i = p.last_info
                infos.append((m, i['nodes'], i['score'], i['depth']))
            assert infos[0] == infos[1] == infos[2], (pos.format(), budget, infos)
            assert plain._fast is None and plain.value is None
            searched += infos[0][1]
    assert searched > 10000, searched


if __name__ == '__main__':
    mpcheck.run(globals())
