# The board's own move (App._think): a search, then the move played, unless MENU, BACK or a
# host's request stopped the search. Loaded for the move only (compat.run_part): a board that never
# plays a side, or a board being synced, has this heap for other things.
import gc
from compat import ticks_ms, ticks_diff, ticks_add
from appconst import BOARD_MOVE_MS
from journal import unload_records


def think(a):
    s = a.s
    a.abort_key = -1
    a.abort_think = False
    a.thinking = True
    unload_records(a.journal)   # a sync during the game loaded them; the search wants the room
    if a.link is not None:
        a.link.rest()   # no host is talking: the link's request code goes until one does
    gc.collect()   # the search starts on a tidy heap: a 160 KB board has little spare
    if a.opponent is None:
        # Dropped for a host's sync (room_for_records), or for a record (_finish) that then
        # failed for memory (a NEW over this game): made again, its code reloaded.
        a.opponent = a._new_opponent()
    t0 = ticks_ms()
    try:
        move = a.opponent.choose(s)
    except MemoryError:
        # No room to search this once (a sync's request took it): the game goes on with a
        # random legal move rather than a dead board.
        gc.collect()
        a.say('no memory to think: a random move')
        from opponent import RandomOpponent   # loaded already, with the board's side
        move = RandomOpponent(s.ply + 1).choose(s)
    finally:
        a.thinking = False
    if getattr(a.opponent, 'retry', False):
        a.opponent = None   # no room for the AI this time: asked again next move
    t = ticks_diff(ticks_ms(), t0)
    if move is not None:
        a.thinks += 1
        a.think_ms += t
        if t > a.think_max:
            a.think_max = t
    if move is None or a.s is not s:
        a.board_at = ticks_add(a.now, BOARD_MOVE_MS)
        key = a.abort_key
        a.abort_key = -1
        if key >= 0:
            a.on_press(key)
        return
    a.play(move, True)
