# The board's answers to requests that are well-formed frames but carry bad content: every
# field out of range, game ids that are paths, a bad set-up position during a game. The real
# app, handler, link and journal on the simulated board, under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import protocol as P
from real_board import RealBoard, tmpdir, rmtree, snapshot, BOARD_ID

BAD = P.E_BAD_PAYLOAD


def key_of(a, cell):
    """The key over `cell` of App a's game."""
    ck = a.scene.cell_of_key
    return [k for k in range(len(ck)) if ck[k] == cell][0]


def _board(tag, **kw):
    root = tmpdir(tag)
    rmtree(root)
    os.mkdir(root)
    return RealBoard(root, **kw)


def _game_with_a_move(b):
    b.ok(P.NEW, {'kind': 'bawo', 'opponent': 'people'})
    b.ok(P.MOVE, {'move': 'A1+'})
    b.step(5000)
    return b.state()


def _person_then_board(b):
    # The person plays the first legal move, then 10 s of the loop: the board thinks and
    # plays its answer.
    mv = b.ok(P.POSITION)['legal'][0]
    b.app.play(b.app.session.s.parse_move(mv), True)
    for _ in range(10):
        b.step(1000)


def _power_on_with(root, resume):
    """A power-on of the board in root with the journaled game's replay (app.resume)
    replaced."""
    import app

    real = app.resume
    app.resume = resume
    try:
        return RealBoard(root)
    finally:
        app.resume = real


def _no_room(real, n, size, when=None):
    """(call, left): real, but its first n calls (those where when() holds) fail as a full
    heap does; left[0] counts the failures still to come."""
    left = [n]

    def call(*args):
        if left[0] and (when is None or when()):
            left[0] -= 1
            raise MemoryError('memory allocation failed, allocating %d bytes' % size)
        return real(*args)

    return call, left


def test_new_with_a_bad_position_during_a_game_changes_nothing():
    b = _board('newbad')
    before = _game_with_a_move(b)
    names = sorted(os.listdir(b.data))
    for kind, pos in (
        ('bawo', '2,2 N'),
        ('bawo', 'x'),
        ('oware', '4,4/4 S'),
        ('bawo', '2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 Q'),
    ):
        r = b.request(P.NEW, {'kind': kind, 'position': pos})
        assert r.type == P.ERROR and r.payload['code'] == BAD, r
        assert b.state() == before, (b.state(), before)
        b.step(1000)  # redraws the game still in progress
    assert sorted(os.listdir(b.data)) == names and not b.records
    pos = b.ok(P.POSITION)
    assert pos['id'] == before[0]
    b.ok(P.MOVE, {'move': pos['legal'][0]})
    assert b.state()[1] == 2
    rmtree(b.root)


def test_game_ids_are_never_paths():
    b = _board('ids')
    _game_with_a_move(b)
    b.ok(P.NEW, {'kind': 'oware'})  # archives the bawo game: fuzz-0001.rec
    mine = BOARD_ID + '-0001'
    assert os.listdir(b.data).count(mine + '.rec') == 1
    # Records outside the data directory, and one inside under a name the board never makes.
    with open(b.data + '/' + mine + '.rec', 'rb') as f:
        rec = f.read()
    for p in (
        b.root + '/outside-0001.rec',
        b.root + '/x/fuzz-0001.rec',
        b.data + '/fuzz-00001.rec',
    ):
        try:
            os.mkdir(p[: p.rfind('/')])
        except OSError:
            pass
        with open(p, 'wb') as f:
            f.write(rec)
    outside = snapshot(b.root, b.data)
    for gid in (
        '../outside-0001',
        '../x/fuzz-0001',
        '/tmp/fuzz-0001',
        'fuzz-0001/../fuzz-0001',
        'fuzz-0001.rec',
        '.-0001',
        'fuzz-0001\x00',
        'fuzz-' + '1' * 40,
        'fuzz_0001',
        'fuzz-001',
        '-0001',
        1,
        1.0,
        True,
        [mine],
        {'id': mine},
        '',
    ):
        for typ, pl in ((P.GET, {'id': gid}), (P.ACK_GAME, {'id': gid})):
            assert b.code(typ, pl) == BAD, (typ, gid)
    # Well formed, no such record in the board's data (one exists outside it): no such game.
    for gid in ('other-0001', 'outside-0001', 'fuzz-0099'):
        assert b.code(P.GET, {'id': gid}) == P.E_NO_GAME, gid
        assert b.code(P.ACK_GAME, {'id': gid}) == P.E_NO_GAME, gid
    assert snapshot(b.root, b.data) == outside
    # A record of the board's form in its data, whatever board id made it, is the board's:
    # LIST lists it, so GET reaches it (else a sync would stop on it for good).
    assert 'fuzz-00001' in [g['id'] for g in b.ok(P.LIST, {})['games']]
    assert b.ok(P.GET, {'id': 'fuzz-00001'})['total'] == b.ok(P.GET, {'id': mine})['total']
    assert b.ok(P.GET, {'id': mine})['total'] > 0
    b.ok(P.ACK_GAME, {'id': mine})
    assert mine + '.syn' in os.listdir(b.data)
    rmtree(b.root)


