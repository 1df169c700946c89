"""A game record's text (RULES.md section 4, the form shared_rules.record reads) written from a
State: what the board loads to write a finished game, without the reader and the replay
(shared_rules.record, about three times the heap on the board).
"""
from shared_rules import RULES_VERSION, winner_name
from shared_rules.errors import RecordError

# Header tags in the order they are written; "Position" only for a set-up start.
TAGS = ("Game", "Rules", "First", "Second", "Device", "Id", "Start", "Result", "Reason", "Position")

try:
    _ascii = str.isascii
except AttributeError:  # MicroPython
    _ascii = None


def check_tag(name, value):
    """RecordError unless name and value are one line of text (RULES.md section 4): a control
    character in a header would break the text form, or reach a terminal, on every reader."""
    for t in (name, value):
        if _ascii is not None and _ascii(t) and t.isprintable():
            continue  # CPython, printable ASCII (the usual header): checked in C, same answer
        for c in t:
            o = ord(c)
            # C0, DEL, C1 and the two Unicode line breaks str.splitlines() also splits on;
            # a lone surrogate (a JSON "\ud800") is no text at all: UTF-8 cannot hold it
            if o < 32 or 127 <= o < 160 or o == 0x2028 or o == 0x2029 or 0xD800 <= o < 0xE000:
                raise RecordError("record: tag %r holds %s (%r): a header value is one line of "
                                  "printable text" % (name, "a lone surrogate" if o >= 0xD800
                                                      else "a control character", c))


def _quote(v):
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_of_state(state, **tags):
    """Record.from_state(state, **tags).to_text(), without a list of the moves: a word at a
    time from the state's own buffer (State.iter_moves). The board writes its records so: a
    long game's moves as a list took tens of KB of its heap at once."""
    return _text(_header_of_state(state, tags), state.iter_moves())


def _header_of_state(state, tags):
    h = {"Game": state.game.name, "Rules": RULES_VERSION}
    for k in tags:
        if tags[k] is not None:
            h[k] = tags[k]
    if state.game.format(state.root) != state.game.format(state.game.start()):
        h["Position"] = state.game.format(state.root)
    out = state.outcome()
    if out is None:
        # An end the moves do not make (record_end.AGREED: the caller checked it), given as
        # the Result and Reason tags; without them an unfinished game.
        if h.get("Reason") is None or h.get("Result") is None:
            h["Result"] = "*"
            h.pop("Reason", None)
    else:
        w = winner_name(state.game, out)
        h["Result"] = "draw" if w is None else w
        h["Reason"] = out.reason
    return h


def _text(header, moves):
    """The record's text: header tags, then the numbered moves (any iterable of move
    strings) and the result, wrapped at 79 columns."""
    lines = []
    for t in TAGS:
        if t in header:
            check_tag(t, str(header[t]))
            lines.append("[%s %s]" % (t, _quote(header[t])))
    for t in sorted(header):
        if t not in TAGS:
            check_tag(t, str(header[t]))
            lines.append("[%s %s]" % (t, _quote(header[t])))
    lines.append("")
    line = []  # the words of the line being filled, width its length as text
    width = 0
    k = 0
    for m in moves:
        if k % 2 == 0:
            width = _word(lines, line, width, "%d." % (k // 2 + 1))
        width = _word(lines, line, width, m)
        k += 1
    _word(lines, line, width, header.get("Result", "*"))
    lines.append(" ".join(line))
    return "\n".join(lines) + "\n"


def _word(lines, line, width, w):
    # w onto the line being filled (a list, changed in place); a full line goes to lines.
    # Returns the line's new width.
    if width and width + 1 + len(w) > 79:
        lines.append(" ".join(line))
        line.clear()
        line.append(w)
        return len(w)
    line.append(w)
    return width + 1 + len(w) if width else len(w)
