"""Copying finished games from the board into the log.

The order per game is what makes sync safe to interrupt anywhere: fetch (CRC-checked), verify by
replaying, store and COMMIT, and only then ACK_GAME. A cut before the commit leaves the game
unacked on the board, so the next sync fetches it again; a cut between the commit and the ack
leaves it in the log and unacked, so the next sync finds it held and only acks it.

The board acks only what the log holds: LIST gives each record's CRC-32, and a record is acked
without fetching it only when the log has noted that (id, crc) as stored (db.Log.holds). An id
alone proves nothing: two boards with one id, or a board whose counter went back, list another
game under an id the log has. Such a record is fetched and kept beside the other as a conflict
(db.Log.add), reported, and then acked: both games are in the log.

A record that does not replay (or cannot be read at all) is put in quarantine (text, error, ply)
and NOT acked: the board keeps its copy, every sync reports it again, and nothing is lost while
someone looks at it. A reply the protocol does not allow for one record (link.ReplyError, an
ERROR from the board) is reported and the sync goes on with the next; a sync fetches at most
MAX_SYNC_BYTES.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shared_rules.errors import RecordError
from shared_rules.record import Record

from . import db as dbmod
from .boardlink import BoardLink, BoardLinkError, ReplyError, P

if TYPE_CHECKING:
    from .sim.draw import Bar

MAX_SYNC_BYTES = 64 * 1024 * 1024  # a Pico's flash holds 1.4 MB of records
# What a hostile record may raise while it is read, besides RecordError: a JSON nested too
# deep, values of the wrong types.
UNREADABLE = (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError)


class Report:
    def __init__(self) -> None:
        self.listed = 0
        self.added: list[str] = []  # ids stored this run
        self.reacked: list[str] = []  # already in the log, acked again
        self.quarantined: list[tuple[str, str, int | None]] = []  # (id, error, ply)
        # (id, error): kept beside the game that has its id
        self.conflicts: list[tuple[str, str]] = []
        # (id, error): not fetched (a bad reply); left on the board
        self.failed: list[tuple[str, str]] = []
        self.bytes = 0
        self.seconds = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "listed": self.listed,
            "added": self.added,
            "reacked": self.reacked,
            "quarantined": [{"id": i, "error": e, "ply": p} for i, e, p in self.quarantined],
            "conflicts": [{"id": i, "error": e} for i, e in self.conflicts],
            "failed": [{"id": i, "error": e} for i, e in self.failed],
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
        }

    def ok(self) -> bool:
        return not self.quarantined and not self.conflicts and not self.failed


def parse_record(data: bytes | bytearray | str) -> tuple[Record, str]:
    """Board bytes -> Record: the text form, or a JSON object (Record.to_dict)."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    except UnicodeError:
        raise RecordError("record is not UTF-8 text")
    try:
        if text.lstrip().startswith("{"):
            try:
                return Record.from_dict(json.loads(text)), text
            except ValueError as e:
                raise RecordError("record is not valid JSON: %s" % e)
        return Record.from_text(text), text
    except RecordError:
        raise
    except UNREADABLE as e:
        raise RecordError(
            "record cannot be read: %s"
            % (
                type(e).__name__
                if isinstance(e, RecursionError)
                else str(e)[:100] or type(e).__name__
            )
        )


def pending(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listed games still to sync: boards that list acked games mark them."""
    out = []
    for g in games:  # dicts: BoardLink.list_games checked each
        if g.get("acked") or g.get("synced"):
            continue
        if g.get("done") is False or g.get("finished") is False:
            continue  # the game being played: synced once it ends
        out.append(g)
    return out


def store_one(
    log: dbmod.Log,
    gid: str,
    data: bytes | str,
    report: Report,
    source: str = "sync",
    crc: int | None = None,
) -> bool:
    """Verify and store one fetched record; True if the board may forget it (ack): the log
    holds it, as the game or as a conflict beside the game that has its id. crc: the board's
    CRC-32 of data, noted with it (Log.holds)."""
    try:
        rec, text = parse_record(data)
        if not rec.header.get("Id"):
            rec.header["Id"] = str(gid)
        if str(rec.header["Id"]) != str(gid):
            # The board's list and the record disagree: keep it, under the id the board knows.
            rec.header["Id"] = str(gid)
        rec.replay()
    except (RecordError,) + UNREADABLE as e:
        err = (
            str(e) if isinstance(e, RecordError) else "record cannot be read: %s" % type(e).__name__
        )
        raw = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
        log.quarantine(raw, err, getattr(e, "ply", None), source, rid=str(gid))
        report.quarantined.append((str(gid), err, getattr(e, "ply", None)))
        return False
    outcome, rid = log.add(rec, source, crc=crc)
    if outcome == dbmod.CONFLICT:
        report.conflicts.append(
            (
                str(gid),
                "another game with id %s is in the log: this one is kept "
                "beside it as %s" % (gid, rid),
            )
        )
    elif outcome == dbmod.SAME:
        report.reacked.append(str(gid))
    else:
        report.added.append(rid)
    return True


def _one_failed(e: BoardLinkError, gid: str, report: Report) -> None:
    # A bad reply or a refusal concerns this record: noted, the sync goes on. No reply at
    # all means the link is gone: that ends the sync.
    if not isinstance(e, ReplyError) and e.code is None:
        raise e
    report.failed.append((gid, str(e)))


def _ack(link: BoardLink, gid: str, report: Report) -> bool:
    try:
        link.ack_game(gid)
        return True
    except BoardLinkError as e:
        _one_failed(e, gid, report)
        return False


def sync(
    link: BoardLink,
    log: dbmod.Log,
    bar: Bar | None = None,
    fetch_chunk: int | None = None,
    held: Callable[[str, bytes | None], object] | None = None,
) -> Report:
    """Sync every unacked game. bar: a draw.Bar or None. Returns a Report. held(gid, data):
    called once the log holds a record, before the ack (data None when it was not fetched
    again): the club's outbox queues it there (bawo.club.client.held_hook)."""
    t0 = time.monotonic()
    report = Report()
    games = pending(link.list_games())
    report.listed = len(games)
    if bar:
        bar.start(len(games), "games")
    seen = set()
    for n, g in enumerate(games):
        gid, crc = g["id"], g.get("crc")
        if gid in seen:
            continue  # listed twice: once is enough
        seen.add(gid)
        if crc is not None and log.holds(gid, crc):
            if held:
                held(gid, None)
            if _ack(link, gid, report):
                report.reacked.append(gid)
        elif report.bytes >= MAX_SYNC_BYTES:
            report.failed.append(
                (
                    gid,
                    "not fetched: this sync fetched %d MB already (sync again)"
                    % (MAX_SYNC_BYTES >> 20),
                )
            )
        else:

            def progress(got: int, total: int, n: int = n) -> None:
                if bar:
                    bar.update(
                        n + (got / total if total else 1), extra="%s %d/%d B" % (gid, got, total)
                    )

            kw = {"chunk": fetch_chunk} if fetch_chunk else {}
            try:
                data = link.fetch_record(gid, progress=progress, **kw)
            except BoardLinkError as e:
                _one_failed(e, gid, report)
                continue
            report.bytes += len(data)
            if store_one(log, gid, data, report, crc=P.crc32(data)):
                if held:
                    held(gid, data)
                _ack(link, gid, report)
        if bar:
            bar.update(n + 1)
    if bar:
        bar.finish()
    report.seconds = time.monotonic() - t0
    return report
