# Profile loading, validation and derived LED maps. Runs under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import json
import pinmap as profile
from pinmap import ProfileError


def raw(name):
    with open('%s/%s.json' % (mpcheck.PROFILES, name)) as f:
        return json.load(f)


def load(name):
    return profile.load('%s/%s.json' % (mpcheck.PROFILES, name))


def expect_error(data, field, words=None):
    try:
        profile.Profile(data)
    except ProfileError as e:
        msg = str(e)
        assert ("'%s'" % field) in msg, msg
        if words:
            assert words in msg, msg
        return msg
    raise AssertionError('no ProfileError for %s' % field)


def test_both_profiles_load():
    b = load('bawo-4x8')
    assert b.n_keys == 32 and b.n_leds == 512 and b.games == ('bawo', 'oware')
    assert (b.width, b.height) == (32, 16)
    g = load('grid-5x5')
    assert g.n_keys == 25 and g.n_leds == 256 and g.games == ('bagh-chal',)
    assert g.cell_field == 'points' and b.cell_field == 'pockets'


def test_serpentine_panel0_column_major_top_left():
    b = load('bawo-4x8')
    assert b.led_index(0, 0) == 0
    assert b.led_index(0, 15) == 15
    assert b.led_index(1, 15) == 16  # second column runs back up
    assert b.led_index(1, 0) == 31
    assert b.led_index(2, 0) == 32
    assert b.led_index(15, 0) == 255  # last column is odd: ends at the top


def test_serpentine_panel1_rotated_bottom_right():
    b = load('bawo-4x8')
    assert b.led_index(31, 15) == 256  # chain enters panel 1 at its bottom-right
    assert b.led_index(31, 0) == 271
    assert b.led_index(30, 0) == 272
    assert b.led_index(30, 15) == 287
    assert b.led_index(16, 0) == 496
    assert b.led_index(16, 15) == 511


def test_led_map_is_a_permutation():
    for name in ('bawo-4x8', 'grid-5x5'):
        p = load(name)
        seen = bytearray(p.n_leds)
        for i in p.led_map:
            assert i != profile.NO_LED
            assert seen[i] == 0
            seen[i] = 1


def test_every_panel_orientation_chains_as_wired():
    # A 3x2 panel beside a 2x2 one, every origin, major and serpentine choice: the chain
    # index of each pixel, as the LEDs are wired (first LED at the origin corner, along the
    # major axis, every other line back if serpentine), counted here without the firmware.
    for origin in ('top-left', 'top-right', 'bottom-left', 'bottom-right'):
        for major in ('row', 'column'):
            for serp in (False, True):
                d = raw('bawo-4x8')
                L = d['leds']
                L['width'], L['height'] = 5, 2
                L['block'] = {'w': 1, 'h': 1, 'pitch_x': 1, 'pitch_y': 1, 'x0': 0, 'y0': 0}
                L['panels'] = [
                    {
                        'x': 0,
                        'y': 0,
                        'width': 3,
                        'height': 2,
                        'origin': origin,
                        'major': major,
                        'serpentine': serp,
                    },
                    {
                        'x': 3,
                        'y': 0,
                        'width': 2,
                        'height': 2,
                        'origin': 'top-left',
                        'major': 'row',
                        'serpentine': False,
                    },
                ]
                d['grid'] = {'rows': 2, 'cols': 5}
                d['keys']['rows'] = [2, 3]
                d['keys']['cols'] = [6, 7, 8, 9, 10]
                d['pockets'] = [[r, c] for r in range(2) for c in range(5)]
                d.pop('lines', None)
                p = profile.Profile(d)
                want = {}
                k = 0
                lines = range(2) if major == 'row' else range(3)
                for line in lines:
                    n = 3 if major == 'row' else 2
                    order = range(n)
                    if serp and line % 2:
                        order = range(n - 1, -1, -1)
                    for pos in order:
                        u, v = (pos, line) if major == 'row' else (line, pos)
                        if origin.endswith('right'):
                            u = 2 - u
                        if origin.startswith('bottom'):
                            v = 1 - v
                        want[(u, v)] = k
                        k += 1
                for (u, v), i in want.items():
                    assert p.led_index(u, v) == i, (origin, major, serp, u, v, p.led_index(u, v), i)
                assert [p.led_index(3, 0), p.led_index(4, 0), p.led_index(3, 1)] == [6, 7, 8]


