# The pipe between `bawo sim` (host/bawo/sim/board.py, CPython) and board_sim.py (the firmware
# under the MicroPython unix port): one text line per message each way. Both ends import this
# module, so the message kinds and their shapes are written here once.
#
# Host -> board (fd BAWO_IN): 'p K' / 'r K' press / release key K (real clock: in turn with
# the taps, each once the debounced keys see it); 't K' tap K (press, 40 ms,
# release, 40 ms); 'w MS' run MS milliseconds; 'i' run until idle and report; 'f' send a frame;
# 's' send the status; 'crash N' cut the power while writing the N-th next journal line; 'y N'
# answer 'Y N' (a mark: every command before it is done, all it wrote is in the pipes); 'q' quit.
#
# Board -> host (fd BAWO_OUT): 'B <status json>' booted; 'I <status json>' idle;
# 'S <status json>' on request or change; 'J <ply> <move>' a move is on flash; 'R <id>' a
# record written; 'M <text>' a message; 'Y <n>' mark n reached; 'X' the simulated power cut;
# '<w>x<h> <hex>' a frame.

PRESS = 'p'
RELEASE = 'r'
TAP = 't'
WAIT = 'w'
IDLE = 'i'
FRAME = 'f'
STATUS = 's'
CRASH = 'crash'
MARK = 'y'
QUIT = 'q'
_NUMBERED = (PRESS, RELEASE, TAP, WAIT, CRASH, MARK)
_BARE = (IDLE, FRAME, STATUS, QUIT)
MAX_NUMBER = 1 << 30

BOOTED = 'B'
IDLE_STATUS = 'I'
STATUS_NOW = 'S'
JOURNALED = 'J'
RECORDED = 'R'
MESSAGE = 'M'
POWER_CUT = 'X'
MARKED = 'Y'
FRAME_LINE = 'F'   # parse_reply's kind for a frame line (it starts with the frame's width)
_REPLIES = (BOOTED, IDLE_STATUS, STATUS_NOW, JOURNALED, RECORDED, MESSAGE, POWER_CUT, MARKED)


def command(kind, n=None):
    """The line (no newline) for a command; n: the key, milliseconds or line count."""
    if kind in _NUMBERED:
        if not 0 <= n <= MAX_NUMBER:
            raise ValueError('pipe command %s: %r is out of range' % (kind, n))
        return '%s %d' % (kind, n)
    if kind in _BARE and n is None:
        return kind
    raise ValueError('pipe command %r %r is not one' % (kind, n))


def _digits(text):
    # ASCII only: CPython's str.isdigit() also takes other scripts' digits
    for ch in text:
        if ch not in '0123456789':
            return False
    return True


def parse_command(line):
    """(kind, n) of a command line (n None for the bare ones); None for anything else."""
    parts = line.split()
    if len(parts) == 1 and parts[0] in _BARE:
        return parts[0], None
    if len(parts) == 2 and parts[0] in _NUMBERED and 0 < len(parts[1]) < 11 and _digits(parts[1]):
        n = int(parts[1])
        if n <= MAX_NUMBER:
            return parts[0], n
    return None


def reply(kind, text=None):
    if kind not in _REPLIES:
        raise ValueError('pipe reply %r is not one' % (kind,))
    return kind if text is None else kind + ' ' + text


def parse_reply(line):
    """(kind, the rest of the line): FRAME_LINE with the whole line for a frame; None for a
    line that is not a reply."""
    if line[:1].isdigit():
        return FRAME_LINE, line
    if line == POWER_CUT:
        return POWER_CUT, ''
    if line[1:2] == ' ' and line[:1] in _REPLIES:
        return line[:1], line[2:]
    return None