def test_new_without_memory_for_the_game_leaves_the_menu_not_a_broken_game():
    import app

    b = _board('newmem')
    _game_with_a_move(b)
    setup = app.Session

    def full(*args):
        raise MemoryError('memory allocation failed, allocating 752 bytes')

    app.Session = full
    try:
        r = b.request(P.NEW, {'kind': 'oware'})
    finally:
        app.Session = setup
    assert r.type == P.ERROR and r.payload['code'] == P.E_INTERNAL, r
    for _ in range(5):
        b.step(1000)  # the loop goes on: the menu shows
    assert b.app.mode == 0 and b.app.session is None
    assert b.ok(P.POSITION)['mode'] == 'menu'
    b.ok(P.NEW, {'kind': 'bawo'})
    assert b.state()[1] == 0
    rmtree(b.root)


def test_new_without_memory_for_the_journal_leaves_the_menu_not_a_game_without_id():
    # The fuzzer under the 160 KB heap found it: the game was set up, then naming it in the
    # journal (a directory listing) ran out of memory, and POSITION failed on the missing id.
    b = _board('newjnl')
    _game_with_a_move(b)
    start = b.app.journal.start

    def full(header):
        raise MemoryError('memory allocation failed, allocating 256 bytes')

    b.app.journal.start = full
    r = b.request(P.NEW, {'kind': 'oware'})
    assert r.type == P.ERROR and r.payload['code'] == P.E_INTERNAL, r
    b.app.journal.start = start
    for _ in range(5):
        b.step(1000)
    assert b.app.mode == 0 and b.app.session is None
    assert b.ok(P.POSITION)['mode'] == 'menu'
    b.ok(P.NEW, {'kind': 'bawo'})
    assert b.ok(P.POSITION)['id']
    rmtree(b.root)


