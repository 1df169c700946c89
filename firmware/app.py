# The board's application: menu, play, animation, journal and the host link, in one
# cooperative loop (no threads): scan keys, advance the animation by ticks, poll the link.
# Every move goes through play(): the engine computes it in RAM, the journal makes it
# durable, and only then does the animation start (docs/visual-language.md). What the LEDs
# show is render.py's, from the App's Scene; the showing of a move is animator.py's.
import gc
from compat import const, ticks_diff, ticks_add, forget, run_part
from keys import PRESSED, KEY_MASK
import view as V
from journal import unload_records
from appconst import MENU, PLAY, OVER, NONE, BOARD_MOVE_MS, AI_MODULES
import shared_rules
from shared_rules import GAMES, fits
from shared_rules.errors import RulesError
from animator import Animator, SPEED_MS
import render
from render import Scene, set_position, show_position

FLASH_MS = const(350)
BLINK_MS = const(450)


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
        self.anim = Animator()   # the long-lived buffers before the passing parts
        self.scene = Scene(profile.n_keys, self.anim)   # what the LEDs show (render.py)
        self.settings = run_part('settings', 'load', journal, settings)
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
        self.thinks = 0             # searches finished, their total and longest real time
        self.think_ms = 0
        self.think_max = 0
        self.key_of_cell = bytearray(32)
        self.direct = {}            # cell -> the move one press there plays
        self.hints = 0              # hints asked for in this game (the record says so)
        self.flash_until = 0
        self.flashes = 0
        self.now = board.ticks_ms()
        self.blink_at = self.now
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
        run_part('settings', 'save', self.journal, self.settings)

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
        if run_part('start', 'boot', self):
            gc.collect()   # the start's code gone before the menu's comes
            self.open_menu()

    def resume_kept(self):
        """BACK in the menu while the journaled game power-on had no room for is only on
        flash: its replay tried again."""
        return run_part('start', 'retry', self)

    def _setup(self, header):
        run_part('start', 'setup', self, header)

    def _new_opponent(self):
        # The board's side of this game (opponent.py): on the heap with the AI it makes, and
        # dropped with it (AI_MODULES).
        import opponent
        return opponent.new(self.g, self.header, self.board_side, self._think_poll, self.say)

    def new_game(self, name, position=None, opponent=None):
        """Start a game (archiving an unfinished one). A bad game or position raises
        ValueError (RulesError) before anything changes: the game in progress goes on. False,
        with the menu open, while the game before is not on flash (flash full: sync first)."""
        unload_records(self.journal)   # a sync's code makes room for the start's
        gc.collect()
        if self.link is not None:
            self.link.rest()   # no host talking (a game from MENU): the game has its room
        return run_part('start', 'new_game', self, name, position, opponent)

    def _record_text(self):
        return run_part('finish', 'record_text', self)

    def _finish(self):
        run_part('finish', 'finish', self)

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
        return not self.full() or run_part('finish', 'save', self)

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
        self.direct = set_position(self.scene, self.g, self.s)
        self.changed()

    def _sync_shown(self):
        show_position(self.scene, self.g, self.s.position)
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
        run_part('think', 'think', self)

    def _think_poll(self):
        # Called by the search every 16 nodes: the loop's keys, flashes and link go on.
        now = self.board.ticks_ms()
        self._keys(now, True)
        self._frame(now)
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
        events = self.anim
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
        sc = self.scene
        sc.sel = -1
        sc.hint_move = -1
        sc.starts.clear()
        self.direct.clear()
        if animated or start >= 0:
            self.anim.begin(self.now, mover, start)
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

    # -- animation (animator.py) ------------------------------------------------------
    def skip(self):
        """A press (or a link request) during an animation: jump to the end of the move."""
        if self.anim.on:
            self._anim_done()

    def _anim_done(self):
        self.anim.end()
        if self.mode == PLAY:
            self._position_changed()
            self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
        else:
            self._sync_shown()
        self.changed()

    def busy(self):
        """True while something will happen without a press (simulator: not idle)."""
        return (self.anim.on or self.scene.flash_key >= 0 or self._board_to_move()
                or self.keys.pending() > 0)

    def next_due(self):
        """Milliseconds until the next timed step, or None when only presses matter."""
        best = None
        if self.anim.on:
            best = self.anim.due_in(self.now)
        elif self._board_to_move():
            best = ticks_diff(self.board_at, self.now)
        if self.scene.flash_key >= 0:
            d = ticks_diff(self.flash_until, self.now)
            best = d if best is None or d < best else best
        return None if best is None else max(0, best)

    # -- presses ------------------------------------------------------------------------
    def flash(self, key):
        self.scene.flash_key = key
        self.flash_until = ticks_add(self.now, FLASH_MS)
        self.flashes += 1
        self.changed()

    def on_press(self, key):
        k = self.keys
        sc = self.scene
        if self.anim.on:
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
            if sc.sel >= 0:
                sc.sel = -1
                self.changed()
            return
        if key >= self.profile.n_keys:
            return
        hint = sc.hint_move
        sc.hint_move = -1   # a pocket press: the hint has been seen
        if self.mode != PLAY or self._board_to_move() or self._host_to_move():
            self.flash(key)
            return
        cell = sc.cell_of_key[key]
        if cell == NONE:
            self.flash(key)
            return
        if sc.sel >= 0:
            if cell == sc.sel:
                if hint >= 0 and self.direct.get(cell) == hint:
                    self._answer(key, cell)
                    self.play(hint)   # a hinted one-press move: pressing it plays it
                    return
                sc.sel = -1
                self.changed()
                return
            for tgt, m in sc.starts[sc.sel]:
                if tgt == cell:
                    self._answer(key, cell)
                    self.play(m)
                    return
        if cell in self.direct:
            self._answer(key, cell)
            self.play(self.direct[cell])
        elif cell in sc.starts:
            sc.sel = cell
            self.changed()
        else:
            self.flash(key)

    def _answer(self, key, cell):
        # A press that plays a move is answered at once: its pocket lit as pressed goes out
        # first, then the move is played and journaled (on a Pico that is the rules engine,
        # the journal's flash write - 45 ms when it erases a sector - and the game-over
        # check) and only then animated, so a move is still journaled before its animation.
        self.view.cell(key, self.scene.shown[cell], V.BG_SELECT)
        self.view.show()

    def show_hint(self):
        run_part('hint', 'show', self)

    def playing(self):
        """True while a game is on the board and its moves can be played (not in the menu)."""
        return self.s is not None and self.mode != MENU

    def legal_move(self, text):
        """The legal move `text` names in the game's position; RulesError says why not."""
        s = self.s
        move = s.parse_move(text)
        if move not in s.legal_moves:
            # The rules' reason (a pocket too small, a capture due), for the person to read.
            raise RulesError(self.g._why_illegal(s.position, move))
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
        try:
            return run_part('snapshot', 'take', self, moves, legal)
        except MemoryError:
            # No room to load its code: a sync's records code goes first (it comes back at
            # the next LIST or GET), as the AI goes for a sync (room_for_records).
            unload_records(self.journal)
            gc.collect()
            return run_part('snapshot', 'take', self, moves, legal)

    def open_menu(self):
        self.mode = MENU
        self.scene.sel = -1
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

    # -- drawing (render.py) ------------------------------------------------------------
    def draw(self):
        # The scene is lent the game and the open menu for this frame only: kept between
        # frames they would hold a game's engine that a NEW has let go of on the heap.
        self.redraw = False
        sc = self.scene
        sc.mode = self.mode
        sc.menu = self._load_menu() if self.mode == MENU else None
        sc.g = self.g
        sc.s = self.s
        sc.warn = 2 if self.full() else 1 if self.journal.low else 0
        try:
            render.draw(self.view, sc)
        finally:
            sc.menu = sc.g = sc.s = None

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

    def _keys(self, now, thinking=False):
        # The presses the debounced scan has seen since the last look. While the board
        # thinks, MENU and BACK stop its search (abort_key) and a pocket flashes red.
        self.now = now
        k = self.keys
        k.scan(now)
        while True:
            ev = k.get()
            if ev is None:
                break
            if not ev & PRESSED:
                continue
            key = ev & KEY_MASK
            if thinking:
                if key == k.menu or key == k.back:
                    self.abort_key = key
                elif key < self.profile.n_keys:
                    self.flash(key)
                continue
            try:
                self.on_press(key)
            except MemoryError:
                # No room to take the press (a move is played before anything that may
                # fail for room after it): room is made, and a pocket flashes red as for
                # any press the board does not take, so the person presses it again.
                self._shed()
                if key < self.profile.n_keys:
                    self.flash(key)

    def _pass(self, now):
        self._keys(now)
        sc = self.scene
        an = self.anim
        if an.on:
            if an.advance(now, sc.shown, self.g.cells, SPEED_MS[self.settings['speed']]):
                if an.on:
                    self.redraw = True
                else:
                    self._anim_done()
        elif self._board_to_move() and ticks_diff(now, self.board_at) >= 0:
            self._think()
        if self.full() and self.journal.freed != self.freed:
            self.freed = self.journal.freed   # a file went (a sync): room may be back
            self.save()
        if ticks_diff(now, self.blink_at) >= 0:
            if self.epoch_s >= 0:
                self._epoch()
            sc.blink ^= 1
            self.blink_at = ticks_add(now, BLINK_MS)
            if sc.sel >= 0 or self.mode == OVER or self.journal.low or self.full():
                self.redraw = True
        self._frame(now)
        if self.settings_due:   # the flash write (~8 ms on a Pico) after the frame it changed
            self.settings_due = False
            self.save_settings()

    def _frame(self, now):
        # A flash that is over goes out, and a changed scene is drawn and sent.
        sc = self.scene
        if sc.flash_key >= 0 and ticks_diff(now, self.flash_until) >= 0:
            sc.flash_key = -1
            self.redraw = True
        if self.redraw:
            try:
                self.draw()
            except MemoryError:
                # A full heap costs this frame, never the board: drawn again next loop.
                self.redraw = True
                gc.collect()
        self.view.show()

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

