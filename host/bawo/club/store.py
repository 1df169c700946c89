"""The club's storage: one interface (Store), two engines (SQLite, PostgreSQL).

Every query is written once, with ? for its arguments; the PostgreSQL engine rewrites them to
psycopg's %s. What differs between the engines is only how a connection is made, how a write
transaction locks (SQLite: BEGIN IMMEDIATE, one writer at a time; PostgreSQL: an advisory lock
on what the transaction decides about, so two processes never both take one record id), and
the auto-numbered key in migrations.py. The web tier keeps nothing of its own: everything two
club processes must agree on is here.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from . import ClubError
from .migrations import LATEST, MIGRATIONS

ADDED = "added"
DUPLICATE = "duplicate"
CONFLICT = "conflict"

SESSION_HOURS = 12


def utcnow() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_postgres(url: object) -> bool:
    return isinstance(url, str) and url.startswith(("postgresql://", "postgres://"))


def open_store(url: str) -> SqliteStore | PgStore:
    """The store at url: a postgresql:// URL, else the path of an SQLite file. Migrated to
    the latest schema before it is returned."""
    store = PgStore(url) if is_postgres(url) else SqliteStore(url)
    try:
        store.migrate()
    except BaseException:
        store.close()
        raise
    return store


class Tx:
    """One transaction: execute/one/all with ? placeholders, rows as dicts."""

    def __init__(self, conn: Any, store: Store) -> None:
        self.conn = conn
        self.store = store

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.store._execute(self.conn, sql, args)

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.all(sql, args)
        return rows[0] if rows else None

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self.execute(sql, args)
        return [dict(r) for r in cur.fetchall()]

    def lock(self, *key: str) -> None:
        """Serialise the transactions that decide about key (a record id, a board)."""
        self.store._lock(self.conn, "\x1f".join(key))


class Store:
    engine = None

    # -- engine hooks --------------------------------------------------------------------
    def _connect(self) -> Any:
        raise NotImplementedError

    def _execute(self, conn: Any, sql: str, args: Sequence[Any]) -> Any:
        raise NotImplementedError

    def _begin(self, conn: Any) -> Any:
        raise NotImplementedError

    def _lock(self, conn: Any, key: str) -> None:
        raise NotImplementedError

    def _ddl(self, sql: str) -> str:
        raise NotImplementedError

    # -- connections and transactions ----------------------------------------------------
    @contextlib.contextmanager
    def tx(self) -> Iterator[Tx]:
        """A write transaction, committed when the block ends without an error: a caller
        answers a client only after this block, so an answer means committed."""
        conn = self._take()
        try:
            with self._begin(conn):
                yield Tx(conn, self)
        finally:
            self._give(conn)

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows of one read (autocommit), as dicts."""
        conn = self._take()
        try:
            return [dict(r) for r in self._execute(conn, sql, args).fetchall()]
        finally:
            self._give(conn)

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.query(sql, args)
        return rows[0] if rows else None

    # -- migrations ----------------------------------------------------------------------
    def version(self) -> int:
        try:
            row = self.one("SELECT version FROM club_schema")
        except Exception:
            return 0
        return row["version"] if row else 0

    def migrate(self, to: int = LATEST) -> int:
        """Bring the schema up to version `to`, each migration in its own transaction with
        the new version number (a crash leaves a whole version). Two processes starting at
        once: the second waits for the lock and then finds nothing to do."""
        with self.tx() as t:
            t.lock("club-schema")
            t.execute("CREATE TABLE IF NOT EXISTS club_schema (version INTEGER NOT NULL)")
            row = t.one("SELECT version FROM club_schema")
            if row is None:
                t.execute("INSERT INTO club_schema (version) VALUES (0)")
        while True:
            with self.tx() as t:
                t.lock("club-schema")
                v = t.one("SELECT version FROM club_schema")["version"]
                if v > LATEST:
                    raise ClubError(
                        "the club database is at schema version %d, newer than this "
                        "bawo (%d): update bawo" % (v, LATEST)
                    )
                if v >= to:
                    return v
                for stmt in MIGRATIONS[v]:
                    t.execute(self._ddl(stmt))
                t.execute("UPDATE club_schema SET version=?", (v + 1,))

    # -- boards and tokens ---------------------------------------------------------------
    def add_board(self, board: str) -> None:
        with self.tx() as t:
            t.execute(
                "INSERT INTO boards (id, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (board, utcnow()),
            )

    def boards(self) -> list[dict[str, Any]]:
        return self.query("SELECT id, added FROM boards ORDER BY id")

    def add_token(self, board: str, token_hash: str) -> int:
        """Note a new token of board (the board is added if new); returns the token's number."""
        with self.tx() as t:
            t.execute(
                "INSERT INTO boards (id, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (board, utcnow()),
            )
            return t.one(
                "INSERT INTO tokens (board, hash, created) VALUES (?, ?, ?) RETURNING id",
                (board, token_hash, utcnow()),
            )["id"]

    def revoke_token(self, number: int) -> str | None:
        with self.tx() as t:
            row = t.one(
                "UPDATE tokens SET revoked=? WHERE id=? AND revoked IS NULL RETURNING board",
                (utcnow(), number),
            )
        return row["board"] if row else None

    def tokens(self) -> list[dict[str, Any]]:
        return self.query("SELECT id, board, created, revoked FROM tokens ORDER BY id")

    def board_of_token(self, token_hash: str) -> str | None:
        row = self.one("SELECT board FROM tokens WHERE hash=? AND revoked IS NULL", (token_hash,))
        return row["board"] if row else None

    # -- records -------------------------------------------------------------------------
    def upload(self, board: str, v: Any) -> tuple[str, int]:
        """Store a verified record (records.Verified) of board. Returns (outcome, seq):
        ADDED; DUPLICATE (this board sent this content under this id before: nothing new);
        CONFLICT (another content under a taken id: kept, with status 'conflict')."""
        with self.tx() as t:
            t.lock("record", board, v.rid)
            rows = t.all("SELECT seq, sha FROM records WHERE board=? AND rid=?", (board, v.rid))
            for r in rows:
                if r["sha"] == v.sha:
                    return DUPLICATE, r["seq"]
            seat = self._seat_at(t, board, v.played or utcnow())
            south, north = v.names(seat)
            status = "conflict" if rows else "ok"
            # A record a board bound to a remote game (remote_games.py): checked against the club's
            # moves and kept beside the club's own record of it ('remote'), not rated again.
            bound = t.one(
                "SELECT b.game, g.moves, g.state, g.result FROM remote_binds b"
                " JOIN remote_games g ON g.id=b.game WHERE b.board=? AND b.rid=?",
                (board, v.rid),
            )
            if bound is not None and status == "ok":
                status = (
                    "remote" if check_bound(bound, v.rec.moves, v.result) is None else "conflict"
                )
            seq = self.insert_record(t, board, v, status, south, north)
            if bound is not None:
                t.execute(
                    "UPDATE remote_binds SET seq=?, status=? WHERE game=? AND board=?",
                    (seq, status, bound["game"], board),
                )
        return (CONFLICT if rows else ADDED), seq

    def insert_record(
        self, t: Tx, board: str, v: Any, status: str, south: str | None, north: str | None
    ) -> int:
        """Insert a verified record (in the transaction t) with its players; returns its seq."""
        row = t.one(
            "INSERT INTO records (board, rid, sha, status, game, result, reason, plies, start,"
            " played, first_tag, second_tag, added, record, south, north)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING seq",
            (
                board,
                v.rid,
                v.sha,
                status,
                v.game,
                v.result,
                v.reason,
                v.plies,
                v.start,
                v.played,
                v.first,
                v.second,
                utcnow(),
                v.text,
                south,
                north,
            ),
        )
        for name in (south, north):
            if name:
                t.execute(
                    "INSERT INTO players (name, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (name, utcnow()),
                )
        return row["seq"]

    _SUMMARY = (
        "seq, board, rid, sha, status, game, result, reason, plies, start, played,"
        " first_tag, second_tag, south, north, added"
    )

    def records(
        self,
        board: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 500,
    ) -> list[dict[str, Any]]:
        q = "SELECT %s FROM records WHERE 1=1" % self._SUMMARY
        args = []
        if board is not None:
            q += " AND board=?"
            args.append(board)
        if player is not None:
            q += " AND (south=? OR north=?)"
            args += [player, player]
        if status is not None:
            q += " AND status=?"
            args.append(status)
        q += " ORDER BY played IS NULL, played, board, rid, seq LIMIT ?"
        args.append(int(limit))
        return self.query(q, args)

    def recent(self, n: int = 30) -> list[dict[str, Any]]:
        """The n records the club got last, newest first."""
        return self.query(
            "SELECT %s FROM records ORDER BY seq DESC LIMIT ?" % self._SUMMARY, (int(n),)
        )

    def record(self, seq: int | str) -> dict[str, Any] | None:
        return self.one("SELECT %s, record FROM records WHERE seq=?" % self._SUMMARY, (int(seq),))

    def rated_games(self) -> list[dict[str, Any]]:
        """Every finished, non-conflict game with both names, in the one order ratings use."""
        return self.query(
            "SELECT seq, game, result, played, added, south, north FROM records"
            " WHERE status='ok' AND result <> '*' AND south IS NOT NULL AND north IS NOT NULL"
            " ORDER BY COALESCE(played, added), board, rid, seq"
        )

    def set_names(self, seq: int | str, south: str | None, north: str | None) -> bool:
        with self.tx() as t:
            for name in (south, north):
                t.execute(
                    "INSERT INTO players (name, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (name, utcnow()),
                )
            row = t.one(
                "UPDATE records SET south=?, north=? WHERE seq=? RETURNING seq",
                (south, north, int(seq)),
            )
        return row is not None

    # -- players and seats ---------------------------------------------------------------
    def seat(self, board: str, south: str, north: str, since: str | None = None) -> None:
        with self.tx() as t:
            if t.one("SELECT 1 AS x FROM boards WHERE id=?", (board,)) is None:
                raise ClubError("no board %s in the club: issue it a token first" % board)
            for name in (south, north):
                t.execute(
                    "INSERT INTO players (name, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (name, utcnow()),
                )
            t.execute(
                "INSERT INTO seats (board, south, north, since) VALUES (?,?,?,?)",
                (board, south, north, since or utcnow()),
            )

    def _seat_at(self, t: Tx, board: str, when: str) -> dict[str, Any] | None:
        return t.one(
            "SELECT south, north FROM seats WHERE board=? AND since<=?"
            " ORDER BY since DESC, id DESC LIMIT 1",
            (board, when),
        )

    def seats(self) -> list[dict[str, Any]]:
        return self.query(
            "SELECT board, south, north, since FROM seats s WHERE id ="
            " (SELECT MAX(id) FROM seats t WHERE t.board = s.board) ORDER BY board"
        )

    def players(self) -> list[dict[str, Any]]:
        return self.query("SELECT name, added FROM players ORDER BY name")

    def player(self, name: str) -> dict[str, Any] | None:
        return self.one("SELECT name, added FROM players WHERE name=?", (name,))

    # -- live games ----------------------------------------------------------------------
    def live_update(
        self,
        board: str,
        rid: str,
        game: str,
        start: str | None,
        frm: int,
        moves: Iterable[str],
        done: bool,
        check: Callable[[str, str | None, list[str]], object],
    ) -> dict[str, Any]:
        """Add moves (from ply frm) to board's live game rid. check(game, start, all_moves):
        replays them, raising ValueError. Returns the row as stored; LiveGap(ply) when frm is
        not the ply the club has (the PC resends from there)."""
        with self.tx() as t:
            t.lock("live", board)
            row = t.one(
                "SELECT rid, game, start, moves, ply, done FROM live WHERE board=?", (board,)
            )
            same = row is not None and row["rid"] == rid and row["game"] == game
            have = row["moves"].split() if same and row["moves"] else []
            if frm != len(have):
                raise LiveGap(len(have))
            if same and row["done"] and not moves:
                return dict(row, board=board)
            allm = have + list(moves)
            check(game, start if not same else row["start"], allm)
            now = utcnow()
            new = {
                "board": board,
                "rid": rid,
                "game": game,
                "start": start if not same else row["start"],
                "moves": " ".join(allm),
                "ply": len(allm),
                "done": 1 if done else 0,
                "updated": now,
            }
            t.execute(
                "INSERT INTO live (board, rid, game, start, moves, ply, done, updated)"
                " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (board) DO UPDATE SET rid=excluded.rid,"
                " game=excluded.game, start=excluded.start, moves=excluded.moves,"
                " ply=excluded.ply, done=excluded.done, updated=excluded.updated",
                (board, rid, game, new["start"], new["moves"], new["ply"], new["done"], now),
            )
            seat = self._seat_at(t, board, now)
            new["south"], new["north"] = (seat["south"], seat["north"]) if seat else (None, None)
        return new

    def live_boards(self, since: str) -> list[dict[str, Any]]:
        """The live rows updated at or after since (ISO UTC text), with who sits there now."""
        rows = self.query(
            "SELECT board, rid, game, start, moves, ply, done, updated FROM live"
            " WHERE updated>=? ORDER BY board",
            (since,),
        )
        seats = {s["board"]: s for s in self.seats()}
        for r in rows:
            s = seats.get(r["board"])
            r["south"], r["north"] = (s["south"], s["north"]) if s else (None, None)
        return rows + self.remote_live(since)

    def remote_live(self, since: str) -> list[dict[str, Any]]:
        """Remote games in play or over since `since`, as live rows: the live page shows
        each as a board "remote-<id>"."""
        rows = self.query(
            "SELECT id, game, state, start, moves, ply, result, reason, updated,"
            " south_name, north_name FROM remote_games WHERE state <> 'open'"
            " AND south IS NOT NULL AND updated>=? ORDER BY id",
            (since,),
        )
        return [remote_live_row(r) for r in rows]

    def notify(self, payload: str) -> bool:
        """Tell every club process on this database (PostgreSQL: NOTIFY); False where there is
        no such channel (SQLite: one process)."""
        return False

    # -- admins and sessions -------------------------------------------------------------
    def add_admin(self, name: str, salt: str, hsh: str) -> None:
        with self.tx() as t:
            t.execute(
                "INSERT INTO admins (name, salt, hash, added) VALUES (?,?,?,?)"
                " ON CONFLICT (name) DO UPDATE SET salt=excluded.salt, hash=excluded.hash",
                (name, salt, hsh, utcnow()),
            )

    def admin(self, name: str) -> dict[str, Any] | None:
        return self.one("SELECT name, salt, hash FROM admins WHERE name=?", (name,))

    def add_session(
        self, session_hash: str, admin: str, csrf: str, hours: float = SESSION_HOURS
    ) -> None:
        expires = (
            datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=hours)
        ).strftime("%Y-%m-%dT%H:%M:%SZ")
        with self.tx() as t:
            t.execute("DELETE FROM sessions WHERE expires<?", (utcnow(),))
            t.execute(
                "INSERT INTO sessions (hash, admin, csrf, expires) VALUES (?,?,?,?)",
                (session_hash, admin, csrf, expires),
            )

    def session(self, session_hash: str) -> dict[str, Any] | None:
        return self.one(
            "SELECT admin, csrf FROM sessions WHERE hash=? AND expires>=?", (session_hash, utcnow())
        )

    def end_session(self, session_hash: str) -> None:
        with self.tx() as t:
            t.execute("DELETE FROM sessions WHERE hash=?", (session_hash,))