def test_new_without_memory_for_the_old_games_record_keeps_that_game_and_its_ai():
    # Also from the fuzzer: NEW over a game against the board's AI ran out of memory writing
    # the old game's record, after the AI had been dropped; the board's next turn then died
    # on the missing AI.
    b = _board('newrec', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    first = b.ok(P.POSITION)

    def full():
        raise MemoryError('memory allocation failed, allocating 512 bytes')

    b.app.session.record_text = full
    mv = first['legal'][0]
    b.app.play(b.app.session.s.parse_move(mv), True)  # the person's move: the board to move next
    r = b.request(P.NEW, {'kind': 'bawo'})
    assert r.type == P.ERROR and r.payload['code'] == P.E_INTERNAL, r
    del b.app.session.record_text
    for _ in range(10):
        b.step(1000)  # the board's turn comes: it must think and play
    pos = b.ok(P.POSITION)
    assert pos['id'] == first['id'] and pos['ply'] >= 2, pos
    rmtree(b.root)


def test_a_sync_between_the_boards_moves_keeps_its_ai():
    # The board's AI is made at its first move and kept for the game: a sync between its
    # moves leaves it (and its tables) alone.
    b = _board('aisync', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    assert b.app.opponent is None  # made at the board's first move
    _person_then_board(b)
    ai = b.app.opponent
    assert b.ok(P.POSITION)['ply'] == 2 and ai is not None
    b.ok(P.LIST, {'start': 0})
    assert b.app.opponent is ai
    _person_then_board(b)
    assert b.ok(P.POSITION)['ply'] == 4 and b.app.opponent is ai and ai.last_info
    rmtree(b.root)


def test_a_sync_while_the_board_thinks_is_asked_again_and_leaves_the_search_alone():
    b = _board('aibusy', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    b.app.thinking = True  # as inside the search's poll, where the link is polled
    for typ, pl in (
        (P.LIST, {'start': 0}),
        (P.GET, {'id': BOARD_ID + '-0001'}),
        (P.ACK_GAME, {'id': BOARD_ID + '-0001'}),
    ):
        b.app.abort_think = False
        r = b.request(typ, pl)
        assert r.type == P.ERROR and r.payload['code'] == P.E_BUSY, r
        assert not b.app.abort_think  # the search goes on: the host asks again after it
    b.app.thinking = False
    b.ok(P.LIST, {'start': 0})
    rmtree(b.root)


def test_no_room_for_the_ai_gives_a_random_move_and_asks_again_next_time():
    import opponent

    b = _board('airetry', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    made = []
    real = opponent.new

    def no_room(*args):
        r = opponent.RandomOpponent(7)
        r.retry = True  # what make_opponent gives when the AI's import ran out of memory
        made.append(r)
        return r

    opponent.new = no_room
    try:
        _person_then_board(b)
    finally:
        opponent.new = real
    assert b.ok(P.POSITION)['ply'] == 2 and len(made) == 1 and b.app.opponent is None
    _person_then_board(b)
    assert b.ok(P.POSITION)['ply'] == 4 and b.app.opponent.last_info
    rmtree(b.root)


def test_no_room_after_the_boards_move_is_journaled_sheds_its_ai_not_the_board():
    # The well-formed fuzzer under 160 KB: the board's search left the heap full, and the
    # game-over check of its own move (journaled already) died for 256 bytes, and the board
    # with it. Now its AI goes (made again at its next move) and the move is settled.
    b = _board('playmem', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    mv = b.ok(P.POSITION)['legal'][0]
    b.app.play(b.app.session.s.parse_move(mv), True)
    s = b.app.session.s
    # the check of the board's own move, once
    s.outcome, fails = _no_room(s.outcome, 1, 256, when=lambda: s.ply == 2)
    for _ in range(10):
        b.step(1000)  # the board thinks and plays: its check fails once
    del s.outcome
    pos = b.ok(P.POSITION)
    assert fails[0] == 0 and pos['ply'] == 2 and pos['turn'] == 'S', pos
    assert len(b.journal.read_current()[1]) == 2  # its move is on flash
    mv = pos['legal'][0]
    b.app.play(b.app.session.s.parse_move(mv), True)
    for _ in range(10):
        b.step(1000)
    assert b.ok(P.POSITION)['ply'] == 4 and b.app.opponent.last_info  # the AI came back
    rmtree(b.root)


def test_a_pass_of_the_loop_without_room_costs_the_pass_never_the_board():
    # The fuzzer under 160 KB: the loop's check whether the board is to move found no 256
    # bytes, and the board died at its REPL. Now the pass is lost, the AI shed, the loop goes on.
    b = _board('passmem', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    mv = b.ok(P.POSITION)['legal'][0]
    b.app.play(b.app.session.s.parse_move(mv), True)
    b.app._board_to_move, fails = _no_room(b.app._board_to_move, 2, 256)
    for _ in range(10):
        b.step(1000)
    del b.app._board_to_move
    pos = b.ok(P.POSITION)
    assert fails[0] == 0 and pos['ply'] == 2 and pos['turn'] == 'S', pos
    rmtree(b.root)


def test_a_host_is_answered_while_every_pass_of_the_loop_finds_no_room():
    # A board restarted after a long fuzz under 160 KB: every pass of its loop ran out of
    # heap before it reached the link, which came last, so the board was alive and deaf; not
    # even a sync (what frees its flash and sheds its AI) could reach it.
    b = _board('deaf', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'bawo'})
    b.app.view.show, fails = _no_room(b.app.view.show, 1000, 1536)
    b.inbox.append(P.encode(77, P.HELLO))
    for _ in range(5):
        b.step(10)
    del b.app.view.show
    assert fails[0] == 995, fails
    rs = [r for r in b.replies() if r.seq == 77]
    assert len(rs) == 1 and rs[0].type == P.OK, rs
    rmtree(b.root)


def test_no_room_for_a_big_reply_sends_a_smaller_page_never_silence():
    # A board restarted after a long fuzz under 160 KB had no 1 KB block for a LIST reply:
    # it kept the reply and answered nothing, resend after resend, and the sync never came
    # through. Now a page (LIST's games, GET's bytes, POSITION's moves) goes out smaller and
    # the host pages on: every game is listed, fetched and acknowledged, every move paged.
    b = _board('halve', settings={'speed': 8, 'opponent': 'people'})
    for k in range(9):
        b.ok(P.NEW, {'kind': 'oware'})
        for _ in range(12 + k):
            b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    import link

    LP = link.P
    encode = LP.encode

    room = [300]

    def tight(seq, typ, payload=None):  # a heap without a block for more than `room` bytes
        if len(LP.dumps(payload or {})) > room[0]:
            raise MemoryError('memory allocation failed, allocating 1024 bytes')
        return encode(seq, typ, payload)

    LP.encode = tight
    try:
        # HELLO's list of games is not a page: never cut (the host would think the board
        # plays fewer games); without room it is answered when there is.
        room[0] = 60
        hello = encode(9, P.HELLO)
        b.send(hello)
        assert not [r for r in b.replies() if r.seq == 9]
        room[0] = 1000
        b.send(hello)  # the host's resend: the kept reply, whole
        rs = [r for r in b.replies() if r.seq == 9]
        assert len(rs) == 1 and rs[0].payload['games'] == b.app.games, rs
        room[0] = 300
        got = b.sync_all()
        moves = []
        while True:
            page = b.ok(P.POSITION, {'from': len(moves)})
            if not page['moves']:
                break
            moves += page['moves']
    finally:
        LP.encode = encode
    assert len(got) == 8 and all(g.endswith(b'\n') for g in got.values()), sorted(got)
    assert moves == b.app.session.s.moves and len(moves) == 20, moves
    assert b.link.stats['nomem'] == 1, b.link.stats  # the HELLO above, once
    rmtree(b.root)


def test_no_room_for_the_list_cache_leaves_it_empty_never_missing():
    # The 100,000-frame fuzz: LIST's cache was dropped before its new arrays were made, and
    # when they found no room it stayed missing: every LIST after answered ERROR 9
    # "'NoneType' object isn't subscriptable", for good.
    b = _board('cache', settings={'speed': 8, 'opponent': 'people'})
    for _ in range(3):
        b.ok(P.NEW, {'kind': 'oware'})
        b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    import archive

    real = archive.array
    fails = [1]

    def array(typecode, *init):  # the cache's second array (the only 'H' one) finds no room
        if typecode == 'H' and fails[0]:
            fails[0] -= 1
            raise MemoryError('memory allocation failed, allocating 1024 bytes')
        return real(typecode, *init)

    archive.array = array
    try:
        r = b.request(P.LIST, {'start': 0})
        assert r.type == P.ERROR and 'memory' in r.payload['text'], r
        assert fails[0] == 0
        page = b.ok(P.LIST, {'start': 0})
    finally:
        archive.array = real
    assert len(page['games']) == 2 and page['next'] is None, page
    rmtree(b.root)


def test_a_request_that_found_no_room_gets_the_same_error_when_sent_again():
    # The 100,000-frame fuzz: a GET that ran out of heap was answered ERROR 9; the host's
    # resend (same seq, same bytes) ran it again and got a second, different ERROR 9. Every
    # answer is remembered with its request; a host asks again with a new request.
    b = _board('resend', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'oware'})
    real = b.app.snapshot
    fails = [2]

    def snapshot(**kw):
        if fails[0]:
            fails[0] -= 1
            raise MemoryError('memory allocation failed, allocating 368 bytes')
        return real(**kw)

    b.app.snapshot = snapshot
    frame = P.encode(500, P.POSITION)
    b.send(frame)
    first = [r for r in b.replies() if r.seq == 500]
    b.send(frame)
    again = [r for r in b.replies() if r.seq == 500]
    del b.app.snapshot
    assert len(first) == 1 and first[0].type == P.ERROR and 'memory' in first[0].payload['text'], (
        first
    )
    assert len(again) == 1 and again[0].payload == first[0].payload, (first, again)
    assert fails[0] == 1, fails  # the resend did not run the request again
    assert b.ok(P.POSITION)['game'] == 'oware'  # a new request runs
    rmtree(b.root)


def test_no_room_to_journal_a_move_keeps_it_in_ram_until_the_next_move():
    # A full heap, unlike a full flash (test_flash_full), fails a line before a byte of it is
    # written and has room again soon: the move is played and kept in RAM, the next move
    # appends both, and the record has every move. (Until this stop the journal stayed behind
    # until a sync freed flash, or until the record.)
    b = _board('jnlmem', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'bawo'})
    j = b.app.journal
    j.append, left = _no_room(j.append, 1, 64)
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    assert left[0] == 0 and b.app.session.s.ply == 1 and len(j.read_current()[1]) == 0
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    del j.append
    assert b.app.session.s.ply == 2 and len(j.read_current()[1]) == 2 and not b.app.full()
    gid = b.app.session.header['id']
    b.ok(P.NEW, {'kind': 'bawo'})  # the game given up: its record has both moves
    assert [g['plies'] for g in j.list_games() if g['id'] == gid] == [2]
    rmtree(b.root)


def test_a_move_the_journal_lacks_is_never_followed_by_the_next_one():
    # Found by the 100,000-frame fuzz: a journal with moves 32 and 33 missing and 34 after
    # them, set aside at the next power-on ("unexpected line 'M 34 d'"), the game lost. A full
    # heap failed the move's line, then the message about it, before the board had marked the
    # journal behind, so the next move was appended after the gap. Now a line the heap kept
    # off the flash is appended, in order, at the next move; a failed write (OSError) marks
    # the journal behind before any message; and the journal refuses a move that is not the
    # next one.
    b = _board('jnlgap', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'bawo'})
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    j = b.app.journal
    # Move 2: no room for its line nor for any message.
    j.append, left = _no_room(j.append, 1, 64)
    se = b.app.session
    say = se.say
    se.say, _ = _no_room(say, 5, 48)
    r = b.request(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    assert left[0] == 0 and b.app.session.s.ply == 2, r  # played
    assert r.type == P.OK, r  # and the host is told so: a resend must not play it twice
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})  # move 3 brings move 2 with it
    assert len(j.read_current()[1]) == 3 and not b.app.full()
    # Move 4: its write fails half way (OSError), the message too: behind, and move 5 is
    # kept in RAM with it, not appended after the torn line.
    real = j.append

    def torn(ply, text):
        with open(j.path('cur.jnl'), 'ab') as f:
            f.write(b'M %d' % ply)
        raise OSError(28)

    j.append = torn
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    j.append = real
    assert b.app.full() and b.app.session.s.ply == 4
    b.ok(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    del j.append
    se.say = say
    c = RealBoard(b.root)  # a power cut now: the journal's 3 moves, its torn tail dropped
    assert c.ok(P.POSITION)['id'] == b.app.session.header['id'] and c.app.session.s.ply == 3
    assert not [n for n in os.listdir(b.data) if n.endswith('.bad')], os.listdir(b.data)
    assert se.save() and len(j.read_current()[1]) == 5  # room back: the whole game
    # The journal's own guard: a move that is not the next one is refused, never appended.
    for ply in (5, 7):
        try:
            j.append(ply, 'A1+')
            raise AssertionError('move %d appended after 5' % ply)
        except ValueError:
            pass
    assert len(j.read_current()[1]) == 5
    rmtree(b.root)


def test_a_move_played_is_answered_ok_though_the_heap_had_no_room_for_its_answer():
    # The 100,000-frame fuzz: most of its ERROR 9s answered MOVEs the board had played and
    # journaled, the position for the answer finding no room. A host told ERROR takes it that
    # nothing happened (bawo play then stops: the board's position differs). Now the board
    # collects the heap and answers with the position.
    b = _board('moveans', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'oware'})
    b.ok(P.LIST, {})  # the records' code on the heap, as after a sync
    real = b.app.snapshot
    left = [1]

    def snapshot(**kw):
        if left[0] and b.app.session.s.ply == 1:
            left[0] -= 1
            raise MemoryError('memory allocation failed, allocating 512 bytes')
        return real(**kw)

    b.app.snapshot = snapshot
    r = b.request(P.MOVE, {'move': b.ok(P.POSITION)['legal'][0]})
    del b.app.snapshot
    assert left[0] == 0, 'the answer never met the full heap'
    assert r.type == P.OK and r.payload['ply'] == 1 == b.app.session.s.ply, r
    assert r.payload['position'] == b.app.session.g.format(b.app.session.s.position)
    b.ok(P.LIST, {})
    rmtree(b.root)


def test_a_game_over_whose_record_found_no_room_is_recorded_before_a_new_game():
    # The last move is journaled, but the heap has no room for the record, twice (App.play
    # sheds and tries again): the game is over in RAM and on flash only as cur.jnl. A NEW then
    # skipped it (only unfinished games were recorded first) and wrote over cur.jnl: the game
    # was gone. Now it is recorded before the new game starts.
    b = _board('overrec', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'oware'})
    gid = b.app.session.header['id']
    j = b.app.journal
    j.finish, left = _no_room(j.finish, 2, 1024)
    while b.app.session.s.outcome() is None:
        legal = b.ok(P.POSITION)['legal']
        r = b.request(P.MOVE, {'move': legal[b.app.session.s.ply * 7 % len(legal)]})
    del j.finish
    assert left[0] == 0 and r.type == P.ERROR, (left, r)  # the last move's record failed
    plies = b.app.session.s.ply
    assert gid not in b.records
    b.ok(P.NEW, {'kind': 'bawo'})
    assert [g['plies'] for g in j.list_games() if g['id'] == gid] == [plies]
    rmtree(b.root)


