# The board's application: menu, play, animation, journal and the host link, in one
# cooperative loop (no threads): scan keys, advance the animation by ticks, poll the link.
# Every move goes through play(): the engine computes it in RAM, the journal makes it
# durable, and only then does the animation start (docs/visual-language.md).
import gc
import sys
from compat import const, ticks_diff, ticks_add, ticks_ms, forget
from keys import PRESSED, KEY_MASK
import view as V
from journal import unload_records
from appconst import MENU, PLAY, OVER, NONE, BOARD_MOVE_MS, AI_MODULES
from opponent import make_opponent, with_book
import shared_rules
from shared_rules import GAMES, winner_name, fits
from shared_rules.errors import RulesError
from shared_rules import events as E

# Milliseconds per seed for speed levels 1..8 (index 0 unused); level 8 is instant.
SPEED_MS = (0, 700, 450, 300, 200, 120, 70, 35, 0)
FLASH_MS = const(350)
BLINK_MS = const(450)
BOARD_SHOW_MS = const(1200)  # the start pocket of a move the board plays blinks this long,
BOARD_BLINK_MS = const(200)  # on and off at this pace, before its sowing is animated
EVENTS = const(1000)         # the event buffer's capacity (3 bytes each)


def _run(part, fn, *args):
    # A part of the app used for a moment (a game's start or end, the settings file, a
    # hint): imported for the call and forgotten after it, so that between those moments its
    # bytecode is heap the game and a sync can use. A part that calls back into the App while
    # it runs (start.new_game -> App._setup) finds itself still imported: one load a call.
    outer = part not in sys.modules
    m = __import__(part)
    try:
        return getattr(m, fn)(*args)
    finally:
        if outer:
            forget(part)


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
        at = self.n * 3
        b = self.b
        b[at] = ev[0]
        b[at + 1] = ev[1] & 0xFF   # DIRECTION's -1 comes back as 255; it is not drawn
        b[at + 2] = ev[2] & 0xFF
        self.n += 1

    def __len__(self):
        return self.n


