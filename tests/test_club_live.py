"""Every board live: a PC's moves, replayed by the club, reach spectators (SSE) of every club
process, two processes on one PostgreSQL through LISTEN/NOTIFY; a PC that lost its place is
told the club's ply and resumes there."""

import json
import queue
import socket
import threading
import time
import urllib.parse
import urllib.error
import urllib.request

import pytest

from _club_pg import server as pg_server
from _club_helpers import bearer, live_server, token_for

from shared_rules import State, game as make_game

pytestmark = pytest.mark.xdist_group("club_pg")


def _moves(n, game="oware"):
    s = State(make_game(game))
    for _ in range(n):
        s.push(s.legal_moves[0])
    return list(s.iter_moves())


def _post(url, tok, body):
    req = urllib.request.Request(
        url + "api/live",
        data=json.dumps(body).encode(),
        headers=dict(bearer(tok), **{"Content-Type": "application/json"}),
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Spectator:
    """An SSE client on a plain socket, read by a thread: every event's JSON, in a queue."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=10)
        self.sock.sendall(
            b"GET /live/events HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (u.hostname.encode(), u.port)
        )
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        try:
            while True:
                got = self.sock.recv(65536)
                if not got:
                    return
                buf += got
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.startswith(b"data:"):
                        self.q.put((time.monotonic(), json.loads(line[5:])))
        except (OSError, ValueError):
            pass

    def next(self, timeout=5.0):
        return self.q.get(timeout=timeout)

    def until(self, ply, timeout=5.0):
        """(arrival, message) of the first event at `ply`: a spectator may be told a board's
        state more than once (a new process's snapshot), never a ply out of order."""
        while True:
            t, msg = self.next(timeout)
            assert msg["ply"] <= ply, msg
            if msg["ply"] == ply:
                return t, msg

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _follow(url_a, url_b, store_a):
    tok = token_for(store_a, "pico-ff06")
    store_a.seat("pico-ff06", "Ada", "Bo", since="2000-01-01T00:00:00Z")
    moves = _moves(6)
    spec = Spectator(url_b)
    try:
        # The first ply, then the next: each reaches the other process's spectator.
        for k in range(2):
            t0 = time.monotonic()
            st, ans = _post(
                url_a,
                tok,
                {"id": "pico-ff06-0001", "game": "oware", "from": k, "moves": moves[k : k + 1]},
            )
            assert (st, ans) == (200, {"ply": k + 1})
            t, msg = spec.until(k + 1)
            assert (msg["board"], msg["ply"], msg["last"], msg["south"]) == (
                "pico-ff06",
                k + 1,
                moves[k],
                "Ada",
            )
            assert t - t0 < 1.0 and len(msg["frame"]) == msg["w"] * msg["h"] * 6
        # A PC that lost its place (it sends from ply 5): told the club has 2, it resumes there.
        st, ans = _post(
            url_a, tok, {"id": "pico-ff06-0001", "game": "oware", "from": 5, "moves": moves[5:6]}
        )
        assert (st, ans["ply"]) == (409, 2)
        st, ans = _post(
            url_b, tok, {"id": "pico-ff06-0001", "game": "oware", "from": 2, "moves": moves[2:6]}
        )
        assert (st, ans) == (200, {"ply": 6})
        assert spec.until(6)[1]["moves"] == moves
        # A move that does not replay is refused, and the club keeps what it had.
        st, ans = _post(
            url_a, tok, {"id": "pico-ff06-0001", "game": "oware", "from": 6, "moves": ["Z9"]}
        )
        assert st == 422 and "do not replay" in ans["error"]
        assert store_a.live_boards(since="2000")[0]["ply"] == 6
        # A new spectator starts from the club's picture of every board.
        late = Spectator(url_a)
        try:
            assert late.next()[1]["ply"] == 6
        finally:
            late.close()
    finally:
        spec.close()


def test_two_processes_on_one_postgresql_share_live_events():
    url = pg_server().fresh()
    with live_server(url) as (a, store_a), live_server(url) as (b, _):
        _follow(a, b, store_a)


def test_one_process_on_sqlite(tmp_path):
    with live_server(str(tmp_path / "c.sqlite")) as (a, store_a):
        _follow(a, a, store_a)


def test_a_flood_of_spectators_is_bounded(tmp_path):
    with live_server(str(tmp_path / "c.sqlite"), spectators=2) as (a, _):
        s1, s2 = Spectator(a), Spectator(a)
        try:
            time.sleep(0.2)
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(a + "live/events", timeout=5)
            assert e.value.code == 503
        finally:
            s1.close()
            s2.close()


def test_club_page_shows_every_board_live_in_chromium(tmp_path):
    from _serve_helpers import browser, quit_browser, wait_for

    with live_server(str(tmp_path / "c.sqlite")) as (a, store):
        toks = {b: token_for(store, b) for b in ("pico-0001", "pico-0002")}
        store.seat("pico-0001", "<b>Ada</b>", "Bo", since="2000-01-01T00:00:00Z")
        moves = _moves(4)
        for b, tok in toks.items():
            assert (
                _post(a, tok, {"id": b + "-1", "game": "oware", "from": 0, "moves": moves[:2]})[0]
                == 200
            )
        drv = browser()
        try:
            drv.get(a + "live")

            def cards():
                return {
                    c.get_attribute("data-board"): c.get_attribute("data-ply")
                    for c in drv.find_elements("css selector", ".card")
                }

            wait_for(lambda: cards() == {"pico-0001": "2", "pico-0002": "2"}, what="both boards")
            # A move now appears on the open page; names are text, not markup.
            assert (
                _post(
                    a,
                    toks["pico-0001"],
                    {"id": "pico-0001-1", "game": "oware", "from": 2, "moves": moves[2:3]},
                )[0]
                == 200
            )
            wait_for(lambda: cards()["pico-0001"] == "3", what="the third ply")
            card = drv.find_element("css selector", '.card[data-board="pico-0001"]')
            assert "<b>Ada</b> – Bo" in card.text and ": " + moves[2] in card.text
            lit = drv.execute_script(
                "const c = arguments[0].querySelector('canvas'); const d = c.getContext('2d')"
                ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
                "for (let i = 0; i < d.length; i += 4) if (d[i] || d[i+1] || d[i+2]) n++; return n;",
                card,
            )
            assert lit > 0
            # One board followed full size, with its move list.
            drv.get(a + "live?board=pico-0001")
            wait_for(
                lambda: len(drv.find_elements("css selector", ".moves li")) == 3, what="move list"
            )
            assert [li.text for li in drv.find_elements("css selector", ".moves li")] == moves[:3]
            # A tournament's wall: only its round's boards, named by table; then its crosstable.
            from bawo.club import tournaments as T

            tid = T.create(store, "Final", "oware", "roundrobin")
            for p in ("Ada", "Bo"):
                T.register(store, tid, p)
            T.next_round(store, tid)
            drv.get(a + "tournament/wall?id=%d" % tid)
            wait_for(lambda: cards() == {"pico-0001": "3"}, what="the round's one board")
            assert "table 1: pico-0001" in drv.find_element("css selector", ".card").text
            (game,) = T.pairings(store, tid)
            T.set_result(store, game["id"], "N")
            drv.get(a + "tournament/crosstable?id=%d" % tid)
            rows = [r.text for r in drv.find_elements("css selector", "#crosstable tr")][1:]
            assert rows == [
                "1 %s 2N+ 1.0 0.0 0.0 0.0" % game["north"],
                "2 %s 1S- 0.0 1.0 0.0 0.0" % game["south"],
            ], rows
        finally:
            quit_browser(drv)