def test_a_get_without_room_for_its_bytes_answers_fewer_never_error():
    # The fuzz's last sync of a running board stopped on a GET: its 512 bytes (and their
    # base64) found no room, ERROR 9 every time. Now it answers with fewer and the host asks
    # on from where they end; below GET_LEAST bytes it is ERROR 9 as before.
    import link

    b = _board('gethalf', settings={'speed': 8, 'opponent': 'people'})
    for kind in ('bawo', 'oware'):
        _game_with_a_move(b)
        b.ok(P.NEW, {'kind': kind})
    j = b.app.journal
    real = j.record_bytes
    asked = []

    def tight(gid, off, n):
        asked.append(n)
        if n > 100:
            raise MemoryError('memory allocation failed, allocating %d bytes' % n)
        return real(gid, off, n)

    j.record_bytes = tight
    gid = b.ok(P.LIST, {})['games'][0]['id']
    r = b.ok(P.GET, {'id': gid, 'off': 0, 'n': 512})
    assert asked[:3] == [512, 256, 128] and len(P.unb64(r['data'])) == 64, (asked, r)
    got = b.sync_all()  # every record, CRC checked, a chunk of 64 at a time
    assert len(got) == 2 and all(len(v) > 100 for v in got.values())
    asked.clear()

    def none(gid, off, n):
        asked.append(n)
        raise MemoryError('memory allocation failed, allocating %d bytes' % n)

    j.record_bytes = none
    assert b.code(P.GET, {'id': gid, 'off': 0, 'n': 512}) == P.E_INTERNAL
    assert asked == [512, 256, 128, 64] and link.GET_LEAST == 48, asked
    del j.record_bytes
    rmtree(b.root)


