# The board's application: menu, play, animation, journal and the host link, in one
# cooperative loop (no threads): scan keys, advance the animation by ticks, poll the link.
# Every move goes through play(): the engine computes it in RAM, the journal makes it
# durable, and only then does the animation start (docs/visual-language.md).
import gc
import json
from compat import const, ticks_diff, ticks_add, ticks_ms
from keys import PRESSED, KEY_MASK
import view as V
from menu import Menu, OPPONENTS
from journal import Journal, seal, unseal, CUR
import shared_rules
from shared_rules import game as make_game, GAMES, RULES_VERSION, winner_name
from shared_rules.errors import RulesError
from shared_rules.state import State
from shared_rules.rng import Rng
from shared_rules import events as E

VERSION = '0.1.0'
# Milliseconds per seed for speed levels 1..8 (index 0 unused); level 8 is instant.
SPEED_MS = (0, 700, 450, 300, 200, 120, 70, 35, 0)
FLASH_MS = const(350)
BLINK_MS = const(450)
BOARD_MOVE_MS = const(500)   # pause before the board's own move, so the player sees it
BOARD_SHOW_MS = const(1200)  # the start pocket of a move the board plays blinks this long,
BOARD_BLINK_MS = const(200)  # on and off at this pace, before its sowing is animated
NONE = const(255)
EVENTS = const(1000)         # the event buffer's capacity (3 bytes each)

MENU = const(0)
PLAY = const(1)
OVER = const(2)

DEFAULTS = {'game': 'bawo', 'opponent': 'people', 'brightness': 5, 'speed': 5, 'level': 3}
# Who plays which side: the menu's choices, the board on both sides (a demonstration, set by
# the simulator), and games a host started over the link (`bawo play --board`), where the
# host sends its side's moves and the board refuses presses for that side.
BOARD_SIDES = {'board-first': 0, 'board-second': 1, 'board-both': 2}
HOST_SIDES = {'host-first': 0, 'host-second': 1}


class RandomOpponent:
    """Plays a random legal move; the fallback when shared_rules.ai is missing."""

    def __init__(self, seed=1):
        self.rng = Rng(seed)

    def choose(self, state):
        moves = state.legal_moves
        return moves[self.rng.below(len(moves))]


def make_opponent(g, level=3, seed=1, poll=None, say=None):
    """An object with choose(state) -> move: the engine's AI if it is installed.
    poll() is called while it thinks; True abandons the search (choose returns None)."""
    try:
        load_ai(g.name)
        from shared_rules.ai import Player
        return Player(g, level=level, seed=seed, poll=poll)
    except (ImportError, MemoryError, KeyError, TypeError) as e:
        if say:
            say('no AI (%r): the board plays at random' % e)
        return RandomOpponent(seed)


class EventBuf:
    """The engine's events for one move, 3 bytes each instead of a tuple each.
    Past its capacity the rest is dropped: the animation then jumps to the end."""

    def __init__(self, n=1500):
        self.b = bytearray(3 * n)
        self.n = 0
        self.cap = n
        self.full = False

    def clear(self):
        self.n = 0
        self.full = False

    def append(self, ev):
        if self.n >= self.cap:
            self.full = True
            return
        o = self.n * 3
        b = self.b
        b[o] = ev[0]
        b[o + 1] = ev[1] & 0xFF   # DIRECTION's -1 comes back as 255; it is not drawn
        b[o + 2] = ev[2] & 0xFF
        self.n += 1

    def __len__(self):
        return self.n


AI_MODULES = ('shared_rules.ai', 'shared_rules.evaluate')


def load_ai(name):
    """Import the AI before the game's own objects, then drop the other engines again: the
    holes they leave are filled by the game, not split by the AI's long-lived code."""
    import shared_rules.ai
    shared_rules.unload(keep=name)
    gc.collect()


def use_engine(name, ai=False):
    """Keep only the engine of the game being played in RAM: a module's bytecode lives on
    the heap, and the other two engines are a third of the free heap of a 160 KB build.
    The AI's modules stay only while the board plays a side (ai)."""
    shared_rules.unload(keep=name, also=() if ai else AI_MODULES)
    gc.collect()


