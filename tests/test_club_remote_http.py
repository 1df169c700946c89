"""Remote games on real club servers (uvicorn on loopback): two posts at one ply at once
(exactly one extends the game), a long poll in one process woken by a move posted to another
(PostgreSQL LISTEN/NOTIFY; one process on SQLite), spectators fed with the game's moves, and
the PC's client (bawo.club.remote_client) with its errors."""

import contextlib
import threading
import time

import pytest

from _club_pg import club_url, server as pg_server  # noqa: F401  (fixture)
from _club_helpers import token_for
from test_club_live import Spectator
from test_club_remote import OWARE

from bawo.club import remote_client as RC

pytestmark = pytest.mark.xdist_group("club_pg")


@contextlib.contextmanager
def served(db, **limits):
    """A real club server in a thread: (url, store, app)."""
    import uvicorn
    from bawo.club.server import make

    app, sock, store, url = make(db, "127.0.0.1", 0, **limits)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    )
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    try:
        while not server.started:
            t.join(0.01)
        yield url, store, app
    finally:
        server.should_exit = True
        t.join(10)
        app.state.club.live.close()
        sock.close()
        store.close()


def _until(fn, what, timeout=10.0):
    """Wait for a condition (an event of the system under test), not for a time."""
    t0 = time.monotonic()
    while not fn():
        assert time.monotonic() - t0 < timeout, "timed out waiting for " + what
        time.sleep(0.005)


def _game(url, ta, tb, **kw):
    gid = RC.seek(url, ta, "oware", "south", **kw)["game"]
    RC.accept(url, tb, gid)
    return gid


