# The board as South in Bawo from the opening, at level 5, never loses: its own move choice
# (firmware/app.py's opponent with firmware/book.py) is replayed by bawo.proofcheck against
# every North reply at every North turn, to the end of every line. Runs under python3 and
# micropython (the unix port needs -X heapsize=8M for the check's table).
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
sys.path.insert(0, mpcheck.ROOT + '/host')
import os
import time
from shared_rules import game
from bawo.proofcheck import check
import app
import opponent
import book

BOOK = mpcheck.FIRMWARE + '/bawo_book.bin'


def key_of(a, cell):
    """The key over `cell` of App a's game."""
    ck = a.scene.cell_of_key
    return [k for k in range(len(ck)) if ck[k] == cell][0]


def board_south(level=5, header=None):
    g = game('bawo')
    h = {'game': 'bawo', 'level': level}
    if header:
        h.update(header)
    return g, opponent.with_book(opponent.make_opponent(g, level, 1), 'bawo', h, 0)


def test_the_board_as_south_wins_against_every_north_reply():
    g, opp = board_south()
    assert isinstance(opp, book.BookOpponent)
    assert opp.path == BOOK or opp.path.endswith('/firmware/bawo_book.bin'), opp.path
    decisions, positions, longest = check(g, g.start(), opp.choose)
    print(
        'board as South: %d decisions, %d positions, longest line %d plies, AI moves %d'
        % (decisions, positions, longest, opp.ai_moves)
    )
    assert opp.ai_moves == 0 and opp.book_moves == decisions


def test_the_book_is_only_for_level_5_from_the_opening():
    for level, header, side in (
        (4, None, 0),
        (5, {'position': '2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S'}, 0),
        (4, None, 1),
        (5, None, 2),
    ):
        g = game('bawo')
        h = {'game': 'bawo', 'level': level}
        if header:
            h.update(header)
        opp = opponent.with_book(opponent.make_opponent(g, level, 1), 'bawo', h, side)
        assert not isinstance(opp, book.BookOpponent), (level, header, side)


def test_without_the_book_file_the_ai_plays():
    g = game('bawo')
    ai = opponent.make_opponent(g, 1, 1)
    opp = book.BookOpponent(ai, '/nonexistent/bawo_book.bin')
    m = opp.choose(g.start())
    assert m in g.legal_moves(g.start()) and opp.ai_moves == 1 and not opp.in_book


def test_a_damaged_book_is_refused_not_read():
    tmp = '/tmp/bawo-book-%d.bin' % (time.time_ns() % 1000000007)
    with open(BOOK, 'rb') as f:
        data = f.read()
    for bad in (data[:-1], b'XXXX' + data[4:], data[:4] + b'\xff\xff' + data[6:]):
        with open(tmp, 'wb') as f:
            f.write(bad)
        try:
            book.Book(tmp)
        except book.BookError:
            pass
        else:
            raise AssertionError('a damaged book was opened')
    os.remove(tmp)


