# Game journal and finished-game records on the board's flash.
#
# Durability model: a move line is appended, flushed and the file closed BEFORE the move
# is animated. On littlefs (the Pico's filesystem) flush() runs lfs_file_sync and the file
# keeps its previous committed state until then, so a power cut loses at most the line
# being written; on FAT or the simulator's POSIX files a cut can leave a torn tail, which
# the per-line CRC32 catches. os.sync() exists only on some ports, so it is optional.
#
# Files in `root`:
#   cur.jnl          the game in progress: one header line, then one line per move
#   <id>.rec         a finished (or abandoned) game's record, not yet fetched by a host
#   <id>.syn         the same once a host acknowledged it (the rename is the synced flag)
#   <name>.bad       anything that failed its checksum, set aside for a human to look at
#   counter          last game counter used, so ids stay unique after records are deleted
#   counter.2        the same, a second copy: the larger valid one counts
#   settings         the menu's choices (firmware/app.py)
#   board_id         the simulator's board id (firmware_sim/board_sim.py)
# A directory where one of these files belongs, or a file where `root` should be, is set
# aside as *.bad too (renamed, never deleted), once, with a warning.
# A journal/record line is "<payload> <crc32 of payload, 8 hex digits>\n".
import os
import json
from array import array
import archive
import journal_read
from datafiles import (CUR, REC, SYN, BAD, COUNTER, COUNTER2, SETTINGS, MAX_COUNTER, crc32, seal, read_line,
                       unseal, sync_fs, exists, is_dir, free_name, header_of, drop_file,
                       replace_file, counter_of)

_ILIST = hasattr(os, 'ilistdir')   # MicroPython: names one at a time


