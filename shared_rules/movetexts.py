"""A game's moves as text in one buffer: what the board's journal reads back for a replay
(start.resume). A module of its own, loaded for that moment: the board keeps it off its heap
between power-ons."""
from shared_rules.state import _put, _texts


class MoveTexts:
    """Move texts in one buffer, a space after each, as State keeps its own: what a journal
    read back holds for the replay (a list of str took about 50 bytes a move on the board's
    64-bit test build, and a long game's list one block of KBs). len(), iteration, indexing
    and == with a list, as the list it stands for; append() adds one."""

    def __init__(self, texts=()):
        self._buf = bytearray(32)
        self._end = 0
        self._n = 0
        for t in texts:
            self.append(t)

    def append(self, text):
        t = text.encode()
        if b" " in t or not t:
            raise ValueError("a move text is one word: %r" % (text,))
        self._buf = _put(self._buf, self._end, t)
        self._buf = _put(self._buf, self._end + len(t), b" ")
        self._end += len(t) + 1
        self._n += 1

    @property
    def size(self):
        """Bytes of the texts, without their separators (State.reserve's `text`)."""
        return self._end - self._n

    def __len__(self):
        return self._n

    def __iter__(self):
        return _texts(self._buf, self._end, 0)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("move index out of range")
        for t in _texts(self._buf, self._end, i):
            return t

    def __eq__(self, other):
        try:
            if len(other) != self._n:
                return False
        except TypeError:
            return False
        for a, b in zip(self, other):
            if a != b:
                return False
        return True

    def __repr__(self):
        return "MoveTexts(%r)" % (list(self),)
