"""The local game log: one SQLite file.

A game's key is its record's Id tag (the board writes "<device>-<n>"); a record without an Id
(hand-written, imported) gets one from the hash of its text, so importing it twice is a no-op.
Records that do not replay go to `quarantine` with the error and ply, never into `games`.
Another game under a taken id is kept beside it (conflict_id, status 'conflict'): never dropped
as a duplicate, never overwriting. `board_records` notes which board records (id, CRC-32) the
log holds, so sync acks only those.
A game watched live is a `games` row with status 'live' (then 'watched' once it ended), rewritten
move by move and replaced by the board's own record when that is synced.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any, Union

from shared_rules.errors import RecordError
from shared_rules.record import Record, start_time

from .errors import BawoError
from .text import safe

# Seconds to wait for another program's lock: a writer's transaction (a game, or one import
# batch) is short, so a wait this long means the log is held (another program's open
# transaction, an exclusive lock): say so instead of hanging.
READ_WAIT = 1.5
WRITE_WAIT = 5.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    device  TEXT,
    start   TEXT,
    result  TEXT,
    reason  TEXT,
    plies   INTEGER NOT NULL,
    status  TEXT NOT NULL DEFAULT 'done',   -- 'done'; 'live'/'watched': built by watch;
                                            -- 'conflict': another game with a taken Id
    source  TEXT NOT NULL,                  -- 'sync', 'import', 'watch'
    added   TEXT NOT NULL,
    record  TEXT NOT NULL
);
-- The records a board listed (its id, the CRC-32 of its bytes) whose content this log holds
-- (as the game, or as a conflict): sync acks only these, never an id alone.
CREATE TABLE IF NOT EXISTS board_records (
    id      TEXT NOT NULL,
    crc     INTEGER NOT NULL,
    PRIMARY KEY (id, crc)
);
CREATE TABLE IF NOT EXISTS quarantine (
    id      TEXT NOT NULL,
    sha     TEXT NOT NULL,
    error   TEXT NOT NULL,
    ply     INTEGER,
    source  TEXT NOT NULL,
    added   TEXT NOT NULL,
    record  TEXT NOT NULL,
    UNIQUE (id, sha)
);
"""

# Outcomes of Log.add().
ADDED = "added"
SAME = "duplicate"  # already there, identical
REPLACED = "replaced"  # a live (watched) row completed by the final record
CONFLICT = "conflict"  # the Id is taken by a different game: kept beside it (conflict_id)

Path = Union[str, "os.PathLike[str]"]  # a log's file


def now_iso() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def default_path() -> str:
    from platformdirs import user_data_dir

    return os.path.join(user_data_dir("bawo", appauthor=False), "games.sqlite")


def conflict_id(rid: str, text: str) -> str:
    """Where a game whose Id rid is taken by another game is kept: a row of its own, named by
    its content, so seeing it again is a duplicate of that row, never a new conflict."""
    return "%s~%s" % (rid, hashlib.sha256(text.encode()).hexdigest()[:10])


def record_id(rec: Record, text: str | None = None) -> str:
    rid = rec.header.get("Id")
    if rid:
        return rid
    text = text if text is not None else rec.to_text()
    return "sha-" + hashlib.sha256(text.encode()).hexdigest()[:16]


