# How a game leaves the board: its record, written to flash (or kept in RAM while the flash
# is full, and written by save() once a sync made room). Loaded for that moment only
# (compat.run_part): during a game its bytecode is heap the game and a sync can use.
import gc
import shared_rules
from shared_rules import winner_name
from appconst import OVER, AI_MODULES


def plays(a, side):
    """'board', 'host' or 'person': who plays side 0 or 1 of this game."""
    if a.board_side == 2 or a.board_side == side:
        return 'board'
    return 'host' if a.host_side == side else 'person'


def record_text(a):
    s = a.s
    h = a.header
    names = [plays(a, 0), plays(a, 1)]
    lv = h.get('level')
    if lv is not None:  # the board's AI: its level, read back by bawo.players
        for side in (0, 1):
            if names[side] == 'board':
                names[side] = 'board (level %d)' % lv
    if a.hints:  # the people's side(s) had help: the record says how much
        for side in (0, 1):
            if names[side] == 'person':
                names[side] = 'person (%d hints)' % a.hints
    # Loaded for this moment only, as this module is, and dropped even when the heap had no
    # room for the record: kept, its 6 KB would starve everything after.
    try:
        from shared_rules.record_text import text_of_state
        return text_of_state(s, Id=h['id'], Device=a.board_id, Start=h.get('start'),
                             First=names[0], Second=names[1])
    finally:
        text_of_state = None
        shared_rules.unload(keep=s.game.name, also=('shared_rules.record_text',))
        gc.collect()


def finish(a):
    """The game is over (or given up for a new one): its record to flash, then OVER."""
    s = a.s
    h = a.header
    # The board is done with this game: its AI makes room for the record.
    a.opponent = None
    shared_rules.unload(keep=s.game.name, also=AI_MODULES)
    gc.collect()
    try:
        a.journal.finish(h['id'], a._record_text())
        a.behind = False
    except OSError as e:
        # Kept in RAM (and as far as cur.jnl got); written once there is room.
        a._unsaved(e)
        a.unarchived = True
    a.recorded = True
    if a.hook:
        a.hook('record', h['id'])
    out = s.outcome()
    if out is not None:
        a.mode = OVER
        w = winner_name(a.g, out)
        a.say('game over: %s (%s)' % ('draw' if w is None else w + ' wins', out.reason))
        a.event('end', {'id': h['id'], 'result': 'draw' if w is None else w,
                        'reason': out.reason})
    a.changed()


def save(a):
    """App.save: write what RAM holds and the flash lacks."""
    j = a.journal
    if a.s is None:
        a.behind = a.unarchived = False   # no game in RAM: nothing it could add
        return True
    try:
        if a.unarchived:
            # The record alone holds the whole game (and is smaller than its journal).
            j.finish(a.header['id'], a._record_text())
            a.unarchived = False
        else:
            j.rewrite_current(a.header, a.s.iter_moves())
    except OSError:
        return False
    a.behind = False
    a.say('flash has room again: game %s saved' % a.header['id'])
    a.changed()
    return True