def test_the_running_app_plays_the_books_first_move():
    import hw_sim
    from journal import Journal

    tmp = mpcheck.tmpdir('book-app')
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock(), bounce_ms=3)
    a = app.App(
        board,
        Journal(tmp, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': 'bawo', 'opponent': 'board-first', 'level': 5},
    )
    a.new_game('bawo', opponent='board-first')
    g = game('bawo')
    b = book.Book(BOOK)
    want = b.lookup(g.start().key())
    b.close()
    a._think()  # the board's opponent is made at its first move
    assert isinstance(a.opponent, book.BookOpponent)
    assert a.session.s.ply == 1 and a.opponent.book_moves == 1 and a.opponent.ai_moves == 0
    assert a.session.s.position == g.play(g.start(), want)
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def _app(opponent, level):
    import hw_sim
    from journal import Journal

    tmp = mpcheck.tmpdir('book-app')
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock(), bounce_ms=3)
    a = app.App(
        board,
        Journal(tmp, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': 'bawo', 'opponent': opponent, 'level': level},
    )
    a.new_game('bawo', opponent=opponent)
    return a, tmp


def test_the_menus_perfect_pocket_is_level_5_in_bawo_alone():
    # The level bar's fifth pocket is the "perfect" choice in Bawo (the book above), and
    # looks it: gold, where the other levels and the other games' fifth level are pink.
    import menu

    a, tmp = _app('board-second', 5)
    p = a.board.profile
    row, col = menu.level_at(p.grid_rows, p.grid_cols)
    key = {tuple(p.positions[k]): k for k in range(p.n_keys)}
    for name, fifth in (('bawo', menu.PERFECT_COLOR), ('oware', menu.LEVEL_COLOR)):
        a.settings['game'] = name
        a.open_menu()
        a.draw()
        assert a.view._bg[key[(row, col + 4)]] == fifth, name
        assert a.view._bg[key[(row, col + 3)]] == menu.LEVEL_COLOR, name
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def test_a_hint_lights_the_books_move_and_the_record_says_so():
    a, tmp = _app('board-second', 1)  # the person plays South, the board North
    g = game('bawo')
    k = a.keys
    k.is_pressed = lambda key: key == k.back  # BACK held down ...
    a.on_press(k.menu)  # ... and MENU pressed: a hint
    b = book.Book(BOOK)
    want = b.lookup(g.start().key())
    b.close()
    sc = a.scene
    assert a.mode == app.PLAY and a.session.hints == 1 and sc.hint_move == want
    assert sc.sel == a.session.g.move_cell(want, 0)
    # Of the start's targets only the hinted move's is lit (blinking: look while it is on),
    # as the frame the person sees has it (the view keeps each key's tint).
    sc.blink = 1
    a.draw()
    lit = [t for t, m in sc.starts[sc.sel] if a.view._bg[key_of(a, t)] == app.V.BG_TARGET]
    assert lit == [t for t, m in sc.starts[sc.sel] if m == want] and len(lit) == 1, lit
    a.on_press(key_of(a, lit[0]))  # the person plays it
    a.skip()
    assert a.session.s.ply == 1 and a.session.s.position == g.play(g.start(), want)
    a._finish()
    text = a.journal.read_record(a.session.header['id'])
    text = text.decode() if isinstance(text, bytes) else text
    assert '[First "person (1 hints)"]' in text, text
    assert '[Second "board (level 1)"]' in text, text  # the board's AI and its level
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def test_a_hint_survives_a_power_cut():
    # The hint is journaled at once: the board cut off before the next move and booted again
    # resumes the game with it, and the record still says the person had help.
    import hw_sim
    from journal import Journal

    a, tmp = _app('board-second', 1)
    k = a.keys
    k.is_pressed = lambda key: key == k.back
    a.on_press(k.menu)
    a.on_press(k.menu)
    assert a.session.hints == 2 and a.session.s.ply == 0
    gid = a.session.header['id']
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock(), bounce_ms=3)
    b = app.App(
        board,
        Journal(tmp, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': 'bawo', 'opponent': 'board-second', 'level': 1},
    )
    b.boot()
    assert b.mode == app.PLAY and b.session.header['id'] == gid and b.session.hints == 2, (
        b.mode,
        b.session.hints,
    )
    b.play(b.session.g.legal_moves(b.session.s.position)[0])
    b.skip()
    assert b.session.s.ply == 1
    b._finish()
    text = b.journal.read_record(gid)
    text = text.decode() if isinstance(text, bytes) else text
    assert '[First "person (2 hints)"]' in text, text
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def test_a_hint_in_oware_is_played_by_pressing_its_pit():
    a, tmp = _app('board-second', 1)
    a.new_game('oware', opponent='board-second')
    k = a.keys
    k.is_pressed = lambda key: key == k.back
    a.on_press(k.menu)
    m = a.scene.hint_move
    assert a.session.hints == 1 and m >= 0 and a.scene.sel == a.session.g.move_cell(m, 0)
    before = a.session.s.position
    a.on_press(key_of(a, a.scene.sel))  # the hinted pit: one press plays it
    a.skip()
    assert a.session.s.ply == 1 and a.session.s.position == a.session.g.play(before, m)
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def test_the_board_as_north_follows_the_book_while_south_does():
    from shared_rules import State

    g = game('bawo')
    south = book.Book(BOOK)
    north = opponent.with_book(
        opponent.make_opponent(g, 5, 1), 'bawo', {'game': 'bawo', 'level': 5}, 1
    )
    assert isinstance(north, book.BookOpponent) and north.side == 1
    s = State(g)
    while s.outcome() is None:
        if s.turn == 0:
            s.push(g.move_str(south.lookup(s.position.key())))
        else:
            s.push(g.move_str(north.choose(s)))
    south.close()
    assert s.outcome().winner == 0 and north.ai_moves == 0 and north.book_moves == s.ply // 2
    # South leaves the book's line: the board leaves the book for good and searches.
    north = opponent.with_book(
        opponent.make_opponent(g, 1, 1), 'bawo', {'game': 'bawo', 'level': 5}, 1
    )
    s = State(g)
    b = book.Book(BOOK)
    off = [m for m in g.legal_moves(s.position) if m != b.lookup(s.position.key())][0]
    b.close()
    s.push(g.move_str(off))
    m = north.choose(s)
    assert m in g.legal_moves(s.position) and north.ai_moves == 1 and not north.in_book


if __name__ == '__main__':
    mpcheck.run(globals())
