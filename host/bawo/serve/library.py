"""Read-only queries for the library and statistics pages, on a page of the log at a time.
Every filter is a bound parameter; sort keys come from a fixed table, never from the request."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any

PAGE = 50
SORTS = {
    "date": "COALESCE(NULLIF(start, ''), added)",
    "id": "id",
    "game": "game",
    "plies": "plies",
    "result": "result",
}
from .. import players as P
from ..db import played_text

# Who played: the record's First/Second tags (board, person, host; `bawo play`: you, computer),
# parsed by bawo.players; the AI's level: 1-5, or "unknown" for records from before it was written.
OPPONENTS = P.KINDS
LEVELS = tuple(str(n) for n in range(1, 6)) + ("unknown",)
RESULTS = ("S", "N", "G", "T", "draw", "*")


# Indexes for the library's sorts and filters. Added to the log by `bawo serve` (additive: the
# games table is untouched); without them a page of 100,000 games sorts the whole table.
INDEXES = (
    "CREATE INDEX IF NOT EXISTS serve_when ON games (COALESCE(NULLIF(start, ''), added), id)",
    "CREATE INDEX IF NOT EXISTS serve_game_when ON games (game, COALESCE(NULLIF(start, ''), added), id)",
    "CREATE INDEX IF NOT EXISTS serve_plies ON games (plies, id)",
    "CREATE INDEX IF NOT EXISTS serve_result ON games (result, COALESCE(NULLIF(start, ''), added), id)",
    "CREATE INDEX IF NOT EXISTS serve_game ON games (game, id)",
    "CREATE INDEX IF NOT EXISTS serve_game_plies ON games (game, plies, id)",
    "CREATE INDEX IF NOT EXISTS serve_result_plies ON games (result, plies, id)",
    # The statistics' results by month: start and added as columns, so the month is read off
    # the index (SQLite reads no expression's value from one), 0.35 s -> 0.05 s on 100,000.
    "CREATE INDEX IF NOT EXISTS serve_stats ON games (game, result, start, added)",
)


def played_by(who: str) -> str:
    """SQL true when `who` (one of OPPONENTS, never request text) played a side of the game.
    Spelled the same in the query and in its index, so SQLite can use the index."""
    return P.played_by_sql(who)


def level_is(level: str) -> str:
    """SQL true when the AI played at `level` (one of LEVELS, never request text); "unknown":
    an AI played and no tag says its level."""
    if level == "unknown":
        return "(%s + %s > 0 AND %s)" % (
            played_by("board"),
            played_by("computer"),
            P.level_sql(None),
        )
    return P.level_sql(int(level))


# The level filter reads the AI's level from the record, which no index of the players
# holds: SQLite (3.40) evaluates an indexed expression from the index only as a lookup key,
# never as a stored column. So the levels and the players each become one small number, a
# bit for each (who_mask: a bit per OPPONENTS kind; level_mask: bit 0 "no level tag", bit n
# "level n"), and a level filter looks both up in one index: `IN` the masks with its bits.
def who_mask() -> str:
    return " + ".join("%s * %d" % (played_by(o), 1 << k) for k, o in enumerate(OPPONENTS))


def level_mask() -> str:
    return " + ".join(
        ["%s * 1" % P.level_sql(None)]
        + ["%s * %d" % (P.level_sql(int(v)), 1 << int(v)) for v in LEVELS[:-1]]
    )


def _masks(bits: int, need: int, any_of: int = 0) -> list[int]:
    """The masks of `bits` bits holding every bit of need and, if any_of, one of any_of."""
    return [m for m in range(1 << bits) if m & need == need and (not any_of or m & any_of)]


def _player_indexes() -> tuple[str, ...]:
    # Covering: every column a filter or a sort uses, so a page never reads a record to filter.
    # Date first after the player: the library's default order is read straight off the index.
    return tuple(
        "CREATE INDEX IF NOT EXISTS serve_who_%s ON games (%s, COALESCE(NULLIF(start, ''), added), "
        "id, game, result, plies)" % (o, played_by(o))
        for o in OPPONENTS
    ) + (
        "CREATE INDEX IF NOT EXISTS serve_levels ON games ((%s), (%s), COALESCE(NULLIF(start, ''), "
        "added), id, game, result, plies)" % (level_mask(), who_mask()),
    )


def prepare(path: str, say: Callable[[str], object] | None = None) -> None:
    """Add the library's indexes to the log (once; cheap when they exist)."""
    db = sqlite3.connect(path, timeout=30)
    try:
        have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        todo = [sql for sql in INDEXES + _player_indexes() if sql.split()[5] not in have]
        # serve_by_*: the first version's player indexes (exact tags only, before levels)
        todo += ["DROP INDEX serve_by_%s" % o for o in OPPONENTS if "serve_by_%s" % o in have]
        if not todo:
            return
        if say:
            say("indexing the game log for the library (once; 100,000 games take about 10 s)")
        with db:
            for sql in todo:
                db.execute(sql)
        db.execute("ANALYZE")  # the planner's statistics, so it picks these indexes
    finally:
        db.close()


