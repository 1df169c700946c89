# A damaged data directory never stops the board (issue 9): a directory where a file belongs,
# a file where the directory belongs, unreadable settings. Each is set aside under a name the
# board makes (*.bad, renamed, never deleted), warned about once, and the board goes on.
# Runs the real app and journal on the simulated board, under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import time
import json
import hw_sim
import app
import settings
from journal import Journal, seal

TMP = '/tmp/bawo-damaged-%d' % (time.time_ns() % 1000000007)
app.print = lambda *a: None


def _rm(p):
    try:
        if os.stat(p)[0] & 0x4000:
            for n in os.listdir(p):
                _rm(p + '/' + n)
            os.rmdir(p)
        else:
            os.remove(p)
    except OSError:
        pass


def _fresh(name):
    for d in ('/tmp', TMP):
        try:
            os.mkdir(d)
        except OSError:
            pass
    root = TMP + '/' + name
    _rm(root)
    for n in os.listdir(TMP):
        if n.startswith(name + '.'):
            _rm(TMP + '/' + n)
    return root


def _write(p, data):
    with open(p, 'wb') as f:
        f.write(data)


def _read(p):
    with open(p, 'rb') as f:
        return f.read()


def _dir_with_a_file(p):
    os.mkdir(p)
    _write(p + '/inside', b'keep me')


def _boot(root):
    """Boot the real app on root; (app, messages said)."""
    msgs = []
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock())
    j = Journal(root, 'tb', min_free=0, log=lambda m: None)
    a = app.App(board, j, 'tb', hook=lambda k, d: msgs.append(d) if k == 'msg' else None)
    a.boot()
    return a, [m for m in msgs if m.startswith('warning')]


def _plays(a):
    # The board still works: a game starts, a move is journaled, settings are saved.
    a.new_game('bawo')
    a.play(a.session.s.legal_moves[0])
    assert a.journal.read_current()[1] == [a.session.s.moves[0]]
    a.settings['speed'] = 2
    a.save_settings()
    assert settings.parse(_read(a.journal.path('settings')))['speed'] == 2
    a.step(a.now + 5000)


def _boots_twice(root, damaged):
    """Boot on a damaged root: one warning per damaged thing; the next boot warns no more."""
    a, warned = _boot(root)
    assert len(warned) == len(damaged), warned
    for name in damaged:
        assert any(name in w for w in warned), (name, warned)
    _plays(a)
    a2, warned2 = _boot(root)
    assert warned2 == [], warned2
    assert a2.mode == app.PLAY and a2.session.s.ply == 1  # the game above resumed
    return a


def test_directory_where_a_file_belongs():
    # Every file the board keeps, and the temp files it writes them through.
    root = _fresh('files')
    os.mkdir(root)
    names = (
        'cur.jnl',
        'counter',
        'settings',
        'board_id',
        'cur.jnl.tmp',
        'counter.tmp',
        'settings.tmp',
        'tb-0003.rec',
        'tb-0004.syn',
    )
    for n in names:
        _dir_with_a_file(root + '/' + n)
    a = _boots_twice(root, names)
    for n in names:
        # Set aside whole: nothing inside was deleted.
        assert _read(root + '/' + n + '.bad/inside') == b'keep me'
    # Ids stay unique: the counter is still found in the names on flash.
    assert a.session.header['id'] == 'tb-0005', a.session.header['id']
    assert list(a.journal.list_games()) == []


def test_file_where_the_directory_belongs():
    root = _fresh('root')
    _write(root, b'a person\'s file')
    _boots_twice(root, [root + '.bad'])
    assert _read(root + '.bad') == b'a person\'s file'
    assert os.stat(root)[0] & 0x4000


def test_set_aside_never_overwrites_an_earlier_one():
    root = _fresh('twice')
    os.mkdir(root)
    _write(root + '/counter.bad', b'first')
    _dir_with_a_file(root + '/counter')
    _boots_twice(root, ['counter.2.bad'])
    assert _read(root + '/counter.bad') == b'first'
    assert _read(root + '/counter.2.bad/inside') == b'keep me'


