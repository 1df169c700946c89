# A remote game (docs/protocol.md "Remote games", docs/visual-language.md "A remote game"):
# the opponent behind a host game's host side as the bridge's PEER tells it, the end the
# players agreed (END), the person's own offers (MENU or BACK held), and their look on the
# scene. Loaded while a host game is on (at its first PEER, END or offer, or its resume at
# power-on); the App lets it go when a game without a host side starts: a game of people or
# of the board spends no heap on it.
from compat import const, ticks_diff
import view as V
import protocol as P
from link import LinkError
from appconst import MENU, PLAY, NONE
from shared_rules.outcome import Outcome
from shared_rules.record_end import end_error

# Its look (docs/visual-language.md "A remote game"): the last LED of a pocket (bottom right),
# and the clock bar on a row the game leaves free (the low clock's orange: view.BG_CLOCK_LOW).
DOT_AWAY = const(0xFF2060)     # the host's side's player is away: pink, blinking
DOT_OFFER = const(0xFFC000)    # a draw offered: yellow (the opponent's blinks)
DOT_RESIGN = const(0xE0E0E0)   # the person offered to resign: a white flag
BG_CLOCK = const(0x141414)     # the clock bar: dim white


class Peer:
    """A host game's opponent as the last PEER told it (Session.peer), and the person's own
    offer sent ('resign', 'draw' or None)."""

    def __init__(self):
        self.at = 0          # ticks of the last PEER
        self.peered = False  # a PEER came in this game since power-on
        self.here = 1
        self.offer = 0       # the opponent offers a draw
        self.bar = -1        # the side to move's clock in eighths; -1: no clock
        self.low = 0
        self.mine = None


def _live(se):
    return se is not None and se.host_side >= 0 and not se.over()


def _peer(se):
    p = se.peer
    if p is None:
        p = se.peer = Peer()
    return p


def describe(a, d):
    """A remote game's news in snapshot d, as the LEDs show it: the opponent away, the offer
    this board sent, the clock (eighths left, low time) when it has one."""
    sc = a.scene
    p = a.session.peer
    d['away'] = sc.away
    d['offered'] = p.mine if p is not None else None
    if sc.bar >= 0 or sc.low:
        d['clock'] = [sc.bar, sc.low]


def peer(a, here, offer, bar, low):
    """PEER's news (absent fields say no; here: unchanged) on App a's host game."""
    se = a.session
    if not _live(se):
        return
    p = _peer(se)
    p.peered = True
    p.at = a.now
    se.rx = -1
    if here is not None:
        p.here = here
    p.offer = offer or 0
    p.bar = -1 if bar is None else bar
    p.low = low or 0
    show(a)


def away(se, now, timeout, rx):
    """True while the host's side is not connected: the last PEER said so, or none came for
    `timeout` ms after one did, or the game was resumed at power-on and no frame came from a
    host since (rx: the link's count of frames, Session.rx the count then)."""
    if not _live(se):
        return False
    p = se.peer
    if p is not None and p.peered:
        return not p.here or ticks_diff(now, p.at) >= timeout
    if se.rx >= 0 and rx != se.rx:
        se.rx = -1   # a host spoke
    return se.rx >= 0


def end(a, result, reason):
    """END on App a's host game (handler.py checked there is one): its record on flash
    first, then the end shown as a rules end is (App.show_end). LinkError 3 for a result that
    does not fit, 7 without room on flash for the record: then nothing changed."""
    se = a.session
    bad = end_error(se.g, result, reason)
    if bad is not None:
        raise LinkError(P.E_BAD_PAYLOAD, 'bad payload: ' + bad[:80])
    a.skip()
    se.ended = Outcome(None if result == 'draw' else se.g.sides.index(result), reason)
    j = se.journal
    gid = se.header['id']
    try:
        j.finish(gid, se.record_text())
    except BaseException as e:
        # Over only once its record reached the flash (a failure after the write is over).
        if j.find_record(gid) is None:
            se.ended = None
            if isinstance(e, OSError):
                raise LinkError(P.E_FLASH_FULL, 'flash full: the end is not on flash (%s): '
                                'sync the board' % e)
            raise
    se.behind = False
    se.recorded = True
    a.scene.sel = -1
    if a.mode == MENU:   # the person had the menu open: the end shows
        a.view.reset(pieces=se.g.pieces)
    a.show_end(se.outcome())