def test_a_list_page_without_room_for_all_its_games_is_shorter_never_error():
    # As GET: a LIST whose third summary finds no room answers with the two it has.
    b = _board('listshort', settings={'speed': 8, 'opponent': 'people'})
    for kind in ('bawo', 'oware', 'bawo', 'oware'):
        _game_with_a_move(b)
        b.ok(P.NEW, {'kind': kind})
    j = b.app.journal
    real = j.list_games

    fails = [1]

    class Tight:
        def __init__(self, games):
            self.games = games

        def __len__(self):
            return len(self.games)

        def __getitem__(self, i):
            if i == 2 and fails[0]:
                fails[0] -= 1
                raise MemoryError('memory allocation failed, allocating 160 bytes')
            return self.games[i]

    j.list_games = lambda: Tight(real())
    page = b.ok(P.LIST, {'start': 0})
    assert [g['id'] for g in page['games']] == [g['id'] for g in real()][:2], page
    assert page['next'] == 2 and page['total'] == 4
    assert len(b.sync_all()) == 4
    del j.list_games
    rmtree(b.root)


def test_no_room_to_resume_at_power_on_keeps_the_game_and_the_board():
    # The board died at power-on when its journaled game found no room to replay, and at
    # every power-on after. Then it started in the menu with the game kept, but said "power
    # the board off and on", which on the same flash and heap fails the same way, and no new
    # game could start until then. Now BACK in the menu, MENU and a host's NEW try the replay
    # again, each on the heap of that moment: the game comes back, or stays kept and says so.
    import app

    b = _board('resumemem')
    _game_with_a_move(b)
    gid = b.app.session.header['id']
    with open(b.journal.path('cur.jnl'), 'rb') as f:
        kept = f.read()

    def full(*args):
        raise MemoryError('memory allocation failed, allocating 1024 bytes')

    c = _power_on_with(b.root, full)
    assert c.app.mode == 0 and c.app.session is None and c.app.unresumed
    assert 'press BACK to try again' in c.app.message, c.app.message
    real = app.resume
    app.resume = full  # still no room: the NEW and the BACK press find none either
    try:
        r = c.request(P.NEW, {'kind': 'oware'})
        assert r.type == P.ERROR and r.payload['code'] == P.E_INTERNAL, r
        assert 'kept on flash' in r.payload['text'], r
        c.app.on_press(c.app.keys.back)
        for _ in range(3):
            c.step(1000)
        assert c.app.mode == 0 and c.app.session is None and c.app.unresumed
        assert 'press BACK to try again' in c.app.message, c.app.message
    finally:
        app.resume = real
    with open(b.journal.path('cur.jnl'), 'rb') as f:
        assert f.read() == kept
    c.app.on_press(c.app.keys.back)  # room now: BACK brings the game back, at its ply
    assert not c.app.unresumed and c.app.mode == 1, c.app.mode
    assert c.ok(P.POSITION)['id'] == gid and c.app.session.s.ply == 1
    rmtree(b.root)


