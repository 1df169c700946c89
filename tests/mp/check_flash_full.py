# A full flash never stops the board (issue 9): starting a game on a full filesystem used to
# raise OSError 28 at every boot. Now the board shows "flash full, sync me", plays on, journals
# what fits, never loses or overwrites an unsynced game, and is back to normal once a sync
# (ACK_GAME) has let it delete synced games.
#
# The filesystem is really full: under MicroPython the journal runs on littlefs (vfs.VfsLfs2,
# the Pico's filesystem) on a small RAM block device; under CPython on the host's files with a
# byte budget, where a write past it writes what fits and raises OSError(28) (ENOSPC), as POSIX
# does. Runs the real app, journal and handler on the simulated board, under both runtimes.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import os
import time
import hw_sim
import app
import journal
import view as V  # noqa: F401  (loaded as the board loads it: it takes its heap)
from journal import Journal

app.print = lambda *a: None
BLOCK = 512
BLOCKS = 48  # a 24 KB littlefs: a few records fill it
CAP = BLOCK * BLOCKS // 2  # CPython's budget, in bytes of file content
_n = [0]


class RAMBlockDev:
    # The block device protocol of MicroPython's vfs (readblocks/writeblocks/ioctl).
    def __init__(self, block_size, num_blocks):
        self.block_size = block_size
        self.data = bytearray(block_size * num_blocks)

    def readblocks(self, n, buf, off=0):
        a = n * self.block_size + off
        buf[:] = self.data[a : a + len(buf)]

    def writeblocks(self, n, buf, off=None):
        a = n * self.block_size + (off or 0)
        self.data[a : a + len(buf)] = buf

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // self.block_size
        if op == 5:
            return self.block_size
        if op == 6:
            return 0


class Budget:
    """CPython: files under root may hold `cap` bytes in all; a write past that writes the
    part that fits and raises OSError(28), leaving the partial file (as POSIX and FAT do)."""

    def __init__(self, root, cap):
        self.root = root
        self.cap = cap

    def used(self):
        n = 0
        for name in os.listdir(self.root):
            n += os.stat(self.root + '/' + name)[6]
        return n

    def open(self, path, mode='r', *a):
        if ('w' in mode or 'a' in mode) and path.startswith(self.root + '/'):
            return _Limited(self, open(path, mode, buffering=0))
        return open(path, mode, *a)