REMOTE_PREFIX = "remote-"


def remote_live_row(r: dict[str, Any]) -> dict[str, Any]:
    """A remote_games row as a live row (Store.live_boards): its board is "remote-<id>"."""
    key = "%s%d" % (REMOTE_PREFIX, r["id"])
    return {
        "board": key,
        "rid": key,
        "game": r["game"],
        "start": r["start"],
        "moves": r["moves"],
        "ply": r["ply"],
        "done": 1 if r["state"] == "over" else 0,
        "updated": r["updated"],
        "south": r["south_name"],
        "north": r["north_name"],
        "result": r["result"],
        "reason": r["reason"],
    }


def check_bound(game: dict[str, Any], moves: Sequence[str], result: str) -> str | None:
    """Why a board's record (moves, result) of a remote game is not the club's game (its
    row's moves, state, result); None when it agrees ply by ply."""
    club = game["moves"].split() if game["moves"] else []
    for k, m in enumerate(moves):
        if k >= len(club) or club[k] != m:
            return "differs from the club's game at ply %d" % (k + 1)
    if result != "*" and (
        len(moves) != len(club) or game["state"] != "over" or result != game["result"]
    ):
        return "its end (%s after %d plies) is not the club's" % (result, len(moves))
    return None


class Unavailable(ClubError):
    """The database cannot be reached now (restarting, network): try again later (503)."""