def test_a_new_game_over_a_kept_game_records_it_first():
    # A host's NEW (or MENU) while the game power-on had no room for is only on flash: with
    # room now, the kept game is replayed and recorded (unfinished), then the new one starts.
    b = _board('resumenew')
    _game_with_a_move(b)
    gid = b.app.session.header['id']

    def full(*args):
        raise MemoryError('memory allocation failed, allocating 1024 bytes')

    c = _power_on_with(b.root, full)
    assert c.app.unresumed
    c.ok(P.NEW, {'kind': 'oware'})
    assert not c.app.unresumed and c.app.session.header['id'] != gid and c.app.session.s.ply == 0
    got = c.sync_all()
    assert gid in got and b'[Result "*"]' in got[gid] and b'1. ' in got[gid], got
    rmtree(b.root)


def test_no_room_to_resume_tries_once_more():
    # The fuzz's restarted board: its journaled game found no room to replay. The replay's
    # garbage goes and it is tried once more on the cleaner heap.
    import app

    b = _board('resumeagain')
    _game_with_a_move(b)
    gid = b.app.session.header['id']
    real = app.resume
    calls = []

    def once(*args):
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError('memory allocation failed, allocating 960 bytes')
        return real(*args)

    c = _power_on_with(b.root, once)
    assert len(calls) == 2 and not c.app.unresumed
    assert c.ok(P.POSITION)['id'] == gid and c.app.session.s.ply == 1
    rmtree(b.root)


