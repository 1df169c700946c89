"""The opening book: South's move in each position of its proved winning strategy from the
opening, and North's reply in each North position that strategy reaches (the reply that leaves
South the largest proof), looked up in a file on flash without loading it (a few bytes of heap
per lookup). Built by `bawo solve --opening --book FILE`.

File: b"BWB1", the entry count (2 bytes, big-endian), then the entries sorted by hash, each
the position's 32-bit FNV-1a hash (big-endian) and the move (an action, 0..31). The builder
refuses two positions with one hash, so a position of the strategy finds its own move; a
position outside it may match another's hash, so follow the book only while every position
since the opening came from it, and check the move is legal.
"""
MAGIC = b"BWB1"
HEAD = 6
ENTRY = 5
MAX_ENTRIES = 8000  # 40 KB: far above any book we build, below what a Pico's flash holds


class BookError(ValueError):
    pass


def key_hash(key):
    """FNV-1a, 32 bits, of a position's key (its 32 counts and the side to move)."""
    h = 0x811C9DC5
    for c in key:
        h = ((h ^ c) * 0x01000193) & 0xFFFFFFFF
    return h


def pack(entries):
    """The file's bytes for {key: move}; BookError if two keys share a hash."""
    rows = sorted((key_hash(k), m) for k, m in entries.items())
    for i in range(1, len(rows)):
        if rows[i][0] == rows[i - 1][0]:
            raise BookError("two positions share the hash %08x: the book cannot hold both" % rows[i][0])
    if len(rows) > MAX_ENTRIES:
        raise BookError("%d positions: a book holds at most %d" % (len(rows), MAX_ENTRIES))
    out = bytearray(MAGIC)
    out += bytes((len(rows) >> 8, len(rows) & 255))
    for h, m in rows:
        if not 0 <= m < 32:
            raise BookError("bad move %r in the book" % (m,))
        out += bytes((h >> 24, (h >> 16) & 255, (h >> 8) & 255, h & 255, m))
    return bytes(out)


class Book:
    """An open book: the file at path, else the one a UF2 carries frozen in (book_data:
    bytes in flash, never on the heap). lookup(key) -> move or None."""

    def __init__(self, path):
        self._f = self._data = None
        try:
            f = open(path, "rb")
        except OSError:
            try:
                from book_data import DATA
            except ImportError:
                raise OSError("no book file %s" % path)
            self._data = DATA
            self._check(path, DATA[:HEAD], len(DATA))
        else:
            try:
                head = f.read(HEAD)
                self._check(path, head, f.seek(0, 2))
            except Exception:
                f.close()
                raise
            self._f = f
        self._buf = bytearray(ENTRY)

    def _check(self, path, head, size):
        if len(head) != HEAD or head[:4] != MAGIC:
            raise BookError("%s is not a book file: it does not start with %r" % (path, MAGIC))
        n = (head[4] << 8) | head[5]
        if n > MAX_ENTRIES or size != HEAD + n * ENTRY:
            raise BookError("%s is damaged: %d bytes for %d entries" % (path, size, n))
        self.count = n

    def _hash_at(self, i):
        b = self._buf
        if self._f is None:
            at = HEAD + i * ENTRY
            d = self._data
            for k in range(ENTRY):
                b[k] = d[at + k]
        else:
            self._f.seek(HEAD + i * ENTRY)
            if self._f.readinto(b) != ENTRY:
                raise BookError("the book file changed while open")
        return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]

    def lookup(self, key):
        h = key_hash(key)
        lo, hi = 0, self.count
        while lo < hi:
            mid = (lo + hi) >> 1
            v = self._hash_at(mid)
            if v == h:
                m = self._buf[4]
                return m if m < 32 else None
            if v < h:
                lo = mid + 1
            else:
                hi = mid
        return None

    def close(self):
        if self._f is not None:
            self._f.close()


def path():
    """Where the bundle puts the book: beside this module (the board's root), else the root."""
    f = globals().get('__file__') or ''
    return (f.rsplit('/', 1)[0] + '/' if '/' in f else '') + 'bawo_book.bin'


class BookOpponent:
    """The board in Bawo from the opening, as South (side 0) or North (1): the book's move
    while every position since the opening came from it (so each is one of the book's own),
    the AI's otherwise. Opens the file for each lookup: nothing of the book stays on the heap
    between moves. As North the book's line lasts while the person plays South's book moves;
    a South move off it leaves the book for good, and the level-5 search takes over."""

    def __init__(self, ai, book_path=None, side=0):
        self.ai = ai
        self.side = side
        self.path = book_path or path()
        self.in_book = True
        self.book_moves = 0
        self.ai_moves = 0

    def book_move(self, pos, moves=None):
        """The book's move in pos, if legal, else None (and the book is left for good).
        moves: the game's moves so far (text), to check South kept to the book's line."""
        if not self.in_book or pos.turn != self.side:
            return None
        m = None
        g = getattr(self.ai, 'game', None)
        try:
            b = Book(self.path)
            try:
                if moves is None or g is None or _south_on_line(g, moves, b):
                    m = b.lookup(pos.key())
            finally:
                b.close()
        except (OSError, ValueError):
            m = None
        if m is None or g is None or m not in g.legal_moves(pos):
            self.in_book = False
            return None
        return m

    def choose(self, pos_or_state):
        pos = getattr(pos_or_state, 'position', pos_or_state)
        # As South the board made every South move itself; as North the person did.
        moves = getattr(pos_or_state, 'moves', None) if self.side == 1 else None
        m = self.book_move(pos, moves)
        if m is not None:
            self.book_moves += 1
            return m
        self.ai_moves += 1
        return self.ai.choose(pos_or_state)

    @property
    def last_info(self):
        return getattr(self.ai, 'last_info', {})


def _south_on_line(game, moves, b):
    """The position after `moves` (text, from the opening) if every South move among them was
    the book's, else None."""
    pos = game.start()
    for t in moves:
        m = game.parse_move(t, pos)
        if pos.turn == 0 and b.lookup(pos.key()) != m:
            return None
        pos = game.play(pos, m)
    return pos


def line_move(game, moves, book_path):
    """The book's move after `moves` (text, from the opening) if South followed the book at
    every South turn of them (so the position is one of the book's own), else None."""
    try:
        b = Book(book_path)
    except (OSError, ValueError):
        return None
    try:
        pos = _south_on_line(game, moves, b)
        if pos is None or pos.turn != 0:
            return None
        m = b.lookup(pos.key())
        return m if m is not None and m in game.legal_moves(pos) else None
    finally:
        b.close()
