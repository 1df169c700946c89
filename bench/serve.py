"""`bawo serve`: library page time with 100,000 games, and live latency board -> page.

Library: each page is fetched over HTTP from the running server (the route, its SQL, the
template; the server's own time, from the request to the last byte, on localhost) against the
peer measured in the same run: the bare SQLite query of the same 50 rows (no count, no HTML).
Target: under 200 ms a page.

Live: the simulated board (the real firmware under the MicroPython unix port, real clock, on a
pty) is followed by the server and a headless Chromium page; pockets are pressed as a person
presses them, and the page records when it showed each ply (Date.now()). Reported: press ->
page and board event -> page (the event's arrival at the host, stamped by the server), against
the peer press -> event at the host. Target: under 100 ms from the board.

    python bench/serve.py [--games 100000] [--plies 40]
"""

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host")]

from _serve_helpers import (  # noqa: E402
    Server,
    SimBoard,
    browser,
    quit_browser,
    fill_log,
    press_move,
    wait_for,
)
from bawo.serve import library as L  # noqa: E402

PAGES = [
    ("first page, newest first", "/library", {}, "date", True, 1),
    ("page 1,000 (offset 49,950)", "/library?page=1000", {}, "date", True, 1000),
    ("last page", None, {}, "date", True, -1),
    ("sorted by plies, page 500", "/library?sort=plies&dir=asc&page=500", {}, "plies", False, 500),
    (
        "game + player + date filter",
        "/library?game=oware&opponent=board&since=2025-03-01",
        {"game": "oware", "opponent": "board", "since": "2025-03-01"},
        "date",
        True,
        1,
    ),
    (
        "player filter, page 300",
        "/library?opponent=board&page=300",
        {"opponent": "board"},
        "date",
        True,
        300,
    ),
    (
        "result filter, sorted by plies, page 100",
        "/library?result=S&sort=plies&dir=desc&page=100",
        {"result": "S"},
        "plies",
        True,
        100,
    ),
    ("id search", "/library?q=012345", {"q": "012345"}, "date", True, 1),
]


def timed(fn, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out), max(out)


def bench_library(n_games, reps):
    import httpx

    tmp = tempfile.mkdtemp(prefix="bawo-bench-serve-")
    db_path = os.path.join(tmp, "games.sqlite")
    t = time.perf_counter()
    fill_log(db_path, n_games)
    print(
        "log of %d games made in %.1f s (%.0f MB)"
        % (n_games, time.perf_counter() - t, os.path.getsize(db_path) / 1e6)
    )
    t = time.perf_counter()
    srv = Server(db_path, follow_board=False)  # adds the library's indexes on its first start
    print(
        "first start of the server on that log (indexes made): %.1f s" % (time.perf_counter() - t)
    )
    last = (n_games + L.PAGE - 1) // L.PAGE
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    cl = httpx.Client(base_url=srv.url.rstrip("/"), timeout=60)
    rows = []
    try:
        for name, path, f, sort, desc, page in PAGES:
            if path is None:
                path, page = "/library?page=%d" % last, last
            r = cl.get(path)
            assert r.status_code == 200 and "<table" in r.text, path
            w, args = L.where(f)
            order = "%s %s" % (L.SORTS[sort], "DESC" if desc else "ASC")
            src = "games INDEXED BY serve_by_board" if f.get("opponent") else "games"
            peer_sql = "SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT 50 OFFSET %d" % (
                L.COLUMNS,
                src,
                w,
                order,
                (page - 1) * 50,
            )
            page_ms, page_max = timed(lambda: cl.get(path), reps)
            peer_ms, _ = timed(lambda: db.execute(peer_sql, args).fetchall(), reps)
            rows.append((name, page_ms, page_max, peer_ms))
    finally:
        cl.close()
        srv.stop()
    print(
        "\n| library page (%d games) | server time, median (max of %d) | bare SQLite query of the same rows | ratio |"
        % (n_games, reps)
    )
    print("|---|---:|---:|---:|")
    for name, ms, mx, peer in rows:
        print(
            "| %s | %.1f ms (%.1f) | %.1f ms | %.1fx |"
            % (name, ms, mx, peer, ms / peer if peer else 0)
        )
    return rows


def bench_live(plies):
    from bawo import sim

    tmp = tempfile.mkdtemp(prefix="bawo-bench-live-")
    data = os.path.join(tmp, "sim")
    os.makedirs(data)
    board = SimBoard(data, "bawo", speed=8)
    srv = Server(os.path.join(tmp, "g.sqlite"), sim=data)
    drv = browser()
    press_page, event_page, press_event = [], [], []
    try:
        drv.get(srv.url)
        wait_for(lambda: drv.execute_script("return window.bawo && window.bawo.connected"), 30)
        b = board.board
        b.menu()
        st = b.idle()
        seed = 0
        moves = []
        while len(moves) < plies and seed < 200:  # a seeded game long enough to measure
            seed += 1
            moves = sim.random_moves("bawo", st["pos"], seed, plies)
        for k, mv in enumerate(moves, 1):
            t0 = press_move(b, st["pos"], mv) * 1000
            wait_for(
                lambda: drv.execute_script("return window.bawo.updates.slice(-1)[0].ply") == k, 30
            )
            u = drv.execute_script("return window.bawo.updates.slice(-1)[0]")
            press_page.append(u["t_page"] - t0)
            event_page.append(u["t_page"] - u["t_recv"])
            press_event.append(u["t_recv"] - t0)
            st = b.idle()
            if st.get("result"):
                break
            time.sleep(0.3)  # a person's pace: the page's sowing animation runs meanwhile
    finally:
        quit_browser(drv)
        srv.stop()
        board.kill()

    def q(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    print("\n| live board -> page, %d plies | median | 95th percentile | max |" % len(press_page))
    print("|---|---:|---:|---:|")
    print(
        "| board event at the host -> page shows it | %.1f ms | %.1f ms | %.1f ms |"
        % (q(event_page, 0.5), q(event_page, 0.95), max(event_page))
    )
    print(
        "| press -> page shows it | %.1f ms | %.1f ms | %.1f ms |"
        % (q(press_page, 0.5), q(press_page, 0.95), max(press_page))
    )
    print(
        "| peer: press -> board event at the host | %.1f ms | %.1f ms | %.1f ms |"
        % (q(press_event, 0.5), q(press_event, 0.95), max(press_event))
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--skip-live", action="store_true")
    a = ap.parse_args()
    bench_library(a.games, a.reps)
    if not a.skip_live:
        bench_live(a.plies)


if __name__ == "__main__":
    main()
