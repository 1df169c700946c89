# The game in progress: its engine and state, its header, who plays which side, and its
# journal. A move is played in RAM and journaled by push() before the App animates it.
# A write that fails (OSError: ENOSPC on a full littlefs) never stops the game: it goes on in
# RAM, `behind` says cur.jnl lacks some of it, `unarchived` that its record is not on flash,
# and save() writes both once a sync made room.
from datafiles import CUR
from appconst import BOARD_SIDES, HOST_SIDES
from shared_rules import game as make_game, winner_name
from shared_rules.errors import RulesError
from shared_rules.state import State
from shared_rules.record_text import text_of_state, check_tag


class Session:
    """The game `header` names, at its start. ValueError (RulesError) for a bad game or
    position. say(text) tells the person; on_line(ply, text) sees each journal line."""

    def __init__(self, journal, header, say, on_line=None):
        self.journal = journal
        self.header = header
        self.g = g = make_game(header['game'])
        self.s = State(g, header.get('position'), history=1)
        opp = header.get('opponent', 'people')
        self.board_side = BOARD_SIDES.get(opp, -1)   # 0, 1, 2 = both, -1 = none
        self.host_side = HOST_SIDES.get(opp, -1)
        self.hints = header.get('hints', 0)   # journaled ones: a resumed game keeps them
        self.recorded = False    # its record is written (or kept, unarchived)
        self.behind = False
        self.unarchived = False
        self.freed = journal.freed   # journal.freed when save() was last tried
        self.say = say
        self.on_line = on_line
        # A remote game (a host side; remote.py): the end the players agreed (END: an
        # Outcome the moves do not make), the opponent as PEER tells it (remote.Peer), and
        # at a resume the link's count of frames then (-1: a host has spoken since).
        self.ended = None
        self.peer = None
        self.rx = -1

    @property
    def name(self):
        return self.g.name

    def outcome(self):
        """The game's end: the agreed one (END), else the moves' (None while it goes on)."""
        e = self.ended
        return e if e is not None else self.s.outcome()

    def over(self):
        return self.outcome() is not None

    def full(self):
        """True while the flash lacks some of this game (a full flash: sync the board)."""
        return self.behind or self.unarchived

    def board_to_move(self):
        return (self.board_side >= 0 and not self.over()
                and (self.board_side == 2 or self.s.turn == self.board_side))

    def host_to_move(self):
        return self.s.turn == self.host_side and not self.over()

    def plays(self, side):
        """'board', 'host' or 'person': who plays side 0 or 1."""
        if self.board_side == 2 or self.board_side == side:
            return 'board'
        return 'host' if self.host_side == side else 'person'

    # -- the journal ----------------------------------------------------------------------
    def start(self):
        """The new game's journal (its header gets its id first, even on a full flash)."""
        try:
            self.journal.start(self.header)
        except OSError as e:
            self.unsaved(e)

    def push(self, move, events=False):
        """Play legal `move`, then journal it; its text. events: the sowing's, for the
        animation (False: none)."""
        s = self.s
        text = s.move_str(move)
        s.push(move, events)
        if not self.behind:
            j = self.journal
            try:
                if 0 <= j.plies < s.ply - 1:
                    # Lines a full heap kept off the flash at an earlier move (MemoryError
                    # comes before a byte is written): appended now, in order, with this one.
                    for m in s.iter_moves(j.plies):
                        self._line(j.plies + 1, m)
                else:
                    self._line(s.ply, text)
            except MemoryError:
                pass   # not written: the next move appends it (journal.plies says how far)
            except (OSError, ValueError) as e:
                self.unsaved(e)   # the line may be half written: rewritten whole later
        return text

    def _line(self, ply, text):
        self.journal.append(ply, text)
        if self.on_line:
            self.on_line(ply, text)

    def unsaved(self, e):
        """A write failed: the game goes on in RAM, and the person is told once."""
        # Marked before anything that allocates: on a tight heap the message may fail, and
        # a move appended after one missing would leave a gap that no power-on replays.
        told = self.full()
        self.behind = True
        self.freed = self.journal.freed
        if not told:
            try:
                self.say('flash full (%s): the game goes on, sync the board (bawo sync) '
                         'to save it' % e)
            except MemoryError:
                pass

    def add_hint(self):
        # Journaled in the header, rewritten whole: a game resumed after a power cut still
        # says it had help. Behind (flash full), the catch-up rewrite carries it.
        self.hints += 1
        self.header['hints'] = self.hints
        if not self.behind:
            try:
                self.journal.rewrite_current(self.header, self.s.iter_moves())
            except OSError as e:
                self.unsaved(e)

    def record_text(self):
        h = self.header
        names = [self.plays(0), self.plays(1)]
        lv = h.get('level')
        for side in (0, 1):
            if names[side] == 'board' and lv is not None:
                names[side] = 'board (level %d)' % lv   # read back by bawo.players
            elif names[side] == 'person' and self.hints:
                names[side] = 'person (%d hints)' % self.hints   # the record says how much help
        e = self.ended
        res = why = None
        if e is not None:
            res = 'draw' if e.winner is None else self.g.sides[e.winner]
            why = e.reason
        st = h.get('seat') or (None, None, None)   # a tournament's game (seat.py)
        return text_of_state(self.s, Id=h['id'], Device=self.journal.board_id,
                             Start=h.get('start'), First=names[0], Second=names[1],
                             Result=res, Reason=why, Round=st[0], Table=st[1],
                             Tournament=st[2])

    def finish(self):
        """Its record to flash (the game over, or given up for a new one); kept in RAM
        while the flash is full. The outcome, None if given up."""
        try:
            self.journal.finish(self.header['id'], self.record_text())
            self.behind = False
        except OSError as e:
            self.unsaved(e)
            self.unarchived = True
        self.recorded = True
        return self.outcome()

    def result(self):
        """(result, reason) once over: result 'draw' or the winner's side letter."""
        out = self.outcome()
        if out is None:
            return None
        w = winner_name(self.g, out)
        return ('draw' if w is None else w), out.reason

    def save(self):
        """Write what RAM holds and the flash lacks. True when the flash is up to date."""
        if not self.full():
            return True
        j = self.journal
        self.freed = j.freed
        try:
            if self.unarchived:
                # The record alone holds the whole game (and is smaller than its journal).
                j.finish(self.header['id'], self.record_text())
                self.unarchived = False
            else:
                j.rewrite_current(self.header, self.s.iter_moves())
        except OSError:
            return False
        self.behind = False
        self.say('flash has room again: game %s saved' % self.header['id'])
        return True


