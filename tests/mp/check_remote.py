# A remote game on the board (docs/protocol.md "Remote games"): PEER, END and the person's
# offers (MENU or BACK held), on the real app, handler, link and journal of the simulated
# board with its clock under the test's control, under python3 and the MicroPython unix port.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import protocol as P
import view as V
import remote
from appconst import PEER_TIMEOUT_MS, HOLD_MS, MENU, PLAY, OVER
from real_board import RealBoard, tmpdir, rmtree

BAD = P.E_BAD_PAYLOAD


def _board(tag, **kw):
    root = tmpdir(tag)
    rmtree(root)
    os.mkdir(root)
    return RealBoard(root, **kw)


def _host_game(b, kind='bawo', opponent='host-second', plies=1):
    """A host game (the host plays North) with `plies` moves played; its id."""
    gid = b.ok(P.NEW, {'kind': kind, 'opponent': opponent})['id']
    for _ in range(plies):
        b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    b.step(3000)
    b.replies()
    return gid


def _run(b, ms, step=50):
    for _ in range(ms // step):
        b.step(step)


def _keys_of_side(b, side):
    a = b.app
    g = a.session.g
    ck = a.scene.cell_of_key
    return [k for k in range(len(ck)) if ck[k] < g.cells and g.owner(ck[k]) == side]


def _bg(b, key):
    # The tint the view drew the block with (view.py keeps each block's last look).
    return b.app.view._bg[key]


def _last_led(b, key):
    blk = b.app.profile.blocks[key]
    return b.board.pixels.wire_rgb(blk[len(blk) - 1])


def _state(b):
    p = b.app.session.peer
    return None if p is None else (p.here, p.offer, p.bar, p.low, p.peered)


# -- PEER -------------------------------------------------------------------------------


def test_peer_payloads_are_checked_before_anything_changes():
    b = _board('peerbad')
    _host_game(b)
    before = _state(b)
    for p in (
        {'here': 2},
        {'here': -1},
        {'here': '1'},
        {'here': True},
        {'offer': 3},
        {'bar': 9},
        {'bar': -1},
        {'bar': 4.0},
        {'low': [1]},
        {'here': 1, 'bar': 99},
    ):
        r = b.request(P.PEER, p)
        assert r.type == P.ERROR and r.payload['code'] == BAD, (p, r)
        assert 'bad payload' in r.payload['text'], r.payload
        assert _state(b) == before, (p, _state(b))
    assert b.ok(P.PEER, {'here': 1, 'offer': 1, 'bar': 5, 'low': 1}) == {}
    assert _state(b) == (1, 1, 5, 1, True)
    assert b.ok(P.PEER, {}) == {}  # absent: here as before, no offer, no clock
    assert _state(b) == (1, 0, -1, 0, True)
    rmtree(b.root)


def test_peer_without_a_host_game_is_accepted_and_ignored():
    b = _board('peernone', settings={'speed': 8, 'opponent': 'people'})
    assert b.ok(P.PEER, {'here': 0}) == {}  # the menu
    b.ok(P.NEW, {'kind': 'bawo', 'opponent': 'people'})
    assert b.ok(P.PEER, {'here': 0, 'offer': 1}) == {}
    assert b.app.session.peer is None
    b.step(500)
    assert not b.app.scene.away and b.app.scene.host == -1
    rmtree(b.root)


def _pink(c):
    return c[0] > 0 and c[2] > 0 and c[0] > c[1] and c[2] > c[1]


def _phases(b, key, n=6):
    """The last LED of `key` over n quarter-second steps (both blink phases)."""
    seen = []
    for _ in range(n):
        b.step(250)
        seen.append(_last_led(b, key))
    return seen


def test_away_after_here_0_and_after_silence_blinks_pink():
    b = _board('away')
    _host_game(b)
    a = b.app
    north = _keys_of_side(b, 1)
    south = _keys_of_side(b, 0)
    b.ok(P.PEER, {'here': 1})
    b.step(10)
    assert not a.scene.away and not any(_pink(c) for c in _phases(b, north[0]))
    b.ok(P.PEER, {'here': 0})
    b.step(10)
    assert a.scene.away
    seen = _phases(b, north[0])
    assert any(_pink(c) for c in seen) and not all(_pink(c) for c in seen), seen  # blinking
    assert not any(_pink(c) for c in _phases(b, south[0]))
    b.ok(P.PEER, {'here': 1})
    b.step(10)
    assert not a.scene.away and not any(_pink(c) for c in _phases(b, north[5]))
    # No PEER for PEER_TIMEOUT_MS: away; the next PEER brings it back.
    b.ok(P.PEER, {'here': 1})
    _run(b, PEER_TIMEOUT_MS - 1000)
    assert not a.scene.away
    _run(b, 1500)
    assert a.scene.away and any(_pink(c) for c in _phases(b, north[3]))
    b.ok(P.PEER, {'here': 1})
    b.step(10)
    assert not a.scene.away
    rmtree(b.root)


def test_a_host_game_without_peer_is_never_away():
    # `bawo play --board`: no PEER ever, the board shows nothing new.
    b = _board('nopeer')
    _host_game(b)
    _run(b, 3 * PEER_TIMEOUT_MS, 500)
    assert not b.app.scene.away and b.app.scene.host == -1 and b.app.session.peer is None
    rmtree(b.root)


def test_a_resumed_host_game_is_away_until_a_host_speaks():
    b = _board('resaway')
    gid = _host_game(b, plies=2)
    b2 = RealBoard(b.root)  # power cut, power on: the game resumed
    assert b2.state() == (gid, 2, PLAY)
    _run(b2, 1000)
    assert b2.app.scene.away
    b2.ok(P.POSITION)  # a host speaks (any frame)
    _run(b2, 1000)
    assert not b2.app.scene.away
    rmtree(b.root)


# -- END --------------------------------------------------------------------------------


def _record(b, gid):
    from shared_rules.record import Record

    text = b.journal.read_record(gid)
    if isinstance(text, bytes):
        text = text.decode()
    if '#crc' in text:
        text = text[: text.rindex('#crc')]
    return Record.from_text(text)


def test_end_with_each_reason_ends_the_game_and_writes_its_record():
    for kind, opp, res, why in (
        ('bawo', 'host-second', 'S', 'resign'),
        ('bawo', 'host-first', 'N', 'time'),
        ('bawo', 'host-second', 'draw', 'agreement'),
        ('oware', 'host-first', 'S', 'time'),
        ('oware', 'host-second', 'N', 'resign'),
    ):
        b = _board('end')
        gid = _host_game(b, kind, opp, plies=3)
        r = b.ok(P.END, {'result': res, 'reason': why})
        assert r['mode'] == 'over' and r['result'] == {'result': res, 'reason': why}, r
        assert r['id'] == gid and r['ply'] == 3
        b.step(10)
        b.replies()
        ends = [e for e in b.events if e['ev'] == 'end']
        assert ends == [{'ev': 'end', 'id': gid, 'result': res, 'reason': why}], b.events
        assert b.app.mode == OVER and b.records == [gid]
        rec = _record(b, gid)
        assert (rec.header['Result'], rec.header['Reason']) == (res, why), rec.header
        assert rec.replay().ply == 3
        listed = [g for g in b.ok(P.LIST)['games'] if g['id'] == gid]
        assert (listed[0]['result'], listed[0]['reason']) == (res, why), listed
        # Over: a second END (a retry after a lost reply) and a MOVE are no game's.
        assert b.code(P.END, {'result': res, 'reason': why}) == P.E_NO_GAME
        assert b.code(P.MOVE, {'move': 'A'}) == P.E_NO_GAME
        assert b.ok(P.PEER, {'here': 0}) == {}
        assert b.ok(P.POSITION)['result'] == {'result': res, 'reason': why}
        rmtree(b.root)


def test_end_refused_changes_nothing():
    b = _board('endbad', settings={'speed': 8, 'opponent': 'people'})
    assert b.code(P.END, {'result': 'S', 'reason': 'resign'}) == P.E_NO_GAME  # the menu
    b.ok(P.NEW, {'kind': 'bawo', 'opponent': 'people'})
    assert b.code(P.END, {'result': 'S', 'reason': 'resign'}) == P.E_NO_GAME  # no host side
    gid = _host_game(b, plies=2)
    for p in (
        {'result': 'draw', 'reason': 'resign'},
        {'result': 'draw', 'reason': 'time'},
        {'result': 'S', 'reason': 'agreement'},
        {'result': 'G', 'reason': 'resign'},
        {'result': 'S'},
        {'reason': 'time'},
        {'result': 'S', 'reason': 'fun'},
        {'result': 's', 'reason': 'time'},
        {'result': 1, 'reason': 'time'},
        {},
    ):
        assert b.code(P.END, p) == BAD, p
        assert b.state() == (gid, 2, PLAY) and b.app.session.ended is None, p
        assert b.records == [] and b.journal.read_record(gid) is None, p
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})  # and the game goes on
    rmtree(b.root)


