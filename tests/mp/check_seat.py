# A club tournament's seat on the board (docs/protocol.md "SEAT", docs/visual-language.md
# "The seat card"): the real app, handler, link and journal of the simulated board, its clock
# in the test's hands, under python3 and the MicroPython unix port.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import protocol as P
import view as V
import seat
from appconst import MENU, PLAY
from real_board import RealBoard, tmpdir, rmtree
from shared_rules.record import Record

BAD = P.E_BAD_PAYLOAD
SEAT = {'round': 3, 'table': 2, 'tour': 7, 'kind': 'oware'}


def _board(tag, **kw):
    root = tmpdir(tag)
    rmtree(root)
    os.mkdir(root)
    kw.setdefault('settings', {'speed': 8, 'game': 'bawo', 'opponent': 'host-first'})
    return RealBoard(root, **kw)


def _key(b, r, c):
    return [tuple(p) for p in b.app.profile.positions].index((r, c))


def _tap(b, key):
    b.board.press(key)
    for _ in range(5):
        b.step(20)
    b.board.release(key)
    for _ in range(5):
        b.step(20)


def _card_shown(b):
    v = b.app.view
    r, t = _key(b, 0, 0), _key(b, 1, 0)
    return (v._val[r], v._bg[r], v._val[t], v._bg[t])


def _play_out(b):
    # Every ply the first legal move, to the game's end.
    while True:
        pos = b.ok(P.POSITION)
        if pos['result'] is not None:
            return pos
        b.ok(P.MOVE, {'move': pos['legal'][0]})


def _tags(b, gid):
    text = b.sync_all()[gid].decode()
    return Record.from_text(text).header


def test_seat_payloads_are_checked_before_anything_changes():
    b = _board('seatbad')
    before = dict(b.app.settings)
    for p in (
        {},
        {'round': 100},
        {'round': -1},
        {'round': '3'},
        {'round': True},
        {'round': 3, 'table': 0},
        {'round': 3, 'table': 100},
        {'round': 3, 'tour': 0},
        {'round': 3, 'tour': 70000},
        {'round': 3, 'kind': ''},
        {'round': 3, 'kind': 'x' * 17},
        {'round': 3, 'kind': 'chess'},
        {'round': 3, 'kind': 'ow\nare'},
    ):
        assert b.code(P.SEAT, p) == BAD, p
        assert b.app.seat is None and not b.app.card, p
        assert b.app.settings == before, p
        assert 'seat' not in b.app.snapshot(), p
    rmtree(b.root)


def test_the_seat_card_shows_round_table_and_game_in_the_idle_menu():
    b = _board('seatcard')
    a = b.app
    assert a.mode == MENU and a.session is None
    assert b.ok(P.SEAT, SEAT) == {}
    b.step(20)
    snap = a.snapshot()
    assert snap['seat'] == [3, 2, 7, 'oware'] and snap['card'] is True
    # The round as 3 dots on a white tint, the table as 2 on a cyan one.
    assert _card_shown(b) == (3, seat.BG_ROUND, 2, seat.BG_TABLE)
    # The game's colour, full, on the top-right pocket; every other pocket dark.
    top_right = _key(b, 0, a.profile.grid_cols - 1)
    assert a.view._val[top_right] < 0
    for k in range(a.profile.n_keys):
        if k not in (_key(b, 0, 0), _key(b, 1, 0), top_right):
            assert a.view._val[k] == 0 and a.view._bg[k] == V.BG_OFF, k
    # The round's game between two people is the menu's choice now (not yet saved).
    assert a.settings['game'] == 'oware' and a.settings['opponent'] == 'people'
    # Round 0 takes the seat away: the menu again.
    assert b.ok(P.SEAT, {'round': 0}) == {}
    b.step(20)
    assert a.seat is None and not a.card and 'seat' not in a.snapshot()
    assert a.view._val[_key(b, 0, 0)] != 3
    rmtree(b.root)


