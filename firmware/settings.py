# The menu's choices (game, opponent, brightness, speed, level), kept in the journal's
# settings file: read at power-on, written after a menu press changed them.
import json
from datafiles import unseal, SETTINGS
from shared_rules import GAMES
from appconst import BOARD_SIDES, OPPONENTS

DEFAULTS = {'game': 'bawo', 'opponent': 'people', 'brightness': 5, 'speed': 5, 'level': 3}


def _level_ok(v, top):
    return type(v) is int and 1 <= v <= top


def _opponent_ok(v):
    return isinstance(v, str) and (v in OPPONENTS or v in BOARD_SIDES)


def parse(data):
    """The settings file's choices as a dict, or None if any of it is not ours: every
    value is checked here, so a damaged file can never reach the LEDs or the menu."""
    t = unseal(data.rstrip(b'\n'))
    if t is None:
        return None
    try:
        d = json.loads(t)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    for k in DEFAULTS:
        if k not in d:
            continue   # a setting this file does not have keeps its default
        v = d[k]
        if k == 'game':
            ok = isinstance(v, str) and v in GAMES
        elif k == 'opponent':
            ok = _opponent_ok(v)
        else:
            ok = _level_ok(v, 5 if k == 'level' else 8)
        if not ok:
            return None
    out = {}
    for k in DEFAULTS:
        if k in d:
            out[k] = d[k]   # keys of a newer firmware are left alone, not applied
    return out


def load(journal, given):
    """The settings: the defaults, then the file's, then `given` (the simulator's)."""
    s = dict(DEFAULTS)
    try:
        with open(journal.path(SETTINGS), 'rb') as f:
            data = f.read(512)
    except OSError:
        data = None   # none yet (a directory there was set aside by the journal)
    if data is not None:
        d = parse(data)
        if d is None:
            journal.set_aside(SETTINGS, 'unreadable settings, defaults used')
        else:
            s.update(d)
    if given:
        s.update(given)
    if not _opponent_ok(s['opponent']):
        s['opponent'] = 'people'
    if not _level_ok(s['level'], 5):
        s['level'] = 3
    for k in ('brightness', 'speed'):
        if not _level_ok(s[k], 8):
            s[k] = DEFAULTS[k]
    return s


def save(journal, settings):
    try:
        journal.write_settings(json.dumps(settings))
    except OSError:
        pass
