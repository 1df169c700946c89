# Finished-game records on flash, as a host sees them: check at boot, LIST (with its cache),
# GET and ACK_GAME. The journal's (journal.py) functions for them, kept apart: only boot and
# a sync use them.
import os
from array import array
from compat import const
from datafiles import (REC, SYN, BAD, FILES, CRC_TAIL, CACHE_MAX, MAX_COUNTER, crc32, sync_fs,
                       is_dir, counter_of)


def records(j):
    """Record file names, oldest first, as plain data: (board id, keys, n), the first n keys
    (counter << 1 | synced) sorted, a name made of each when it is needed (name_at). The
    board keeps synced records until the flash is needed, thousands on a Pico: as a list of
    names they took ~100 bytes each, and 200 of them stopped a 160 KB board at power-on.
    Names of two board ids (the id changed) are rare: then a plain list of names. Kept in
    j.record_list while the board's own writes leave it right and the records number the same, so a
    sync's LIST pages do not make it each time."""
    n = _count(j)
    if j.record_list is None or count(j.record_list) != n:
        j.record_list = None
        j.record_list = scan_records(j, n)
    return j.record_list


def count(rl):
    return len(rl) if isinstance(rl, list) else rl[2]


def name_at(rl, i):
    """The i-th name of records(j); IndexError past the end (it ends an iteration)."""
    if isinstance(rl, list):
        return rl[i]
    if not 0 <= i < rl[2]:
        raise IndexError(i)
    k = rl[1][i]
    return '%s-%04d%s' % (rl[0], k >> 1, SYN if k & 1 else REC)


def _is_record(name):
    return name.endswith(REC) or name.endswith(SYN)


def _count(j):
    n = 0
    for name in j.names():
        if _is_record(name):
            n += 1
    return n


def scan_records(j, n=None):
    """records(j), read from the directory now and not kept."""
    if n is None:
        n = _count(j)
    own = _keys(n)
    i = 0
    board = None
    for name in j.names():
        if _is_record(name) and i < n:
            c = counter_of(name)
            if board is None:
                board = name[:name.rfind('-')]
            if not 0 <= c < MAX_COUNTER or name[:-4] != '%s-%04d' % (board, c):
                own = None
                return _named(j)
            own[i] = c << 1 | name.endswith(SYN)
            i += 1
    _heapsort(own, i)
    return (board, own, i)


_SHIFT = const(6)
_BLOCK = const(1 << _SHIFT)   # keys an array: 64, 256 bytes
_MASK = const(_BLOCK - 1)


class _Blocks:
    """n unsigned ints in arrays of _BLOCK: thousands of records' keys as one array wanted a
    block of their whole size, which a board's fragmented heap seldom has (500 unsynced
    records: 2 KB, and their LIST failed once the woken link had taken its room; 1 KB arrays
    failed too)."""

    def __init__(self, n):
        self.b = [array('I', range(min(_BLOCK, n - k))) for k in range(0, n, _BLOCK)]

    def __getitem__(self, i):
        return self.b[i >> _SHIFT][i & _MASK]

    def __setitem__(self, i, v):
        self.b[i >> _SHIFT][i & _MASK] = v


def _keys(n):
    # One array of its final size while that is small, made from a range, not from a bytes of
    # zeros (that takes a second block as big meanwhile); blocks of them past that.
    return array('I', range(n)) if n <= _BLOCK else _Blocks(n)


def _named(j):
    out = []
    for name in j.names():
        if _is_record(name):
            out.append((counter_of(name), name))
    out.sort()
    return [x[1] for x in out]


