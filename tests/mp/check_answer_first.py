# A press is answered by a frame before the slow flash work it causes, except the move's
# journal line, which comes first (a move is journaled before it is animated). Runs the
# real app, journal and key scan on the simulated board, under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import time
import hw_sim
import app
from journal import Journal

TMP = '/tmp/bawo-answer-first-%d' % (time.time_ns() % 1000000007)


def _app(settings):
    mpcheck.empty_dir(TMP)
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock(), bounce_ms=0)
    a = app.App(
        board, Journal(TMP, 'test', min_free=0, log=lambda m: None), 'test', settings=settings
    )
    log = []
    px = board.pixels
    send = px._transmit
    px._transmit = lambda buf: (log.append('frame'), send(buf))
    j = a.journal
    rewrite = j._rewrite
    append = j.append
    j._rewrite = lambda name, data: (log.append('write ' + name), rewrite(name, data))
    j.append = lambda ply, move: (log.append('journal'), append(ply, move))
    return a, board, log


def _steps(a, board, n):
    for _ in range(n):
        board.clock.advance(1)
        a.step(board.clock.now)


def _key(a, row, col):
    pos = a.profile.positions
    for k in range(a.profile.n_keys):
        if tuple(pos[k]) == (row, col):
            return k
    raise AssertionError('no key at %d,%d' % (row, col))


def test_menu_press_frame_comes_before_the_settings_write():
    a, board, log = _app({'game': 'bawo', 'opponent': 'people', 'brightness': 2, 'speed': 8})
    a.boot()
    assert a.mode == app.MENU
    _steps(a, board, 5)
    del log[:]
    board.press(_key(a, 2, 5))  # brightness row, 6th level
    _steps(a, board, 2)  # the second closed scan reports the press
    assert a.settings['brightness'] == 6
    assert log == ['frame', 'write settings'], log
    with open(a.journal.path('settings'), 'rb') as f:
        assert len(f.read()) > 0


def test_menu_starting_a_game_shows_its_start_before_the_journal_writes():
    # MENU in the menu starts a game. It is answered at once, before the game's engine loads
    # (the menu dark but for the chosen game's pocket); then the start position goes out
    # before the counter and cur.jnl are written (each may be a 45 ms erase on the Pico's chip).
    a, board, log = _app({'game': 'oware', 'opponent': 'people', 'brightness': 2, 'speed': 8})
    a.boot()
    _steps(a, board, 5)
    del log[:]
    seen = []
    px = board.pixels
    send = px._transmit
    px._transmit = lambda buf: (
        seen.append((a.mode, a.session is not None and a.session.s.ply, bytes(buf))),
        send(buf),
    )
    board.press(a.keys.menu)
    _steps(a, board, 2)
    assert a.mode == app.PLAY and a.session.header['id']
    assert log[:5] == ['frame', 'frame', 'write counter', 'write counter.2', 'write cur.jnl'], log
    assert seen[0][:2] == (app.MENU, False), seen[0][:2]  # the answer: no game loaded yet
    wire = seen[0][2]
    lit = [
        k
        for k in range(a.profile.n_keys)
        if any(wire[3 * i] or wire[3 * i + 1] or wire[3 * i + 2] for i in a.view.blocks[k])
    ]
    assert lit == [a.profile.key_at(0, a.games.index('oware'))], lit  # the chosen game's
    assert seen[1][:2] == (app.PLAY, 0), seen[1][:2]  # then its start, before the flash writes
    assert 'cur.jnl' in os.listdir(TMP)


def test_the_board_clock_runs_on_across_the_ticks_wrap():
    # TIME sets the clock once; a record's start 20 days later must be 20 days later, though
    # the ticks wrapped (every 2**30 ms, 12.4 days, on a Pico): it was read off the raw ticks
    # and jumped back 12 days.
    a, board, log = _app({'game': 'oware', 'opponent': 'people', 'speed': 8})
    a.boot()
    t0 = 1767225600  # 2026-01-01 00:00:00 UTC
    a.set_time(t0)
    assert a.start_time() == '2026-01-01 00:00:00'
    for _ in range(20 * 24):  # 20 days, a loop pass every hour
        board.clock.advance(3600 * 1000)
        a.step(board.clock.now)
    assert a.start_time() == '2026-01-21 00:00:00', a.start_time()


def _oware_pit():
    """A new Oware game, settled, the log emptied; and the key of a pit the mover can sow."""
    a, board, log = _app({'game': 'oware', 'opponent': 'people', 'speed': 4})
    a.new_game('oware')
    _steps(a, board, 5)
    del log[:]
    key = 0
    while a.scene.cell_of_key[key] not in a.direct:
        key += 1
    return a, board, log, key


def test_move_press_is_answered_with_its_pocket_lit_before_the_journal():
    # The answer to a press comes before the flash write (an erase is 45 ms on the Pico's
    # chip): first a frame with the pressed pocket lit and the board as it was, then the
    # journal line, then the move's frame (a move is journaled before it is animated).
    import view as V

    a, board, log, key = _oware_pit()
    seen = []  # at each frame: the pressed pocket's background, the ply played
    px = board.pixels
    send = px._transmit
    px._transmit = lambda buf: (seen.append((a.view._bg[key], a.session.s.ply)), send(buf))
    board.press(key)
    _steps(a, board, 2)
    assert a.session.s.ply == 1
    assert log == ['frame', 'journal', 'frame'], log
    assert seen[0] == (V.BG_SELECT, 0) and seen[-1][1] == 1, seen


def test_move_press_journals_then_shows_in_the_same_pass():
    a, board, log, key = _oware_pit()
    board.press(key)
    _steps(a, board, 1)
    assert log == [] and a.session.s.ply == 0  # one closed reading is not a press yet
    _steps(a, board, 1)
    assert a.session.s.ply == 1
    assert log[-2:] == ['journal', 'frame'], log


if __name__ == '__main__':
    mpcheck.run(globals())