def test_end_without_room_on_flash_is_refused_and_changes_nothing():
    b = _board('endfull')
    gid = _host_game(b)
    j = b.journal
    real = j.finish

    def full(gid, text):
        raise OSError(28)

    j.finish = full
    assert b.code(P.END, {'result': 'N', 'reason': 'time'}) == P.E_FLASH_FULL
    assert b.state() == (gid, 1, PLAY) and b.app.session.ended is None
    j.finish = real
    assert b.ok(P.END, {'result': 'N', 'reason': 'time'})['mode'] == 'over'
    rmtree(b.root)


def test_end_whose_journal_removal_failed_is_over_and_stays_over():
    # The record reached the flash, then the journal's removal failed: the end is on flash,
    # so the game is over (answered OK), and a power-on finds it over (journal_read drops a
    # journal whose record exists).
    b = _board('endhalf')
    gid = _host_game(b, plies=2)
    j = b.journal
    real = j.remove

    def fail(name):
        raise OSError(5)

    j.remove = fail
    r = b.ok(P.END, {'result': 'S', 'reason': 'time'})
    j.remove = real
    assert r['mode'] == 'over' and b.app.session.ended is not None
    b2 = RealBoard(b.root)
    assert b2.app.session is None and b2.app.mode == MENU
    assert _record(b2, gid).header['Reason'] == 'time'
    rmtree(b.root)