class App:
    def __init__(self, board, journal, board_id, hook=None, settings=None):
        self.board = board
        self.profile = profile = board.profile
        self.keys = board.keys
        self.view = V.View(board.pixels, profile)
        self.journal = journal
        self.board_id = board_id
        self.hook = hook            # hook(kind, data): the simulator's window on the app
        # The profile's games whose layout fits its grid, in its order.
        r, c = profile.grid_rows, profile.grid_cols
        self.games = [n for n in profile.games if n in GAMES and fits(n, r, c)]
        if not self.games:
            raise ValueError("profile field 'games': none of %s fits a %dx%d grid"
                             % (', '.join(profile.games), profile.grid_rows, profile.grid_cols))
        self.evbuf = EventBuf(EVENTS)   # the long-lived buffers before the passing parts
        self._turn = 0              # draw()'s and the animation's, set here: an attribute
        self.anim_mover = 0         # added later grows this object's table (1 KB at once)
        self.settings = _run('settings', 'load', journal, settings)
        if self.settings.get('game') not in self.games:
            self.settings['game'] = self.games[0]
        gc.collect()   # the settings' code gone before the rest settles
        self.menu = None            # the menu's code is on the heap only while it is open
        self.link = None
        self.epoch_s = -1           # epoch seconds at tick epoch_ref, once a host set the time
        self.epoch_ref = 0
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
        self.cell_of_key = bytearray(profile.n_keys)
        self.key_of_cell = bytearray(32)
        self.shown = bytearray(32)
        self.starts = {}
        self.direct = {}
        self.sel = -1
        self.hint_move = -1         # the move a hint lights (its start is self.sel), else -1
        self.hints = 0              # hints asked for in this game (the record says so)
        self.takata = False
        self.flash_key = -1
        self.flash_until = 0
        self.flashes = 0
        self.blink = 0
        self.now = board.ticks_ms()
        self.blink_at = self.now
        self.anim = None
        self.anim_i = 0
        self.anim_at = 0
        self.hand = -1
        self.mark = -1
        self.capt = -1
        self.board_at = 0
        self.redraw = True
        self.settings_due = False   # a menu press changed them: written after its frame
        self.version = 0            # bumped on every visible change (simulator status)
        self.message = ''
        self.behind = False         # a full flash: see full()
        self.unarchived = False
        self.recorded = True        # the game's record is written (or kept, unarchived)
        self.unresumed = False      # the journaled game could not be replayed at power-on
        self.freed = 0              # journal.freed when save() was last tried
        self.apply_brightness()

    # -- settings ---------------------------------------------------------------------
    def save_settings(self):
        _run('settings', 'save', self.journal, self.settings)

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

    # -- boot and games: their code in start.py and finish.py ----------------------------
    def boot(self):
        """Resume the journaled game if there is one, else open the menu."""
        self.journal.make_room()
        unload_records(self.journal)   # the journal's check of the records is done: resume needs the room
        gc.collect()
        if _run('start', 'boot', self):
            gc.collect()   # the start's code gone before the menu's comes
            self.open_menu()

    def resume_kept(self):
        """BACK in the menu while the journaled game power-on had no room for is only on
        flash: its replay tried again."""
        return _run('start', 'retry', self)

    def _setup(self, header):
        _run('start', 'setup', self, header)

    def _new_opponent(self):
        # The board's side of this game: its AI at the header's level, the book where it plays.
        h = self.header
        ai = make_opponent(self.g, h.get('level', 3), h.get('seed', 1), self._think_poll, self.say)
        return with_book(ai, self.g.name, h, self.board_side)

    def new_game(self, name, position=None, opponent=None):
        """Start a game (archiving an unfinished one). A bad game or position raises
        ValueError (RulesError) before anything changes: the game in progress goes on. False,
        with the menu open, while the game before is not on flash (flash full: sync first)."""
        unload_records(self.journal)   # a sync's code makes room for the start's
        gc.collect()
        if self.link is not None:
            self.link.rest()   # no host talking (a game from MENU): the game has its room
        return _run('start', 'new_game', self, name, position, opponent)

    def _record_text(self):
        return _run('finish', 'record_text', self)

    def _finish(self):
        _run('finish', 'finish', self)

    # -- a full flash -------------------------------------------------------------------
    # A write that fails (OSError: ENOSPC on a full littlefs) never stops the board: the
    # game goes on in RAM, `behind` says cur.jnl lacks some of it, `unarchived` that the
    # finished game's record is not on flash. Both are written as soon as a file is removed
    # (a sync's ACK_GAME lets make_room delete synced games); until then the board shows
    # "flash full, sync me" and starts no new game over an unsaved one.
    def full(self):
        return self.behind or self.unarchived

    def _unsaved(self, e):
        # Marked before anything that allocates: on a tight heap the message may fail, and
        # a move appended after one missing would leave a gap that no power-on replays.
        told = self.full()
        self.behind = True
        self.freed = self.journal.freed
        self.changed()
        if not told:
            try:
                self.say('flash full (%s): the game goes on, sync the board (bawo sync) '
                         'to save it' % e)
            except MemoryError:
                pass

    def save(self):
        """Write what RAM holds and the flash lacks. True when the flash is up to date."""
        return not self.full() or _run('finish', 'save', self)

    def set_time(self, t):
        """A host's clock (TIME, epoch seconds). Kept as the seconds at a tick and moved on
        with ticks_diff, never read off the raw ticks: they wrap (every 2**30 ms, 12 days, on
        a Pico; 2**29 on CircuitPython), and a start time from them jumped back by as much."""
        self.epoch_s = t
        self.epoch_ref = self.now

    def _epoch(self):
        # The clock moved on to now, whole seconds at a time: the tick difference it measures
        # stays far below half the wrap as long as the loop runs (step() calls it).
        d = ticks_diff(self.now, self.epoch_ref) // 1000
        if d > 0:
            self.epoch_s += d
            self.epoch_ref = ticks_add(self.epoch_ref, d * 1000)
        return self.epoch_s

    def start_time(self):
        if self.epoch_s < 0:
            return None
        import time
        t = time.gmtime(self._epoch())
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
            target = g.move_cell(m, t, True)
            if target < 0:
                direct[g.move_cell(m, t)] = m
            else:
                starts.setdefault(g.move_cell(m, t), []).append((target, m))
        self.starts = starts
        self.direct = direct
        self._sync_shown()

    def _sync_shown(self):
        pos = self.s.position
        shown = self.shown
        b = pos.board
        for i in range(len(b)):
            shown[i] = b[i]
        g = self.g
        for i in range(g.stores):   # Oware's, after its pits
            shown[g.cells + i] = pos.stores[i]
        self.hand = self.mark = self.capt = -1
        self.changed()

    def room_for_records(self):
        """A host syncs (LIST, GET, ACK_GAME) between the board's moves: the records' code
        (archive.py) takes the room the board's AI has while it plays; the AI comes back at
        the board's next move (_think), which drops the records' code in turn."""
        if self.opponent is not None and not self.thinking:
            self._shed(records=False)

    def _board_to_move(self):
        return (self.mode == PLAY and self.board_side >= 0 and self.s.outcome() is None
                and (self.board_side == 2 or self.s.turn == self.board_side))

    def _host_to_move(self):
        return self.mode == PLAY and self.s.turn == self.host_side and self.s.outcome() is None

    def _think(self):
        """The board's move: search, then play it, unless MENU/BACK or the link stopped it."""
        _run('think', 'think', self)

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
            try:
                self.draw()
            except MemoryError:
                # A full heap costs this frame, never the board: drawn again next loop.
                self.redraw = True
                gc.collect()
        self.view.show()
        if self.link is not None:
            self.link.poll()
        return self.abort_key >= 0 or self.abort_think

    def play(self, move, intro=False):
        """Play a legal move: journal first, then animate. On a full flash the move is
        played all the same and kept in RAM (see full()); True.
        intro: a move the person did not press (board or host): its start blinks first."""
        s = self.s
        mover = s.turn
        # The pocket (point) the move starts from blinks first.
        start = self.g.move_cell(move, mover) if intro else -1
        text = s.move_str(move)
        animate = SPEED_MS[self.settings['speed']] > 0
        events = self.evbuf
        events.clear()
        s.push(move, events if animate else False)
        if not self.behind:
            j = self.journal
            try:
                if 0 <= j.plies < s.ply - 1:
                    # Lines a full heap kept off the flash at an earlier move (MemoryError
                    # comes before a byte is written): appended now, in order, with this one.
                    for m in s.iter_moves(j.plies):
                        self._journal(j.plies + 1, m)
                else:
                    self._journal(s.ply, text)
            except MemoryError:
                pass   # not written: the next move appends it (journal.plies says how far)
            except (OSError, ValueError) as e:
                self._unsaved(e)   # the line may be half written: rewritten whole later
        # The move is on flash: what follows must not kill the board for want of memory.
        # Once, the board's AI (made again at its next move) and the records' code go to
        # make room, and it is done again (each step of it is safe to do twice).
        told = False
        for attempt in (0, 1):
            try:
                if not told:
                    over = s.outcome() is not None
                    self.event('move', {'id': self.header['id'], 'ply': s.ply, 'move': text,
                                        'position': self.g.format(s.position)})
                    told = True
                if over and self.mode != OVER:
                    self._finish()
                self._after_move(start, mover, animate and len(events))
                return True
            except MemoryError:
                if attempt:
                    raise
                self._shed()

    def _journal(self, ply, text):
        self.journal.append(ply, text)
        if self.hook:
            self.hook('journal', (ply, text))

    def _after_move(self, start, mover, animated):
        self.sel = -1
        self.hint_move = -1
        self.starts.clear()
        self.direct.clear()
        if start >= 0:
            self.intro = start
            self.intro_on = 1
            self.intro_until = ticks_add(self.now, BOARD_SHOW_MS)
        if animated or start >= 0:
            self.anim = self.evbuf
            self.anim_i = 0
            self.anim_at = self.intro_until if start >= 0 else self.now
            self.anim_mover = mover
            self.changed()
        else:
            self._anim_done()

    def _shed(self, records=True):
        # What the board can make again: its AI (at its next move) and the records' code.
        self.opponent = None
        if self.g is not None:
            shared_rules.unload(keep=self.g.name, also=AI_MODULES)
        if records:
            unload_records(self.journal)
        gc.collect()

    def event(self, kind, data):
        if self.link is not None:
            try:
                self.link.send_event(kind, data)
            except Exception as e:  # the game must go on without a host
                print('bawo: link event failed:', e)

    # -- animation ----------------------------------------------------------------------
    def _anim_step(self):
        at = self.anim_i * 3
        eb = self.anim.b
        code, a, b = eb[at], eb[at + 1], eb[at + 2]
        self.anim_i += 1
        shown = self.shown
        ms = SPEED_MS[self.settings['speed']]
        wait = ms
        if code == E.PICKUP:
            shown[a] = 0
            self.hand = a
            self.mark = -1
            self.capt = -1
            wait = ms * 2
        elif code == E.DROP:
            shown[a] = b
            self.mark = a
        elif code == E.CAPTURE:
            shown[a] = 0
            self.capt = a
            self.mark = -1
            wait = ms * 3
        elif code == E.RELAY:
            shown[a] = 0
            self.hand = a
            self.mark = -1
            wait = ms * 2
        elif code == E.STORE:
            shown[self.g.cells + a] += b
            wait = ms * 2
        elif code == E.SWEEP:   # a row emptied at the end: its STORE follows in this frame
            for i in range(a * 6, a * 6 + 6):
                shown[i] = 0
            wait = 0
        elif code == E.PLACE:
            shown[a] = V.GOAT
            self.mark = a
        elif code == E.STEP or code == E.JUMP:
            shown[b] = shown[a]
            shown[a] = 0
            self.hand = a
            self.mark = b
        elif code == E.TAKE:
            shown[a] = 0
            self.capt = a
            wait = ms * 2
        else:
            wait = 0
        self.anim_at = ticks_add(self.now, wait)
        self.redraw = True

    def skip(self):
        """A press (or a link request) during an animation: jump to the end of the move."""
        if self.anim is not None:
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
            self.skip()   # and the press counts: the person already saw whose turn it is
        if self.mode == MENU:
            # The open menu takes its presses (menu.py): its code is on the heap only then.
            try:
                m = self._load_menu()
            except MemoryError:
                gc.collect()
                m = None
            if m is not None:
                m.key(self, key)
            elif key == k.menu:
                self.new_game(self.settings['game'])   # no room for the menu: a game still starts
            return
        if key == k.menu:
            if k.back >= 0 and k.is_pressed(k.back) and self.mode == PLAY:
                self.show_hint()   # BACK held, MENU pressed: a hint, not the menu
            else:
                self.open_menu()
            return
        if key == k.back:
            if self.sel >= 0:
                self.sel = -1
                self.changed()
            return
        if key >= self.profile.n_keys:
            return
        hint = self.hint_move
        self.hint_move = -1   # a pocket press: the hint has been seen
        if self.mode != PLAY or self._board_to_move() or self._host_to_move():
            self.flash(key)
            return
        cell = self.cell_of_key[key]
        if cell == NONE:
            self.flash(key)
            return
        if self.sel >= 0:
            if cell == self.sel:
                if hint >= 0 and self.direct.get(cell) == hint:
                    self._answer(key, cell)
                    self.play(hint)   # a hinted one-press move: pressing it plays it
                    return
                self.sel = -1
                self.changed()
                return
            for tgt, m in self.starts[self.sel]:
                if tgt == cell:
                    self._answer(key, cell)
                    self.play(m)
                    return
        if cell in self.direct:
            self._answer(key, cell)
            self.play(self.direct[cell])
        elif cell in self.starts:
            self.sel = cell
            self.changed()
        else:
            self.flash(key)

    def _answer(self, key, cell):
        # A press that plays a move is answered at once: its pocket lit as pressed goes out
        # first, then the move is played and journaled (on a Pico that is the rules engine,
        # the journal's flash write - 45 ms when it erases a sector - and the game-over
        # check) and only then animated, so a move is still journaled before its animation.
        self.view.cell(key, self.shown[cell], V.BG_SELECT)
        self.view.show()

    def show_hint(self):
        _run('hint', 'show', self)

    def playing(self):
        """True while a game is on the board and its moves can be played (not in the menu)."""
        return self.s is not None and self.mode != MENU

    def legal_move(self, text):
        """The legal move `text` names in the game's position; RulesError says why not."""
        s = self.s
        move = s.parse_move(text)
        if move not in s.legal_moves:
            raise RulesError('illegal move %s' % text)
        return move

    def moves(self, first=0):
        """The game's moves from ply first + 1 on, as text, one at a time (none without a
        game)."""
        return iter(()) if self.s is None else self.s.iter_moves(first)

    def snapshot(self, moves=True, legal=False):
        """The board as the link handler, the simulator and the host read it, a new dict:
        mode ('menu', 'play', 'over'), flash state, selection, message, settings, and with a
        game its name, id, position text ('pos'), side to move, ply, opponent, set-up
        position ('root', only for one), result and reason once over; `moves` the moves
        played, `legal` the legal moves' texts."""
        d = {'mode': ('menu', 'play', 'over')[self.mode], 'low': self.journal.low,
             'full': self.full(), 'sel': self.sel, 'flashes': self.flashes,
             'anim': self.anim is not None, 'msg': self.message, 'settings': self.settings,
             'games': self.games}
        s = self.s
        if s is None:
            return d
        g = self.g
        h = self.header
        d['game'] = g.name
        d['id'] = h['id']
        d['pos'] = g.format(s.position)
        d['ply'] = s.ply
        if moves:
            d['moves'] = s.moves
        if legal:
            d['legal'] = s.legal_move_strs()
        d['turn'] = g.sides[s.turn]
        d['takata'] = self.takata
        d['opponent'] = h.get('opponent', 'people')
        if h.get('position'):
            d['root'] = h['position']
        info = getattr(self.opponent, 'last_info', None)
        if info:
            d['ai'] = info
        if self.thinks:
            d['thinks'] = [self.thinks, self.think_ms, self.think_max]
        out = s.outcome()
        if out is not None:
            w = winner_name(g, out)
            d['result'] = 'draw' if w is None else w
            d['reason'] = out.reason
        return d

    def open_menu(self):
        self.mode = MENU
        self.sel = -1
        self.view.reset()
        self.changed()
        try:
            self._load_menu()
        except MemoryError:
            gc.collect()   # drawn (and pressed) once there is room: draw() asks again

    def _load_menu(self):
        if self.menu is None:
            from menu import Menu
            self.menu = Menu(self.profile, self.games, self.settings)
        return self.menu

    def close_menu(self):
        # Left for a game: the menu's code goes until MENU opens it again.
        self.menu = None
        forget('menu')

    # -- drawing ------------------------------------------------------------------------
    def draw(self):
        v = self.view
        self.redraw = False
        if self.mode == MENU:
            self._load_menu().draw(v)
            if self.flash_key >= 0:
                v.cell(self.flash_key, 0, V.BG_BAD)
            self._low_warning()
            return
        profile = self.profile
        cell_of_key = self.cell_of_key
        shown = self.shown
        oware = self.g.name == 'oware'
        # Locals and once-a-draw values: this loop runs 32 times a frame, and on a Pico
        # each attribute or property lookup in it costs microseconds.
        self._turn = self.s.turn
        cell_at = v.cell
        bg_of = self._bg
        fk = self.flash_key
        mark = self.mark
        bad = V.BG_BAD
        off = V.BG_OFF
        drop = V.MARK_DROP
        for key in range(profile.n_keys):
            cell = cell_of_key[key]
            if key == fk:
                bg = bad
            elif cell == NONE:
                cell_at(key, 0, off)
                continue
            else:
                bg = bg_of(cell, oware)
            if cell == NONE:
                cell_at(key, 0, bg)
            else:
                cell_at(key, shown[cell], bg, drop if cell == mark else 0)
        if self.g.name == 'bagh-chal':
            pos = self.s.position
            v.spare_bar(True, pos.hand, V.C_GOAT, 0xFFA030)
            v.spare_bar(False, pos.captured, 0xFF2020)
            turn = self.anim_mover if self.anim is not None else pos.turn
            v.px.set_pixel(v.spare_col, v.spare_row, V.C_GOAT if turn == 0 else V.C_TIGER)
        self._low_warning()

    def _bg(self, cell, oware):
        if self.anim is not None:
            if cell == self.intro:
                return V.BG_BOARD if self.intro_on else 0
            if cell == self.capt:
                return V.BG_CAPTURE
            if cell == self.hand:
                return V.BG_HAND
            if not oware and self.g.owner(cell, self.shown[cell]) == self.anim_mover:
                return V.BG_TURN
            return V.BG_STORE if cell >= self.g.cells else 0
        if cell >= self.g.cells:
            return V.BG_STORE
        if self.mode == OVER:
            out = self.s.outcome()
            if not self.blink:
                return 0
            side = self.g.owner(cell, self.shown[cell])
            if out.winner is None:
                return V.BG_DRAW if side >= 0 else 0
            if side < 0:
                return 0
            return V.BG_WIN if side == out.winner else V.BG_LOSE
        if cell == self.sel:
            return V.BG_SELECT
        if self.sel >= 0:
            for tgt, m in self.starts.get(self.sel, ()):
                if tgt == cell and (self.hint_move < 0 or m == self.hint_move):
                    return V.BG_TARGET if self.blink else V.BG_SELECT >> 2 & 0x3F3F3F
        if self.g.owner(cell, self.shown[cell]) == self._turn and self.g.name != 'bagh-chal':
            return V.BG_TAKATA if self.takata else V.BG_TURN
        if self.g.name == 'bagh-chal' and cell in self.starts and self.sel < 0:
            return V.BG_TURN
        return 0

    def _low_warning(self):
        full = self.full()
        if (full or self.journal.low) and self.blink:
            cols = self.profile.grid_cols
            n = self.profile.n_keys
            for k in (0, cols - 1, n - cols, n - 1):
                self.view.corner_dot(k, V.BG_FULL if full else V.BG_LOW)

    # -- the loop -----------------------------------------------------------------------
    def step(self, now):
        """One pass of the main loop at ticks `now`. A pass that finds no room sheds what
        the board can make again (its AI, the records' code) and the next pass goes on: a
        full heap costs a pass, never the board (the journal has every move it played)."""
        try:
            self._pass(now)
        except MemoryError:
            self._shed()
            self.redraw = True
        # The link apart from the pass: a pass that keeps finding no room must not leave the
        # board deaf to a host (a sync is what frees the flash and, through the AI's shedding,
        # the heap). The link copes with a full heap itself (NAK, or the reply kept).
        if self.link is not None:
            self.link.poll()

    def _pass(self, now):
        self.now = now
        k = self.keys
        k.scan(now)
        while True:
            ev = k.get()
            if ev is None:
                break
            if ev & PRESSED:
                key = ev & KEY_MASK
                try:
                    self.on_press(key)
                except MemoryError:
                    # No room to take the press (a move is played before anything that may
                    # fail for room after it): room is made, and a pocket flashes red as for
                    # any press the board does not take, so the person presses it again.
                    self._shed()
                    if key < self.profile.n_keys:
                        self.flash(key)
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
        if self.full() and self.journal.freed != self.freed:
            self.freed = self.journal.freed   # a file went (a sync): room may be back
            self.save()
        if ticks_diff(now, self.blink_at) >= 0:
            if self.epoch_s >= 0:
                self._epoch()
            self.blink ^= 1
            self.blink_at = ticks_add(now, BLINK_MS)
            if self.sel >= 0 or self.mode == OVER or self.journal.low or self.full():
                self.redraw = True
        if self.redraw:
            try:
                self.draw()
            except MemoryError:
                # A full heap costs this frame, never the board: drawn again next loop.
                self.redraw = True
                gc.collect()
        self.view.show()
        if self.settings_due:   # the flash write (~8 ms on a Pico) after the frame it changed
            self.settings_due = False
            self.save_settings()

    def attach_link(self, read, write):
        try:
            import link
        except ImportError:
            return None
        # The handler (and the protocol) only while a host talks: link.Link sleeps.
        self.link = link.Link(read, write, make_handler=self._handler, now_ms=self.board.ticks_ms)
        return self.link

    def _handler(self):
        from handler import Handler
        return Handler(self)

    def run(self, sleep_ms=1):
        import time
        while True:
            self.step(self.board.ticks_ms())
            if sleep_ms:
                # CircuitPython's time has no sleep_ms.
                time.sleep_ms(sleep_ms) if hasattr(time, 'sleep_ms') else time.sleep(sleep_ms / 1000)