def test_menu_on_the_card_starts_the_rounds_game_and_its_record_names_the_seat():
    b = _board('seatgame')
    a = b.app
    b.ok(P.SEAT, SEAT)
    b.step(20)
    _tap(b, a.keys.menu)
    assert a.mode == PLAY and not a.card
    se = a.session
    assert se.g.name == 'oware' and se.header['opponent'] == 'people'
    assert se.header['seat'] == [3, 2, 7]
    gid = se.header['id']
    end = _play_out(b)
    assert end['mode'] == 'over'
    tags = _tags(b, gid)
    assert (tags['Round'], tags['Table'], tags['Tournament']) == ('3', '2', '7'), tags
    # MENU at the end: the card again (the board is idle), for the next round's SEAT.
    _tap(b, a.keys.menu)
    assert a.mode == MENU and a.card
    b.ok(P.SEAT, {'round': 4, 'table': 1, 'tour': 7, 'kind': 'oware'})
    b.step(20)
    assert _card_shown(b) == (4, seat.BG_ROUND, 1, seat.BG_TABLE)
    rmtree(b.root)


def test_a_press_on_the_card_shows_the_menu_and_the_card_comes_back_when_left_alone():
    b = _board('seatpress')
    a = b.app
    b.ok(P.SEAT, SEAT)
    b.step(20)
    settings = dict(a.settings)
    _tap(b, _key(b, 0, 1))  # a pocket: the menu shows, nothing chosen
    assert a.mode == MENU and not a.card and a.settings == settings
    assert a.view._val[_key(b, 0, 0)] != 3 or a.view._bg[_key(b, 0, 0)] != seat.BG_ROUND
    _tap(b, _key(b, 0, 0))  # now the menu takes it: Bawo
    assert a.settings['game'] == 'bawo' and not a.card
    for _ in range(seat.CARD_MS // 500 - 2):
        b.step(500)
    assert not a.card
    for _ in range(4):
        b.step(500)
    assert a.card and _card_shown(b) == (3, seat.BG_ROUND, 2, seat.BG_TABLE)
    # MENU on the card starts the round's game, whatever the menu was left on.
    _tap(b, a.keys.menu)
    assert a.mode == PLAY and a.session.g.name == 'oware'
    assert a.session.header['seat'] == [3, 2, 7] and a.session.header['opponent'] == 'people'
    # A game of another kind, or against the board, is not the round's game.
    _tap(b, a.keys.menu)  # the menu over the game in progress: no card
    assert not a.card
    _tap(b, _key(b, 0, 0))  # Bawo
    _tap(b, a.keys.menu)
    assert a.mode == PLAY and a.session.g.name == 'bawo'
    assert a.session.header.get('seat') is None
    rmtree(b.root)


def test_a_seat_during_a_game_leaves_the_game_alone():
    b = _board('seatplay', settings={'speed': 8, 'game': 'oware', 'opponent': 'people'})
    a = b.app
    gid = b.ok(P.NEW, {'kind': 'oware', 'opponent': 'people'})['id']
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    b.ok(P.SEAT, SEAT)
    b.step(20)
    assert a.mode == PLAY and not a.card and a.session.header['id'] == gid
    _tap(b, a.keys.menu)  # the menu over a game in progress: no card, BACK returns to it
    assert a.mode == MENU and not a.card
    _tap(b, a.keys.back)
    assert a.mode == PLAY and a.session.s.ply == 1
    assert a.session.header.get('seat') is None  # started before the seat
    rmtree(b.root)


def test_a_seated_game_keeps_its_seat_through_a_power_cut():
    b = _board('seatcut')
    b.ok(P.SEAT, SEAT)
    b.step(20)
    _tap(b, b.app.keys.menu)
    gid = b.app.session.header['id']
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    b2 = RealBoard(b.root, settings={'speed': 8})  # power cut, power on: no seat in RAM
    assert b2.app.seat is None and b2.app.session.header['seat'] == [3, 2, 7]
    _play_out(b2)
    tags = _tags(b2, gid)
    assert (tags['Round'], tags['Table'], tags['Tournament']) == ('3', '2', '7'), tags
    rmtree(b.root)


if __name__ == '__main__':
    mpcheck.run(globals())
