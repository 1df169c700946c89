"""The PC's side of the club: its config (which club, which boards' tokens) and its outbox.

`bawo club join URL --token T` asks the club which board T is for and keeps (url, board,
token) in club.json in the bawo data dir (mode 0600: it holds secrets). `bawo sync` then puts
each record the PC's log holds into the outbox, a table in that same SQLite file, before the
board is told it may forget it; delivery follows, oldest first, and stops at the first record
the club could not take for a reason that may pass (offline, busy), so order is kept. A record
the club refuses for good (it does not replay) is marked refused and reported, never resent.
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..sync import parse_record
from ..text import safe
from . import ClubError
from .store import sha256, utcnow

if TYPE_CHECKING:
    from ..db import Log

TIMEOUT = 10.0
CONFIG = "club.json"

OUTBOX = """
CREATE TABLE IF NOT EXISTS club_outbox (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    board     TEXT NOT NULL,
    rid       TEXT NOT NULL,
    sha       TEXT NOT NULL,
    record    TEXT NOT NULL,
    queued    TEXT NOT NULL,
    delivered TEXT,
    outcome   TEXT,
    UNIQUE (board, rid, sha)
)"""


def config_path(data_dir: str | None = None) -> str:
    if data_dir is None:
        from ..db import default_path

        data_dir = os.path.dirname(default_path())
    return os.path.join(data_dir, CONFIG)


def load_config(data_dir: str | None = None) -> dict[str, Any] | None:
    """The club config, or None when this PC joined no club."""
    p = config_path(data_dir)
    try:
        with open(p, encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ClubError("the club config %s cannot be read (%s): join again" % (safe(p), e))
    if (
        not isinstance(cfg, dict)
        or not isinstance(cfg.get("url"), str)
        or not isinstance(cfg.get("boards"), dict)
    ):
        raise ClubError("the club config %s is not one bawo wrote: join again" % safe(p))
    return cfg


def _save_config(cfg: dict[str, Any], data_dir: str | None = None) -> None:
    p = config_path(data_dir)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    tmp = p + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, p)


def check_url(url: str) -> str:
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("http", "https") or not u.netloc or len(url) > 500:
        raise ClubError("a club's address is http(s)://host[:port]/ (got %r)" % safe(url[:100]))
    return url if url.endswith("/") else url + "/"


def request(
    url: str,
    path: str,
    token: str,
    body: bytes | None = None,
    content_type: str = "text/plain; charset=utf-8",
    timeout: float = TIMEOUT,
) -> tuple[int | None, Any]:
    """(status, JSON answer) of one request to the club; status None when it cannot be
    reached (the answer's "error" says why). timeout: seconds (a long poll's wait and more)."""
    req = urllib.request.Request(
        url + path,
        data=body,
        method="POST" if body is not None else "GET",
        headers={"Authorization": "Bearer " + token, "Content-Type": content_type},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read(65536) or b"{}")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read(65536) or b"{}")
        except ValueError:
            return e.code, {"error": "HTTP %d" % e.code}
    except (urllib.error.URLError, OSError, ValueError) as e:
        return None, {"error": str(getattr(e, "reason", e))[:200]}


def join(url: str, token: str, data_dir: str | None = None) -> str:
    """Ask the club whose token this is; keep it. Returns the board's id."""
    url = check_url(url)
    if not token or len(token) > 200 or not token.isascii() or not token.isprintable():
        raise ClubError("a board token is the text the club's admin gave you")
    status, ans = request(url, "api/whoami", token)
    if status != 200 or not isinstance(ans.get("board"), str):
        raise ClubError(
            "the club at %s did not take the token: %s"
            % (safe(url), safe(ans.get("error") or "HTTP %s" % status))
        )
    cfg = load_config(data_dir)
    if cfg is None or cfg["url"] != url:
        cfg = {"url": url, "boards": {}}  # one club a PC: joining another replaces it
    cfg["boards"][ans["board"]] = token
    _save_config(cfg, data_dir)
    return ans["board"]


def admin_seat(url: str, name: str, password: str, board: str, south: str, north: str) -> None:
    """Seat players as an admin from any PC: log in, read the form's CSRF token, post."""
    import html
    import http.cookiejar
    import re

    jar = http.cookiejar.CookieJar()
    op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(path, fields=None):
        data = None if fields is None else urllib.parse.urlencode(fields).encode()
        try:
            with op.open(url + path, data=data, timeout=TIMEOUT) as r:
                return r.status, r.read(1 << 20).decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read(1 << 20).decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as e:
            raise ClubError(
                "the club at %s cannot be reached: %s" % (safe(url), getattr(e, "reason", e))
            )

    status, _ = call("login", {"name": name, "password": password})
    if status != 200:  # 303 to /admin is followed: 200 there means logged in
        raise ClubError("the club refused the login of %s (HTTP %d)" % (safe(name), status))
    status, page = call("admin")
    m = re.search(r'name="csrf" value="([A-Za-z0-9_-]+)"', page)
    if status != 200 or not m:
        raise ClubError("the club did not give an admin page to %s" % safe(name))
    csrf = m.group(1)
    status, page = call(
        "admin/seat", {"csrf": csrf, "board": board, "south": south, "north": north}
    )
    call("logout", {"csrf": csrf})  # the session ends here, not in 12 hours
    if status != 200:
        m = re.search(r'<p class="conflict" id="error">(.*?)</p>', page, re.S)
        raise ClubError(
            "the club did not seat them: %s"
            % (safe(html.unescape(m.group(1).strip())) if m else "HTTP %d" % status)
        )