def state(path: str) -> tuple[tuple[int, int] | None, ...]:
    """What changes whenever the log does: the size and time of its file and its WAL (every
    commit writes the WAL; a checkpoint, the file). An empty WAL is no WAL: a reader makes one."""
    out: list[tuple[int, int] | None] = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
        except OSError:
            st = None
        out.append((st.st_mtime_ns, st.st_size) if st and st.st_size else None)
    return tuple(out)


_pools: dict[str, list[sqlite3.Connection]] = {}
_pools_lock = threading.Lock()


@contextlib.contextmanager
def using(path: str) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the log, from a pool: requests run on many threads, and a
    new connection pays for reading the schema and a cold page cache every time."""
    with _pools_lock:
        pool = _pools.setdefault(path, [])
        db = pool.pop() if pool else None
    if db is None:
        db = sqlite3.connect(
            "file:%s?mode=ro" % path.replace("?", "%3f").replace("#", "%23"),
            uri=True,
            timeout=30,
            check_same_thread=False,
        )
        db.row_factory = sqlite3.Row
        # A row whose text is not UTF-8 (another program wrote it) is shown with U+FFFD for
        # its bad bytes: SQLite's own decoding would fail the whole page on it.
        db.text_factory = _lenient
    try:
        yield db
    finally:
        with _pools_lock:
            _pools[path].append(db)


def _lenient(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def where(f: dict[str, Any]) -> tuple[str, list[Any]]:
    """(SQL, args) for filters f: game, result, opponent, since, until, q (id search)."""
    q = ["1=1"]
    args: list[Any] = []
    when = SORTS["date"]
    if f.get("game"):
        q.append("game=?")
        args.append(f["game"])
    if f.get("result"):
        q.append("result=?")
        args.append(f["result"])
    if f.get("level") in LEVELS:
        # Both through serve_levels' masks (see level_mask): no record is read.
        lv = f["level"]
        need = 1 << OPPONENTS.index(f["opponent"]) if f.get("opponent") in OPPONENTS else 0
        ai = sum(1 << OPPONENTS.index(k) for k in P.AI) if lv == "unknown" else 0
        levels = _masks(len(LEVELS), 1 if lv == "unknown" else 1 << int(lv))
        q.append("(%s) IN (%s)" % (level_mask(), ",".join(map(str, levels))))
        if need or ai:
            q.append(
                "(%s) IN (%s)" % (who_mask(), ",".join(map(str, _masks(len(OPPONENTS), need, ai))))
            )
    elif f.get("opponent") in OPPONENTS:
        q.append(played_by(f["opponent"]) + " = 1")
    if f.get("since"):
        q.append("%s >= ?" % when)
        args.append(f["since"])
    if f.get("until"):
        q.append("substr(%s, 1, %d) <= ?" % (when, len(f["until"])))
        args.append(f["until"])
    if f.get("q"):
        q.append("id LIKE ? ESCAPE '\\'")
        args.append("%" + _like_escape(f["q"]) + "%")
    return " AND ".join(q), args


COLUMNS = "id, game, device, start, result, reason, plies, status, source, added"


def page(
    db: sqlite3.Connection,
    f: dict[str, Any],
    sort: str = "date",
    desc: bool = True,
    page_no: int = 1,
    per_page: int = PAGE,
) -> tuple[list[dict[str, Any]], int]:
    """(rows, total) of one page."""
    w, args = where(f)
    src = "games"
    if f.get("level") in LEVELS:
        src = "games INDEXED BY serve_levels"
    elif f.get("opponent") in OPPONENTS:
        # The player's index first: the planner, left alone, may scan another index and read
        # every record to test the player.
        src = "games INDEXED BY serve_who_%s" % f["opponent"]
    order = "%s %s, id %s" % (
        SORTS.get(sort, SORTS["date"]),
        "DESC" if desc else "ASC",
        "DESC" if desc else "ASC",
    )
    total = db.execute("SELECT COUNT(*) FROM %s WHERE %s" % (src, w), args).fetchone()[0]
    # The page's rowids from the index alone, then only those rows read: an offset deep in
    # the log steps over index entries, not over whole records.
    rows = db.execute(
        "SELECT %s FROM games WHERE rowid IN (SELECT rowid FROM %s WHERE %s "
        "ORDER BY %s LIMIT ? OFFSET ?) ORDER BY %s" % (COLUMNS, src, w, order, order),
        args + [per_page, (page_no - 1) * per_page],
    ).fetchall()
    # When played: the one rule `bawo games` shows (bawo.db.played_text), "unknown" included,
    # not the time the game reached the log.
    return [dict(r, played=played_text(r["start"])) for r in rows], total
