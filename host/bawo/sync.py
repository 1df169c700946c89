"""Copying finished games from the board into the log.

The order per game is what makes sync safe to interrupt anywhere: fetch (CRC-checked), verify by
replaying, store and COMMIT, and only then ACK_GAME. A cut before the commit leaves the game
unacked on the board, so the next sync fetches it again; a cut between the commit and the ack
leaves it in the log and unacked, so the next sync finds the id in the log and only acks it.
The log's primary key is the game id, so nothing is ever stored twice.

A record that does not replay is put in quarantine (text, error, ply) and NOT acked: the board
keeps its copy, every sync reports it again, and nothing is lost while someone looks at it.
"""
import json
import time

from shared_rules.errors import RecordError
from shared_rules.record import Record

from . import db as dbmod


class Report:
    def __init__(self):
        self.listed = 0
        self.added = []        # ids stored this run
        self.reacked = []      # already in the log, acked again
        self.quarantined = []  # (id, error, ply)
        self.conflicts = []    # (id, error)
        self.bytes = 0
        self.seconds = 0.0

    def to_dict(self):
        return {"listed": self.listed, "added": self.added, "reacked": self.reacked,
                "quarantined": [{"id": i, "error": e, "ply": p} for i, e, p in self.quarantined],
                "conflicts": [{"id": i, "error": e} for i, e in self.conflicts],
                "bytes": self.bytes, "seconds": round(self.seconds, 3)}

    def ok(self):
        return not self.quarantined and not self.conflicts


def parse_record(data):
    """Board bytes -> Record: the text form, or a JSON object (Record.to_dict)."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    except UnicodeError:
        raise RecordError("record is not UTF-8 text")
    if text.lstrip().startswith("{"):
        try:
            return Record.from_dict(json.loads(text)), text
        except ValueError as e:
            raise RecordError("record is not valid JSON: %s" % e)
    return Record.from_text(text), text


def pending(games):
    """The listed games still to sync: boards that list acked games mark them."""
    out = []
    for g in games:
        if isinstance(g, dict):
            if g.get("acked") or g.get("synced"):
                continue
            if g.get("done") is False or g.get("finished") is False:
                continue  # the game being played: synced once it ends
            out.append(g)
        else:
            out.append({"id": g})
    return out


def store_one(log, gid, data, report, source="sync"):
    """Verify and store one fetched record; True if the board may forget it (ack)."""
    try:
        rec, text = parse_record(data)
        if not rec.header.get("Id"):
            rec.header["Id"] = str(gid)
        rec.replay()
    except RecordError as e:
        raw = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
        log.quarantine(raw, str(e), getattr(e, "ply", None), source, rid=str(gid))
        report.quarantined.append((str(gid), str(e), getattr(e, "ply", None)))
        return False
    if str(rec.header["Id"]) != str(gid):
        # The board's list and the record disagree: keep it, under the id the board knows.
        rec.header["Id"] = str(gid)
    outcome, rid = log.add(rec, source)
    if outcome == dbmod.CONFLICT:
        report.conflicts.append((rid, "id %s is already in the log with different moves "
                                      "(kept in quarantine, not acked)" % rid))
        return False
    if outcome == dbmod.SAME:
        report.reacked.append(rid)
    else:
        report.added.append(rid)
    return True


def sync(link, log, bar=None, fetch_chunk=None):
    """Sync every unacked game. bar: a draw.Bar or None. Returns a Report."""
    t0 = time.monotonic()
    report = Report()
    games = pending(link.list_games())
    report.listed = len(games)
    if bar:
        bar.start(len(games), "games")
    for n, g in enumerate(games):
        gid = g["id"]
        if log.has(str(gid)):
            link.ack_game(gid)
            report.reacked.append(str(gid))
        else:
            def progress(got, total, n=n):
                if bar:
                    bar.update(n + (got / total if total else 1), extra="%s %d/%d B" % (gid, got, total))
            kw = {"chunk": fetch_chunk} if fetch_chunk else {}
            data = link.fetch_record(gid, progress=progress, **kw)
            report.bytes += len(data)
            if store_one(log, gid, data, report):
                link.ack_game(gid)
        if bar:
            bar.update(n + 1)
    if bar:
        bar.finish()
    report.seconds = time.monotonic() - t0
    return report