class Log:
    """The game log. Every write method commits before returning (sync acks only after that),
    except inside batch(): the import commits a batch of games at once.

    readonly: for the reading commands (games, show, export): the file must exist already
    (nothing is created), is opened read-only (a log on a read-only disk or owned by another
    user still reads), and another program's lock fails within a second or two, not 30 s."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self._batch = False
        self.unreadable: list[tuple[str, str | None]] = []
        if readonly:
            self.db = _open_readonly(path)
        else:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=WRITE_WAIT)
        self.db.row_factory = sqlite3.Row
        self.db.create_function("bawo_played", 1, _played_utc, deterministic=True)
        self.db.create_function("bawo_day", 1, _played_day, deterministic=True)
        try:
            if readonly:
                self.db.execute("SELECT id, game, start, result, record FROM games LIMIT 0")
            else:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
                self.db.commit()
        except sqlite3.Error as e:
            self.db.close()
            raise LogError(path, e)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Log:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------
    def add(
        self,
        rec: Record,
        source: str,
        status: str = "done",
        check: Callable[[], object] | None = None,
        text: str | None = None,
        crc: int | None = None,
    ) -> tuple[str, str]:
        """Store a record that replayed. Returns (outcome, id): the id it is stored under,
        conflict_id() for a CONFLICT (another game has its Id: both are kept, the new one
        with status 'conflict'). check: called (rec.replay, say) only when the record is not
        already stored as it is; a RecordError from it stores nothing: a re-import of a big
        file replays only what is new. text: rec.to_text(), when the caller has it already.
        crc: the CRC-32 of the board's bytes of it (sync): noted with the game, in the same
        transaction, as a record this log holds (holds())."""
        text = rec.to_text() if text is None else text
        rid = record_id(rec, text)
        h = rec.header
        outcome = None
        row = self.db.execute("SELECT record, status FROM games WHERE id=?", (rid,)).fetchone()
        if row is not None:
            same = row["record"] == text
            if row["status"] in ("done", "conflict"):  # a kept game is never overwritten
                if same or status != "done":  # watch never touches a synced game
                    return self._held(SAME, rid, rid, crc)
                cid = conflict_id(rid, text)
                if self.db.execute("SELECT 1 FROM games WHERE id=?", (cid,)).fetchone():
                    return self._held(SAME, cid, rid, crc)
                outcome, rid, status, row = CONFLICT, cid, "conflict", None
            elif same and row["status"] == status:
                return self._held(SAME, rid, rid, crc)
        if check is not None:
            check()
        self.db.execute(
            "INSERT OR REPLACE INTO games (id, game, device, start, result, reason, plies, status,"
            " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                rid,
                h.get("Game"),
                h.get("Device"),
                h.get("Start"),
                h.get("Result", "*"),
                h.get("Reason"),
                len(rec.moves),
                status,
                source,
                now_iso(),
                text,
            ),
        )
        if outcome is None:
            outcome = REPLACED if row is not None else ADDED
        return self._held(outcome, rid, record_id(rec, text), crc)

    def _held(self, outcome: str, rid: str, board_id: str, crc: int | None) -> tuple[str, str]:
        # Notes (board id, crc) as held, then commits what add() wrote (unless in a batch).
        if crc is not None:
            self.db.execute(
                "INSERT OR IGNORE INTO board_records (id, crc) VALUES (?,?)", (board_id, int(crc))
            )
        if not self._batch:
            self.db.commit()
        return outcome, rid

    def holds(self, board_id: str, crc: int) -> bool:
        """True if this log holds the record a board lists as board_id with this CRC-32."""
        return (
            self.db.execute(
                "SELECT 1 FROM board_records WHERE id=? AND crc=?", (board_id, int(crc))
            ).fetchone()
            is not None
        )

    def batch(self, on: bool = True) -> None:
        """batch(True): add() leaves its games in one open transaction; batch(False) commits
        them. One commit (one fsync) a batch instead of a game: what makes an import fast."""
        if not on:
            self.db.commit()
        self._batch = on

    def commit(self) -> None:
        self.db.commit()

    def quarantine(
        self,
        rec_or_text: Record | str,
        error: object,
        ply: int | None,
        source: str,
        rid: str | None = None,
        text: str | None = None,
    ) -> str:
        if text is None:
            text = rec_or_text if isinstance(rec_or_text, str) else rec_or_text.to_text()
        if rid is None:
            rid = (
                record_id(rec_or_text, text)
                if isinstance(rec_or_text, Record)
                else ("sha-" + hashlib.sha256(text.encode()).hexdigest()[:16])
            )
        sha = hashlib.sha256(text.encode()).hexdigest()
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO quarantine (id, sha, error, ply, source, added, record)"
                " VALUES (?,?,?,?,?,?,?)",
                (rid, sha, str(error), ply, source, now_iso(), text),
            )
        return rid

    # -- reading -------------------------------------------------------------------------
    def has(self, rid: str) -> bool:
        row = self.db.execute("SELECT status FROM games WHERE id=?", (rid,)).fetchone()
        return row is not None and row["status"] == "done"

    def get(self, rid: str) -> dict[str, Any] | None:
        """The row of game rid, or of the one game whose id starts with rid (as with git
        hashes), as a dict; None if there is none; BawoError naming the matches if rid is
        ambiguous, or naming the row if it cannot be read."""
        rows = self.db.execute(
            "SELECT rowid, %s FROM games WHERE id=?" % _SELECT, (rid,)
        ).fetchall()
        if not rows:
            ids = self.db.execute(
                "SELECT rowid FROM games WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 11",
                (_like_escape(rid) + "%",),
            ).fetchall()
            if len(ids) > 1:
                names = [
                    safe(_name(r))
                    for r in self.db.execute(
                        "SELECT rowid, CAST(id AS BLOB) AS id FROM games WHERE rowid IN (%s) ORDER BY id"
                        % ",".join(str(r[0]) for r in ids[:10])
                    )
                ]
                raise BawoError(
                    "%r is ambiguous: it starts %s game ids: %s%s; give more of the id"
                    % (
                        safe(rid),
                        "more than 10" if len(ids) > 10 else len(ids),
                        ", ".join(names),
                        ", ..." if len(ids) > 10 else "",
                    )
                )
            if not ids:
                return None
            rows = self.db.execute(
                "SELECT rowid, %s FROM games WHERE rowid=?" % _SELECT, (ids[0][0],)
            ).fetchall()
        d, why = _decode(rows[0], COLUMNS, NOT_NULL)
        if d is None:
            raise BawoError(
                "game %s %s: `bawo export` writes the others" % (safe(_name(rows[0])), why)
            )
        return d

    def games(
        self,
        game: str | None = None,
        since: str | None = None,
        until: str | None = None,
        result: str | None = None,
        status: str | None = None,
    ) -> list[dict[str, Any]]:
        """The rows of select(), as a list."""
        return list(self.select(game, since, until, result, status))

    def select(
        self,
        game: str | None = None,
        since: str | None = None,
        until: str | None = None,
        result: str | None = None,
        status: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The rows (dicts) sorted by when the game was played (played()); games whose start is
        unknown come last, in the order they were logged. since/until (YYYY-MM-DD, local
        dates) keep only games known to be played in that range. SQLite sorts (spilling to a
        temporary file when big): memory stays flat however long the log.

        A row that cannot be read (text that is not UTF-8, a missing column: another program
        wrote it, or a bad disk) is skipped and named in self.unreadable as (name, why): one
        bad row never hides the others. Columns are read as bytes and decoded here, since
        SQLite's own decoding fails the whole query on the first bad row."""
        q = (
            "SELECT rowid, %s, bawo_played(CAST(start AS BLOB)) AS played FROM games WHERE 1=1"
            % _SELECT
        )
        args: list[str] = []
        if game:
            q += " AND game=?"
            args.append(game)
        if result:
            q += " AND result=?"
            args.append(result)
        if status:
            q += " AND status=?"
            args.append(status)
        if since:
            q += " AND bawo_day(CAST(start AS BLOB)) >= ?"
            args.append(since)
        if until:
            q += " AND bawo_day(CAST(start AS BLOB)) <= ?"
            args.append(until)
        # OFFSET 0: SQLite keeps the subquery whole (not flattened), so bawo_played runs once
        # a row, not once for each use of `played` in the ORDER BY.
        cur = self.db.execute(
            "SELECT * FROM (%s LIMIT -1 OFFSET 0) ORDER BY played IS NULL, played, "
            "CASE WHEN played IS NULL THEN added END, id" % q,
            args,
        )
        self.unreadable = []
        return self._readable(cur, COLUMNS, NOT_NULL)

    def _readable(
        self, cur: sqlite3.Cursor, columns: tuple[str, ...], not_null: tuple[str, ...]
    ) -> Iterator[dict[str, Any]]:
        for raw in cur:
            d, why = _decode(raw, columns, not_null)
            if d is None:
                self.unreadable.append((_name(raw), why))
            else:
                yield d

    def quarantined(self) -> list[dict[str, Any]]:
        """The quarantined records (dicts), oldest first; unreadable ones named as select()'s."""
        self.unreadable = []
        cur = self.db.execute(
            "SELECT rowid, %s FROM quarantine ORDER BY added, id"
            % ", ".join("CAST(%s AS BLOB) AS %s" % (c, c) for c in Q_COLUMNS)
        )
        return list(self._readable(cur, Q_COLUMNS, Q_NOT_NULL))

    def count(self, table: str = "games") -> int:
        """The number of games (or of quarantined records: table="quarantine")."""
        sql = {
            "games": "SELECT COUNT(*) FROM games",
            "quarantine": "SELECT COUNT(*) FROM quarantine",
        }
        return self.db.execute(sql[table]).fetchone()[0]


