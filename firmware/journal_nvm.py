# CircuitPython only: the game in progress in microcontroller.nvm instead of cur.jnl on FAT.
#
# Why: CircuitPython's FAT on the Pico's flash writes a sector by erasing and programming its
# whole 4 KiB block in place (about 4 blocks a move), so a power cut in between takes the
# block, and with it earlier moves or the games/ directory. Its nvm (the 4 KiB sector just
# below CIRCUITPY) programs without erasing whenever every byte written is still 0xFF, and
# only otherwise erases and rewrites the sector (ports/raspberrypi/common-hal/nvm/ByteArray.c,
# set_bytes). So lines are only ever appended into erased bytes: a cut tears at most the
# line being written, and its CRC shows it. The sector is erased only when nothing lives in
# it alone: at a game's end once its record is on FAT and read back; when it is full, once
# every move so far is in cur.jnl on FAT and read back (a checkpoint, after which the nvm
# starts again with the header and 'B <moves in cur.jnl>'); at a new game over a finished,
# torn or empty one.
#
# nvm bytes: the header line, 'B <n>' when moves 1..n are in cur.jnl, then 'M <ply> <move>'
# lines, each sealed as in journal.py; then 0xFF to the end. A line failing its CRC is a
# write a cut tore: the next write starts with '\n' to end it, and the reader skips it when
# the next good line is the move it expects (a torn move was never acknowledged).
import json
from journal import Journal
from datafiles import (seal, unseal, move_of, crc32, header_of, free_name, drop_file, replace_file,
                       exists, sync_fs, CUR, BAD, REC, read_line)

SIZE = 4096     # microcontroller.nvm on the Pico: one flash sector
ERASED = 0xFF
EIO = 5
NVM_BAD = 'nvm.jnl'   # what a damaged nvm journal is copied to on FAT (+ .bad)


def count_moves(path, header_line):
    """Moves in journal file `path` if it starts with header_line and every line is sound
    and in order; -1 otherwise (a checkpoint is read back with this before the nvm goes)."""
    try:
        with open(path, 'rb') as f:
            if read_line(f) != header_line:
                return -1
            n = 0
            while True:
                line = read_line(f)
                if not line:
                    return n
                t = unseal(line[:-1]) if line[-1] == 10 else None
                if t is None or move_of(t, n + 1) is None:
                    return -1
                n += 1
    except OSError:
        return -1