BAD_SETTINGS = (
    b'\xff\x00garbage',  # not ours at all
    seal('{"speed": 3'),  # checksum right, JSON cut
    seal('[1, 2]'),  # not an object
    seal('{"brightness": "x"}'),  # would crash the LED driver
    seal('{"speed": 99}'),  # would index past SPEED_MS
    seal('{"level": true}'),
    seal('{"opponent": "nobody"}'),
    seal('{"game": 7}'),
    seal('{"brightness": 0}'),
)


def test_unreadable_settings():
    for k, data in enumerate(BAD_SETTINGS):
        root = _fresh('settings%d' % k)
        os.mkdir(root)
        _write(root + '/settings', data)
        a = _boots_twice(root, ['settings.bad'])
        assert _read(root + '/settings.bad') == data
        for key in ('brightness', 'level', 'opponent', 'game'):
            assert a.settings[key] == settings.DEFAULTS[key], (data, a.settings)


def test_warned_also_when_a_game_resumes():
    root = _fresh('resume')
    a, _ = _boot(root)
    a.new_game('bawo')
    a.play(a.session.s.legal_moves[0])
    _dir_with_a_file(root + '/counter.tmp')
    _write(root + '/settings', b'garbage')
    a, warned = _boot(root)
    assert a.mode == app.PLAY and a.session.s.ply == 1
    assert len(warned) == 2 and 'counter.tmp.bad' in warned[0] + warned[1], warned


def _write_big(p, chunk, n):
    with open(p, 'wb') as f:
        for _ in range(n):
            f.write(chunk)


def test_huge_files_do_not_fill_the_heap():
    # 2 MB of garbage (more than the unix port's default heap, 16 times a Pico's): read a
    # line or a few bytes at a time, never whole.
    chunk = b'7' * 65536
    for name, damaged in (
        ('cur.jnl', ['cur.jnl.bad']),
        ('counter', []),
        ('settings', ['settings.bad']),
    ):
        root = _fresh('huge')
        os.mkdir(root)
        _write_big(root + '/' + name, chunk, 32)
        _boots_twice(root, damaged)


BAD_HEADERS = (
    {'game': 'bawo', 'id': '../../etc/x'},  # an id that names a path
    {'game': 'bawo', 'id': ['tb-0001']},
    {'game': 'bawo', 'id': 'tb-0001', 'opponent': ['board-first']},
    {'game': 'bawo', 'id': 'tb-0001', 'level': 'x', 'opponent': 'board-first'},
    {'game': 'bawo', 'id': 'tb-0001', 'position': 7},
    {'game': 'bawo', 'id': 'tb-0001', 'hints': -1},  # the hints a person took: 0..9999
    {'game': 'bawo', 'id': 'tb-0001', 'hints': 10**9},
    {'game': 'bawo', 'id': 'tb-0001', 'hints': '2'},
    {'game': ['bawo'], 'id': 'tb-0001'},
    [1, 2],
)


def test_journal_headers_that_are_not_ours():
    # The checksum is right (a host or a person wrote it), the content is not the board's.
    for k, h in enumerate(BAD_HEADERS):
        root = _fresh('header%d' % k)
        os.mkdir(root)
        _write(root + '/cur.jnl', seal('H ' + json.dumps(h)) + seal('M 1 A1+'))
        a = _boots_twice(root, ['cur.jnl.bad'])
        assert a.session.header['id'] == 'tb-0001', a.session.header


def test_good_settings_are_kept():
    root = _fresh('good')
    os.mkdir(root)
    _write(
        root + '/settings',
        seal(
            json.dumps(
                {
                    'speed': 8,
                    'brightness': 2,
                    'level': 5,
                    'opponent': 'board-first',
                    'game': 'oware',
                    'future': 1,
                }
            )
        ),
    )
    a, warned = _boot(root)
    assert warned == []
    s = a.settings
    assert (s['speed'], s['brightness'], s['level'], s['opponent'], s['game']) == (
        8,
        2,
        5,
        'board-first',
        'oware',
    ), s


if __name__ == '__main__':
    mpcheck.run(globals())