# A row as its readers get it: every column read as bytes (CAST ... AS BLOB) and decoded
# by _decode, so that a row another program (or a bad disk) left unreadable is named and
# skipped instead of failing the query that meets it.
COLUMNS = (
    "id",
    "game",
    "device",
    "start",
    "result",
    "reason",
    "plies",
    "status",
    "source",
    "added",
    "record",
)
NOT_NULL = ("id", "plies", "status", "source", "added", "record")
Q_COLUMNS = ("id", "sha", "error", "ply", "source", "added", "record")
Q_NOT_NULL = ("id", "sha", "error", "source", "added", "record")
_INTS = ("plies", "ply")
_SELECT = ", ".join("CAST(%s AS BLOB) AS %s" % (c, c) for c in COLUMNS)


def _decode(
    raw: sqlite3.Row, columns: tuple[str, ...], not_null: tuple[str, ...]
) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """(dict, None) of a row read as bytes, or (None, why it cannot be read)."""
    d: dict[str, Any] = {}
    for k in columns:
        v = raw[k]
        if v is None:
            if k in not_null:
                return None, "cannot be read: its %s is empty" % k
        else:
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                return None, "cannot be read: its %s is not UTF-8 text" % k
            if k in _INTS:
                if not v.isascii() or not v.isdigit():
                    return None, "cannot be read: its %s is not a number" % k
                v = int(v)
        d[k] = v
    if "played" in raw.keys():
        d["played"] = raw["played"]
    return d, None