class Outbox:
    """The records waiting for the club, in the PC's own log file."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.db = conn
        self.db.execute(OUTBOX)
        self.db.commit()

    def put(self, board: str, text: str) -> None:
        """Queue one record (again is a no-op); committed before returning."""
        rec, _ = parse_record(text)
        rid = rec.header.get("Id") or ""
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO club_outbox (board, rid, sha, record, queued)"
                " VALUES (?,?,?,?,?)",
                (board, rid, sha256(text), text, utcnow()),
            )

    def waiting(self) -> list[dict[str, Any]]:
        return [
            dict(zip(("seq", "board", "rid", "record"), r))
            for r in self.db.execute(
                "SELECT seq, board, rid, record FROM club_outbox WHERE delivered IS NULL ORDER BY seq"
            )
        ]

    def done(self, seq: int, outcome: str) -> None:
        with self.db:
            self.db.execute(
                "UPDATE club_outbox SET delivered=?, outcome=? WHERE seq=?",
                (utcnow(), outcome[:300], seq),
            )


def held_hook(log: Log, cfg: dict[str, Any] | None) -> Callable[[str, bytes | None], None] | None:
    """What `bawo sync` calls for each record the log holds, before the board may forget it:
    queue it for the club if its board joined. None when this PC joined no club."""
    if not cfg:
        return None
    box = Outbox(log.db)

    def held(gid: str, data: bytes | str | None) -> None:
        if data is None:
            row = log.db.execute("SELECT record FROM games WHERE id=?", (str(gid),)).fetchone()
            if row is None:
                return  # kept as a conflict: queued when it was fetched
            data = row[0]
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        try:
            rec, _ = parse_record(text)
        except ValueError:
            return
        board = rec.header.get("Device") or str(gid).rsplit("-", 1)[0]
        if board in cfg["boards"]:
            box.put(board, text)

    return held


class PushReport:
    def __init__(self) -> None:
        self.delivered = []  # (rid, outcome)
        self.refused = []  # (rid, why)
        self.left = 0  # still queued
        self.stopped = None  # why delivery stopped early

    def ok(self) -> bool:
        return not self.refused and self.stopped is None


def push(conn: sqlite3.Connection, cfg: dict[str, Any]) -> PushReport:
    """Deliver the outbox in order; stop at the first record that may go later."""
    box = Outbox(conn)
    rep = PushReport()
    todo = box.waiting()
    for i, item in enumerate(todo):
        token = cfg["boards"].get(item["board"])
        if token is None:
            rep.stopped = "board %s has no token here: `bawo club join`" % item["board"]
        else:
            status, ans = request(cfg["url"], "api/records", token, item["record"].encode("utf-8"))
            if status == 200:
                box.done(item["seq"], ans.get("outcome", "ok"))
                rep.delivered.append((item["rid"], ans.get("outcome")))
                continue
            if status in (413, 422):
                box.done(item["seq"], "refused: %s" % ans.get("error", ""))
                rep.refused.append((item["rid"], str(ans.get("error", ""))))
                continue
            rep.stopped = (
                "the club cannot be reached (%s)" % ans.get("error")
                if status is None
                else "the club answered %s: %s" % (status, ans.get("error", ""))
            )
        rep.left = len(todo) - i
        break
    return rep


def open_outbox(path: str | os.PathLike[str]) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=5)


def deliver(db_path: str | os.PathLike[str], cfg: dict[str, Any]) -> PushReport:
    """Deliver the outbox of the PC's log at db_path. Returns the PushReport."""
    conn = open_outbox(db_path)
    try:
        return push(conn, cfg)
    finally:
        conn.close()


def push_lines(rep: PushReport) -> list[str]:
    """What a delivery did, as lines for a person (`bawo sync`, `bawo club push`, the page)."""
    lines = [
        "club: %d record(s) delivered%s%s"
        % (
            len(rep.delivered),
            ", %d refused" % len(rep.refused) if rep.refused else "",
            "; %d queued: %s" % (rep.left, rep.stopped) if rep.stopped else "",
        )
    ]
    lines += ["club refused %s: %s" % (rid, why) for rid, why in rep.refused]
    lines += [
        "club: %s is another game under an id the club holds: kept beside it as a "
        "conflict (see the club page)" % rid
        for rid, outcome in rep.delivered
        if outcome == "conflict"
    ]
    return lines


def deliver_if_joined(db_path: str, data_dir: str | None = None) -> dict[str, Any] | None:
    """The page's delivery after its Sync (bawo.serve.page_live): None when this PC joined no
    club, else what was delivered as a dict (the PushReport's counts and its lines)."""
    try:
        cfg = load_config(data_dir)
    except ClubError as e:
        return {"error": safe(str(e))}
    if cfg is None:
        return None
    rep = deliver(db_path, cfg)
    return {
        "delivered": len(rep.delivered),
        "refused": len(rep.refused),
        "queued": rep.left,
        "stopped": rep.stopped,
        "lines": [safe(x) for x in push_lines(rep)],
    }