class LiveGap(ClubError):
    """A live update that does not start at the ply the club has."""

    def __init__(self, ply: int) -> None:
        ClubError.__init__(self, "the club has this game up to ply %d" % ply)
        self.ply = ply


def _wal(conn: sqlite3.Connection, wait: float = 10.0) -> None:
    """Put the file in WAL mode. On a new file two connections doing it at once get "locked"
    at once, without SQLite's busy wait: try again for a while."""
    t0 = time.monotonic()
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() - t0 > wait:
                raise
            time.sleep(0.02)


class SqliteStore(Store):
    engine = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._local = threading.local()
        self._all = []
        self._guard = threading.Lock()

    def _take(self) -> Any:
        # One connection a thread: sqlite3 connections are not shared between threads.
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=10, isolation_level=None, check_same_thread=False
            )
            conn.row_factory = sqlite3.Row
            _wal(conn)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
            with self._guard:
                self._all.append(conn)
        return conn

    def _give(self, conn: Any) -> None:
        pass

    def _execute(self, conn: Any, sql: str, args: Sequence[Any]) -> Any:
        return conn.execute(sql, tuple(args))

    @contextlib.contextmanager
    def _begin(self, conn: Any) -> Iterator[None]:
        # IMMEDIATE: the write lock is taken at BEGIN, so what a transaction read stays true
        # until it commits (no other writer in between).
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _lock(self, conn: Any, key: str) -> None:
        pass  # BEGIN IMMEDIATE holds the one write lock already

    def _ddl(self, sql: str) -> str:
        return sql.replace("{id}", "INTEGER PRIMARY KEY AUTOINCREMENT")

    def close(self) -> None:
        with self._guard:
            for c in self._all:
                c.close()
            self._all = []
        self._local = threading.local()