def test_end_then_a_power_cut_keeps_the_end_and_its_record():
    b = _board('endcut')
    gid = _host_game(b, plies=3)
    b.ok(P.END, {'result': 'draw', 'reason': 'agreement'})
    b2 = RealBoard(b.root)  # the power went right after the answer
    assert b2.app.session is None and b2.app.mode == MENU
    listed = [g for g in b2.ok(P.LIST)['games'] if g['id'] == gid]
    assert (listed[0]['result'], listed[0]['reason'], listed[0]['plies']) == (
        'draw',
        'agreement',
        3,
    )
    assert _record(b2, gid).replay().ply == 3
    assert b2.code(P.END, {'result': 'draw', 'reason': 'agreement'}) == P.E_NO_GAME
    rmtree(b.root)


def test_end_in_bagh_chal_names_goat_or_tiger():
    b = _board('endbagh', profile='grid-5x5')
    gid = _host_game(b, 'bagh-chal', 'host-first', plies=1)  # the host plays the goats
    for res in ('S', 'N'):
        assert b.code(P.END, {'result': res, 'reason': 'resign'}) == BAD
    r = b.ok(P.END, {'result': 'T', 'reason': 'time'})
    assert r['result'] == {'result': 'T', 'reason': 'time'}
    rec = _record(b, gid)
    assert (rec.header['Result'], rec.header['Reason']) == ('T', 'time') and rec.replay().ply == 1
    rmtree(b.root)


def test_end_shows_the_result_like_a_rules_end():
    b = _board('endshow')
    _host_game(b)
    south, north = _keys_of_side(b, 0), _keys_of_side(b, 1)
    b.ok(P.END, {'result': 'N', 'reason': 'resign'})
    seen = set()
    for _ in range(6):
        b.step(250)
        seen.add((_bg(b, south[0]), _bg(b, north[0])))
    assert (V.BG_LOSE, V.BG_WIN) in seen, seen
    rmtree(b.root)


# -- the person's offers (MENU or BACK held) -----------------------------------------------


def _hold(b, key, ms):
    b.board.press(key)
    _run(b, ms, 20)
    b.board.release(key)
    _run(b, 100, 20)


def _offers(b):
    b.replies()
    return [e['what'] for e in b.events if e['ev'] == 'offer']


def test_back_held_offers_a_draw_and_menu_held_resigns():
    b = _board('gesture')
    gid = _host_game(b)
    k = b.app.keys
    _hold(b, k.back, 300)  # a BACK press: nothing
    assert _offers(b) == []
    _hold(b, k.back, HOLD_MS + 100)
    assert _offers(b) == ['draw'] and b.app.scene.mine == 1
    assert [e for e in b.events if e['ev'] == 'offer'][0] == {
        'ev': 'offer',
        'id': gid,
        'what': 'draw',
    }
    assert b.app.mode == PLAY and b.app.session.ended is None  # the host decides
    # The person's draw offer shows: a yellow last LED on South's pockets.
    r, g, bl = _last_led(b, _keys_of_side(b, 0)[0])
    assert r > 0 and g > 0 and bl == 0, (r, g, bl)
    # The host's move declines it.
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    b.step(10)
    assert b.app.scene.mine == 0
    # A MENU press opens the menu, as always; held on, the board goes back to the game and
    # offers to resign.
    b.board.press(k.menu)
    _run(b, 200, 20)
    assert b.app.mode == MENU and _offers(b) == ['draw']
    _run(b, HOLD_MS, 20)
    b.board.release(k.menu)
    _run(b, 100, 20)
    assert _offers(b) == ['draw', 'resign'] and b.app.mode == PLAY
    assert b.app.scene.mine == 2
    r, g, bl = _last_led(b, _keys_of_side(b, 0)[0])
    assert r > 0 and r == g == bl, (r, g, bl)  # white: a flag
    assert b.ok(P.END, {'result': 'N', 'reason': 'resign'})['mode'] == 'over'
    _hold(b, k.back, HOLD_MS + 100)  # over: no more offers
    assert _offers(b) == ['draw', 'resign']
    rmtree(b.root)