def test_a_full_heap_costs_a_frame_or_a_search_never_the_board():
    # bench/heap.py found it: at a heap a few KB too small the main loop died in draw() on
    # a bound method's few bytes. A frame without room is drawn again on the next loop; a
    # search without room gives way to a random legal move.
    b = _board('fullheap', settings={'speed': 8, 'opponent': 'board-second', 'level': 1})
    b.ok(P.NEW, {'kind': 'oware'})
    v = b.app.view
    cell = v.cell
    v.cell, fails = _no_room(cell, 2, 32)
    b.app.redraw = True
    b.step(100)
    assert b.app.redraw  # that frame could not be drawn: it is due again
    b.step(100)
    b.step(100)
    assert not b.app.redraw and fails[0] == 0
    v.cell = cell
    opp = b.app.opponent

    class Full:
        def choose(self, state):
            raise MemoryError('memory allocation failed, allocating 2048 bytes')

    b.app.opponent = Full()
    _person_then_board(b)
    pos = b.ok(P.POSITION)
    assert pos['ply'] >= 2 and pos['turn'] == 'S', pos  # the board moved, at random
    b.app.opponent = opp
    rmtree(b.root)


def _probe(spec):
    """(bad values, good values) of one schema field."""
    name, kind, lo, hi, default = spec
    if kind == P.INT:
        return (
            [lo - 1, hi + 1, -1 if lo >= 0 else None, 1 << 64, 10**30, 1.5, True, '1', [1]],
            [lo, hi],
        )
    if kind == P.CHOICE:
        return (['', lo[0] + 'x', 1, [lo[0]]], list(lo))
    bad = ['a' * (hi + 1), 7, False, ['a'], {'a': 1}]
    if lo > 0:
        bad.append('')
    if kind == P.TEXT:
        bad += ['\u00e9' * max(lo, 1), 'a\nb', 'a\x7f']
        return bad, ['a' * max(lo, 1), 'b' * hi]
    return bad + ['a-0001/'], ['fuzz-0001', 'z' * (hi - 5) + '-0001']


