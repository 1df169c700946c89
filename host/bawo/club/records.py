"""What the club takes from a PC: one record, checked as `bawo sync` checks a board's.

The bytes are read by bawo.sync.parse_record and replayed by Record.replay, the code the PC's
own log trusts; nothing a PC says about a record is believed. Its names come from the club's
seat at that board (or the board's AI, from the record's First/Second tag), never from the
upload.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from shared_rules import game as make_game
from shared_rules.errors import RecordError

from .. import db as dbmod
from .. import players as P
from ..sync import parse_record, UNREADABLE
from . import ClubError
from .store import sha256

if TYPE_CHECKING:
    from shared_rules.record import Record

MAX_RECORD = 256 * 1024  # bytes of one upload: a long Bawo game's text is ~8 KB
MAX_ID = 80  # characters of a record id ("<device>-<n>" is ~20)


class Refused(ClubError):
    """An upload that does not replay or breaks a rule: nothing was stored."""


def player_of(tag: str | None) -> str | None:
    """The club name of an AI side ('board (level 5)'), or None for a person (from the seat)."""
    kind, level, _ = P.parse(tag)
    if kind in P.AI:
        return "%s (level %s)" % (kind, level if level is not None else "?")
    return None


class Verified:
    """A record that replayed, with what the club stores beside it."""

    def __init__(self, rec: Record, text: str) -> None:
        h = rec.header
        self.rec = rec
        self.text = text
        self.sha = sha256(text)
        self.rid = str(h["Id"])
        self.game = h["Game"]
        self.result = h.get("Result", "*")
        self.reason = h.get("Reason")
        self.plies = len(rec.moves)
        self.start = h.get("Start")
        t = dbmod.played(self.start)
        self.played = (
            None
            if t is None
            else t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        )
        self.first = h.get("First")
        self.second = h.get("Second")
        self.sides = make_game(self.game).sides

    def names(self, seat: dict[str, Any] | None) -> tuple[str | None, str | None]:
        """(south, north): an AI side is the board's AI; a person is who sat there."""
        south = player_of(self.first) or (seat["south"] if seat else None)
        north = player_of(self.second) or (seat["north"] if seat else None)
        return south, north


def verify(board: str, data: object) -> Verified:
    """Verified, or Refused saying why. board: the board the uploader's token is for: a record
    that another board wrote is refused (a token uploads its own board's records only)."""
    if not isinstance(data, (bytes, bytearray)) or len(data) > MAX_RECORD:
        raise Refused("a record is at most %d bytes" % MAX_RECORD)
    try:
        rec, _ = parse_record(bytes(data))
    except RecordError as e:
        raise Refused("the record cannot be read: %s" % " ".join(str(e).split())[:300])
    rid = rec.header.get("Id")
    if not rid:
        raise Refused("the record has no [Id] tag: the club keys records by their board's id")
    if len(rid) > MAX_ID:
        raise Refused("the record's id is longer than %d characters" % MAX_ID)
    device = rec.header.get("Device")
    if device is not None and device != board:
        raise Refused("the record was written by board %r, not by this token's board" % device[:40])
    try:
        rec.replay()
        # The canonical text: one game has one text, so one hash, however it was sent.
        text = rec.to_text()
    except RecordError as e:
        raise Refused("the record does not replay: %s" % " ".join(str(e).split())[:300])
    except UNREADABLE as e:
        raise Refused("the record cannot be read: %s" % type(e).__name__)
    return Verified(rec, text)


MAX_NAME = 40


def check_player(name: object) -> str:
    """A person's name as the club keeps it, or ClubError: 1 to 40 characters, no controls
    (pages escape it anyway), and not a name the board's AI goes by."""
    if not isinstance(name, str):
        raise ClubError("a player's name must be text")
    name = " ".join(name.split())
    if not 0 < len(name) <= MAX_NAME:
        raise ClubError("a player's name is 1 to %d characters" % MAX_NAME)
    if not name.isprintable():
        raise ClubError("a player's name may not hold control characters")
    if P.parse(name)[0] is not None:
        raise ClubError("%r is how the board's players are named: choose another name" % name)
    return name


def check_board(board: object) -> str:
    """A board id as boards write it (letters, digits, - and _; at most 64), or ClubError."""
    if (
        not isinstance(board, str)
        or not 0 < len(board) <= 64
        or not all(c.isascii() and (c.isalnum() or c in "-_") for c in board)
    ):
        raise ClubError("a board id is 1 to 64 letters, digits, - or _")
    return board