def test_gestures_do_nothing_new_outside_a_host_game_and_hint_still_works():
    b = _board('nogesture', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'bawo', 'opponent': 'people'})
    k = b.app.keys
    _hold(b, k.back, HOLD_MS + 500)
    b.board.press(k.menu)
    _run(b, HOLD_MS + 500, 20)
    b.board.release(k.menu)
    _run(b, 100, 20)
    assert _offers(b) == [] and b.app.mode == MENU  # the menu stays open
    # In a host game, BACK held then MENU pressed is the hint, not a draw offer.
    b.board.press(k.menu)  # MENU in the menu: a new game (people)
    _run(b, 100, 20)
    b.board.release(k.menu)
    _run(b, 100, 20)
    _host_game(b, plies=0)
    b.board.press(k.back)
    _run(b, 200, 20)
    b.board.press(k.menu)
    _run(b, 100, 20)
    b.board.release(k.menu)
    _run(b, HOLD_MS + 200, 20)
    b.board.release(k.back)
    _run(b, 100, 20)
    assert _offers(b) == [] and b.app.session.hints == 1, (_offers(b), b.app.session.hints)
    rmtree(b.root)


# -- what PEER shows: the opponent's draw offer, the clock -------------------------------------


def test_the_opponents_draw_offer_blinks_yellow_on_the_hosts_side():
    b = _board('offer')
    _host_game(b)
    north = _keys_of_side(b, 1)
    b.ok(P.PEER, {'here': 1, 'offer': 1})
    seen = set(_phases(b, north[0]))
    lit = [c for c in seen if c[0] > 0 and c[1] > 0 and c[2] == 0]
    assert lit and len(seen) >= 2, seen  # yellow, and blinking
    assert b.app.scene.offer == 1
    # Away too: yellow and pink in turn.
    b.ok(P.PEER, {'here': 0, 'offer': 1})
    seen = set(_phases(b, north[0]))
    assert [c for c in seen if _pink(c)] and [c for c in seen if c[2] == 0 and c[1] > 0], seen
    b.ok(P.PEER, {'here': 1})
    b.step(10)
    assert b.app.scene.offer == 0
    rmtree(b.root)


def test_the_clock_bar_on_ovares_free_row_and_the_low_blink():
    b = _board('clock', settings={'speed': 8})
    _host_game(b, 'oware', 'host-second', plies=0)  # South to move
    a = b.app
    b.ok(P.PEER, {'here': 1, 'bar': 5})
    b.step(10)
    bk = a.scene.bar_keys
    assert bk and len(bk[0]) == 8 and len(bk[1]) == 8 and bk[0] != bk[1]
    rows = [a.profile.positions[k][0] for k in bk[0]]
    assert rows == [a.profile.grid_rows - 1] * 8, rows  # South's bar: the bottom row
    cols = [a.profile.positions[k][1] for k in bk[0]]
    assert cols == list(range(8)), cols
    assert [_bg(b, k) for k in bk[0]] == [remote.BG_CLOCK] * 5 + [V.BG_OFF] * 3
    assert all(_bg(b, k) == V.BG_OFF for k in bk[1])
    b.ok(P.PEER, {'here': 1, 'bar': 1, 'low': 1})
    seen = set()
    for _ in range(6):
        b.step(250)
        seen.add(_bg(b, bk[0][0]))
    assert seen == {remote.BG_CLOCK, V.BG_CLOCK_LOW}, seen
    b.ok(P.PEER, {'here': 1})  # no clock: no bar
    b.step(10)
    assert all(_bg(b, k) == V.BG_OFF for k in bk[0])
    rmtree(b.root)


def test_bawo_has_no_free_row_low_time_blinks_the_movers_tint():
    b = _board('clockbawo')
    _host_game(b, plies=0)
    south = _keys_of_side(b, 0)
    b.ok(P.PEER, {'here': 1, 'bar': 2, 'low': 1})
    assert b.app.scene.bar_keys == ()
    seen = set()
    for _ in range(6):
        b.step(250)
        seen.add(_bg(b, south[0]))
    assert V.BG_CLOCK_LOW in seen and (V.BG_TURN in seen or V.BG_TAKATA in seen), seen
    rmtree(b.root)


if __name__ == '__main__':
    mpcheck.run(globals())
