"""Text from outside (a board's ids, a record file's tags, an error quoting them) made safe to
print: the one place the host decides what reaches a terminal."""

from __future__ import annotations

import re
from typing import Protocol, TextIO

# C0 and C1 controls, DEL, Unicode line/paragraph separators, and the bidi embedding/override
# and isolate marks (they reorder what follows on screen: an id can look like another).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    o = ord(m.group())
    return "\\x%02x" % o if o < 0x100 else "\\u%04x" % o


def safe(text: object, keep: str = "") -> str:
    """text with every control character shown as a \\xNN or \\uNNNN escape; characters in
    keep ("\\n", "\\t") pass unchanged, for multi-line output such as an export to a terminal."""
    text = str(text)
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)


# What json.dumps leaves raw inside strings (it escapes C0 itself; C0 outside strings is its
# own indentation).
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_safe(text: str) -> str:
    """JSON text (json.dumps, ensure_ascii=False) with the controls JSON leaves raw (DEL, C1,
    the Unicode separators, bidi marks) written as \\uNNNN escapes: the same JSON, safe to print."""
    return _JSON_RAW.sub(lambda m: "\\u%04x" % ord(m.group()), text)


class Writer(Protocol):
    """What the writers of records need of a stream: write(text)."""

    def write(self, s: str, /) -> object: ...


class Stream(Writer, Protocol):
    """A Writer that flushes: a terminal, or what stands in for one."""

    def flush(self) -> object: ...


class SafeWriter:
    """A text stream that passes what is written through safe(keep="\\n\\t")."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, s: str) -> int:
        return self.out.write(safe(s, keep="\n\t"))

    def flush(self) -> None:
        self.out.flush()
