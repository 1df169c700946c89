"""Terminal drawing of a position, from South's side of the table (RULES.md diagrams)."""


def _cells(row, width=3):
    return "".join(("%*s" % (width, c)) for c in row)


def _bawo(pos):
    rows_txt, turn = pos.rsplit(" ", 1)
    rows = [r.split(",") for r in rows_txt.split("/")]
    # Columns are numbered from each owner's left, so North's run 8..1 as South sees them.
    lines = [
        "       " + _cells(range(8, 0, -1)) + "   North",
        "   N B " + _cells(rows[0]),
        "   N A " + _cells(rows[1]),
        "       " + "-" * 24,
        "   S A " + _cells(rows[2]),
        "   S B " + _cells(rows[3]),
        "       " + _cells(range(1, 9)) + "   South",
    ]
    return lines, turn


def _oware(pos):
    parts = pos.split(" ")
    north, south = [r.split(",") for r in parts[0].split("/")]
    stores = dict(p.split(":") for p in parts[1:3])
    turn = parts[3]
    lines = [
        "        " + _cells("fedcba") + "   North",
        "   N%3s " % stores["N"] + _cells(north),
        "        " + "-" * 18,
        "        " + _cells(south) + " %3s S" % stores["S"],
        "        " + _cells("ABCDEF") + "   South",
    ]
    return lines, turn


def _baghchal(pos):
    board, hand, captured, turn = pos.split(" ")
    ranks = board.split("/")
    lines = []
    for i, r in enumerate(ranks):
        lines.append("   %d " % (5 - i) + " ".join(r))
    lines.append("     a b c d e")
    lines.append("   goats in hand %s, captured %s" % (hand[2:], captured[2:]))
    return lines, turn


_DRAWERS = {"bawo": _bawo, "oware": _oware, "bagh-chal": _baghchal}
_SIDE = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}


def draw(game_name, position, caption=None):
    """The position as lines of text; a position this module cannot read is shown raw."""
    fn = _DRAWERS.get(game_name)
    try:
        lines, turn = fn(position)
        lines.append("   %s to move" % _SIDE.get(turn, turn))
    except Exception:  # a drawing must never hide the position itself
        lines = ["   " + position]
    if caption:
        lines.insert(0, caption)
    return "\n".join(lines)


class Bar:
    """A one-line progress bar on stderr, redrawn in place; silent when stderr is not a tty
    unless forced, so logs and pipes get only the final line."""

    def __init__(self, stream=None, width=30, force=False):
        import sys
        self.stream = stream or sys.stderr
        self.width = width
        self.live = force or (hasattr(self.stream, "isatty") and self.stream.isatty())
        self.total = 0
        self.unit = ""
        self.value = 0
        self._last = 0.0

    def start(self, total, unit=""):
        self.total, self.unit, self.value = total, unit, 0
        self.update(0)

    def update(self, value, extra=""):
        import time
        self.value = value
        now = time.monotonic()
        if not self.live or (now - self._last < 0.05 and value < self.total):
            return
        self._last = now
        frac = min(1.0, value / self.total) if self.total else 1.0
        fill = int(frac * self.width)
        self.stream.write("\r[%s%s] %d/%d %s %s\033[K" % ("#" * fill, "-" * (self.width - fill),
                                                          int(value), self.total, self.unit, extra))
        self.stream.flush()

    def finish(self):
        if self.live:
            self._last = 0.0
            self.update(self.total)
            self.stream.write("\n")
            self.stream.flush()