def offer(a, key):
    """MENU (resign) or BACK (a draw, or the acceptance of the opponent's) held HOLD_MS in
    App a's host game: the offer EVENT; the host decides and answers with END."""
    se = a.session
    if not _live(se):
        return
    if a.mode == MENU:   # MENU's press opened the menu: back to the game
        a.mode = PLAY
        a.view.reset(pieces=se.g.pieces)
    what = 'resign' if key == a.keys.menu else 'draw'
    _peer(se).mine = what
    a.say('offered: %s' % what)
    a.event('offer', {'id': se.header['id'], 'what': what})
    show(a)
    a.changed()


def show(a):
    """The remote game's news on App a's scene (render.draw reads it); redrawn if changed."""
    sc = a.scene
    se = a.session
    host = -1
    is_away = False
    off = low = mine = 0
    bar = -1
    if _live(se):
        host = se.host_side
        is_away = away(se, a.now, a.peer_timeout, a.link.stats['rx'] if a.link else 0)
        p = se.peer
        if p is not None:
            off, bar, low = p.offer, p.bar, p.low
            mine = 2 if p.mine == 'resign' else 1 if p.mine == 'draw' else 0
        if bar >= 0 and sc.bar_keys is None:
            sc.bar_keys = _bar_keys(sc, se.g, a.profile)
    if (host == sc.host and is_away == sc.away and off == sc.offer and bar == sc.bar
            and low == sc.low and mine == sc.mine):
        return
    sc.host, sc.away, sc.offer, sc.bar, sc.low, sc.mine = host, is_away, off, bar, low, mine
    a.changed()


def _bar_keys(sc, g, profile):
    # The clock bars' keys, left to right: South's (side 0) on the lowest row the game
    # leaves free, North's on the highest (rows count from the top); () if none is free.
    if g.pieces:
        return ()
    rows = profile.grid_rows
    used = bytearray(rows)
    pos = profile.positions
    for k in range(profile.n_keys):
        if sc.cell_of_key[k] != NONE:
            used[pos[k][0]] = 1
    free = [r for r in range(rows) if not used[r]]
    if not free:
        return ()
    bars = []
    for r in (free[-1], free[0]):
        row = bytearray(profile.grid_cols)
        for k in range(profile.n_keys):
            if pos[k][0] == r:
                row[pos[k][1]] = k
        bars.append(tuple(row))
    return bars[0], bars[1]


def draw(v, sc, bk):
    """render.draw's part for a remote game: the clock bar on keys bk (sc.bar eighths of
    them, from the left; blinking when low) and the last LED of the pockets: on the host's
    side pink blinking while its player is away, yellow blinking for its draw offer (both:
    the two in turn); on the person's side their own offer, steady (yellow a draw, white
    resign)."""
    n = len(bk)
    if n:
        lit = (sc.bar * n + 7) // 8
        c = V.BG_CLOCK_LOW if sc.low and sc.blink else BG_CLOCK
        for i in range(n):
            v.cell(bk[i], 0, c if i < lit else V.BG_OFF)
    host = DOT_OFFER if sc.offer and sc.blink else DOT_AWAY if sc.away and (
        sc.offer or sc.blink) else 0
    if not (host or sc.mine):
        return
    g = sc.g
    hs = sc.host
    shown = sc.shown
    cell_of_key = sc.cell_of_key
    mine = DOT_RESIGN if sc.mine == 2 else DOT_OFFER
    for key in range(len(cell_of_key)):
        cell = cell_of_key[key]
        if cell == NONE or cell >= g.cells or key == sc.flash_key:
            continue
        side = g.owner(cell, shown[cell])
        if side < 0:
            continue
        if side == hs:
            if host:
                v.corner_dot(key, host, True)
        elif sc.mine:
            v.corner_dot(key, mine, True)