class Journal:
    """root: directory on flash. min_free: bytes to keep free (old synced games are
    deleted to get them). capacity: when > 0, the flash size to model instead of
    os.statvfs (the simulator and tests use it to run out of space on purpose).
    crash_hook: tests only; called as crash_hook(path, line) to simulate a cut mid-write."""

    def __init__(self, root, board_id, min_free=16384, capacity=0, log=None):
        self.root = root
        self.board_id = board_id
        self.min_free = min_free
        self.capacity = capacity
        self.log = log or (lambda msg: print('journal:', msg))
        self.low = False          # flash low and nothing synced left to delete
        self.torn = False         # cur.jnl ends in a torn line that could not be cut off
        self.freed = 0            # bumped whenever a file is removed: room may have come back
        self.crash_hook = None
        self.plies = -1           # moves in cur.jnl, as far as this journal wrote or read them
        self.summaries = (array('I'), array('H'), array('I'))  # list_games cache, see _summary
        self.strings = ['']         # game names, results and reasons seen (at most 127)
        self.aside = []           # names set aside since boot, for the app's one warning
        self.record_list = None           # archive.records(self) until a record file comes or goes
        self._make_root()
        self.check_records()

    def _make_root(self):
        # A file (or anything not a directory) where the games directory should be is set
        # aside under a name of ours, never deleted: it may hold a person's data.
        if exists(self.root) and not is_dir(self.root):
            bad = free_name(self.root + BAD)
            try:
                os.rename(self.root, bad)
                self.aside.append(bad)
                self.log('%s is not a directory: set aside as %s' % (self.root, bad))
            except OSError as e:
                self.log('%s is not a directory and cannot be set aside (%s)' % (self.root, e))
        try:
            os.mkdir(self.root)
        except OSError:
            pass

    def path(self, name):
        return self.root + '/' + name

    def names(self):
        """The names in root, one at a time where the port can (os.ilistdir): a list of
        every name on a flash that holds thousands of games would not fit the heap."""
        try:
            it = os.ilistdir(self.root) if _ILIST else os.listdir(self.root)
        except OSError:
            return
        for e in it:
            yield e[0] if _ILIST else e

    def set_aside(self, name, why):
        """Rename a damaged file (or a directory where a file belongs) to *.bad so boot
        never trips on it again. Nothing is deleted: it may be the only copy of a game."""
        bad = free_name(self.path(name + BAD))
        try:
            os.rename(self.path(name), bad)
        except OSError as e:
            self.log('%s is damaged (%s) and cannot be set aside: %s' % (name, why, e))
            return
        self.uncache(name)
        bad = bad[len(self.root) + 1:]
        self.aside.append(bad)
        self.log('%s set aside as %s: %s' % (name, bad, why))

    # -- the game in progress ---------------------------------------------------------
    def read_current(self):
        """(header dict, MoveTexts) of cur.jnl, None if there is none or it is damaged.
        A torn last line is dropped (and cut off the file); a damaged line anywhere else
        sets the journal aside. Read a line at a time, each at most LINE_MAX bytes: the
        memory it takes is the game's, never the file's (a damaged file may be any size)."""
        return journal_read.read_current(self)

    def start(self, header):
        """Begin a new game journal; fills header['id'] first, so the game has its id even
        when the flash is full (OSError, then rewrite_current once there is room)."""
        n = self._next_counter()
        gid = '%s-%04d' % (self.board_id, n)
        header['id'] = gid
        self._write_counter(n)
        self.plies = -1
        self._rewrite(CUR, seal('H ' + json.dumps(header)))
        self.plies = 0
        self.make_room()
        return gid

    def rewrite_current(self, header, moves):
        """Write the whole journal of the game in RAM at once (header, then every move), in
        place of whatever cur.jnl holds: how the app catches up after a write failed for lack
        of space (the old file may end in a partial line). Atomic: OSError leaves it as it was.
        moves: any iterable of move texts (State.iter_moves: no list of a long game's moves
        on a heap that just lacked room for one line)."""
        self.write_cur(header, moves)

    def write_cur(self, header, moves):
        p = self.path(CUR + '.tmp')
        n = 0
        try:
            with open(p, 'wb') as f:
                f.write(seal('H ' + json.dumps(header)))
                for m in moves:
                    n += 1
                    f.write(seal('M %d %s' % (n, m)))
                f.flush()
            replace_file(p, self.path(CUR))
        except (OSError, MemoryError):
            drop_file(p)
            raise
        sync_fs()
        self.torn = False
        self.plies = n

    def append(self, ply, move):
        """Make move number `ply` (1-based) durable. Returns only once it is on flash.
        ValueError, nothing written, if it is not the move after the last one written."""
        self.check_ply(ply)
        line = seal('M %d %s' % (ply, move))
        p = self.path(CUR)
        if self.crash_hook is not None:
            self.crash_hook(p, line)
        with open(p, 'ab') as f:
            f.write(line)
            f.flush()
        sync_fs()
        self.plies = ply

    def check_ply(self, ply):
        # A move after a missing one makes a journal that no power-on replays (it is set
        # aside, the game lost): refused, and the app writes the whole game again instead.
        if self.plies >= 0 and ply != self.plies + 1:
            raise ValueError('move %d after move %d' % (ply, self.plies))

    def finish(self, gid, text):
        """Store the record text of the current game and drop its journal."""
        b = text.encode()
        self.record_list = None
        self._rewrite(gid + REC, b + b'#crc %08x\n' % crc32(b))
        self.remove(CUR)
        self.plies = -1
        self.make_room()

    def discard_current(self):
        self.remove(CUR)
        self.plies = -1

    # -- records ----------------------------------------------------------------------
    def find_record(self, gid):
        """The file name of record gid (unsynced or synced), None if there is none."""
        for ext in (REC, SYN):
            if exists(self.path(gid + ext)):
                return gid + ext
        return None

    def uncache(self, name):
        self.record_list = None
        c = counter_of(name)
        tag = self.summaries[0]
        if 0 <= c < MAX_COUNTER and len(tag) and tag[c & (len(tag) - 1)] == c + 1:
            tag[c & (len(tag) - 1)] = 0

    # Finished records are read only at boot and while a host syncs: that code is archive.py's.
    def check_records(self):
        """Set aside every record that fails its checksum, and a directory wherever the
        board keeps a file; drop leftover temp files."""
        archive.check(self)

    def list_games(self):
        """Sequence of {'id', 'game', 'plies', 'result', 'reason', 'synced', 'crc'}, oldest first
        (see archive.list_games)."""
        return archive.list_games(self)

    def record_bytes(self, gid, off, n):
        """(bytes, total, crc32 of the whole record) of record `gid`, or None if unknown."""
        return archive.record_bytes(self, gid, off, n)

    def read_record(self, gid):
        r = self.record_bytes(gid, 0, 1 << 20)
        return None if r is None else r[0].decode()

    def mark_synced(self, gid):
        """True if the record exists (synced now or before)."""
        return archive.mark_synced(self, gid)

    # -- space ------------------------------------------------------------------------
    def free_bytes(self):
        if self.capacity:
            used = 0
            for name in self.names():
                try:
                    used += os.stat(self.path(name))[6]
                except OSError:
                    pass
            return self.capacity - used
        st = os.statvfs(self.root)
        # A littlefs that just failed a write can report more free blocks than it has.
        return st[0] * st[4] if st[4] <= st[2] else 0

    def make_room(self):
        """Delete the oldest synced records until min_free bytes are free. Unsynced games
        are never deleted: if they alone fill the flash, self.low is set for a warning."""
        free = self.free_bytes()
        if free >= self.min_free:
            self.low = False
            return
        rl = archive.scan_records(self)   # not kept: make_room runs as games start
        for i in range(archive.count(rl)):
            name = archive.name_at(rl, i)
            if free >= self.min_free:
                break
            if name.endswith(SYN):
                self.remove(name)
                self.log('deleted synced %s to free flash' % name)
                free = self.free_bytes()
        self.low = free < self.min_free
        if self.low:
            self.log('flash low (%d bytes free): fetch games to a host' % free)

    # -- helpers ----------------------------------------------------------------------
    def remove(self, name):
        self.record_list = None
        try:
            os.remove(self.path(name))
            self.freed += 1
        except OSError:
            pass
        self.uncache(name)

    def write_settings(self, text):
        """The settings file (the menu's choices), replaced whole, sealed."""
        self._rewrite(SETTINGS, seal(text))

    def _rewrite(self, name, data):
        tmp = self.path(name + '.tmp')
        try:
            with open(tmp, 'wb') as f:
                f.write(data)
                f.flush()
            replace_file(tmp, self.path(name))
        except OSError:
            # Flash full: no partial temp file may stay to take the room.
            drop_file(tmp)
            raise
        sync_fs()

    def _next_counter(self):
        # Never back: the larger of the counter's two copies, the names on flash (records,
        # synced or set aside) and the game in progress. One copy alone was lost to a bad
        # page once its synced records had been deleted, and ids came again (issue 27).
        n = 0
        for name in (COUNTER, COUNTER2):
            try:
                with open(self.path(name), 'rb') as f:
                    t = unseal(f.read(32).rstrip(b'\n'))
                if t is not None and t.isdigit() and int(t) > n:
                    n = int(t)
            except OSError:
                pass
        for name in self.names():
            c = counter_of(name)
            if c > n:
                n = c
        cur = self.read_current_id()
        if cur is not None and counter_of(cur) > n:
            n = counter_of(cur)
        return n + 1

    def read_current_id(self):
        try:
            with open(self.path(CUR), 'rb') as f:
                line = read_line(f)
        except OSError:
            return None
        t = unseal(line.rstrip(b'\n'))
        h = None if t is None else header_of(t)
        return None if h is None else h['id']

    def _write_counter(self, n):
        self._rewrite(COUNTER, seal(str(n)))
        self._rewrite(COUNTER2, seal(str(n)))

