# MENU and BACK answer while the board thinks: the search polls the keys and stops.
# Runs the real app, journal and AI on the simulated board, under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import time
import hw_sim
import app
from journal import Journal

SETUP = '2,2,2,2,2,2,2,2/2,0,8,2,2,2,0,4/0,1,0,4,4,0,1,0/3,3,3,3,3,0,0,3 S'
TMP = '/tmp/bawo-think-abort-%d' % (time.time_ns() % 1000000007)


def _app(level=5):
    mpcheck.empty_dir(TMP)
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock(), bounce_ms=3)
    # A Pico's clock runs while it searches: each look at it here costs 1 ms.
    clock = board.clock

    def ticks():
        clock.advance(1)
        return clock.now

    board.ticks_ms = ticks
    a = app.App(
        board,
        Journal(TMP, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': 'bawo', 'opponent': 'board-first', 'level': level},
    )
    # A set-up position: from the opening, level 5 as South plays the book without a search.
    a.new_game('bawo', opponent='board-first', position=SETUP)
    return a, board


def _think_with(button):
    a, board = _app()
    board.press(getattr(a.keys, button))  # held down from the start of the search
    a._think()
    return a, board


def test_menu_during_the_search_opens_the_menu():
    a, board = _think_with('menu')
    assert a.thinks == 0, 'the search was not stopped'
    assert a.session.s.ply == 0, 'no move may be played'
    assert a.mode == app.MENU
    assert a.opponent.last_info.get('aborted')


def test_back_during_the_search_just_waits():
    a, board = _think_with('back')
    assert a.thinks == 0 and a.session.s.ply == 0
    assert a.mode == app.PLAY


def test_without_a_press_the_board_moves():
    a, board = _app()
    a._think()
    assert a.thinks == 1 and a.session.s.ply == 1
    assert not a.opponent.last_info.get('aborted')


def test_no_room_to_search_plays_a_random_legal_move():
    # A sync's request can leave the search no room: the game goes on with a random legal
    # move (opponent.RandomOpponent), and the board never dies.
    a, board = _app(level=1)
    a._think()  # the board's side made, and its move as South
    a.play(a.session.s.legal_moves[0])  # North's
    legal = [a.session.s.move_str(m) for m in a.session.s.legal_moves]

    def no_room(state):
        raise MemoryError('memory allocation failed')

    a.opponent.choose = no_room
    a._think()
    assert a.session.s.ply == 3 and a.session.s.moves[-1] in legal, (a.session.s.moves, legal)
    assert a.message == 'no memory to think: a random move', a.message


if __name__ == '__main__':
    mpcheck.run(globals())