def _heapsort(a, n):
    # In place: sorted() would make a list of them all, the memory this is here to save.
    for start in range(n // 2 - 1, -1, -1):
        _sift(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, 0, end)


def _sift(a, i, n):
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and a[c + 1] > a[c]:
            c += 1
        if a[i] >= a[c]:
            return
        a[i], a[c] = a[c], a[i]
        i = c


def _verify(j, name):
    # Streams the file through crc32 so a long record needs no big buffer.
    p = j.path(name)
    try:
        size = os.stat(p)[6]
        body = size - CRC_TAIL
        if body < 0:
            return False
        crc = 0
        buf = bytearray(256)
        mv = memoryview(buf)
        left = body
        with open(p, 'rb') as f:
            while left > 0:
                k = f.readinto(buf)
                if not k:
                    return False
                k = min(k, left)
                crc = crc32(mv[:k], crc)
                left -= k
            f.seek(body)
            tail = f.read()
        return tail == b'#crc %08x\n' % crc
    except OSError:
        return False


def check(j):
    """Set aside every record that fails its checksum, and a directory wherever the
    board keeps a file; drop leftover temp files."""
    # Names read one at a time (Journal.names); what is renamed or removed, after the
    # reading: a directory changed while it is read may skip or repeat a name.
    fix = []
    for name in j.names():
        if name.endswith(BAD):
            continue
        if name.endswith('.tmp') or name in FILES:
            fix.append(name)
    for name in fix:
        if is_dir(j.path(name)):
            j.set_aside(name, 'a directory where a file belongs')
        elif name.endswith('.tmp'):
            j.remove(name)
    rl = records(j)
    for i in range(count(rl)):
        name = name_at(rl, i)
        if not _verify(j, name):
            j.set_aside(name, 'checksum mismatch')


def record_bytes(j, gid, off, n):
    """(bytes, total, crc32 of the whole record) of record `gid`, or None if unknown."""
    name = j.find_record(gid)
    if name is None:
        return None
    p = j.path(name)
    total = os.stat(p)[6] - CRC_TAIL
    with open(p, 'rb') as f:
        crc = _crc_at(f, total)
        off = max(0, min(off, total))
        f.seek(off)
        data = f.read(max(0, min(n, total - off)))
    return data, total, crc


def _crc_at(f, total):
    # The CRC-32 of the record's `total` bytes, from its '#crc xxxxxxxx' tail.
    f.seek(total + 5)
    return int(f.read(8), 16)


def _crc_of(j, name):
    # From the end: no os.stat (its tuple) at every LIST of every record.
    with open(j.path(name), 'rb') as f:
        f.seek(-CRC_TAIL + 5, 2)
        return int(f.read(8), 16)


def mark_synced(j, gid):
    """True if the record exists (synced now or before)."""
    name = j.find_record(gid)
    if name is None:
        return False
    if name.endswith(REC):
        j.record_list = None   # its name changes
        try:
            os.rename(j.path(name), j.path(gid + SYN))
        except OSError as e:
            # A littlefs too full even to rename: the host has the game, so it may go.
            j.log('%s synced, removed: flash too full to mark it (%s)' % (name, e))
            os.remove(j.path(name))
            j.uncache(name)
            j.freed += 1
        sync_fs()
    j.make_room()
    return True


def list_games(j):
    """Sequence of {'id', 'game', 'plies', 'result', 'reason', 'synced', 'crc'}, oldest first.
    A view: each item is read (or taken from the cache) when indexed, so one LIST page
    does not hold a dict per record on the board (they would fragment the heap)."""
    rl = records(j)
    _size_cache(j, count(rl))
    return _Games(j, rl)


def _summary(j, name):
    """{'id', 'game', 'plies', 'result', 'reason', 'synced', 'crc' (unsynced only)} of a record.

    The cache must not fragment the heap: one object per record, made at odd times
    between bursts of garbage, leaves the heap full of holes (with ~500 records LIST
    could no longer get 8 KB with 1.7 MB free). So it is three arrays, sized by the
    records on flash (see _size_cache), never by the game counter: a board that played
    100,000 games has the cache of a new one. A record's slot is its counter modulo the
    size; the first array holds 1 + the counter there (0: empty), the others its plies
    and 1 + game/result/reason indexes in j.strings. Foreign names are scanned every
    time. list_games returns a view, so a LIST page builds only its own dicts."""
    gid = name[:-4]
    c = counter_of(gid)
    if c < 0 or c >= MAX_COUNTER or gid != '%s-%04d' % (j.board_id, c):
        c = -1
    tag, ply, codes = j.summaries
    i = c & (len(tag) - 1)
    if c >= 0 and len(tag) and tag[i] == c + 1:
        code = codes[i] - 1
        plies = ply[i]
        st = j.strings
        game, result, reason = st[code & 127], st[code >> 7 & 127], st[code >> 14]
    else:
        game, plies, result, reason = _scan(j, name)
        if c >= 0 and len(tag) and plies < 65536:
            code = _code(j, game) | _code(j, result) << 7 | _code(j, reason) << 14
            if code >= 0:
                tag[i] = c + 1
                ply[i] = plies
                codes[i] = code + 1
    # crc: what GET's crc will be, so a host acks only a record it holds (docs/protocol.md).
    # Read from the file's tail at each LIST, not cached (no heap kept for it), and only for
    # a record not synced yet: the only ones a host fetches or acks.
    d = {'id': gid, 'game': game, 'plies': plies, 'result': result, 'reason': reason,
         'synced': name.endswith(SYN)}
    if not d['synced']:
        d['crc'] = _crc_of(j, name)
    return d


def _size_cache(j, n):
    # A power of two >= n records (64..CACHE_MAX): consecutive counters never share a
    # slot. Resized (and emptied) only when the number of records crosses a power of two.
    size = 64
    while size < n and size < CACHE_MAX:
        size <<= 1
    if len(j.summaries[0]) != size:
        j.summaries = None   # the old cache's room first
        try:
            j.summaries = (array('I', bytes(4 * size)), array('H', bytes(2 * size)),
                       array('I', bytes(4 * size)))
        except MemoryError:
            # No room: an empty cache (every summary read from its file), never none at all
            # (every LIST after would fail on it: the fuzzer found that).
            j.summaries = (array('I'), array('H'), array('I'))
            raise


def _code(j, s):
    # Index of s in the interned strings (a handful: games, results, reasons); a large
    # negative number when the table is full, so the summary is not cached.
    st = j.strings
    for i in range(len(st)):
        if st[i] == s:
            return i
    if len(st) >= 127:
        return -(1 << 22)
    st.append(s)
    return len(st) - 1


def _scan(j, name):
    # Streams the record through a small buffer: no record-sized string, no list of
    # its lines (a record is up to ~12 KB; the Pico's heap cannot spare that contiguously).
    p = j.path(name)
    left = os.stat(p)[6] - CRC_TAIL
    if left < 0:
        raise ValueError('short record')
    game = result = reason = ''
    plies = 0
    buf = bytearray(256)
    mv = memoryview(buf)
    carry = b''
    with open(p, 'rb') as f:
        while left > 0 or carry:
            k = f.readinto(buf) if left > 0 else 0
            if k:
                k = min(k, left)
                left -= k
                chunk = bytes(mv[:k])
                if carry:
                    chunk = carry + chunk
                lines = chunk.split(b'\n')
                carry = lines.pop()
                if len(carry) > 512:  # no line is this long; count it anyway
                    lines.append(carry)
                    carry = b''
            else:
                left = 0
                lines = [carry]
                carry = b''
            for line in lines:
                if line.startswith(b'[Game '):
                    game = line[7:-2].decode()
                elif line.startswith(b'[Result '):
                    result = line[9:-2].decode()
                elif line.startswith(b'[Reason '):
                    reason = line[9:-2].decode()
                elif line and line[0] != 91:  # '['
                    for w in line.split():
                        if w[-1] != 46:  # '.'
                            plies += 1
    return (game, max(0, plies - 1), result, reason)


class _Games:
    def __init__(self, journal, rl):
        self.j = journal
        self.rl = rl

    def __len__(self):
        return count(self.rl)

    def __getitem__(self, i):
        name = name_at(self.rl, i)  # IndexError ends iteration
        try:
            return _summary(self.j, name)
        except (OSError, ValueError, UnicodeError):
            self.j.set_aside(name, 'unreadable')
            # Listed once more as synced, so a host does not try to fetch it.
            return {'id': name[:-4], 'game': '', 'plies': 0, 'result': '',
                    'reason': 'unreadable', 'synced': True}