def test_two_posts_at_one_ply_at_once_exactly_one_wins(club_url):  # noqa: F811
    with served(club_url) as (url, store, _):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        gid = _game(url, ta, tb)
        # Each ply: the mover's PC posts two different legal moves at once (a stale retry
        # and a new press): one is taken, the other told 409 with the ply the club has.
        alt = {"E": "D", "b": "c", "D": "C", "e": "f", "F": "A", "d": "a"}
        for k, m in enumerate(OWARE[:6], 1):
            tok = ta if k % 2 else tb
            bar = threading.Barrier(2)
            got = {}

            def post(mv):
                bar.wait()
                try:
                    got[mv] = RC.post_move(url, tok, gid, k, mv)
                except RC.PlyConflict as e:
                    got[mv] = e

            threads = [threading.Thread(target=post, args=(mv,)) for mv in (m, alt[m])]
            for t in threads:
                t.start()
            for t in threads:
                t.join(20)
            won = [mv for mv, a in got.items() if a == {"ply": k}]
            lost = [a for a in got.values() if isinstance(a, RC.PlyConflict)]
            assert len(won) == 1 and len(lost) == 1 and lost[0].ply == k, got
            s = RC.state(url, ta, gid)
            assert s["ply"] == k and s["moves"][-1] == won[0]
            if won[0] != m:  # keep to the known game: the winner's move is the one played
                break
        # The same move twice at once: both answered 200, the game one ply longer.
        k = RC.state(url, ta, gid)["ply"] + 1
        tok = ta if k % 2 else tb
        mv = RC.state(url, ta, gid)
        from shared_rules import State, game as make_game

        s = State(make_game("oware"))
        for x in mv["moves"]:
            s.push(x)
        nxt = s.legal_move_strs()[0]
        bar = threading.Barrier(2)
        answers = []

        def same():
            bar.wait()
            answers.append(RC.post_move(url, tok, gid, k, nxt))

        threads = [threading.Thread(target=same) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert answers == [{"ply": k}, {"ply": k}]
        assert RC.state(url, ta, gid)["ply"] == k


def _wake(url_post, url_poll, store, app_poll):
    ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
    gid = _game(url_post, ta, tb)
    RC.state(url_poll, tb, gid)  # told the state: the next poll waits
    got = {}

    def poll(after=0):
        t0 = time.monotonic()
        got["state"] = RC.state(url_poll, tb, gid, after=after, wait=20)
        got["t"] = time.monotonic()
        got["t0"] = t0

    th = threading.Thread(target=poll)
    th.start()

    def waiters():
        return getattr(
            app_poll.state.club, "remote", None
        ) and app_poll.state.club.remote.waiters.by.get(gid)

    _until(waiters, "the poll to wait")
    t_post = time.monotonic()
    assert RC.post_move(url_post, ta, gid, 1, OWARE[0]) == {"ply": 1}
    th.join(25)
    assert got["state"]["ply"] == 1 and got["state"]["moves"] == OWARE[:1]
    assert got["t"] - t_post < 1.5, "the poll was not woken by the move"
    # An offer wakes it too (a change without a ply).
    th = threading.Thread(target=poll, args=(1,))
    th.start()
    _until(waiters, "the poll to wait")
    RC.offer(url_post, ta, gid, "draw")
    th.join(25)
    assert got["state"]["offer"] == "south" and got["t"] - got["t0"] < 5


def test_a_long_poll_in_one_process_wakes_on_a_move_posted_to_another():
    url = pg_server().fresh()
    with served(url) as (a, store_a, _), served(url) as (b, _, app_b):
        _wake(a, b, store_a, app_b)


def test_a_long_poll_wakes_on_a_move_on_sqlite(tmp_path):
    with served(str(tmp_path / "c.sqlite")) as (a, store, app):
        _wake(a, a, store, app)


def test_spectators_see_the_remote_game_like_any_board(tmp_path):
    with served(str(tmp_path / "c.sqlite")) as (url, store, _):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        gid = _game(url, ta, tb)
        spec = Spectator(url)
        try:
            RC.post_move(url, ta, gid, 1, OWARE[0])
            RC.post_move(url, tb, gid, 2, OWARE[1])
            t, msg = spec.until(2)
            assert (msg["board"], msg["game"], msg["last"], msg["south"], msg["north"]) == (
                "remote-%d" % gid,
                "oware",
                OWARE[1],
                "pico-a",
                "pico-b",
            )
            assert msg["frame"] and msg["w"] and not msg["done"]
            RC.offer(url, tb, gid, "resign")
            while True:
                t, msg = spec.next()
                if msg.get("done"):
                    break
            assert (msg["result"], msg["reason"]) == ("S", "resign")
        finally:
            spec.close()
        late = Spectator(url)
        try:
            msg = late.next()[1]
            assert (msg["board"], msg["ply"], msg["done"], msg["result"], msg["reason"]) == (
                "remote-%d" % gid,
                2,
                True,
                "S",
                "resign",
            )
        finally:
            late.close()


def test_the_pcs_client_and_its_errors(tmp_path):
    with served(str(tmp_path / "c.sqlite")) as (url, store, app):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        gid = RC.seek(url, ta, "oware", "south", opponent="pico-b", clock={"base": 600, "inc": 5})[
            "game"
        ]
        assert RC.open_seeks(url, tb)["seeks"][0]["clock"] == {"base": 600, "inc": 5}
        # The seeker's poll of its open seek waits for the accept.
        assert RC.state(url, ta, gid, after=0)["state"] == "open"
        got = []
        th = threading.Thread(target=lambda: got.append(RC.state(url, ta, gid, after=0, wait=20)))
        th.start()
        _until(lambda: app.state.club.remote.waiters.by.get(gid), "the seeker's poll to wait")
        s = RC.accept(url, tb, gid)
        th.join(25)
        assert (got[0]["state"], got[0]["side"], got[0]["north"]) == ("playing", "south", "pico-b")
        assert (s["side"], s["clock"]["south_ms"], s["peer"]) == ("north", 600000, True)
        assert RC.post_move(url, ta, gid, 1, OWARE[0]) == {"ply": 1}
        assert RC.post_move(url, ta, gid, 1, OWARE[0]) == {"ply": 1}
        with pytest.raises(RC.PlyConflict) as e:
            RC.post_move(url, tb, gid, 5, OWARE[1])
        assert (e.value.status, e.value.ply) == (409, 1)
        with pytest.raises(RC.Refused) as e:
            RC.post_move(url, ta, gid, 2, OWARE[1])
        assert e.value.status == 422 and "turn" in e.value.message
        with pytest.raises(RC.RemoteError) as e:
            RC.seek(url, ta, "chess")
        assert e.value.status == 400 and not isinstance(e.value, RC.ClubUnreachable)
        with pytest.raises(RC.RemoteError) as e:
            RC.state(url, "bawo_not_a_token", gid)
        assert e.value.status == 401
        assert RC.bind(url, ta, gid, "pico-a-0001")["record"] == "pico-a-0001"
        assert RC.offer(url, tb, gid, "draw")["offer"] == "north"
        s = RC.state(url, ta, gid, after=1, wait=0)
        assert (s["offer"], s["ply"], s["turn"]) == ("north", 1, "north")
        # A club that does not answer: ClubUnreachable, so the bridge tries again.
        import socket

        sk = socket.socket()
        sk.bind(("127.0.0.1", 0))
        dead = "http://127.0.0.1:%d/" % sk.getsockname()[1]
        sk.close()
        with pytest.raises(RC.ClubUnreachable) as e:
            RC.post_move(dead, ta, gid, 2, OWARE[1])
        assert e.value.status is None


def test_a_waiting_poll_answers_when_the_peer_leaves_or_a_flag_falls(tmp_path, monkeypatch):
    # Nothing is posted: the poll's own look at the store (every POLL_S) finds the change.
    from test_club_remote import Clock
    from bawo.club import remote_api

    monkeypatch.setattr(remote_api, "POLL_S", 0.2)
    clock = Clock()
    with served(str(tmp_path / "c.sqlite"), clock=clock) as (url, store, app):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        gid = _game(url, ta, tb, clock={"base": 60, "inc": 0})
        RC.state(url, ta, gid)
        s = RC.state(url, tb, gid)
        assert s["peer"] is True and s["turn"] == "south"
        waiting = lambda: app.state.club.remote.waiters.by.get(gid)  # noqa: E731
        got = []
        th = threading.Thread(target=lambda: got.append(RC.state(url, tb, gid, after=0, wait=20)))
        th.start()
        _until(waiting, "pico-b's poll to wait")
        clock.add(10.5)  # pico-a's PC is silent past 10 s: pico-b's poll hears of it
        th.join(25)
        assert got[0]["peer"] is False and got[0]["state"] == "playing"
        th = threading.Thread(target=lambda: got.append(RC.state(url, tb, gid, after=0, wait=20)))
        th.start()
        _until(waiting, "pico-b's poll to wait again")
        clock.add(50)  # South's 60 s are used up: the flag falls during the wait
        th.join(25)
        assert (got[1]["state"], got[1]["result"], got[1]["reason"]) == ("over", "N", "time")
        assert got[1]["clock"]["south_ms"] == 0
        # A board that does not play may look (read only, its PC not counted as here).
        tc = token_for(store, "pico-c")
        s = RC.state(url, tc, gid)
        assert (s["side"], s["peer"], s["result"]) == (None, False, "N")
        assert store.one("SELECT COUNT(*) AS n FROM remote_seen WHERE board='pico-c'")["n"] == 0


def test_the_live_page_shows_a_remote_game_in_chromium(tmp_path):
    from _serve_helpers import browser, quit_browser, wait_for

    with served(str(tmp_path / "c.sqlite")) as (url, store, _):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        store.seat("pico-b", "Ada", "<i>Bo</i>", since="2000-01-01T00:00:00Z")
        gid = _game(url, ta, tb)
        RC.post_move(url, ta, gid, 1, OWARE[0])
        drv = browser()
        try:
            drv.get(url + "remote")
            link = drv.find_element("css selector", "#remote-games a")
            assert link.get_attribute("href").endswith("/live?board=remote-%d" % gid)
            link.click()
            items = lambda: [li.text for li in drv.find_elements("css selector", ".moves li")]  # noqa: E731
            wait_for(lambda: items() == OWARE[:1], what="the first move")
            RC.post_move(url, tb, gid, 2, OWARE[1])
            wait_for(lambda: items() == OWARE[:2], what="the second move, live")
            card = drv.find_element("css selector", '.card[data-board="remote-%d"]' % gid)
            assert "pico-a – <i>Bo</i>" in card.text
            RC.offer(url, ta, gid, "resign")
            wait_for(lambda: "over, N (resign)" in card.text, what="the end")
        finally:
            quit_browser(drv)


def test_sql_in_every_text_field_is_only_text(club_url):  # noqa: F811
    with served(club_url) as (url, store, _):
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        evil = "x'); DROP TABLE records; --"
        with pytest.raises(RC.RemoteError) as e:
            RC.seek(url, ta, "oware", opponent=evil)
        assert e.value.status == 400
        with pytest.raises(RC.RemoteError) as e:
            RC.seek(url, ta, evil)
        assert e.value.status == 400
        gid = _game(url, ta, tb)
        assert RC.bind(url, ta, gid, evil)["record"] == evil
        with pytest.raises(RC.Refused):
            RC.post_move(url, ta, gid, 1, "E');--")
        assert store.one("SELECT rid FROM remote_binds")["rid"] == evil
        assert store.records() == [] and RC.state(url, ta, gid)["ply"] == 0


def test_two_club_processes_a_poll_in_one_is_woken_by_a_move_posted_to_the_other(monkeypatch):
    # Real `bawo club serve` processes on one PostgreSQL. Their own look at the store is set
    # to every 60 s: only the NOTIFY can wake the poll within the test's bound.
    from test_club_processes import Club, _port
    from bawo.club.store import open_store

    monkeypatch.setenv("BAWO_CLUB_POLL_S", "60")
    db = pg_server().fresh()
    store = open_store(db)
    one = two = None
    try:
        ta, tb = token_for(store, "pico-a"), token_for(store, "pico-b")
        one, two = Club(db, _port()), Club(db, _port())
        gid = _game(one.url, ta, tb)
        RC.state(two.url, tb, gid)  # told: its next poll waits

        def seen():
            return store.one(
                "SELECT seen FROM remote_seen WHERE game=? AND board='pico-b'", (gid,)
            )["seen"]

        before = seen()
        got = {}

        def poll():
            got["state"] = RC.state(two.url, tb, gid, after=0, wait=20)
            got["t"] = time.monotonic()

        th = threading.Thread(target=poll)
        th.start()
        _until(lambda: seen() > before, "process two's poll to look once")
        t_post = time.monotonic()
        assert RC.post_move(one.url, ta, gid, 1, OWARE[0]) == {"ply": 1}
        th.join(25)
        assert got["state"]["moves"] == OWARE[:1]
        assert got["t"] - t_post < 5, "the poll was not woken by the move"
    finally:
        for c in (one, two):
            if c is not None:
                c.stop()
        store.close()