def test_grid_row_major_serpentine():
    g = load('grid-5x5')
    assert g.led_index(0, 0) == 0 and g.led_index(15, 0) == 15
    assert g.led_index(15, 1) == 16 and g.led_index(0, 1) == 31


def test_pocket_blocks():
    b = load('bawo-4x8')
    assert sorted(b.blocks[0]) == sorted(
        [0, 1, 2, 3, 31, 30, 29, 28, 32, 33, 34, 35, 63, 62, 61, 60]
    )
    # pocket 31 = row 3, col 7: pixels x 28..31, y 12..15 on panel 1
    want = [b.led_index(x, y) for y in range(12, 16) for x in range(28, 32)]
    assert sorted(b.blocks[31]) == sorted(want)
    assert min(b.blocks[31]) == 256
    owner = {}
    for k in range(b.n_keys):
        assert len(b.blocks[k]) == 16
        for i in b.blocks[k]:
            assert i not in owner
            owner[i] = k
    assert len(owner) == 512
    assert b.key_at(2, 5) == 21 and b.key_at(4, 0) == -1


def test_grid_points_and_lines():
    g = load('grid-5x5')
    assert len(g.blocks[0]) == 9
    assert g.block_center(0) == (1, 1) and g.block_center(24) == (13, 13)
    lines = list(g.line_leds)
    assert len(lines) == 112  # 80 orthogonal + 16 diagonals x 2 pixels
    assert g.led_index(2, 1) in lines and g.led_index(3, 1) in lines
    assert g.led_index(2, 2) in lines  # diagonal from even point (0, 0)
    assert g.led_index(5, 2) not in lines  # (0, 1) is odd: no diagonal towards (1, 2)
    assert g.led_index(1, 1) not in lines  # centres are points, not lines
    assert g.led_index(15, 15) not in lines


def test_missing_field_named():
    d = raw('bawo-4x8')
    del d['leds']['panels'][1]['origin']
    msg = expect_error(d, 'leds.panels[1].origin', 'missing')
    assert msg.startswith('profile field')


def test_malformed_field_named():
    d = raw('bawo-4x8')
    d['leds']['panels'][1]['origin'] = 'middle'
    expect_error(d, 'leds.panels[1].origin', 'expected one of top-left')
    d = raw('bawo-4x8')
    d['keys']['rows'][2] = 'GP4'
    expect_error(d, 'keys.rows[2]', 'GPIO')
    d = raw('bawo-4x8')
    d['buttons']['back'] = 6  # already a column input
    expect_error(d, 'buttons.back', 'already used')
    d = raw('grid-5x5')
    d['points'] = d['points'][:24]
    expect_error(d, 'points', 'list of 25..25')
    d = raw('grid-5x5')
    d['points'][3] = [0, 0]
    expect_error(d, 'points[3]', 'also used')
    d = raw('bawo-4x8')
    del d['power']['budget_ma']
    expect_error(d, 'power.budget_ma', 'missing')
    d = raw('bawo-4x8')
    d['schema'] = 2
    expect_error(d, 'schema')
    d = raw('bawo-4x8')
    d['leds']['panels'][1]['x'] = 20
    expect_error(d, 'leds.panels[1]', 'fit')
    d = raw('bawo-4x8')
    d['leds']['block']['pitch_x'] = 5
    expect_error(d, 'leds.block', 'no LED')


def test_bad_json_and_missing_file():
    try:
        profile.loads('{"schema": 1,')
        raise AssertionError('no error')
    except ProfileError as e:
        assert 'JSON' in str(e)
    try:
        profile.load('/nonexistent/profile.json')
        raise AssertionError('no error')
    except ProfileError as e:
        assert 'cannot be read' in str(e)
    assert issubclass(ProfileError, ValueError)


def test_the_running_board_keeps_the_tables_not_the_profile():
    # hw.open_board builds the board's tables from the file: the profile's layout (its
    # panels, key_at) is not kept beside the game.
    import hw

    path = '%s/bawo-4x8.json' % mpcheck.PROFILES
    t = hw.load_tables(path)
    full = load('bawo-4x8')
    for k in profile.BOARD_FIELDS:
        assert getattr(t, k) == getattr(full, k), k
    assert not hasattr(t, 'key_at') and not hasattr(t, 'panels')
    try:
        hw.load_tables('/nonexistent/profile.json')
        raise AssertionError('no error')
    except ValueError as e:  # hw's own pinmap: under CPython another test may have loaded it
        assert type(e).__name__ == 'ProfileError' and 'cannot be read' in str(e), e


if __name__ == '__main__':
    mpcheck.run(globals())
