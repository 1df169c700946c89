# The board's data files and their line format, for every part that reads or writes them
# (journal.py, archive.py, journal_nvm.py, the app's settings): names, the sealed line (a
# payload and its CRC32), and the few file-system steps they share. Imports no other part.
import os
import json

try:
    from binascii import crc32 as _crc32
except ImportError:
    from ubinascii import crc32 as _crc32

CUR = 'cur.jnl'
REC = '.rec'
SYN = '.syn'
BAD = '.bad'
COUNTER = 'counter'
COUNTER2 = 'counter.2'   # its second copy: one damaged page must not send ids back
SETTINGS = 'settings'
FILES = (CUR, COUNTER, COUNTER2, SETTINGS, 'board_id')  # files the board (or simulator) keeps in root
EEXIST = 17
LINE_MAX = 1024  # longest journal line read back (a header with a set-up position is ~200)
LINE_PART = 128  # read_line's step
CRC_TAIL = 14  # len(b'#crc 01234567\n') at the end of a record file
# list_games cache slots at most (640 bytes), one size from 64 records on: a cache that grew
# with the records on flash (to 5 KB at 512) ran a 160 KB board out of room once the fuzzer's
# games passed 64 (ERROR 9 on 40% of its requests after 50,000 frames, 23,572 in 100,000;
# 13,095 with this cap). A record past it has its summary read from its file at each LIST.
CACHE_MAX = 64
MAX_COUNTER = 1000000000  # counters cached (a tag is 1 + counter in 32 bits)


def crc32(data, crc=0):
    return _crc32(data, crc) & 0xFFFFFFFF


def seal(payload):
    """One journal line (bytes) for a payload string."""
    b = payload.encode()
    return b + b' %08x\n' % crc32(b)


def unseal(line):
    """Payload string of a complete line (without its newline), or None if damaged."""
    n = len(line)
    if n < 10 or line[n - 9] != 32:
        return None
    body = line[:n - 9]
    if b'%08x' % crc32(body) != line[n - 8:]:
        return None
    try:
        return body.decode()
    except UnicodeError:
        return None


def read_line(f):
    """f.readline(LINE_MAX), LINE_PART bytes at a time: readline(n) takes n bytes of the heap
    at once, and a board fragmented at power-on had no 1 KB block to read its journal with
    (the fuzz's restarted board could not resume its game)."""
    line = f.readline(LINE_PART)
    while line and line[-1] != 10 and len(line) < LINE_MAX:
        more = f.readline(min(LINE_PART, LINE_MAX - len(line)))
        if not more:
            break
        line += more
    return line


def move_of(text, ply):
    """The move of a journal line's payload 'M <ply> <move>', None if it is not move `ply`."""
    parts = text.split(' ')
    if len(parts) != 3 or parts[0] != 'M' or parts[1] != str(ply):
        return None
    return parts[2]


def sync_fs():
    s = getattr(os, 'sync', None)
    if s is not None:
        s()


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def is_dir(path):
    try:
        return os.stat(path)[0] & 0x4000 != 0
    except OSError:
        return False


def free_name(bad):
    # 'x.bad', else 'x.2.bad', 'x.3.bad'...: a quarantine name not taken yet
    base = bad[:-len(BAD)]
    k = 1
    while exists(bad):
        k += 1
        bad = '%s.%d%s' % (base, k, BAD)
    return bad


def header_of(text):
    # The journal's header line as a dict, or None unless every field the app uses has its
    # type: its id names files (so only letters, digits and '-'), the rest reach the engine.
    if not text.startswith('H '):
        return None
    try:
        h = json.loads(text[2:])
    except ValueError:
        return None
    if not isinstance(h, dict):
        return None
    gid = h.get('id')
    if not isinstance(gid, str) or not 0 < len(gid) <= 64 or not isinstance(h.get('game'), str):
        return None
    for ch in gid:
        if not (ch.isalpha() or ch.isdigit() or ch == '-') or ord(ch) > 126:
            return None
    for k in ('opponent', 'position', 'start'):
        if k in h and not isinstance(h[k], str):
            return None
    for k in ('seed', 'level', 'hints'):
        if k in h and type(h[k]) is not int:
            return None
    if not 0 <= h.get('hints', 0) <= 9999:   # hints taken (app.show_hint), read into a record
        return None
    return h


def drop_file(path):
    # A temp file of ours that failed: gone, without counting as room freed.
    try:
        os.remove(path)
    except OSError:
        pass


def replace_file(tmp, path):
    # littlefs and POSIX replace atomically; old FAT ports refuse an existing target
    # (EEXIST). Any other error (ENOSPC on a full littlefs) must leave the target alone.
    try:
        os.rename(tmp, path)
    except OSError as e:
        if e.errno != EEXIST:
            raise
        os.remove(path)
        os.rename(tmp, path)


def counter_of(name):
    # '<board>-0007.rec' (or '.rec.bad', or a bare id) -> 7; -1 if not one of ours
    dash = name.rfind('-')
    if dash < 0:
        return -1
    s = name[dash + 1:]
    dot = s.find('.')
    if dot >= 0:
        s = s[:dot]
    return int(s) if s.isdigit() else -1