class PgStore(Store):
    engine = "postgresql"
    POOL = 8

    def __init__(self, url: str) -> None:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise ClubError("a PostgreSQL club needs psycopg: pip install 'psycopg[binary]'")
        self.url = url
        self._pool = queue.LifoQueue()
        self._made = 0
        self._guard = threading.Lock()
        self._closed = False

    def _take(self) -> Any:
        try:
            return self._pool.get_nowait()
        except queue.Empty:
            pass
        with self._guard:
            make = self._made < self.POOL
            if make:
                self._made += 1
        if not make:
            try:
                return self._pool.get(timeout=30)
            except queue.Empty:
                raise Unavailable("the club database is busy: every connection is in use")
        try:
            return self._connect()
        except BaseException:
            with self._guard:
                self._made -= 1
            raise

    def _connect(self) -> Any:
        import psycopg
        from psycopg.rows import dict_row

        try:
            return psycopg.connect(
                self.url, autocommit=True, row_factory=dict_row, connect_timeout=10
            )
        except psycopg.OperationalError as e:
            raise Unavailable(
                "cannot connect to the club database: %s" % " ".join(str(e).split())[:300]
            )

    def _give(self, conn: Any) -> None:
        if self._closed or conn.closed or conn.broken or conn.info.transaction_status != 0:
            # A broken connection (the server restarted, a failed transaction) is not reused;
            # after a lost one, the idle ones are likely dead too: dropped as well.
            lost = not self._closed and (conn.closed or conn.broken)
            with self._guard:
                self._made -= 1
            conn.close()
            while lost:
                try:
                    idle = self._pool.get_nowait()
                except queue.Empty:
                    break
                with self._guard:
                    self._made -= 1
                idle.close()
            return
        self._pool.put(conn)

    def _execute(self, conn: Any, sql: str, args: Sequence[Any]) -> Any:
        import psycopg

        try:
            return conn.execute(sql.replace("?", "%s"), tuple(args))
        except psycopg.OperationalError as e:
            raise Unavailable("the club database went away: %s" % " ".join(str(e).split())[:200])

    @contextlib.contextmanager
    def _begin(self, conn: Any) -> Iterator[None]:
        import psycopg

        try:
            with conn.transaction():
                yield
        except psycopg.OperationalError as e:
            raise Unavailable("the club database went away: %s" % " ".join(str(e).split())[:200])

    def _lock(self, conn: Any, key: str) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    def _ddl(self, sql: str) -> str:
        return sql.replace("{id}", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")

    CHANNEL = "bawo_club_live"

    def notify(self, payload: str) -> bool:
        conn = self._take()
        try:
            self._execute(conn, "SELECT pg_notify(?, ?)", (self.CHANNEL, payload))
        finally:
            self._give(conn)
        return True

    def listen(
        self,
        on_message: Callable[[str | None], object],
        stop: threading.Event,
        listening: threading.Event,
    ) -> None:
        """Call on_message(payload) for each NOTIFY on the club's channel until stop is set;
        sets listening once the first LISTEN holds; reconnects after the server went away,
        and then calls on_message(None): what was sent meanwhile is to be read whole."""
        import psycopg

        while not stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute("LISTEN %s" % self.CHANNEL)
                    if listening.is_set():
                        on_message(None)
                    listening.set()
                    while not stop.is_set():
                        for n in conn.notifies(timeout=0.5):
                            on_message(n.payload)
            except psycopg.Error:
                stop.wait(1.0)

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                break
