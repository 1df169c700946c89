"""Read-only queries for the library and statistics pages, on a page of the log at a time.
Every filter is a bound parameter; sort keys come from a fixed table, never from the request."""
import sqlite3
import threading

PAGE = 50
SORTS = {
    "date": "COALESCE(NULLIF(start, ''), added)",
    "id": "id",
    "game": "game",
    "plies": "plies",
    "result": "result",
}
# Who played: the record's First/Second tags (board, person, host; `bawo play`: you, computer).
OPPONENTS = ("board", "host", "person", "computer", "you")
RESULTS = ("S", "N", "G", "T", "draw", "*")
_local = threading.local()


def connect(path):
    """A read-only connection for this thread (SQLite connections stay in their thread)."""
    cons = getattr(_local, "cons", None)
    if cons is None:
        cons = _local.cons = {}
    db = cons.get(path)
    if db is None:
        db = sqlite3.connect("file:%s?mode=ro" % path.replace("?", "%3f").replace("#", "%23"),
                             uri=True, timeout=30, check_same_thread=True)
        db.row_factory = sqlite3.Row
        cons[path] = db
    return db


def _like_escape(s):
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def where(f):
    """(SQL, args) for filters f: game, result, opponent, since, until, q (id search)."""
    q, args = ["1=1"], []
    when = SORTS["date"]
    if f.get("game"):
        q.append("game=?")
        args.append(f["game"])
    if f.get("result"):
        q.append("result=?")
        args.append(f["result"])
    if f.get("opponent"):
        tag = '"%s"]' % f["opponent"]
        q.append("(instr(record, ?) > 0 OR instr(record, ?) > 0)")
        args += ["[First " + tag, "[Second " + tag]
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


def page(db, f, sort="date", desc=True, page_no=1, per_page=PAGE):
    """(rows, total) of one page."""
    w, args = where(f)
    order = "%s %s, id %s" % (SORTS.get(sort, SORTS["date"]), "DESC" if desc else "ASC",
                              "DESC" if desc else "ASC")
    total = db.execute("SELECT COUNT(*) FROM games WHERE " + w, args).fetchone()[0]
    rows = db.execute("SELECT %s FROM games WHERE %s ORDER BY %s LIMIT ? OFFSET ?"
                      % (COLUMNS, w, order), args + [per_page, (page_no - 1) * per_page]).fetchall()
    return rows, total
