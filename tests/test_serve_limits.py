"""What a request can make `bawo serve` do: every bad JSON body a one-line 400 (never a
traceback, in the answer or the server's log), a client gone before its body no traceback
either, a flood of the rules' work leaving the pages answering, another site's requests
refused, the library's level filter answered from an index, and text from the log shown
with its controls escaped."""

import json
import logging
import socket
import sqlite3
import threading
from urllib.parse import quote

import httpx
import pytest
import uvicorn

from _host_helpers import random_record
from _serve_helpers import wait_for
from bawo.db import Log
from bawo.serve import make, boardview as B, library as L, request as R, stats as S

BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "x3-\u202egnp.exe" shows as "x3-exe.png"
ISOLATE = "\u2066"  # LEFT-TO-RIGHT ISOLATE
START = "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"


class Watched:
    """`bawo serve`'s app under uvicorn in a thread, each request's end counted (the
    outermost ASGI layer), and the server's log (uvicorn's loggers) kept."""

    def __init__(self, db):
        self.app, self.sock, self.cfg, self.url = make(db, follow_board=False)
        self.done = 0
        self.cv = threading.Condition()
        self.log = []

        async def counted(scope, receive, send):
            try:
                await self.app(scope, receive, send)
            finally:
                if scope["type"] == "http":
                    with self.cv:
                        self.done += 1
                        self.cv.notify_all()

        config = uvicorn.Config(
            counted, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        # After uvicorn.Config: it sets its loggers' handlers itself.
        handler = logging.Handler()
        handler.emit = lambda rec: self.log.append(rec)
        self.handler = handler
        for name in ("uvicorn", "uvicorn.error", "uvicorn.asgi"):
            logging.getLogger(name).addHandler(handler)
        self.server.install_signal_handlers = lambda: None
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        wait_for(lambda: self.server.started, what="the server started")
        self.host = "127.0.0.1:%d" % self.cfg.port

    def wait_done(self, n):
        with self.cv:
            assert self.cv.wait_for(lambda: self.done >= n, 30), "requests did not end"

    def tracebacks(self):
        return [r for r in self.log if r.exc_info or "Traceback" in r.getMessage()]

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        for name in ("uvicorn", "uvicorn.error", "uvicorn.asgi"):
            logging.getLogger(name).removeHandler(self.handler)


@pytest.fixture
def srv(tmp_path):
    db = str(tmp_path / "g.sqlite")
    with Log(db) as log:
        log.add(random_record(1, "dev-0001"), "import")
    s = Watched(db)
    yield s
    s.stop()


def post_raw(s, path, body, token=True):
    h = {"Host": s.host, "Content-Type": "application/json"}
    if token:
        h["X-Bawo-Token"] = s.cfg.token
    return httpx.post(s.url.rstrip("/") + path, headers=h, content=body, timeout=30)


def get(s, path, **headers):
    h = {"Host": s.host}
    h.update(headers)
    return httpx.get(s.url.rstrip("/") + path, headers=h, timeout=30)


BAD_BODIES = [
    b"[" * 200000 + b"]" * 200000,  # nested 200,000 deep
    b'{"a":' * 3000 + b"1" + b"}" * 3000,  # deep, and over the size bound
    b'{"a": [[[[[[1]]]]]]}',  # small, but deeper than any body sent
    b'{"side": 1e999, "game": "bawo", "move": "A1+"}',
    b'{"side": NaN, "game": "bawo"}',
    b'{"side": Infinity, "game": "bawo"}',
    b'{"side": 1.5, "game": "bawo"}',
    b'{"side": true, "game": "bawo"}',
    b'{"side": 7, "game": "bawo"}',
    b'{"level": 99, "game": "bawo"}',
    b'{"level": "3", "game": "bawo"}',
    b'{"game": ["bawo"]}',
    b'{"game": "chess"}',
    b'{"move": 5}',
    b'{"move": {"x": 1}}',
    b'{"move": "' + b"A" * 5000 + b'"}',
    b'[]',
    b'"A1+"',
    b"null",
    b"",
    b"{",
    b'{"move": "A1+"} x',
    b'\xff\xfe{"move": "A1+"}',  # not UTF-8
    b'{"move": "' + b"\\ud800" + b'"}',  # a lone surrogate: not a move
    b" " * (1 << 20),  # a megabyte of nothing
]


@pytest.mark.parametrize("path", ["/api/play/new", "/api/play/move", "/api/move"])
def test_every_bad_body_is_a_one_line_400(srv, path):
    for body in BAD_BODIES:
        r = post_raw(srv, path, body)
        assert r.status_code == 400, (path, body[:40], r.status_code, r.text[:200])
        err = r.json()["error"]
        assert err and "\n" not in err and len(err) <= 300, err
        assert "Traceback" not in r.text
    # A request without the token is still refused before its body is read.
    assert post_raw(srv, path, BAD_BODIES[0], token=False).status_code == 403
    srv.wait_done(len(BAD_BODIES) + 1)
    assert not srv.tracebacks(), [r.getMessage()[:200] for r in srv.tracebacks()]


def test_the_play_page_still_starts_a_game_and_plays(srv):
    r = post_raw(srv, "/api/play/new", json.dumps({"game": "bawo", "side": 0, "level": 1}))
    assert r.status_code == 200, r.text
    r = post_raw(srv, "/api/play/move", json.dumps({"move": "A1+"}))
    assert r.status_code == 200, r.text


def test_a_client_gone_before_its_body_leaves_no_traceback(srv):
    for path in ("/api/move", "/api/play/new", "/api/play/move"):
        c = socket.create_connection(("127.0.0.1", srv.cfg.port))
        c.sendall(
            (
                "POST %s HTTP/1.1\r\nHost: %s\r\nX-Bawo-Token: %s\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"move\":"
                % (path, srv.host, srv.cfg.token)
            ).encode()
        )
        c.close()
    srv.wait_done(3)
    # One more request: the server has logged whatever those three left by its answer.
    assert get(srv, "/api/layout/bawo").status_code == 200
    assert not srv.tracebacks(), [r.getMessage()[:300] for r in srv.tracebacks()]


def test_a_flood_of_the_rules_work_leaves_the_pages_answering(srv, monkeypatch):
    """Many expensive GETs at once (the sowing stand-in blocks until released): they take the
    rules' own threads, the rest are told "busy", and the pages, the library and the live
    page's own requests answer meanwhile."""
    release = threading.Event()
    inside = []
    real = B.sowing

    def slow(*a):
        inside.append(1)
        release.wait(60)
        return real(*a)

    monkeypatch.setattr(B, "sowing", slow)
    n = 50  # more than the default thread pool (40) holds
    answers = []

    def sow():
        answers.append(
            get(srv, "/api/sow?game=bawo&move=A1%%2B&position=%s" % quote(START)).status_code
        )

    flood = [threading.Thread(target=sow, daemon=True) for _ in range(n)]
    for t in flood:
        t.start()
    try:
        busy = n - R.RULES_THREADS - R.RULES_QUEUE
        wait_for(
            lambda: len(inside) == R.RULES_THREADS and answers.count(503) == busy,
            timeout=60,
            what="the rules' threads full and the rest told busy",
        )
        for path in ("/", "/library", "/board", "/stats", "/game/dev-0001", "/api/layout/bawo"):
            assert get(srv, path).status_code == 200, path
        assert len(inside) == R.RULES_THREADS  # still held: the pages did not wait for them
    finally:
        release.set()
        for t in flood:
            t.join(60)
    assert answers.count(200) == n - busy and answers.count(503) == busy, answers


def test_another_sites_requests_cannot_make_the_server_compute(srv):
    sow = "/api/sow?game=bawo&move=A1%%2B&position=%s" % quote(START)
    # An <img> or <script> on another site: the browser names the site, sends no Origin.
    for site in ("cross-site", "same-site"):
        for path in (
            sow,
            "/api/picture?game=bawo&position=" + quote(START),
            "/library?level=unknown",
        ):
            r = get(srv, path, **{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"})
            assert r.status_code == 403 and "another site" in r.text, (site, path)
    # A link from another site opens a page; the page's own requests are its own.
    assert (
        get(
            srv, "/library", **{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
        ).status_code
        == 200
    )
    assert (
        get(srv, sow, **{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}).status_code
        == 200
    )
    assert (
        get(srv, sow, **{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}).status_code == 200
    )
    # DNS rebinding: the server's own address and port only.
    assert get(srv, sow, Host="evil.example:%d" % srv.cfg.port).status_code == 403


def _text(html):
    """What a page shows: its text, not its tags' attributes (data-gid keeps the real id
    for the page's script)."""
    from html.parser import HTMLParser

    out = []
    p = HTMLParser()
    p.handle_data = out.append
    p.feed(html)
    return "".join(out)


def test_ids_and_devices_show_bidi_controls_escaped(tmp_path):
    db = str(tmp_path / "g.sqlite")
    gid = "x3-" + BIDI + "gnp.exe"
    rec = random_record(3, gid)
    con = sqlite3.connect(db)
    Log(db).close()
    with con:
        con.execute(
            "INSERT INTO games (id, game, device, start, result, reason, plies, status,"
            " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                gid,
                rec.header["Game"],
                "dev" + ISOLATE + "ice",
                "2025-01-01",
                "S",
                "won" + BIDI,
                len(rec.moves),
                "done",
                "import",
                "2025-01-01",
                rec.to_text(),
            ),
        )
    con.close()
    s = Watched(db)
    try:
        for path in (
            "/library",
            "/game/" + quote(gid, safe=""),
            "/game/" + quote("no" + BIDI, safe=""),
        ):
            shown = _text(get(s, path).text)
            assert BIDI not in shown and ISOLATE not in shown, path
            assert "\\u202e" in shown, path
        assert "dev\\u2066ice" in _text(get(s, "/library").text)
        # The page's links still name the game itself.
        assert get(s, "/api/game/" + quote(gid, safe="")).json()["id"] == gid
    finally:
        s.stop()
    # The board page's facts and status: the same escapes (the live stream's message).
    from bawo.serve.live import Bridge, Hub, facts

    hub = Hub()
    got = []
    hub.publish = got.append
    br = Bridge(hub, db, enabled=False)
    br.info = facts({"board": "pico-" + BIDI + "1", "games": ["bawo" + ISOLATE]})
    br.status(True, "connected to pico-" + BIDI + "1")
    msg = json.dumps(got[-1], ensure_ascii=False)
    assert BIDI not in msg and ISOLATE not in msg and "pico-\\\\u202e1" in msg


def test_a_missing_game_is_a_404_page(srv):
    r = get(srv, "/game/nosuch")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    assert "Not found" in r.text and "nosuch" in r.text and 'href="/library"' in r.text


def _big_log(path, n):
    """n games, as the library sees them: the board and `bawo play` at levels, old records
    without a level, people alone."""
    Log(path).close()
    who = [
        ("board (level 2)", "person"),
        ("person (1 hints)", "board (level 5)"),
        ("you", "computer (level 3)"),
        ("board", "person"),
        ("person", "person"),
        ("computer", "you"),
        ("board (level 4)", "board (level 1)"),
    ]
    recs = []
    for i in range(len(who) * 3):
        rec = random_record(i, "big-%02d" % i)
        rec.header["First"], rec.header["Second"] = who[i % len(who)]
        recs.append(rec)
    rows = []
    for k in range(n):
        rec = recs[k % len(recs)]
        rec.header["Id"] = "big-%06d" % k
        rows.append(
            (
                "big-%06d" % k,
                rec.header["Game"],
                "dev",
                "2025-01-%02dT10:00" % (1 + k % 28),
                rec.header.get("Result", "*"),
                "",
                len(rec.moves),
                "done",
                "import",
                "2025-01-01",
                rec.to_text(),
            )
        )
    con = sqlite3.connect(path)
    with con:
        con.executemany(
            "INSERT INTO games (id, game, device, start, result, reason, plies, status,"
            " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    con.close()


def test_the_librarys_filters_are_looked_up_in_an_index(tmp_path):
    db = str(tmp_path / "big.sqlite")
    _big_log(db, 20000)
    L.prepare(db)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.row_factory = sqlite3.Row
    run = []
    con.set_trace_callback(run.append)
    for f in (
        {"opponent": "person", "level": "unknown"},
        {"level": "unknown"},
        {"level": "3"},
        {"opponent": "board", "level": "2", "game": "bawo"},
    ):
        run.clear()
        L.page(con, f)
        keys = sum(1 for k in ("opponent", "level") if k in f) + (
            f.get("level") == "unknown" and "opponent" not in f
        )
        assert len(run) == 2, run
        for sql in run:
            plan = " | ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + sql))
            # Every player and level filter is a key of the index's search: no record is
            # read to test one (that cost 1.6 s a call on 100,000 games).
            want = "serve_levels (" + " AND ".join(["<expr>=?"] * keys)
            assert want in plan and "SCAN games" not in plan, (f, plan)
    con.set_trace_callback(None)
    # The statistics' results by month: read off an index, not the records.
    run.clear()
    con.set_trace_callback(run.append)
    S.charts(con)
    con.set_trace_callback(None)
    month = [q for q in run if "GROUP BY game, m, result" in q]
    plan = " | ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + month[0]))
    assert "COVERING INDEX serve_stats" in plan, plan
    # The same games as the filter's plain meaning (level_is, played_by), for every pair.
    for o in ("",) + L.OPPONENTS:
        for lv in L.LEVELS:
            f = {"opponent": o, "level": lv}
            cond = L.level_is(lv) + (" AND %s = 1" % L.played_by(o) if o else "")
            want = [
                r[0]
                for r in con.execute(
                    "SELECT id FROM games NOT INDEXED WHERE %s "
                    "ORDER BY COALESCE(NULLIF(start, ''), added) DESC, id DESC" % cond
                )
            ]
            rows, total = L.page(con, f, per_page=len(want) + 1)
            assert total == len(want) and [r["id"] for r in rows] == want, f
    con.close()


def test_the_statistics_are_drawn_once_for_each_state_of_the_log(srv, monkeypatch):
    calls = []
    real = S.charts
    monkeypatch.setattr(S, "charts", lambda *a: calls.append(a) or real(*a))
    first = get(srv, "/stats").text
    assert get(srv, "/stats").text == first and len(calls) == 1  # the same log: drawn once
    with Log(srv.cfg.db_path) as log:
        for i in range(3):
            log.add(random_record(20 + i, "new-%04d" % i), "import")
    again = get(srv, "/stats").text
    assert len(calls) == 2 and again != first  # a changed log: drawn anew
    assert get(srv, "/stats?game=bawo").status_code == 200 and len(calls) == 3


def test_a_sowing_request_is_bounded_by_the_boards_own_limits(srv):
    """The attack: a crafted Bawo position (25 seeds a pocket) and a move made one GET cost
    the server 40 s. A pocket is a byte and the board holds at most 255 seeds, so such a
    position is refused before any sowing; the heaviest one the board can hold is sown within
    max_laps and sent back sampled to MAX_ANIM_FRAMES frames."""
    crafted = "/".join([",".join(["25"] * 8)] * 4) + " S"
    r = get(srv, "/api/sow?game=bawo&move=A1%%2B&position=%s" % quote(crafted))
    assert r.status_code == 400 and "too many seeds" in r.json()["error"], r.text
    from shared_rules import State, game

    g = game("bawo")
    counts = [0] * 32
    for k in range(255):  # every seed the board can hold, most on South's side
        counts[(k * 7) % 16 if k % 5 else 16 + (k % 16)] += 1
    heavy = "/".join(",".join(str(c) for c in counts[r * 8 : r * 8 + 8]) for r in range(4)) + " S"
    moves = State(g, g.parse(heavy)).legal_move_strs()
    assert moves, heavy
    for mv in moves:
        r = get(srv, "/api/sow?game=bawo&move=%s&position=%s" % (quote(mv), quote(heavy)))
        assert r.status_code == 200, (mv, r.text)
        assert 1 <= len(r.json()["frames"]) <= B.MAX_ANIM_FRAMES + 1, mv