BASE = {
    P.HELLO: {},
    P.TIME: {'t': 1750000000},
    P.LIST: {},
    P.GET: {'id': 'fuzz-0001'},
    P.ACK_GAME: {'id': 'fuzz-0001'},
    P.POSITION: {},
    P.NEW: {'kind': 'bawo'},
    P.MOVE: {'move': 'A1+'},
    P.PEER: {},
    P.END: {'result': 'S', 'reason': 'resign'},
    P.SEAT: {'round': 1},
}


def test_every_field_out_of_range_is_bad_payload():
    b = _board('ranges')
    _game_with_a_move(b)
    assert set(BASE) == set(P.REQUESTS) == set(P.SCHEMA)
    n = 0
    for typ in P.REQUESTS:
        for spec in P.SCHEMA[typ]:
            bad, good = _probe(spec)
            for v in bad:
                if v is None:
                    continue
                pl = dict(BASE[typ])
                pl[spec[0]] = v
                before = b.state()
                r = b.request(typ, pl)
                assert r.type == P.ERROR and r.payload['code'] == BAD, (typ, spec[0], v, r)
                assert r.payload['text'].startswith('bad payload: ' + spec[0]), r.payload
                assert b.state() == before, (typ, v)
                n += 1
            for v in good:
                pl = dict(BASE[typ])
                pl[spec[0]] = v
                r = b.request(typ, pl)
                assert r.type == P.OK or (
                    r.payload['code'] not in (P.E_INTERNAL, P.E_TOO_LARGE)
                    and not r.payload['text'].startswith('bad payload')
                ), (typ, spec[0], v, r)
                b.step(3000)
            if spec[4] is P.REQUIRED:
                pl = dict(BASE[typ])
                del pl[spec[0]]
                assert b.code(typ, pl) == BAD
    assert n > 80, n
    rmtree(b.root)


def test_the_issue_cases():
    b = _board('cases')
    assert b.code(P.LIST, {'start': -1}) == BAD
    assert b.code(P.TIME, {'t': 1 << 62}) == BAD
    assert b.code(P.TIME, {'t': -(1 << 40)}) == BAD
    assert b.code(P.GET, {'id': 'fuzz-0001', 'off': -1}) == BAD
    assert b.code(P.LIST, {}, seq=0) == BAD  # seq 0 is no request's
    # The latest clock the board accepts still makes a start time for the next game.
    assert b.code(P.TIME, {'t': P.T_MAX}) == 0
    b.ok(P.NEW, {'kind': 'bawo'})
    assert b.app.session.header['start'].startswith('2099-12-31 23:59'), b.app.session.header
    b.step(100)
    assert b.code(P.TIME, {'t': P.T_MIN}) == 0
    rmtree(b.root)


def test_hello_has_the_documented_fields():
    b = _board('hello')
    info = b.ok(P.HELLO, {'proto': 1, 'host': 'bawo-host'})
    for k in ('fw', 'proto', 'rules', 'board', 'flash_free', 'heap_free', 'max_line', 'max_chunk'):
        assert k in info, (k, info)
    assert info['board'] == BOARD_ID and info['proto'] == P.VERSION
    assert isinstance(info['heap_free'], int) and isinstance(info['flash_free'], int)
    rmtree(b.root)


def test_a_press_that_finds_no_room_flashes_red_and_the_next_one_plays():
    # On a full heap a press used to vanish without a word (the pass shed and went on): the
    # person saw nothing happen and waited. Now the pocket flashes red, as for any press the
    # board does not take, and pressing it again plays the move.
    b = _board('pressroom', settings={'speed': 8, 'opponent': 'people'})
    b.ok(P.NEW, {'kind': 'oware'})
    a = b.app
    key = key_of(a, 0)  # South's pit A: one press plays it
    a.session.s.push, left = _no_room(a.session.s.push, 1, 512)

    def press():
        b.board.press(key)
        for _ in range(4):
            b.step(5)
        b.board.release(key)
        for _ in range(4):
            b.step(5)

    press()
    assert left[0] == 0, 'the press never reached the move'
    assert a.session.s.ply == 0 and a.scene.flash_key == key, (a.session.s.ply, a.scene.flash_key)
    assert a.flashes == 1
    b.step(1000)  # the red goes
    assert a.scene.flash_key == -1
    press()
    assert a.session.s.ply == 1 and a.session.s.moves[0] == 'A', a.session.s.moves
    del a.session.s.push
    rmtree(b.root)


if __name__ == '__main__':
    mpcheck.run(globals())