def check_board_id(journal, say):
    """The board id reaches every record: one the records' check refuses (a control
    character, say) is replaced by 'board'."""
    try:
        check_tag('Device', journal.board_id)
    except ValueError as e:
        say('board id refused, records name the board "board": %s' % e)
        journal.board_id = 'board'


def resume(journal, games, say, on_line=None):
    """The journaled game (cur.jnl) replayed: a Session, or None if there is none or it does
    not replay, or is not one of `games` (then it is set aside, never deleted). MemoryError
    leaves cur.jnl as it is."""
    cur = journal.read_current()
    if cur is None:
        return None
    header, moves = cur
    try:
        # Header values reach records, the host and its terminal.
        check_tag('Id', str(header['id']))
        check_tag('Start', str(header.get('start', '')))
    except ValueError as e:
        journal.set_aside(CUR, 'bad header: %s' % e)
        return None
    try:
        if header['game'] not in games:
            raise ValueError('game %s does not fit this board' % header['game'])
        se = Session(journal, header, say, on_line)
        s = se.s
        s.reserve(len(moves), moves.size)
        for m in moves:
            s.push(s.parse_move(m))
    except (RulesError, KeyError, ValueError) as e:
        journal.set_aside(CUR, 'does not replay: %s' % e)
        return None
    if journal.torn:
        se.unsaved('torn last line not cut')
    return se
