# The board's application: one cooperative loop (no threads) that scans the keys, advances
# the animation by ticks, lets the board think, draws and polls the host link. The game in
# progress is the Session's (session.py): every move is played and journaled there before
# it is animated (docs/visual-language.md). The menu, the hint, the board's opponent and the
# link's handler are parts the App hands what they need. What the LEDs show is render.py's,
# from the App's Scene; the showing of a move is animator.py's.
import gc
import sys
from compat import const, ticks_ms, ticks_diff, ticks_add
from keys import PRESSED, KEY_MASK, Hold
import view as V
from appconst import (MENU, PLAY, OVER, NONE, BOARD_MOVE_MS, BOARD_SIDES, PEER_TIMEOUT_MS,
                      HOLD_MS)
from shared_rules import GAMES, fits, game as make_game
from shared_rules.errors import RulesError
from animator import Animator, SPEED_MS
import render
from render import Scene, set_position, show_position, place, remote_blinks
import settings as settings_file
from session import Session, resume, check_board_id
import menu as M
import opponent
import hint
import snapshot

FLASH_MS = const(350)
BLINK_MS = const(450)
KEPT = ('no memory to resume the game in progress: it is kept on flash; '
        'press BACK to try again')


class App:
    def __init__(self, board, journal, board_id, hook=None, settings=None):
        self.board = board
        self.profile = profile = board.profile
        self.keys = board.keys
        self.view = V.View(board.pixels, profile)
        self.journal = journal
        journal.board_id = board_id   # one board id: the games' ids and their records'
        self.hook = hook            # hook(kind, data): the simulator's window on the app
        # The profile's games whose layout fits its grid, in its order.
        r, c = profile.grid_rows, profile.grid_cols
        self.games = [n for n in profile.games if n in GAMES and fits(n, r, c)]
        if not self.games:
            raise ValueError("profile field 'games': none of %s fits a %dx%d grid"
                             % (', '.join(profile.games), profile.grid_rows, profile.grid_cols))
        self.anim = Animator()
        self.scene = Scene(profile.n_keys, self.anim)   # what the LEDs show (render.py)
        self.settings = settings_file.load(journal, settings)
        if self.settings.get('game') not in self.games:
            self.settings['game'] = self.games[0]
        self.menu = M.Menu(profile, self.games, self.settings)
        self.link = None
        self.epoch_s = -1           # epoch seconds at tick epoch_ref, once a host set the time
        self.epoch_ref = 0
        self.mode = MENU
        self.session = None         # the game on the board (session.py)
        self.opponent = None        # the board's side of it, made at its first move
        self.thinking = False
        self.abort_key = -1         # MENU or BACK pressed while the board thought
        self.abort_think = False    # a link request wants the board to stop thinking
        self.thinks = 0             # searches finished, their total and longest real time
        self.think_ms = 0
        self.think_max = 0
        self.direct = {}            # cell -> the move one press there plays
        self.flash_until = 0
        self.flashes = 0
        self.now = board.ticks_ms()
        self.blink_at = self.now
        self.board_at = 0
        self.redraw = True
        self.settings_due = False   # a menu press changed them: written after its frame
        self.version = 0            # bumped on every visible change (simulator status)
        self.message = ''
        self.unresumed = False      # the journaled game could not be replayed at power-on
        self.peer_timeout = PEER_TIMEOUT_MS   # a remote game's away (the simulator may lower it)
        self.hold = Hold(HOLD_MS)   # MENU or BACK held in a host game: the person's offer
        self.seat = None            # a club tournament's (round, table, tour, kind): seat.py
        self.card = False           # the menu shows the seat card
        self.menu_at = 0            # the last press in the menu
        self.apply_brightness()

    # -- settings and messages ----------------------------------------------------------
    def save_settings(self):
        settings_file.save(self.journal, self.settings)

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

    def event(self, kind, data):
        if self.link is not None:
            try:
                self.link.send_event(kind, data)
            except Exception as e:  # the game must go on without a host
                print('bawo: link event failed:', e)

    # -- the game on the board ----------------------------------------------------------
    def boot(self):
        """Resume the journaled game if there is one, else open the menu."""
        j = self.journal
        j.make_room()
        check_board_id(j, self.say)
        resumed = None
        for _ in range(2):
            try:
                resumed = self._resume()
                break
            except MemoryError:
                self._drop_game()   # once more on the cleaner heap
        if resumed is None:
            # No room to replay the journaled game: it stays in cur.jnl as it is, and no new
            # game may replace it until the replay finds room (resume_kept: BACK or MENU in
            # the menu, a host's NEW, each on a heap that is not the power-on's).
            self.unresumed = True
            self.say(KEPT)
            resumed = False
        for w in j.aside:   # once: the names set aside at this boot (the journal logged why)
            self.say('warning: damaged file set aside: %s' % w)
        if not resumed and self.mode != OVER:
            self.open_menu()

    def resume_kept(self):
        """The journaled game power-on had no room to replay, replayed now: True if it is
        back (or was over, and is recorded), False if it is still only on flash."""
        try:
            self._resume()
        except MemoryError:
            self._drop_game()
            self.open_menu()
            self.say(KEPT)
            return False
        self.unresumed = False
        if self.session is None:
            self.open_menu()   # cur.jnl was gone or set aside meanwhile: nothing to go back to
        return True

    def _resume(self):
        # True if the journaled game goes on (False: none, or it was over).
        se = resume(self.journal, self.games, self.say, self._on_line)
        if se is None:
            return False
        self._take(se)
        if se.host_side >= 0:   # away until a host speaks (remote.away)
            se.rx = self.link.stats['rx'] if self.link is not None else 0
        self.say('resumed %s %s at ply %d' % (se.name, se.header['id'], se.s.ply))
        self._position_changed()
        if se.over():
            self._finish()
            return False
        self.mode = PLAY
        self.changed()
        return True

    def _take(self, se):
        # Session `se` on the board's keys.
        self.scene.host = -1   # no remote game's look (remote.show)
        if se.host_side < 0:
            sys.modules.pop('remote', None)   # its code's heap back (remote.py)
        self.session = se
        self.opponent = None
        self.scene.hint_move = -1
        place(self.scene, se.g, self.profile)
        self.view.reset(pieces=se.g.pieces)

    def _drop_game(self):
        self.session = self.opponent = None
        gc.collect()

    def _on_line(self, ply, text):
        if self.hook:
            self.hook('journal', (ply, text))

    def new_game(self, name, position=None, opponent=None):
        """Start a game (recording an unfinished one). A bad game or position raises
        ValueError (RulesError) before anything changes: the game in progress goes on. False,
        with the menu open, while the game before is not on flash (flash full: sync first)."""
        if name not in self.games:
            raise ValueError('game %s does not fit this board' % name)
        if position:
            make_game(name).parse(position)
        if self.unresumed and not self.resume_kept():
            return False   # the kept game first: a new game would write over its journal
        self.skip()
        se = self.session
        if se is not None and not se.recorded:
            # Unfinished, or over but its record found no room (play raised): recorded now,
            # before journal.start writes the new game over its journal.
            if se.s.ply:
                self._finish()
            else:
                self.journal.discard_current()
                se.behind = False
        if se is not None and se.unarchived and not se.save():
            # The game before is only in RAM (and partly in cur.jnl): a new game would
            # replace both. The board waits for a sync to make room (docs/visual-language.md).
            self.say('flash full: game %s not saved yet; sync the board (bawo sync), '
                     'then start a new game' % se.header['id'])
            self.open_menu()
            return False
        opp = opponent or self.settings['opponent']
        header = {'game': name, 'opponent': opp, 'seed': self.now & 0xFFFF or 1}
        if opp in BOARD_SIDES:
            header['level'] = self.settings['level']
        if self.seat is not None:
            import seat
            header['seat'] = seat.header(self, name, opp)
        if position:
            header['position'] = position
        start = self.start_time()
        if start:
            header['start'] = start
        try:
            se = Session(self.journal, header, self.say, self._on_line)
            self._take(se)
            # Answered at once, as a move's press is (_answer): the start position goes out
            # before the journal's flash writes (the counter and cur.jnl, each possibly a
            # 45 ms erase on a Pico). A game with no move yet has nothing a cut could lose.
            self._position_changed()
            self.mode = PLAY
            self.draw()
            self.view.show()
            se.start()
        except Exception:
            # Out of memory making the game or naming it (the request was checked above):
            # no game now, so the menu, as at boot; never a game without its engine or id.
            self._drop_game()
            try:
                self.journal.discard_current()   # its journal, if it got that far
            except Exception:
                pass
            self.open_menu()
            raise
        self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
        self.say('new %s game %s' % (name, header['id']))
        self.event('start', {'id': header['id'], 'game': name})
        self.changed()
        return True

    def _finish(self):
        # The game is over (or given up for a new one): its record to flash, then OVER.
        self.opponent = None   # the board is done with this game: its AI's tables go
        self.show_end(self.session.finish())

    def show_end(self, out):
        """The game's record is on flash: OVER if `out` (its outcome) says it ended."""
        se = self.session
        self.show_remote()
        if self.hook:
            self.hook('record', se.header['id'])
        if out is not None:
            self.mode = OVER
            res, why = se.result()
            self.say('game over: %s (%s)' % ('draw' if res == 'draw' else res + ' wins', why))
            self.event('end', {'id': se.header['id'], 'result': res, 'reason': why})
        self.changed()

    def show_remote(self):
        """A remote game's news (PEER, the person's offers, the away timeout) on the scene
        (remote.py, loaded for a host game that has them)."""
        se = self.session
        if se is not None and (se.peer is not None or se.rx >= 0):
            import remote
            remote.show(self)

    def full(self):
        """True while the flash lacks some of the game on the board: the board shows "flash
        full, sync me" and starts no new game over an unsaved one."""
        return self.session is not None and self.session.full()

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
        se = self.session
        self.direct = set_position(self.scene, se.g, se.s)
        self.changed()

    def _board_to_move(self):
        return self.mode == PLAY and self.session.board_to_move()

    def _host_to_move(self):
        return self.mode == PLAY and self.session.host_to_move()

    def playing(self):
        """True while a game is on the board and its moves can be played (not in the menu)."""
        return self.session is not None and self.mode != MENU

    def legal_move(self, text):
        """The legal move `text` names in the game's position; RulesError says why not."""
        s = self.session.s
        move = s.parse_move(text)
        if move not in s.legal_moves:
            # The rules' reason (a pocket too small, a capture due), for the person to read.
            raise RulesError(self.session.g.why_illegal(s.position, move))
        return move

    def moves(self, first=0):
        """The game's moves from ply first + 1 on, as text, one at a time (none without a
        game)."""
        return iter(()) if self.session is None else self.session.s.iter_moves(first)

    def snapshot(self, moves=True, legal=False):
        """The board as the link handler, the simulator and the host read it (snapshot.py)."""
        return snapshot.take(self, moves, legal)

    # -- moves ----------------------------------------------------------------------------
    def play(self, move, intro=False):
        """Play a legal move: journal first, then animate. On a full flash the move is
        played all the same and kept in RAM (Session.full); True.
        intro: a move the person did not press (board or host): its start blinks first."""
        se = self.session
        s = se.s
        mover = s.turn
        start = se.g.move_cell(move, mover) if intro else -1
        animate = SPEED_MS[self.settings['speed']] > 0
        events = self.anim
        events.clear()
        text = se.push(move, events if animate else False)
        # The move is on flash: what follows must not kill the board for want of memory.
        # Once, the board's AI (made again at its next move) goes to make room, and it is
        # done again (each step of it is safe to do twice).
        told = False
        for attempt in (0, 1):
            try:
                if not told:
                    over = s.outcome() is not None
                    self.event('move', {'id': se.header['id'], 'ply': s.ply, 'move': text,
                                        'position': se.g.format(s.position)})
                    told = True
                if over and self.mode != OVER:
                    self._finish()
                self._after_move(start, mover, animate and len(events))
                return True
            except MemoryError:
                if attempt:
                    raise
                self._shed()

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

    def _shed(self):
        # What the board can make again: its AI's tables (made at its next move).
        self.opponent = None
        gc.collect()

    def _think(self):
        """The board's move: search, then play it, unless MENU/BACK or the link stopped it."""
        se = self.session
        s = se.s
        self.abort_key = -1
        self.abort_think = False
        self.thinking = True
        t0 = ticks_ms()
        try:
            if self.opponent is None:
                self.opponent = opponent.new(se.g, se.header, se.board_side,
                                             self._think_poll, self.say)
            move = self.opponent.choose(s)
        except MemoryError:
            # No room to search this once: the game goes on with a random legal move rather
            # than a dead board.
            self._shed()
            self.say('no memory to think: a random move')
            move = opponent.RandomOpponent(s.ply + 1).choose(s)
        finally:
            self.thinking = False
        if getattr(self.opponent, 'retry', False):
            self.opponent = None   # no room for the AI this time: asked again next move
        t = ticks_diff(ticks_ms(), t0)
        if move is not None:
            self.thinks += 1
            self.think_ms += t
            if t > self.think_max:
                self.think_max = t
        if move is None or self.session is not se:
            self.board_at = ticks_add(self.now, BOARD_MOVE_MS)
            self._stopped()
            return
        self.play(move, True)

    def _stopped(self):
        # A search MENU or BACK stopped: that press is taken now.
        key = self.abort_key
        self.abort_key = -1
        if key >= 0:
            self.on_press(key)

    def _think_poll(self):
        # Called by the search every 16 nodes: the loop's keys, flashes and link go on.
        now = self.board.ticks_ms()
        self._keys(now, True)
        self._frame(now)
        if self.link is not None:
            self.link.poll()
        return self.abort_key >= 0 or self.abort_think

    def show_hint(self):
        """BACK held, MENU pressed: the move the board would play for the person, lit as a
        selection."""
        se = self.session
        if se.board_to_move() or se.host_to_move() or se.over():
            return
        self.abort_key = -1   # MENU or BACK pressed during the hint's search stops it
        m = hint.best_move(se, self.opponent, self._think_poll)
        if m is None:
            self._stopped()
            return
        self.abort_key = -1
        se.add_hint()
        self.say('hint %d: %s' % (se.hints, se.g.move_str(m)))
        self.scene.sel = se.g.move_cell(m, se.s.turn)
        self.scene.hint_move = m
        self.changed()

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
            show_position(self.scene, self.session.g, self.session.s.position)
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
            self._menu_press(key)
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
        hint_move = sc.hint_move
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
                if hint_move >= 0 and self.direct.get(cell) == hint_move:
                    self._answer(key, cell)
                    self.play(hint_move)   # a hinted one-press move: pressing it plays it
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

    def _menu_press(self, key):
        # The open menu takes its presses (menu.py says what each one means). On the seat
        # card, MENU starts the round's game and any other press shows the menu.
        self.menu_at = self.now
        if self.card:
            import seat
            if not seat.leave(self, key == self.keys.menu):
                return
        what = self.menu.key(key, self.keys)
        if what == M.START:
            # Answered before the game's engine loads, as a move's press is (_answer).
            self.menu.draw_start(self.view)
            self.view.show()
            self.new_game(self.settings['game'])
        elif what == M.BACK:
            se = self.session
            if self.unresumed:
                self.resume_kept()
            elif se is not None and not (se.unarchived and not se.over()):
                self.mode = OVER if se.over() else PLAY
                self.view.reset(pieces=se.g.pieces)
                self.changed()
        elif what == M.CHOSE:
            self.apply_brightness()
            self.settings_due = True
            self.changed()
        elif what == M.REFUSED:
            self.flash(key)

    def _answer(self, key, cell):
        # A press that plays a move is answered at once: its pocket lit as pressed goes out
        # first, then the move is played and journaled (on a Pico that is the rules engine,
        # the journal's flash write - 45 ms when it erases a sector - and the game-over
        # check) and only then animated, so a move is still journaled before its animation.
        self.view.cell(key, self.scene.shown[cell], V.BG_SELECT)
        self.view.show()

    def open_menu(self):
        self.mode = MENU
        self.scene.sel = -1
        self.view.reset()
        self.menu_at = self.now
        if self.seat is not None:
            import seat
            self.card = seat.idle(self)
        self.changed()

    # -- drawing (render.py) ------------------------------------------------------------
    def draw(self):
        # The scene is lent the game and the open menu for this frame only: kept between
        # frames they would hold a game that a NEW has let go of on the heap.
        self.redraw = False
        sc = self.scene
        se = self.session
        sc.mode = self.mode
        sc.menu = self.menu if self.mode == MENU else None
        sc.card = self.seat if self.card and self.mode == MENU else None
        sc.g = se.g if se is not None else None
        sc.s = se.s if se is not None else None
        sc.end = se.ended if se is not None else None
        sc.warn = 2 if self.full() else 1 if self.journal.low else 0
        try:
            render.draw(self.view, sc)
        finally:
            sc.menu = sc.g = sc.s = sc.end = sc.card = None

    # -- the loop -----------------------------------------------------------------------
    def step(self, now):
        """One pass of the main loop at ticks `now`. A pass that finds no room sheds what
        the board can make again (its AI) and the next pass goes on: a full heap costs a
        pass, never the board (the journal has every move it played)."""
        try:
            self._pass(now)
        except MemoryError:
            self._shed()
            self.redraw = True
        # The link apart from the pass: a pass that keeps finding no room must not leave the
        # board deaf to a host (a sync is what frees the flash). The link copes with a full
        # heap itself (NAK, or the reply kept).
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
            # MENU or BACK pressed in a host game's play may become a held offer; any other
            # press ends a hold (BACK held, MENU pressed is the hint).
            se = self.session
            self.hold.press(key, now, (key == k.menu or key == k.back) and self.mode == PLAY
                            and se is not None and se.host_side >= 0 and not se.over())
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
            if an.advance(now, sc.shown, self.session.g.cells, SPEED_MS[self.settings['speed']]):
                if an.on:
                    self.redraw = True
                else:
                    self._anim_done()
        elif self._board_to_move() and ticks_diff(now, self.board_at) >= 0:
            self._think()
        se = self.session
        if se is not None and se.full() and self.journal.freed != se.freed and se.save():
            self.changed()   # a file went (a sync): the flash had room again
        if self.seat is not None:
            import seat
            seat.tick(self, now)
        held = self.hold.due(self.keys, now)
        if held >= 0:
            import remote
            remote.offer(self, held)
        if ticks_diff(now, self.blink_at) >= 0:
            if self.epoch_s >= 0:
                self._epoch()
            sc.blink ^= 1
            self.blink_at = ticks_add(now, BLINK_MS)
            if se is not None and se.host_side >= 0:
                self.show_remote()
            if (sc.sel >= 0 or self.mode == OVER or self.journal.low or self.full()
                    or remote_blinks(sc)):
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
            from handler import Handler
        except ImportError:
            return None
        self.link = link.Link(read, write, Handler(self), now_ms=self.board.ticks_ms)
        return self.link

    def run(self, sleep_ms=1):
        import time
        while True:
            self.step(self.board.ticks_ms())
            if sleep_ms:
                # CircuitPython's time has no sleep_ms.
                time.sleep_ms(sleep_ms) if hasattr(time, 'sleep_ms') else time.sleep(sleep_ms / 1000)
