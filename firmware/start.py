# How a game comes onto the board: a new one (MENU, or a host's NEW) or the journaled one
# at power-on. Loaded for that moment only (compat.run_part): between starts its bytecode is heap
# the game and a sync can use.
import gc
from compat import ticks_add
from datafiles import CUR
from appconst import MENU, PLAY, OVER, NONE, BOARD_MOVE_MS, BOARD_SIDES, HOST_SIDES, AI_MODULES
from journal import unload_records
import shared_rules
from shared_rules import game as make_game
from shared_rules.errors import RulesError
from shared_rules.state import State


def boot(a):
    """App.boot: the journaled game resumed if there is one. True: open the menu."""
    resumed = None
    for _ in range(2):
        try:
            resumed = resume(a)
            break
        except MemoryError:
            # Once more on the cleaner heap.
            _drop_replay(a)
    if resumed is None:
        # No room to replay the journaled game: it stays in cur.jnl as it is, and no new
        # game may replace it until the replay finds room (retry: BACK or MENU in the menu,
        # a host's NEW, each on a heap that is not the power-on's).
        a.mode = MENU
        a.unresumed = True
        a.say(KEPT)
        resumed = False
    # Once: the names set aside at this boot (the journal logged why).
    for w in a.journal.aside:
        a.say('warning: damaged file set aside: %s' % w)
    return not resumed and a.mode != OVER


KEPT = ('no memory to resume the game in progress: it is kept on flash; '
        'press BACK to try again')


def retry(a):
    """The journaled game that found no room to replay at power-on, replayed again now: True
    if it is back (or was over, and is recorded), False if it is still only on flash."""
    a.close_menu()
    unload_records(a.journal)
    gc.collect()
    try:
        resume(a)
    except MemoryError:
        _drop_replay(a)
        a.open_menu()
        a.say(KEPT)
        return False
    a.unresumed = False
    if a.s is None:
        a.open_menu()   # cur.jnl was gone or set aside meanwhile: nothing to go back to
    return True


def _drop_replay(a):
    # A replay that found no room: its garbage and the engine it loaded go (kept, they took
    # the room a sync needs: the fuzz's restarted board answered no LIST at all).
    a.s = a.g = a.header = a.opponent = None
    shared_rules.unload(also=AI_MODULES)
    gc.collect()


def resume(a):
    """The journaled game, replayed; True if it goes on (False: none, or it was over)."""
    # Header values (the board id, a journaled header) reach records, the host and its
    # terminal: the record module's check refuses control characters in them (loaded for
    # this moment only, as in finish).
    j = a.journal
    try:
        from shared_rules.record_text import check_tag
        try:
            check_tag('Device', a.board_id)
        except ValueError as e:
            a.say('board id refused, records name the board "board": %s' % e)
            a.board_id = a.journal.board_id = 'board'
        cur = j.read_current()
        if cur is not None:
            try:
                check_tag('Id', str(cur[0]['id']))
                check_tag('Start', str(cur[0].get('start', '')))
            except ValueError as e:
                j.set_aside(CUR, 'bad header: %s' % e)
                cur = None
    finally:   # dropped whatever happened (no room, say): kept, it starves the game
        check_tag = None
        shared_rules.unload(also=('shared_rules.record_text',))
        gc.collect()
    if cur is None:
        return False
    header, moves = cur
    try:
        a._setup(header)
        s = a.s
        s.reserve(len(moves), moves.size)
        for m in moves:
            s.push(s.parse_move(m))
    except (RulesError, KeyError, ValueError) as e:
        j.set_aside(CUR, 'does not replay: %s' % e)
        a.s = None
        return False
    finally:
        cur = moves = None   # the read-back's code goes with it (journal.read_current)
        _own_engine_only(a, also=('shared_rules.movetexts',))
    a.say('resumed %s %s at ply %d' % (header['game'], header['id'], a.s.ply))
    if j.torn:
        a._unsaved('torn last line not cut')
    a._position_changed()
    if a.s.outcome() is not None:
        a._finish()
        return False
    a.mode = PLAY
    a.changed()
    return True


def use_engine(name):
    """Keep only the engine of the game being played in RAM: the other two engines are a
    third of the free heap of a 160 KB build. The AI's modules come back at the board's
    first move (think.py); the archive's code (journal.unload_records) when a host syncs."""
    shared_rules.unload(keep=name, also=AI_MODULES)
    unload_records()
    gc.collect()