class NvmJournal(Journal):
    """Journal whose game in progress is in `nvm` (microcontroller.nvm unless given: tests
    pass a model of it). Records, counter and settings stay files in `root`, as in Journal."""

    def __init__(self, root, board_id, nvm=None, min_free=16384, capacity=0, log=None):
        if nvm is None:
            import microcontroller
            nvm = microcontroller.nvm
        self.nvm = nvm
        self.size = min(len(nvm), SIZE)
        self._end = -1      # first erased byte after the journal (-1: not read yet)
        self._sep = False   # the journal ends in a torn line: the next write starts with '\n'
        self._hline = None  # the sealed header line of the game in nvm
        self._base = 0      # moves of that game in cur.jnl (a checkpoint), before the nvm's
        Journal.__init__(self, root, board_id, min_free, capacity, log)

    # -- the nvm --------------------------------------------------------------------------
    def _read(self):
        """The nvm's bytes (a bytearray) and where its written part ends."""
        data = self.nvm[0:self.size]
        end = len(data)
        while end and data[end - 1] == ERASED:
            end -= 1
        self._end = end
        return data, end

    def _erase(self):
        # set_bytes erases the sector when a byte written is not 0xFF now, then programs
        # what it was given (0xFF: nothing). Past _end every byte is 0xFF already.
        if self._end < 0:
            self._read()
        if self._end:
            self.nvm[0:self._end] = b'\xff' * self._end
        self._end = 0
        self._sep = False

    def _write(self, line):
        if self._end < 0:
            self._read()
        if self._sep:
            line = b'\n' + line
        e = self._end
        if e + len(line) > self.size:
            raise OSError(28)       # ENOSPC: callers check room first
        # Only erased bytes are written: set_bytes programs them in place, no erase.
        self.nvm[e:e + len(line)] = line
        self._end = e + len(line)
        self._sep = False

    def _parse(self, data, end, on_move):
        """(header dict or None, moves in cur.jnl, why damaged or None, torn tail); on_move(text)
        for each move line in order."""
        header = None
        base = 0
        n = 0
        i = 0
        while i < end:
            j = data.find(b'\n', i, end)
            if j < 0:
                return header, base, None, True     # the last write was cut before its newline
            text = unseal(bytes(data[i:j]))
            i = j + 1
            if header is None:
                header = None if text is None else header_of(text)
                if header is None:
                    # A header a cut tore (no move yet) or an erase a cut stopped (all was on
                    # FAT by then; it erases from the start): nothing to keep, unless lines
                    # follow a header that was once whole.
                    if data[0] == ERASED or data.find(b'\n', i, end) < 0:
                        return None, 0, None, False
                    return None, 0, 'bad header', False
                self._hline = bytes(data[:i])
                continue
            if text is None:
                continue            # a torn write, ended by the next write's '\n'
            if text.startswith('B ') and n == 0 and base == 0 and text[2:].isdigit():
                base = n = int(text[2:])
                continue
            m = move_of(text, n + 1)
            if m is None:
                return header, base, 'unexpected line %r' % text[:40], False
            on_move(m)
            n += 1
        return header, base, None, False

    # -- the game in progress ---------------------------------------------------------
    def read_current(self):
        """(header, MoveTexts) of the game in nvm (and its checkpoint in cur.jnl), None if
        there is none; a damaged journal is copied to FAT as nvm.jnl.bad and erased."""
        self.torn = False
        self.plies = -1
        data, end = self._read()
        self._hline = None
        from shared_rules.movetexts import MoveTexts
        moves = MoveTexts()
        header, base, why, torn = self._parse(data, end, moves.append) if end else (None, 0, None, False)
        data = None
        self._sep = torn
        self._base = base
        if why is not None:
            self.set_aside(CUR, why)
            return None
        if header is not None and self.find_record(header['id']) is not None:
            # Cut after the record was written and read back, before the erase: finished.
            self._erase()
            self.remove(CUR)
            return None
        if base == 0 and not moves and exists(self.path(CUR)):
            # No move in nvm, but a cur.jnl: a checkpoint whose erase or fresh start a cut
            # stopped (it was read back before the erase), or the journal of a firmware that
            # kept the game on FAT. The nvm starts again from it.
            cur = Journal.read_current(self)
            if cur is not None and (header is None or cur[0]['id'] == header['id']):
                self._restart(cur[1])
                self.plies = len(cur[1])
                return cur
        if header is None:
            if end:
                self.log('no game in nvm (a header or an erase cut short): erased at the next game')
            return None
        if base:
            cur = Journal.read_current(self)
            if cur is None or cur[0]['id'] != header['id'] or len(cur[1]) != base:
                self.set_aside(CUR, 'its first %d moves are not in %s' % (base, CUR))
                return None
            for m in moves:   # the checkpoint's moves, then those in nvm
                cur[1].append(m)
            moves = cur[1]
        if torn:
            self.log('a torn last line in nvm: skipped')
        self.plies = len(moves)
        return header, moves

    def _restart(self, moves):
        # The nvm as a checkpoint leaves it: cur.jnl's own header line, then 'B <n>'.
        with open(self.path(CUR), 'rb') as f:
            hline = read_line(f)
        self._erase()
        self._hline = hline
        self._base = len(moves)
        self._write(hline)
        self._write(seal('B %d' % len(moves)))

    def read_current_id(self):
        data, end = self._read()
        j = data.find(b'\n', 0, end)
        t = unseal(bytes(data[:j])) if j > 0 else None
        h = None if t is None else header_of(t)
        return None if h is None else h['id']

    def start(self, header):
        n = self._next_counter()
        gid = '%s-%04d' % (self.board_id, n)
        header['id'] = gid
        self._write_counter(n)
        # Whatever the nvm holds is finished (its record is on FAT), torn or empty: the app
        # finishes or discards a game before it starts another.
        self._erase()
        self.remove(CUR)
        self._hline = seal('H ' + json.dumps(header))
        self._base = 0
        self.plies = -1
        self._write(self._hline)
        self.plies = 0
        self.make_room()
        return gid

    def append(self, ply, move):
        """Make move number `ply` durable in nvm. Returns only once it is on flash.
        ValueError, nothing written, if it is not the move after the last one written."""
        self.check_ply(ply)
        line = seal('M %d %s' % (ply, move))
        if self._end < 0:
            self._read()
        if self._end + len(line) + 1 > self.size:
            self._checkpoint()
        self._write(line)
        self.plies = ply

    def _checkpoint(self):
        """The nvm is full: every move so far into cur.jnl on FAT, read back, then the nvm
        erased and started again as header + 'B <n>'. A cut before the read-back leaves the
        nvm as it was; after it, cur.jnl holds every move."""
        hline = self._hline
        base = self._base
        tmp = self.path(CUR + '.tmp')
        data, end = self._read()
        n = [base]
        try:
            with open(tmp, 'wb') as f:
                f.write(hline)
                if base:
                    with open(self.path(CUR), 'rb') as g:
                        read_line(g)
                        for _ in range(base):
                            f.write(read_line(g))   # checked by the read-back below

                def out(m):
                    n[0] += 1
                    f.write(seal('M %d %s' % (n[0], m)))
                self._parse(data, end, out)
                data = None
                f.flush()
            sync_fs()
            if count_moves(tmp, hline) != n[0]:
                raise OSError(EIO)
            replace_file(tmp, self.path(CUR))
            sync_fs()
        except OSError:
            drop_file(tmp)
            raise
        if count_moves(self.path(CUR), hline) != n[0]:
            raise OSError(EIO)
        self._restart(range(n[0]))

    def rewrite_current(self, header, moves):
        """The whole game in RAM, when a write failed (FAT full at a checkpoint or at start):
        into the nvm if it is empty and the game fits, else a checkpoint of every move."""
        moves = list(moves)
        hline = seal('H ' + json.dumps(header))
        lines = [seal('M %d %s' % (i + 1, moves[i])) for i in range(len(moves))]
        if self._end < 0:
            self._read()
        if self._end == 0 and len(hline) + sum(len(x) for x in lines) < self.size:
            self._hline = hline
            self._base = 0
            self._write(hline)
            for x in lines:
                self._write(x)
            self.plies = len(lines)
            return
        Journal.write_cur(self, header, moves)
        if count_moves(self.path(CUR), hline) != len(moves):
            raise OSError(EIO)
        self._restart(moves)

    def finish(self, gid, text):
        """The record on FAT, read back; only then the nvm erased (read_current drops a game
        whose record is there, if a cut comes between)."""
        b = text.encode()
        data = b + b'#crc %08x\n' % crc32(b)
        name = gid + REC
        self._rewrite(name, data)
        try:
            with open(self.path(name), 'rb') as f:
                for i in range(0, len(data), 256):
                    if f.read(256) != data[i:i + 256]:
                        raise OSError(EIO)
                if f.read(1):
                    raise OSError(EIO)
        except OSError:
            self.log('record %s did not read back: the game stays in nvm' % name)
            raise
        data = b = None
        self._erase()
        self.remove(CUR)
        self.make_room()

    def discard_current(self):
        self._erase()
        self.remove(CUR)

    def set_aside(self, name, why):
        """A damaged nvm journal is copied to FAT (nvm.jnl.bad), then erased; cur.jnl (a
        checkpoint) is renamed *.bad as in Journal. Nothing is erased that was not copied."""
        if name == CUR:
            if self._end < 0:
                self._read()
            if self._end:
                bad = free_name(self.path(NVM_BAD + BAD))
                try:
                    with open(bad, 'wb') as f:
                        f.write(self.nvm[0:self._end])
                    sync_fs()
                except OSError as e:
                    drop_file(bad)
                    self.log('nvm journal is damaged (%s) and cannot be copied: %s' % (why, e))
                    return
                bad = bad[len(self.root) + 1:]
                self.aside.append(bad)
                self.log('nvm journal copied to %s and erased: %s' % (bad, why))
                self._erase()
            if not exists(self.path(CUR)):
                return
        Journal.set_aside(self, name, why)
