# Oware's machine-code (viper) sowing, feeding rule, evaluation and capture count against the
# bytecode ones, over random and played positions, and the level-5 search on both: same
# moves, same positions, same scores, same nodes. Runs under python3 (the bytecode twice: it
# still pins the checks themselves) and micropython (where shared_rules/oware_viper.py is in use).
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import kernelcheck  # noqa: E402 - after mpcheck puts the root on sys.path
from shared_rules import oware as O
from shared_rules import evaluate
from shared_rules.ai import Player
from shared_rules.rng import Rng

MICROPYTHON = mpcheck.MICROPYTHON


def games():
    return kernelcheck.games(O.Oware)


def search_functions(g):
    """The evaluation, capture count and capture mask the search uses with game g."""
    one, every = g.fast_noisy or evaluate.NOISY['oware']
    return g.fast_eval or evaluate.oware, one, every


def copy(pos):
    return O.Position(bytearray(pos.pits), bytearray(pos.stores), pos.turn)


def random_position(r):
    # Any spread of the 48 seeds between the pits and the stores, the stores under 25 (the
    # game goes on), sometimes a row empty (the feeding rule), sometimes a pit of 12 or more.
    pits = bytearray(12)
    kind = r.below(4)
    on_board = (48, 20, 8, 48)[kind] - r.below(8)
    for _ in range(on_board):
        if kind == 3:
            k = r.below(3)  # piles up: sowings of a lap or more
        else:
            k = r.below(12)
        pits[k] += 1
    if r.below(5) == 0:
        side = r.below(2) * 6
        moved = 0
        for k in range(side, side + 6):
            moved += pits[k]
            pits[k] = 0
        pits[6 - side + r.below(6)] += moved
    rest = 48 - sum(pits)
    south = r.below(rest + 1)
    if south > 24:
        south = 24
    if rest - south > 24:
        south = rest - 24
    return O.Position(pits, bytearray((south, rest - south)), r.below(2))


def played_positions(count, seed):
    return kernelcheck.played_positions(O.Oware(), count, seed, 120)


SEEN = {'laps': 0, 'captures': 0}


def same_engine(fast, plain, pos):
    a = copy(pos)
    c = copy(pos)
    if fast.outcome(a) is not None:
        return 0
    moves = fast.legal_moves(a)
    assert moves == plain.legal_moves(c), (pos.format(), moves, plain.legal_moves(c))
    for m in moves:
        got = fast.play(a, m)
        want = plain.play(c, m, [])  # with events: the bytecode's own sowing
        assert got.key() == want.key(), (pos.format(), m, got.format(), want.format())
        assert fast.child(a, m).key() == want.key() == plain.child(c, m).key(), (pos.format(), m)
        if pos.pits[pos.turn * 6 + m] >= 12:
            SEEN['laps'] += 1
        if got.stores != pos.stores:
            SEEN['captures'] += 1
        t = fast.try_play(a, m)
        assert t is None or t.key() == want.key(), (pos.format(), m)
        assert (t is None) == (plain.try_play(c, m) is None), (pos.format(), m)
    ev, one, every = search_functions(fast)
    assert search_functions(plain) == (
        evaluate.oware,
        evaluate.oware_capture,
        evaluate.oware_captures,
    )
    mask = 0
    for m in range(6):
        got = one(fast, a, m)
        assert got == evaluate.oware_capture(plain, c, m), (pos.format(), m)
        if got:
            mask |= 1 << m
    assert every(fast, a) == evaluate.oware_captures(plain, c) == mask, pos.format()
    assert ev(fast, a) == evaluate.oware(plain, c), pos.format()
    return len(moves)


def test_viper_in_use_on_micropython():
    # Only once asked for (its code takes heap): by a search with a node budget (levels 3-5),
    # not by the one or two plies of levels 1-2.
    g = O.Oware()
    assert g._fast_sow is None and g.fast_eval is None and g.fast_noisy is None
    Player(g, level=1)
    Player(g, level=2)
    assert g._fast_sow is None and g.fast_eval is None
    Player(g, level=3)
    assert (g._fast_sow is not None) == MICROPYTHON
    fast, plain = games()
    if MICROPYTHON:
        assert (
            fast._fast_legal is not None
            and fast.fast_eval is not None
            and fast.fast_noisy is not None
        )
        print('fast path: viper')
    else:
        assert fast._fast_legal is None and fast.fast_eval is None and fast.fast_noisy is None
    assert plain._fast_sow is None and plain._fast_legal is None and plain.fast_eval is None
    assert (Player(fast, level=5)._slot is not None) == MICROPYTHON
    assert Player(plain, level=5)._slot is None


def test_random_positions_play_alike():
    r = Rng(11)
    fast, plain = games()
    total = 0
    starving = 0
    for _ in range(2500):
        pos = random_position(r)
        n = same_engine(fast, plain, pos)
        total += n
        opp = 6 - pos.turn * 6
        if n and not sum(pos.pits[opp : opp + 6]):
            starving += 1
    # Enough of every case: a row to feed, sowings of a lap or more, captures.
    assert total > 6000 and starving > 100, (total, starving)
    assert SEEN['laps'] > 500 and SEEN['captures'] > 1000, SEEN


def test_played_positions_play_alike():
    fast, plain = games()
    total = 0
    for pos in played_positions(400, 3):
        total += same_engine(fast, plain, pos)
    assert total > 1200, total


def test_table_slot_is_key_hashs():
    # The kernel's slot and check of the search's table, against evaluate.key_hash's long int.
    fast, plain = games()
    if not MICROPYTHON:
        return
    kernelcheck.check_table_slot(fast, plain, random_position)
    assert Player(fast, level=5, tt_bits=16)._slot is None  # 65521 slots: the long int


def test_level_5_searches_alike():
    # The same move, score, depth and node count at every budget, kernel or not.
    fast, plain = games()
    searched = kernelcheck.searched_alike(
        fast, plain, played_positions(30, 5), (60, 1000, 3000), copy
    )
    assert plain._fast_sow is None and plain.fast_eval is None
    assert searched > 20000, searched


if __name__ == '__main__':
    mpcheck.run(globals())
