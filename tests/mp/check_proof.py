# The opening is a first-player win: the committed book (firmware/bawo_book.bin, South's move
# in every position of a proved strategy) is replayed against every North reply through
# shared_rules, and every line ends in a South win. Runs under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
sys.path.insert(0, mpcheck.ROOT + '/host')
from shared_rules import game
from bawo.proofcheck import check, ProofError
import book

BOOK = mpcheck.FIRMWARE + '/bawo_book.bin'


def test_book_wins_the_opening_against_every_reply():
    g = game('bawo')
    b = book.Book(BOOK)
    try:
        decisions, positions, longest = check(g, g.start(), lambda p: b.lookup(p.key()))
    finally:
        b.close()
    print(
        'book: %d South decisions, %d positions, longest line %d plies'
        % (decisions, positions, longest)
    )
    assert decisions == 1375 and b.count > decisions, (decisions, b.count)
    assert longest <= 57


def test_a_wrong_move_in_the_book_is_caught():
    # The same strategy with one South decision changed to another legal move: the check
    # must find the line it loses (or the position it has no move for).
    g = game('bawo')
    b = book.Book(BOOK)
    start = g.start()
    pos = g.play(
        g.play(start, b.lookup(start.key())),
        0
        if 0 in g.legal_moves(g.play(start, b.lookup(start.key())))
        else g.legal_moves(g.play(start, b.lookup(start.key())))[0],
    )
    good = b.lookup(pos.key())
    bad = [m for m in g.legal_moves(pos) if m != good]
    caught = 0
    for m in bad:

        def choose(p, m=m):
            if p.key() == pos.key():
                return m
            return b.lookup(p.key())

        try:
            check(g, start, choose)
        except ProofError:
            caught += 1
    b.close()
    assert caught > 0, 'no changed move was caught'


def test_a_missing_position_is_caught():
    g = game('bawo')
    b = book.Book(BOOK)
    start = g.start()
    try:
        check(
            g,
            start,
            lambda p: None if p.turn == 0 and p.key() != start.key() else b.lookup(p.key()),
        )
    except ProofError as e:
        assert 'no move' in str(e), str(e)
    else:
        raise AssertionError('a strategy with only its first move passed')
    finally:
        b.close()


if __name__ == '__main__':
    mpcheck.run(globals())