def place(sc, g, profile, key_of_cell):
    """The game's cells on the profile's keys, as the engine lays them out (g.cell_at):
    scene `sc`'s cell under each key, and each cell's key in `key_of_cell`."""
    cell_of_key = sc.cell_of_key
    for k in range(profile.n_keys):
        r, c = profile.positions[k]
        cell = g.cell_at(profile.grid_rows, profile.grid_cols, r, c)
        if cell < 0:
            cell_of_key[k] = NONE
        else:
            cell_of_key[k] = cell
            key_of_cell[cell] = k


def setup(a, header):
    """The game `header` names, at its start, on this profile's keys: its engine and state.
    The board's opponent (its AI) comes at the board's first move (App._think), when this
    module is gone. ValueError if the game does not fit the board."""
    name = header['game']
    if name not in a.games:
        raise ValueError('game %s does not fit this board' % name)
    a.header = header
    a.g = a.s = a.opponent = None
    a.recorded = False
    opp = header.get('opponent', 'people')
    a.board_side = BOARD_SIDES.get(opp, -1)
    a.host_side = HOST_SIDES.get(opp, -1)
    use_engine(name)
    g = a.g = make_game(name)
    a.s = State(g, header.get('position'), history=1)
    a.hints = header.get('hints', 0)   # journaled ones: a resumed game keeps them
    a.scene.hint_move = -1
    place(a.scene, g, a.profile, a.key_of_cell)
    a.view.reset(pieces=(name == 'bagh-chal'))


def new_game(a, name, position=None, opponent=None):
    """App.new_game."""
    try:
        started = _new_game(a, name, position, opponent)
    except Exception:
        _own_engine_only(a)
        raise
    if not started:
        _own_engine_only(a)
    return started


def _own_engine_only(a, also=()):
    # Only the engine of the game in RAM stays (and none of the modules in `also`): after a
    # refused new game, the engine its position's check loaded goes again (8-12 KB of a
    # 160 KB heap; the fuzz found a Bawo game playing on with Oware's engine kept, and no
    # room left for a sync's LIST).
    shared_rules.unload(keep=a.g.name if a.g is not None else None, also=also)


def _new_game(a, name, position=None, opponent=None):
    if name not in a.games:
        raise ValueError('game %s does not fit this board' % name)
    if position:
        make_game(name).parse(position)
    if a.unresumed and not retry(a):
        return False   # the kept game first: a new game would write over its journal
    a.close_menu()   # its room is the new game's (open_menu makes it again if need be)
    a.skip()
    if a.s is not None and a.header is not None and not a.recorded:
        # Unfinished, or over but its record found no room (App.play raised): recorded
        # now, before journal.start writes the new game over its journal.
        if a.s.ply:
            a._finish()
        else:
            a.journal.discard_current()
            a.behind = False
    if a.unarchived and not a.save():
        # The game before is only in RAM (and partly in cur.jnl): a new game would
        # replace both. The board waits for a sync to make room (docs/visual-language.md).
        a.say('flash full: game %s not saved yet; sync the board (bawo sync), '
              'then start a new game' % a.header['id'])
        a.open_menu()
        return False
    opp = opponent or a.settings['opponent']
    header = {'game': name, 'opponent': opp, 'seed': a.now & 0xFFFF or 1}
    if opp in BOARD_SIDES:
        header['level'] = a.settings['level']
    if position:
        header['position'] = position
    start = a.start_time()
    if start:
        header['start'] = start
    try:
        a._setup(header)
        # Answered at once, as a move's press is (App._answer): the start position goes
        # out before the journal's flash writes (the counter and cur.jnl, each possibly a
        # 45 ms erase on a Pico). A game with no move yet has nothing a power cut could lose.
        a._position_changed()
        a.mode = PLAY
        a.draw()
        a.view.show()
        try:
            a.journal.start(header)
        except OSError as e:
            a._unsaved(e)
    except Exception:
        # Out of memory loading the game or naming it (the request was checked above):
        # no game now, so the menu, as at boot; never a game without its engine or id.
        a.s = a.g = a.header = a.opponent = None
        a.board_side = a.host_side = -1
        a.behind = False   # what the journal lacked was this game's, now gone with it
        try:
            a.journal.discard_current()   # its journal, if it got that far
        except Exception:
            pass
        a.open_menu()
        raise
    a.board_at = ticks_add(a.now, BOARD_MOVE_MS)
    a.say('new %s game %s' % (name, header['id']))
    a.event('start', {'id': header['id'], 'game': name})
    a.changed()
    return True