class _Limited:
    def __init__(self, fs, f):
        self.fs = fs
        self.f = f

    def write(self, data):
        room = self.fs.cap - self.fs.used()
        if len(data) > room:
            self.f.write(data[: max(0, room)])
            raise OSError(28, 'No space left on device')
        return self.f.write(data)

    def flush(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.f.close()


def _flash():
    """A fresh, small, empty filesystem; returns the games directory on it."""
    _n[0] += 1
    if mpcheck.MICROPYTHON:
        import vfs

        bd = RAMBlockDev(BLOCK, BLOCKS)
        vfs.VfsLfs2.mkfs(bd)
        mnt = '/bawo-lfs-%d' % _n[0]
        vfs.mount(vfs.VfsLfs2(bd), mnt)
        return mnt + '/games'
    base = '/tmp/bawo-full-%d-%d' % (time.time_ns() % 1000000007, _n[0])
    os.mkdir(base)
    root = base + '/games'
    os.mkdir(root)
    journal.open = Budget(root, CAP).open
    return root


def _record(gid, plies=60):
    moves = ' '.join('%d. A1+ B1-' % (i + 1) for i in range(plies // 2))
    return '[Game "bawo"]\n[Id "%s"]\n[Result "*"]\n\n%s *\n' % (gid, moves)


def _fill(root):
    """Unsynced records until the flash refuses one; their ids."""
    j = Journal(root, 'tb', min_free=0, log=lambda m: None)
    ids = []
    while True:
        gid = 'tb-%04d' % (len(ids) + 1)
        try:
            j.finish(gid, _record(gid))
        except OSError as e:
            assert e.args[0] == 28, e
            return ids
        ids.append(gid)


def _records(root):
    return sorted(n for n in os.listdir(root) if n.endswith('.rec') or n.endswith('.syn'))


def _boot(root):
    board = hw_sim.Board(mpcheck.prof(), clock=hw_sim.SimClock())
    # On CPython the journal's own model of the flash size (capacity) is the budget's.
    j = Journal(
        root, 'tb', min_free=4096, capacity=0 if mpcheck.MICROPYTHON else CAP, log=lambda m: None
    )
    said = []
    a = app.App(
        board,
        j,
        'tb',
        settings={'game': 'bawo', 'opponent': 'people', 'speed': 8},
        hook=lambda k, d: said.append(d) if k == 'msg' else None,
    )
    a.said = said
    a.attach_link(lambda: b'', lambda b: None)
    a.boot()
    return a, board


def _play(a, n):
    for _ in range(n):
        assert a.play(a.session.s.legal_moves[0])
        a.step(a.now + 10)


def _warning_shown(a, board):
    """The top-right LED of the top-left pocket, at both blink phases: red if flash is full."""
    seen = []
    for _ in range(2):
        a.step(a.now + app.BLINK_MS)
        led = a.profile.blocks[0][a.profile.block_w - 1]
        seen.append(board.pixels.wire_rgb(led))
    return seen


def _is_red(rgb):
    return rgb[0] > 0 and rgb[1] == 0 and rgb[2] == 0


def _sync(a, ids):
    # What `bawo sync` ends with for each game: ACK_GAME through the board's own handler.
    from handler import Handler

    for gid in ids:
        Handler(a).ack_game(gid)
        a.step(a.now + 10)


def test_new_game_on_a_full_flash_plays_on_and_is_saved_after_a_sync():
    root = _flash()
    ids = _fill(root)
    assert len(ids) >= 3, ids
    a, board = _boot(root)
    assert a.new_game('bawo') is True  # was: OSError 28, at every boot
    _play(a, 30)
    assert a.mode == app.PLAY and a.session.s.ply == 30
    assert a.full(), 'flash full is not shown'
    full = [m for m in a.said if m.startswith('flash full')]
    assert len(full) == 1 and 'bawo sync' in full[0], a.said  # said once, not every move
    assert any(_is_red(x) for x in _warning_shown(a, board))
    assert _records(root) == [i + '.rec' for i in ids]  # nothing unsynced went
    moves = a.session.s.moves
    half = len(ids) // 2
    _sync(a, ids[:half])
    # Synced games were deleted to make room (oldest first), and the game was written.
    left = _records(root)
    assert left[-(len(ids) - half) :] == [i + '.rec' for i in ids[half:]], left
    assert len(left) < len(ids), left
    assert not a.full(), 'a sync made room but the game was not saved'
    assert a.said[-1].startswith('flash has room again'), a.said
    cur = a.journal.read_current()
    assert cur is not None and cur[1] == moves, (cur, moves)
    assert not any(_is_red(x) for x in _warning_shown(a, board))
    _play(a, 2)  # journaled again, line by line
    assert not a.full(), (len(ids), a.journal.free_bytes(), a.said)
    a2, _ = _boot(root)
    assert a2.mode == app.PLAY and a2.session.s.moves == a.session.s.moves, (
        a2.mode,
        a2.session.s.ply,
        a.session.s.ply,
    )


def test_a_reboot_on_a_full_flash_resumes_what_fit():
    root = _flash()
    ids = _fill(root)
    a, _ = _boot(root)
    a.new_game('bawo')
    _play(a, 30)
    assert a.full()
    # Power cut now: the moves only in RAM are gone, what fit on flash resumes, and the
    # board boots and plays (no OSError at boot, no damaged journal set aside).
    a2, _ = _boot(root)
    assert a2.journal.aside == []
    if a2.mode == app.PLAY:
        assert a2.session.s.moves == a.session.s.moves[: a2.session.s.ply]
        _play(a2, 2)
    else:
        assert a2.new_game('bawo') is True
        _play(a2, 2)
    assert _records(root) == [i + '.rec' for i in ids]


def test_a_game_that_does_not_fit_is_never_replaced():
    root = _flash()
    ids = _fill(root)
    a, board = _boot(root)
    a.new_game('bawo')
    _play(a, 30)
    first = a.session.header['id']
    moves = a.session.s.moves
    # MENU, MENU: a new game would archive this one, but its record does not fit.
    a.open_menu()
    assert a.new_game('bawo') is False
    assert a.session.header['id'] == first and a.session.s.moves == moves and a.mode == app.MENU
    assert a.full() and any(_is_red(x) for x in _warning_shown(a, board))
    a.on_press(a.keys.back)  # its AI and journal are closed: no way back into it
    assert a.mode == app.MENU
    # The host cannot start one either: error 7, flash full.
    from link import LinkError
    from handler import Handler

    try:
        Handler(a).new_game('bawo')
        raise AssertionError('NEW was accepted')
    except LinkError as e:
        assert e.code == 7, e.code
    _sync(a, ids)
    assert not a.full()
    names = _records(root)
    assert first + '.rec' in names, names
    text = a.journal.read_record(first)
    assert ('30. ' in text or '15. ' in text) and a.journal.read_current() is None
    assert a.new_game('bawo') is True and a.session.header['id'] != first


if __name__ == '__main__':
    mpcheck.run(globals())