def playable(profile):
    """Games of the profile whose layout fits its grid, in the profile's order."""
    out = []
    r, c = profile.grid_rows, profile.grid_cols
    for name in profile.games:
        if name not in GAMES:
            continue
        if name == 'bawo' and (r, c) != (4, 8):
            continue
        if name == 'oware' and (r < 2 or c < 8):
            continue
        if name == 'bagh-chal' and (r, c) != (5, 5):
            continue
        out.append(name)
    return out


class App:
    def __init__(self, board, journal, board_id, hook=None, settings=None):
        self.board = board
        self.profile = p = board.profile
        self.keys = board.keys
        self.view = V.View(board.pixels, p)
        self.journal = journal
        self.board_id = board_id
        self.hook = hook            # hook(kind, data): the simulator's window on the app
        self.games = playable(p)
        if not self.games:
            raise ValueError("profile field 'games': none of %s fits a %dx%d grid"
                             % (', '.join(p.games), p.grid_rows, p.grid_cols))
        self.settings = self._load_settings(settings)
        if self.settings.get('game') not in self.games:
            self.settings['game'] = self.games[0]
        use_engine(self.settings['game'])
        self.menu = Menu(p, self.games, self.settings)
        self.link = None
        self.time_offset = None     # epoch seconds minus ticks seconds, once a host set it
        self.mode = MENU
        self.s = None
        self.g = None
        self.header = None
        self.opponent = None
        self.board_side = -1        # 0, 1, 2 = both, -1 = none (BOARD_SIDES)
        self.host_side = -1
        self.thinking = False
        self.abort_key = -1         # MENU or BACK pressed while the board thought
        self.abort_think = False    # a link request wants the board to stop thinking
        self.intro = -1             # the start cell blinking before the board's move
        self.intro_until = 0
        self.intro_on = 0
        self.thinks = 0             # searches finished, their total and longest real time
        self.think_ms = 0
        self.think_max = 0
        self.cell_of_key = bytearray(p.n_keys)
        self.key_of_cell = bytearray(32)
        self.ncells = 0
        self.shown = bytearray(32)
        self.starts = {}
        self.direct = {}
        self.sel = -1
        self.takata = False
        self.flash_key = -1
        self.flash_until = 0
        self.flashes = 0
        self.blink = 0
        self.now = board.ticks_ms()
        self.blink_at = self.now
        self.anim = None
        self.evbuf = EventBuf(EVENTS)
        self.anim_i = 0
        self.anim_at = 0
        self.hand = -1
        self.mark = -1
        self.capt = -1
        self.board_at = 0
        self.redraw = True
        self.version = 0            # bumped on every visible change (simulator status)
        self.message = ''
        self.apply_brightness()

    # -- settings ---------------------------------------------------------------------
    def _load_settings(self, given):
        s = dict(DEFAULTS)
        try:
            with open(self.journal.path('settings'), 'rb') as f:
                t = unseal(f.read().rstrip(b'\n'))
            if t is not None:
                d = json.loads(t)
                for k in s:
                    if k in d:
                        s[k] = d[k]
        except (OSError, ValueError):
            pass
        if given:
            s.update(given)
        if s['opponent'] not in OPPONENTS and s['opponent'] not in BOARD_SIDES:
            s['opponent'] = 'people'
        if not 1 <= s['level'] <= 5:
            s['level'] = 3
        return s

    def save_settings(self):
        try:
            self.journal._rewrite('settings', seal(json.dumps(self.settings)))
        except OSError:
            pass

    def apply_brightness(self):
        px = self.board.pixels
        px.set_brightness(px.cap * self.settings['brightness'] // 8)

    def say(self, msg):
        self.message = msg
        print('bawo:', msg)
        if self.hook:
            self.hook('msg', msg)

    def changed(self):
        self.redraw = True
        self.version += 1

    # -- boot ---------------------------------------------------------------------------
    def boot(self):
        """Resume the journaled game if there is one, else open the menu."""
        self.journal.make_room()
        cur = self.journal.read_current()
        if cur is not None:
            header, moves = cur
            try:
                self._setup(header)
                for m in moves:
                    self.s.push(self.s.parse_move(m))
            except (RulesError, KeyError, ValueError) as e:
                self.journal.set_aside(CUR, 'does not replay: %s' % e)
                self.s = None
            else:
                self.say('resumed %s %s at ply %d' % (header['game'], header['id'], self.s.ply))
                self._position_changed()
                if self.s.outcome() is not None:
                    self._finish()
                else:
                    self.mode = PLAY
                    self.changed()
                    return
        if self.mode != OVER:
            self.open_menu()
        for w in self.journal.names():
            if w.endswith('.bad'):
                self.say('warning: damaged file set aside: %s' % w)

    # -- games --------------------------------------------------------------------------
    def _setup(self, header):
        name = header['game']
        if name not in self.games:
            raise ValueError('game %s does not fit this board' % name)
        self.header = header
        self.g = None
        self.s = None
        self.opponent = None
        opp = header.get('opponent', 'people')
        self.board_side = BOARD_SIDES.get(opp, -1)
        self.host_side = HOST_SIDES.get(opp, -1)
        use_engine(name, ai=self.board_side >= 0)
        if self.board_side >= 0:
            try:
                load_ai(name)
            except (ImportError, MemoryError):
                pass   # make_opponent says so
        self.g = make_game(name)
        self.s = State(self.g, header.get('position'), history=1)
        if self.board_side >= 0:
            # One Player a game: its table is allocated once, here, while the heap is tidy.
            self.opponent = make_opponent(self.g, header.get('level', 3), header.get('seed', 1),
                                          self._think_poll, self.say)
        self._layout(name)
        self.view.reset(pieces=(name == 'bagh-chal'))

    def _layout(self, name):
        p = self.profile
        cok = self.cell_of_key
        for k in range(p.n_keys):
            cok[k] = NONE
        if name == 'bawo':
            from shared_rules.bawo import DISPLAY
            n = 32
            for k in range(p.n_keys):
                r, c = p.positions[k]
                cok[k] = DISPLAY[r * 8 + c]
        elif name == 'oware':
            n = 14  # pits 0..11, then South's store (12) and North's (13)
            mid = p.grid_rows // 2
            off = (p.grid_cols - 8) // 2
            for k in range(p.n_keys):
                r, c = p.positions[k]
                x = c - off
                if r == mid and 1 <= x <= 6:
                    cok[k] = x - 1
                elif r == mid - 1 and 1 <= x <= 6:
                    cok[k] = 12 - x
                elif r == mid and x == 7:
                    cok[k] = 12
                elif r == mid - 1 and x == 0:
                    cok[k] = 13
        else:
            n = 25
            for k in range(p.n_keys):
                r, c = p.positions[k]
                cok[k] = (4 - r) * 5 + c
        self.ncells = n
        for k in range(p.n_keys):
            if cok[k] != NONE:
                self.key_of_cell[cok[k]] = k

    def new_game(self, name, position=None, opponent=None):
        """Start a game (archiving an unfinished one). RulesError for a bad position."""
        if self.anim is not None:
            self.skip()
        if self.s is not None and self.s.outcome() is None and self.header is not None:
            if self.s.ply:
                self._finish()
            else:
                self.journal.discard_current()
        opp = opponent or self.settings['opponent']
        header = {'game': name, 'opponent': opp, 'seed': self.now & 0xFFFF or 1}
        if opp in BOARD_SIDES:
            header['level'] = self.settings['level']
        if position:
            header['position'] = position
        start = self.start_time()
        if start:
            header['start'] = start
        self._setup(header)   # raises on a bad position before anything is written
        self.journal.start(header)
        self._position_changed()
        self.mode = PLAY
        self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
        self.say('new %s game %s' % (name, header['id']))
        self.event('start', {'id': header['id'], 'game': name})
        self.changed()

    def start_time(self):
        if self.time_offset is None:
            return None
        import time
        t = time.gmtime(self.time_offset + self.now // 1000)
        return '%04d-%02d-%02d %02d:%02d:%02d' % t[:6]

    def _position_changed(self):
        s = self.s
        g = self.g
        pos = s.position
        self.sel = -1
        self.takata = g.name == 'bawo' and not g.capturing(pos)
        starts = {}
        direct = {}
        t = pos.turn
        for m in s.legal_moves:
            if g.name == 'bawo':
                i = m >> 1
                o = t << 4
                tgt = o + ((i - 1) & 15 if m & 1 else (i + 1) & 15)
                starts.setdefault(o + i, []).append((tgt, m))
            elif g.name == 'oware':
                direct[t * 6 + m] = m
            elif m < 25:
                direct[m] = m
            else:
                a, b = divmod(m - 25, 25)
                starts.setdefault(a, []).append((b, m))
        self.starts = starts
        self.direct = direct
        self._sync_shown()

    def _sync_shown(self):
        pos = self.s.position
        sh = self.shown
        b = pos.board
        for i in range(len(b)):
            sh[i] = b[i]
        if self.g.name == 'oware':
            sh[12] = pos.stores[0]
            sh[13] = pos.stores[1]
        self.hand = self.mark = self.capt = -1
        self.changed()

    def _plays(self, side):
        """'board', 'host' or 'person': who plays side 0 or 1 of this game."""
        if self.board_side == 2 or self.board_side == side:
            return 'board'
        return 'host' if self.host_side == side else 'person'

    def _board_to_move(self):
        return (self.mode == PLAY and self.board_side >= 0 and self.s.outcome() is None
                and (self.board_side == 2 or self.s.turn == self.board_side))

    def _host_to_move(self):
        return self.mode == PLAY and self.s.turn == self.host_side and self.s.outcome() is None

    def _start_cell(self, move, turn):
        # The pocket (point) a move starts from: what the board's move shows first.
        name = self.g.name
        if name == 'bawo':
            return (turn << 4) + (move >> 1)
        if name == 'oware':
            return turn * 6 + move
        return move if move < 25 else (move - 25) // 25

    def _think(self):
        """The board's move: search, then play it, unless MENU/BACK or the link stopped it."""
        s = self.s
        self.abort_key = -1
        self.abort_think = False
        self.thinking = True
        gc.collect()   # the search starts on a tidy heap: a 160 KB board has little spare
        t0 = ticks_ms()
        try:
            move = self.opponent.choose(s)
        finally:
            self.thinking = False
        t = ticks_diff(ticks_ms(), t0)
        if move is not None:
            self.thinks += 1
            self.think_ms += t
            if t > self.think_max:
                self.think_max = t
        if move is None or self.s is not s:
            self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
            key = self.abort_key
            self.abort_key = -1
            if key >= 0:
                self.on_press(key)
            return
        self.play(move, True)

    def _think_poll(self):
        # Called by the search every 16 nodes: the loop's keys, flashes and link go on.
        now = self.board.ticks_ms()
        self.now = now
        k = self.keys
        k.scan(now)
        while True:
            ev = k.get()
            if ev is None:
                break
            if ev & PRESSED:
                key = ev & KEY_MASK
                if key == k.menu or key == k.back:
                    self.abort_key = key
                elif key < self.profile.n_keys:
                    self.flash(key)
        if self.flash_key >= 0 and ticks_diff(now, self.flash_until) >= 0:
            self.flash_key = -1
            self.redraw = True
        if self.redraw:
            self.draw()
        self.view.show()
        if self.link is not None:
            self.link.poll()
        return self.abort_key >= 0 or self.abort_think

    def play(self, move, intro=False):
        """Play a legal move: journal first, then animate. False if flash is full.
        intro: a move the person did not press (board or host): its start blinks first."""
        s = self.s
        mover = s.turn
        start = self._start_cell(move, mover) if intro else -1
        text = s.move_str(move)
        animate = SPEED_MS[self.settings['speed']] > 0
        events = self.evbuf
        events.clear()
        s.push(move, events if animate else False)
        try:
            self.journal.append(s.ply, text)
        except OSError as e:
            s.pop()
            self.say('flash full, move not played (%s)' % e)
            self.journal.low = True
            self.changed()
            return False
        if self.hook:
            self.hook('journal', (s.ply, text))
        self.event('move', {'id': self.header['id'], 'ply': s.ply, 'move': text,
                            'position': self.g.format(s.position)})
        over = s.outcome() is not None
        if over:
            self._finish()
        self.sel = -1
        self.starts = {}
        self.direct = {}
        if start >= 0:
            self.intro = start
            self.intro_on = 1
            self.intro_until = ticks_add(self.now, BOARD_SHOW_MS)
        if (animate and len(events)) or start >= 0:
            self.anim = events
            self.anim_i = 0
            self.anim_at = self.intro_until if start >= 0 else self.now
            self.anim_mover = mover
            self.changed()
        else:
            self._anim_done()
        return True

    def _finish(self):
        s = self.s
        h = self.header
        names = (self._plays(0), self._plays(1))
        # The board is done with this game: its AI makes room for the record.
        self.opponent = None
        shared_rules.unload(keep=self.s.game.name, also=AI_MODULES)
        gc.collect()
        # Loaded for this moment only: its bytecode is heap the game can use meanwhile.
        from shared_rules.record import Record
        text = Record.from_state(s, Id=h['id'], Device=self.board_id, Start=h.get('start'),
                                 First=names[0], Second=names[1]).to_text()
        Record = None
        shared_rules.unload(keep=self.s.game.name, also=('shared_rules.record',))
        gc.collect()
        try:
            self.journal.finish(h['id'], text)
        except OSError as e:
            self.say('flash full: record of %s kept as journal (%s)' % (h['id'], e))
            self.journal.low = True
        if self.hook:
            self.hook('record', h['id'])
        out = s.outcome()
        if out is not None:
            self.mode = OVER
            w = winner_name(self.g, out)
            self.say('game over: %s (%s)' % ('draw' if w is None else w + ' wins', out.reason))
            self.event('end', {'id': h['id'], 'result': 'draw' if w is None else w,
                               'reason': out.reason})
        self.changed()

    def event(self, kind, data):
        if self.link is not None:
            try:
                self.link.send_event(kind, data)
            except Exception as e:  # the game must go on without a host
                print('bawo: link event failed:', e)

    # -- animation ----------------------------------------------------------------------
    def _anim_step(self):
        o = self.anim_i * 3
        eb = self.anim.b
        code, a, b = eb[o], eb[o + 1], eb[o + 2]
        self.anim_i += 1
        sh = self.shown
        ms = SPEED_MS[self.settings['speed']]
        wait = ms
        if code == E.PICKUP:
            sh[a] = 0
            self.hand = a
            self.mark = -1
            self.capt = -1
            wait = ms * 2
        elif code == E.DROP:
            sh[a] = b
            self.mark = a
        elif code == E.CAPTURE:
            sh[a] = 0
            self.capt = a
            self.mark = -1
            wait = ms * 3
        elif code == E.RELAY:
            sh[a] = 0
            self.hand = a
            self.mark = -1
            wait = ms * 2
        elif code == E.STORE:
            sh[12 + a] += b
            total = 0
            for i in range(14):
                total += sh[i]
            if total > 48:  # the starving move's sweep: the pits went to the store
                for i in range(12):
                    sh[i] = 0
            wait = ms * 2
        elif code == E.PLACE:
            sh[a] = V.GOAT
            self.mark = a
        elif code == E.STEP or code == E.JUMP:
            sh[b] = sh[a]
            sh[a] = 0
            self.hand = a
            self.mark = b
        elif code == E.TAKE:
            sh[a] = 0
            self.capt = a
            wait = ms * 2
        else:
            wait = 0
        self.anim_at = ticks_add(self.now, wait)
        self.redraw = True

    def skip(self):
        """A press during an animation: jump to the end of the move."""
        self._anim_done()

    def _anim_done(self):
        self.anim = None
        self.intro = -1
        if self.mode == PLAY:
            self._position_changed()
            self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
        else:
            self._sync_shown()
        self.changed()

    def busy(self):
        """True while something will happen without a press (simulator: not idle)."""
        return (self.anim is not None or self.flash_key >= 0 or self._board_to_move()
                or self.keys.pending() > 0)

    def next_due(self):
        """Milliseconds until the next timed step, or None when only presses matter."""
        best = None
        if self.anim is not None:
            best = ticks_diff(self.anim_at, self.now)
            if self.intro >= 0 and best > 0:
                best = (best - 1) % BOARD_BLINK_MS + 1   # the next blink
        elif self._board_to_move():
            best = ticks_diff(self.board_at, self.now)
        if self.flash_key >= 0:
            d = ticks_diff(self.flash_until, self.now)
            best = d if best is None or d < best else best
        return None if best is None else max(0, best)

    # -- presses ------------------------------------------------------------------------
    def flash(self, key):
        self.flash_key = key
        self.flash_until = ticks_add(self.now, FLASH_MS)
        self.flashes += 1
        self.changed()

    def on_press(self, key):
        k = self.keys
        if self.anim is not None:
            self.skip()
            return
        if key == k.menu:
            if self.mode == MENU:
                self.new_game(self.settings['game'])
            else:
                self.open_menu()
            return
        if key == k.back:
            if self.mode == MENU and self.s is not None:
                self.mode = OVER if self.s.outcome() is not None else PLAY
                self.view.reset(pieces=(self.g.name == 'bagh-chal'))
                self.changed()
            elif self.sel >= 0:
                self.sel = -1
                self.changed()
            return
        if key >= self.profile.n_keys:
            return
        if self.mode == MENU:
            r, c = self.profile.positions[key]
            if self.menu.press(r, c):
                self.apply_brightness()
                self.save_settings()
                self.changed()
            else:
                self.flash(key)
            return
        if self.mode != PLAY or self._board_to_move() or self._host_to_move():
            self.flash(key)
            return
        cell = self.cell_of_key[key]
        if cell == NONE:
            self.flash(key)
            return
        if self.sel >= 0:
            if cell == self.sel:
                self.sel = -1
                self.changed()
                return
            for tgt, m in self.starts[self.sel]:
                if tgt == cell:
                    self.play(m)
                    return
        if cell in self.direct:
            self.play(self.direct[cell])
        elif cell in self.starts:
            self.sel = cell
            self.changed()
        else:
            self.flash(key)

    def open_menu(self):
        self.mode = MENU
        self.sel = -1
        self.view.reset()
        self.changed()

    # -- drawing ------------------------------------------------------------------------
    def draw(self):
        v = self.view
        self.redraw = False
        if self.mode == MENU:
            self.menu.draw(v)
            if self.flash_key >= 0:
                v.cell(self.flash_key, 0, V.BG_BAD)
            self._low_warning()
            return
        p = self.profile
        cok = self.cell_of_key
        sh = self.shown
        oware = self.g.name == 'oware'
        for key in range(p.n_keys):
            cell = cok[key]
            if key == self.flash_key:
                bg = V.BG_BAD
            elif cell == NONE:
                v.cell(key, 0, V.BG_OFF)
                continue
            else:
                bg = self._bg(cell, oware)
            if cell == NONE:
                v.cell(key, 0, bg)
            else:
                v.cell(key, sh[cell], bg, V.MARK_DROP if cell == self.mark else 0)
        if self.g.name == 'bagh-chal':
            pos = self.s.position
            v.spare_bar(True, pos.hand, V.C_GOAT, 0xFFA030)
            v.spare_bar(False, pos.captured, 0xFF2020)
            turn = self.anim_mover if self.anim is not None else pos.turn
            v.px.set_pixel(v.spare_col, v.spare_row, V.C_GOAT if turn == 0 else V.C_TIGER)
        self._low_warning()

    def _owner(self, cell, oware):
        if self.g.name == 'bawo':
            return cell >> 4
        if oware:
            return cell // 6 if cell < 12 else cell - 12
        v = self.shown[cell]
        return 0 if v == V.GOAT else (1 if v == V.TIGER else -1)

    def _bg(self, cell, oware):
        if self.anim is not None:
            if cell == self.intro:
                return V.BG_BOARD if self.intro_on else 0
            if cell == self.capt:
                return V.BG_CAPTURE
            if cell == self.hand:
                return V.BG_HAND
            return V.BG_TURN if self._owner(cell, oware) == self.anim_mover and not oware else (
                V.BG_STORE if oware and cell >= 12 else 0)
        if oware and cell >= 12:
            return V.BG_STORE
        if self.mode == OVER:
            out = self.s.outcome()
            if not self.blink:
                return 0
            o = self._owner(cell, oware)
            if out.winner is None:
                return V.BG_DRAW if o >= 0 else 0
            if o < 0:
                return 0
            return V.BG_WIN if o == out.winner else V.BG_LOSE
        if cell == self.sel:
            return V.BG_SELECT
        if self.sel >= 0:
            for tgt, m in self.starts[self.sel]:
                if tgt == cell:
                    return V.BG_TARGET if self.blink else V.BG_SELECT >> 2 & 0x3F3F3F
        if self._owner(cell, oware) == self.s.turn and self.g.name != 'bagh-chal':
            return V.BG_TAKATA if self.takata else V.BG_TURN
        if self.g.name == 'bagh-chal' and cell in self.starts and self.sel < 0:
            return V.BG_TURN
        return 0

    def _low_warning(self):
        if self.journal.low and self.blink:
            p = self.profile
            for k in (0, p.grid_cols - 1, p.n_keys - p.grid_cols, p.n_keys - 1):
                self.view.corner_dot(k, V.BG_LOW)

    # -- the loop -----------------------------------------------------------------------
    def step(self, now):
        """One pass of the main loop at ticks `now`."""
        self.now = now
        k = self.keys
        k.scan(now)
        while True:
            ev = k.get()
            if ev is None:
                break
            if ev & PRESSED:
                self.on_press(ev & KEY_MASK)
        if self.anim is not None:
            if self.intro >= 0:
                on = 1 - ticks_diff(now, self.intro_until) // BOARD_BLINK_MS % 2
                if on != self.intro_on:
                    self.intro_on = on
                    self.redraw = True
            while self.anim is not None and ticks_diff(now, self.anim_at) >= 0:
                if self.intro >= 0:
                    self.intro = -1
                    self.redraw = True
                    continue
                if self.anim_i >= len(self.anim):
                    self._anim_done()
                else:
                    self._anim_step()
                    if self.anim_at != now:
                        break
        elif self._board_to_move() and ticks_diff(now, self.board_at) >= 0:
            self._think()
        if self.flash_key >= 0 and ticks_diff(now, self.flash_until) >= 0:
            self.flash_key = -1
            self.redraw = True
        if ticks_diff(now, self.blink_at) >= 0:
            self.blink ^= 1
            self.blink_at = ticks_add(now, BLINK_MS)
            if self.sel >= 0 or self.mode == OVER or self.journal.low:
                self.redraw = True
        if self.redraw:
            self.draw()
        self.view.show()
        if self.link is not None:
            self.link.poll()

    def attach_link(self, read, write):
        try:
            import link
        except ImportError:
            return None
        from handler import Handler
        self.link = link.Link(read, write, Handler(self), now_ms=self.board.ticks_ms)
        return self.link

    def run(self, sleep_ms=1):
        import time
        while True:
            self.step(self.board.ticks_ms())
            if sleep_ms:
                # CircuitPython's time has no sleep_ms.
                time.sleep_ms(sleep_ms) if hasattr(time, 'sleep_ms') else time.sleep(sleep_ms / 1000)


def board_id():
    from binascii import hexlify
    try:
        import machine
        return 'pico-' + hexlify(machine.unique_id()).decode()[-8:]
    except (ImportError, AttributeError):
        pass
    try:  # CircuitPython has no machine module: the same flash chip id, from microcontroller
        import microcontroller
        return 'pico-' + hexlify(microcontroller.cpu.uid).decode()[-8:]
    except (ImportError, AttributeError):
        return None


def main(board, root='/games'):
    """Run the board (main.py builds `board` first, while the heap is still empty)."""
    j = Journal(root, board_id() or 'board')
    app = App(board, j, j.board_id)
    try:
        import link
        r, w = link.stdio()
        app.attach_link(r, w)
    except ImportError:
        pass
    app.boot()
    app.run()