def _name(raw: sqlite3.Row) -> str:
    """How a message names a row: its id as far as it reads, and its row number."""
    rid = raw["id"]
    rid = rid.decode("utf-8", "backslashreplace") if isinstance(rid, bytes) else "(no id)"
    return "%s (row %d)" % (rid[:80], raw["rowid"])


class LogError(BawoError):
    """A game log that cannot be used, with what to do about it."""

    def __init__(self, path: Path, e: object) -> None:
        msg = str(e)
        low = msg.lower()
        if "locked" in low or "busy" in low:
            why = (
                "is locked by another program (a running `bawo sync`, `bawo watch` or "
                "`bawo import`?): try again when it has finished"
            )
        elif "readonly" in low or "read-only" in low:
            why = "is read-only: the reading commands (games, show, export) work on it; choose another --db to write"
        elif "no such table" in low or "not a database" in low or "no such column" in low:
            why = "is not a bawo game log (%s): choose another with --db" % msg
        else:
            why = "cannot be used: %s" % msg
        BawoError.__init__(self, "game log %s %s" % (safe(path), why))


def _open_readonly(path: Path) -> sqlite3.Connection:
    if not os.path.exists(path):
        raise BawoError(
            "no game log at %s: `bawo sync` or `bawo import` creates it; "
            "check --db (or BAWO_DB)" % safe(path)
        )
    if os.path.isdir(path):
        raise BawoError(
            "game log %s is a directory, not a bawo game log: choose another with --db" % safe(path)
        )
    uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path))
    db = sqlite3.connect(uri, uri=True, timeout=READ_WAIT)
    try:
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError as e:
        db.close()
        if "unable to open" not in str(e) or os.access(path, os.W_OK):
            raise LogError(path, e)
    # A WAL log we may not write: SQLite cannot create its -shm beside it. Nothing with our
    # rights can be writing it, so read it as the immutable file it is for us.
    return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=READ_WAIT)


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def played(start: str | None) -> datetime.datetime | None:
    """When a game was played, from its record's Start tag: an aware datetime, or None when
    the tag is missing or not a time a board could write (shared_rules.record.start_time,
    the rule the readers check at import). A time without a zone is UTC: the board writes
    UTC (its clock is set from the host's Unix time)."""
    try:
        secs, usec, off = start_time(start)
    except RecordError:
        return None
    t = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).replace(microsecond=usec)
    return t if off is None else t.astimezone(datetime.timezone(datetime.timedelta(minutes=off)))


def _text_arg(v: object) -> Any:
    # An SQL function's argument, given as CAST(x AS BLOB): text if it is UTF-8, else None.
    try:
        return v.decode("utf-8") if isinstance(v, bytes) else v
    except UnicodeDecodeError:
        return None


def _played_utc(start: object) -> str | None:
    t = played(_text_arg(start))
    return None if t is None else t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _played_day(start: object) -> str | None:
    t = played(_text_arg(start))
    return None if t is None else t.astimezone().date().isoformat()


def played_text(start: str | None) -> str:
    """The one way `bawo games` shows when a game was played: local time to the minute."""
    t = played(start)
    return "unknown" if t is None else t.astimezone().strftime("%Y-%m-%d %H:%M")


def row_dict(row: Any) -> dict[str, Any]:
    """A games row as a JSON-able summary (no record text); played: the start in UTC, or
    None when unknown."""
    d = {
        k: row[k]
        for k in (
            "id",
            "game",
            "device",
            "start",
            "result",
            "reason",
            "plies",
            "status",
            "source",
            "added",
        )
    }
    d["played"] = _played_utc(row["start"])
    return d
