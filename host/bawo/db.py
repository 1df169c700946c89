"""The local game log: one SQLite file.

A game's key is its record's Id tag (the board writes "<device>-<n>"); a record without an Id
(hand-written, imported) gets one from the hash of its text, so importing it twice is a no-op.
Records that do not replay go to `quarantine` with the error and ply, never into `games`.
A game watched live is a `games` row with status 'live' (then 'watched' once it ended), rewritten
move by move and replaced by the board's own record when that is synced.
"""
import datetime
import hashlib
import os
import sqlite3

from shared_rules.record import Record

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    device  TEXT,
    start   TEXT,
    result  TEXT,
    reason  TEXT,
    plies   INTEGER NOT NULL,
    status  TEXT NOT NULL DEFAULT 'done',   -- 'done'; 'live'/'watched': built by watch
    source  TEXT NOT NULL,                  -- 'sync', 'import', 'watch'
    added   TEXT NOT NULL,
    record  TEXT NOT NULL
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
SAME = "duplicate"      # already there, identical
REPLACED = "replaced"   # a live (watched) row completed by the final record
CONFLICT = "conflict"   # the Id is taken by a different game: quarantined, not overwritten


def now_iso():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def default_path():
    from platformdirs import user_data_dir
    return os.path.join(user_data_dir("bawo", appauthor=False), "games.sqlite")


def record_id(rec, text=None):
    rid = rec.header.get("Id")
    if rid:
        return rid
    text = text if text is not None else rec.to_text()
    return "sha-" + hashlib.sha256(text.encode()).hexdigest()[:16]


class Log:
    """The game log. Every write method commits before returning (sync acks only after that)."""

    def __init__(self, path):
        self.path = path
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writing -------------------------------------------------------------------------
    def add(self, rec, source, status="done"):
        """Store a record that replayed. Returns (outcome, id)."""
        text = rec.to_text()
        rid = record_id(rec, text)
        h = rec.header
        row = self.db.execute("SELECT record, status FROM games WHERE id=?", (rid,)).fetchone()
        if row is not None:
            same = row["record"] == text
            if row["status"] == "done":
                if same or status != "done":  # watch never touches a synced game
                    return SAME, rid
                self.quarantine(rec, "game id %s is already in the log with different moves" % rid,
                                None, source, text=text)
                return CONFLICT, rid
            if same and row["status"] == status:
                return SAME, rid
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO games (id, game, device, start, result, reason, plies, status,"
                " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (rid, h.get("Game"), h.get("Device"), h.get("Start"), h.get("Result", "*"),
                 h.get("Reason"), len(rec.moves), status, source, now_iso(), text))
        return (REPLACED if row is not None else ADDED), rid

    def quarantine(self, rec_or_text, error, ply, source, rid=None, text=None):
        if text is None:
            text = rec_or_text if isinstance(rec_or_text, str) else rec_or_text.to_text()
        if rid is None:
            rid = record_id(rec_or_text, text) if isinstance(rec_or_text, Record) else (
                "sha-" + hashlib.sha256(text.encode()).hexdigest()[:16])
        sha = hashlib.sha256(text.encode()).hexdigest()
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO quarantine (id, sha, error, ply, source, added, record)"
                " VALUES (?,?,?,?,?,?,?)", (rid, sha, str(error), ply, source, now_iso(), text))
        return rid

    # -- reading -------------------------------------------------------------------------
    def has(self, rid):
        row = self.db.execute("SELECT status FROM games WHERE id=?", (rid,)).fetchone()
        return row is not None and row["status"] == "done"

    def get(self, rid):
        row = self.db.execute("SELECT * FROM games WHERE id=?", (rid,)).fetchone()
        if row is None:
            # A unique prefix is enough, as with git hashes.
            rows = self.db.execute("SELECT * FROM games WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                                   (_like_escape(rid) + "%",)).fetchall()
            row = rows[0] if len(rows) == 1 else None
        return row

    def games(self, game=None, since=None, until=None, result=None, status=None):
        q = "SELECT * FROM games WHERE 1=1"
        args = []
        if game:
            q += " AND game=?"
            args.append(game)
        # Start is ISO 8601 when the board knew the time; otherwise the day we logged it.
        when = "COALESCE(NULLIF(start, ''), added)"
        if since:
            q += " AND %s >= ?" % when
            args.append(since)
        if until:
            q += " AND substr(%s, 1, %d) <= ?" % (when, len(until))
            args.append(until)
        if result:
            q += " AND result=?"
            args.append(result)
        if status:
            q += " AND status=?"
            args.append(status)
        q += " ORDER BY %s, id" % when
        return self.db.execute(q, args).fetchall()

    def quarantined(self):
        return self.db.execute("SELECT * FROM quarantine ORDER BY added, id").fetchall()

    def count(self):
        return self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def _like_escape(s):
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def row_dict(row):
    """A games row as a JSON-able summary (no record text)."""
    return {k: row[k] for k in ("id", "game", "device", "start", "result", "reason", "plies",
                                "status", "source", "added")}
