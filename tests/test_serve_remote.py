"""The live page's "Remote game" panel of `bawo serve` (serve/page_remote.py) against a real
club on loopback (tests/_club_helpers.live_server): what it shows of a club remote game (the
opponent, whose turn, their PC, a draw offer, the clock), its buttons (Resign, Offer draw,
Accept draw) reaching the club with the board's token, and its refusals in words: no club
joined, a game that is not the board's, the club away, a page without the token, a bad body.
The remote-games.json the bridge keeps is read as hostile input. Chromium clicks Resign and the
club has the game over. The open seeks' panel lists each with its `bawo club play` command."""

import json
import os

import httpx
import pytest

from _club_helpers import live_server, token_for
from _serve_helpers import Server, browser, quit_browser, screenshot, wait_for

from bawo.club import remote_client as api
from bawo.club.client import config_path, join, load_config
from bawo.serve import page_remote as R

A, B = "pico-aa01", "pico-bb02"  # this PC's board, and the friend's far away
RECORD = A + "-0007"  # board A's id of its game


class Club:
    """A club on loopback with boards A and B, this PC (XDG_DATA_HOME in tmp) joined with A."""

    def __init__(self, url, store):
        self.url, self.store = url, store
        self.tok = {A: token_for(store, A), B: token_for(store, B)}
        join(url, self.tok[A])
        self.cfg_url = load_config()["url"]

    def game(self, clock=None, record=RECORD):
        """A game in play, A South; remote-games.json names board A's record of it."""
        g = api.seek(self.url, self.tok[A], "bawo", "south", B, clock)["game"]
        api.accept(self.url, self.tok[B], g)
        self.remember({"%s#%d@%s" % (self.cfg_url, g, A): record})
        return g

    def remember(self, known):
        with open(R.games_file(), "w", encoding="utf-8") as f:
            json.dump(known, f)

    def state(self, g, who=B):
        return api.state(self.url, self.tok[who], g)


@pytest.fixture
def club(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the PC's bawo data dir
    db = str(tmp_path / "club.sqlite")
    with live_server(db) as (url, store):
        c = Club(url, store)
        c.db = db
        yield c


@pytest.fixture
def srv(tmp_path):
    s = Server(str(tmp_path / "pc.sqlite"), follow_board=False)
    yield s
    s.stop()


def _headers(srv, token=True):
    h = {"Host": "127.0.0.1:%d" % srv.cfg.port}
    if token:
        h["X-Bawo-Token"] = srv.cfg.token
    return h


def panel(srv):
    r = httpx.get(srv.url + "api/remote", headers=_headers(srv), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def offer(srv, body, token=True):
    return httpx.post(
        srv.url + "api/remote/offer", json=body, headers=_headers(srv, token), timeout=30
    )


def test_the_panel_shows_the_game_and_its_buttons_reach_the_club(club, srv):
    g = club.game(clock={"base": 600, "inc": 5})
    club.state(g)  # B's PC polls: it is here
    p = panel(srv)["remote"]
    assert (p["game"], p["side"], p["opponent"], p["state"]) == (g, "south", B, "playing"), p
    assert p["turn"] == "your move" and p["peer"] is True and p["offer"] is None, p
    assert p["clock"]["you_ms"] > 590000 and p["clock"]["running"] == "you", p
    assert p["actions"] == ["resign", "draw"] and p["record"] == RECORD, p
    # Our draw offer: pending at the club, no second one offered.
    r = offer(srv, {"what": "draw", "game": g})
    assert r.status_code == 200, r.text
    assert r.json()["remote"]["offer"] == "you" and r.json()["remote"]["actions"] == ["resign"]
    assert club.state(g)["offer"] == "south"
    # B's offer while ours is pending ends it drawn; the page shows it over.
    api.offer(club.url, club.tok[B], g, "draw")
    p = panel(srv)["remote"]
    assert p["state"] == "over" and p["result"] == "draw (draw agreed)" and p["actions"] == [], p
    # Over: a click is refused by the club, in words.
    r = offer(srv, {"what": "resign", "game": g})
    assert r.status_code == 409 and r.json()["error"].startswith("the club refused:"), r.text


def test_accept_draw_when_the_opponent_offers_and_their_pc_away(club, srv):
    g = club.game()
    api.offer(club.url, club.tok[B], g, "draw")
    p = panel(srv)["remote"]
    assert p["offer"] == "opponent" and p["actions"] == ["resign", "accept"], p
    r = offer(srv, {"what": "accept", "game": g})
    assert r.status_code == 200, r.text
    st = club.state(g)
    assert (st["state"], st["result"], st["reason"]) == ("over", "draw", "agreement"), st


def test_refusals_in_words(club, srv, tmp_path):
    g = club.game()
    # No token: the Guard refuses before the club is asked.
    r = offer(srv, {"what": "resign", "game": g}, token=False)
    assert r.status_code == 403 and "token" in r.text
    # Bad bodies: 400 with the field named; the club never hears of them.
    for body in (
        {"what": "surrender", "game": g},
        {"what": "resign"},
        {"what": "resign", "game": True},
        {"what": "resign", "game": 2**31},
        {"what": "resign", "game": g, "extra": 1},
        {"what": "resign", "game": 1.0},
    ):
        r = offer(srv, body)
        assert r.status_code == 400 and r.json()["error"], (body, r.text)
    # A game the page did not show: nothing is sent.
    r = offer(srv, {"what": "resign", "game": g + 1000})
    assert r.status_code == 409 and "reload the page" in r.json()["error"], r.text
    assert club.state(g)["state"] == "playing"
    # The board's followed game is another one: no panel, and no click reaches the club.
    site = srv.app.app.state.site
    site.bridge.info = {"device": A}
    site.hub.last["status"] = {"type": "status", "connected": True}
    site.hub.last["position"] = {"type": "position", "id": A + "-0099"}
    assert panel(srv) == {"remote": None, "why": "the board's game is not a club remote game"}
    assert "not following the board" not in str(panel(srv))
    r = offer(srv, {"what": "resign", "game": g})
    assert r.status_code == 409 and "not a club remote game" in r.json()["error"], r.text
    # ...and when it is the remote game's record, the panel shows it.
    site.hub.last["position"] = {"type": "position", "id": RECORD}
    assert panel(srv)["remote"]["game"] == g and panel(srv)["note"] == ""
    site.hub.last["position"] = {"type": "position", "game": None}  # the board's menu
    assert panel(srv) == {"remote": None, "why": "the board has no game now"}
    site.hub.last["status"] = {"type": "status", "connected": False}
    # No club joined: no panel, a click refused.
    os.rename(config_path(), config_path() + ".away")
    assert panel(srv) == {"remote": None, "why": "this PC joined no club"}
    r = offer(srv, {"what": "resign", "game": g})
    assert r.status_code == 409 and "joined no club" in r.json()["error"], r.text
    os.rename(config_path() + ".away", config_path())
    assert club.state(g)["state"] == "playing"


def test_the_file_is_read_as_hostile_input(club, srv):
    g = club.game()
    u = club.cfg_url
    club.remember(
        {
            "%s#%d@%s" % (u, g + 5, A): "../../etc/passwd-0001",  # a path: not a game id
            "%s#%d@pico-zz99" % (u, g + 6): "pico-zz99-0001",  # a board this PC did not join
            "%s#%d@%s" % (u, g + 7, A): ["pico-aa01-0001"],  # not a string
            "%s#%s@%s" % (u, "1e3", A): "pico-aa01-0002",  # not a whole number
            "%s#%d@%s" % (u, 2**40, A): "pico-aa01-0003",  # out of bounds
            "%s#%d@%s" % (u, 0, A): "pico-aa01-0004",
            "http://elsewhere.example/#%d@%s" % (g + 9, A): "pico-aa01-0005",  # another club
            "%s#%d@%s" % (u, g + 8, B): "pico-aa01-0006",  # the key's board is another
            "%s#%d@%s" % (u, g, A): RECORD,
        }
    )
    games = R.remote_games(u, load_config()["boards"])
    assert [(x.club_game, x.board, x.board_game) for x in games] == [(g, A, RECORD)]
    assert R.remote_games(u, {A: None}) == []  # a club.json without the board's token
    assert panel(srv)["remote"]["game"] == g
    for junk in (
        b"[1, 2]",
        b"\xff\xfe",
        b"{" * 10,
        b" " * (R.MAX_FILE + 1),
        b"[" * 200000,
        b'{"a": 1' + b"0" * 100000 + b"}",
    ):
        with open(R.games_file(), "wb") as f:
            f.write(junk)
        assert panel(srv)["remote"] is None


def test_the_club_away_is_said_in_words(tmp_path, monkeypatch, srv):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db = str(tmp_path / "club.sqlite")
    with live_server(db) as (url, store):
        club = Club(url, store)
        g = club.game()
        port = int(url.rsplit(":", 1)[1].strip("/"))
    # The club is down.
    got = panel(srv)
    assert got["remote"]["game"] == g and "the club cannot be reached" in got["error"], got
    r = offer(srv, {"what": "resign", "game": g})
    assert r.status_code == 502 and "nothing was sent" in r.json()["error"], r.text
    s = httpx.get(srv.url + "api/remote/seeks", headers=_headers(srv), timeout=30).json()
    assert s["seeks"] == [] and "cannot be reached" in s["error"], s
    with live_server(db, port=port) as (url, store):
        assert panel(srv)["remote"]["state"] == "playing"


def test_open_seeks_with_the_command_that_plays_them(club, srv):
    other = api.seek(club.url, club.tok[B], "oware", "any", None, {"move": 30})["game"]
    mine = api.seek(club.url, club.tok[A], "bawo", "south")["game"]
    s = httpx.get(srv.url + "api/remote/seeks", headers=_headers(srv), timeout=30).json()
    got = {x["game"]: x for x in s["seeks"]}
    assert got[other]["command"] == "bawo club play --accept %d" % other, s
    assert (got[other]["by"], got[other]["kind"], got[other]["clock"]) == (
        B,
        "oware",
        "30 s a move",
    )
    assert got[mine]["mine"] is True, s


@pytest.fixture
def drv():
    d = browser()
    yield d
    quit_browser(d)


@pytest.mark.xdist_group("serve_browser")
def test_chromium_resigns_and_the_club_has_the_game_over(club, srv, drv):
    g = club.game(clock={"base": 300, "inc": 3})
    api.post_move(club.url, club.tok[A], g, 1, _first_move())
    api.offer(club.url, club.tok[B], g, "draw")
    club.state(g)
    drv.get(srv.url)

    def shown():
        return drv.execute_script("return window.bawo.remote || null")

    wait_for(lambda: (shown() or {}).get("remote"), 20, "the remote panel")
    wait_for(lambda: drv.find_element("id", "r-accept").is_displayed(), 10, "Accept draw")
    assert drv.find_element("id", "remote").is_displayed()
    text = drv.find_element("id", "remote").text
    for words in (
        "Remote game",
        B,
        "South (board %s)" % A,
        "%s's move" % B,
        "here",
        "your opponent offers a draw",
        "Resign",
        "Accept draw",
    ):
        assert words in text, (words, text)
    assert not drv.find_element("id", "r-draw").is_displayed()
    screenshot(drv, "serve-remote-playing")
    assert not drv.find_element("id", "r-yes").is_displayed()
    assert "not following the board" in drv.find_element("id", "r-note").text
    drv.find_element("id", "r-resign").click()
    wait_for(lambda: drv.find_element("id", "r-yes").is_displayed(), 5, "the confirmation")
    assert club.state(g)["state"] == "playing"  # one click is not a resignation
    drv.find_element("id", "r-yes").click()
    wait_for(
        lambda: drv.execute_script("return window.bawo.offered || null"), 20, "the club's answer"
    )
    st = club.state(g)
    assert (st["state"], st["result"], st["reason"]) == ("over", "N", "resign"), st
    wait_for(
        lambda: "%s wins (you resigned)" % B in drv.find_element("id", "r-result").text,
        10,
        "the result on the page",
    )
    assert not drv.find_element("id", "r-resign").is_displayed()
    assert not drv.find_element("id", "r-confirm").is_displayed()
    screenshot(drv, "serve-remote-resigned")
    # On a phone: the panel as wide as the screen, no sideways scroll.
    drv.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    drv.execute_script("document.getElementById('remote').scrollIntoView()")
    assert drv.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(drv, "serve-remote-phone")


def _first_move():
    from shared_rules import State, game

    return State(game("bawo")).legal_move_strs()[0]


def test_resign_on_the_page_and_the_bridge_ends_the_board(tmp_path, monkeypatch, srv):
    """The whole way: board A (the firmware, simulated, on a pty) in a club game through the
    real bridge (`bawo club play`'s Bridge, in a thread: it holds the board's port and writes
    remote-games.json); the page finds the game from that file, its Resign reaches the club,
    and the bridge, seeing the club's end, ENDs the board."""
    import io
    import threading

    from _host_helpers import relayed_board
    from bawo.club.bridge import Bridge, ClubGame
    from bawo.ports import connect

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with (
        relayed_board(tmp_path) as path,
        live_server(str(tmp_path / "club.sqlite")) as (url, store),
    ):
        ser, link, info = connect(path, None, timeout=3.0)
        board = info["board"]
        ser.close()
        tok, tok_b = token_for(store, board), token_for(store, B)
        join(url, tok)
        cfg_url = load_config()["url"]
        g = api.seek(url, tok, "bawo", "south", B)["game"]
        api.accept(url, tok_b, g)
        said = io.StringIO()
        bridge = Bridge(
            ClubGame(api, cfg_url, tok, g),
            lambda: connect(path, None, timeout=1.0)[1],
            R.games_file(),
            said,
            peer_every=1.0,
            retry_s=0.3,
            poll_wait=3,
        )
        box = {}

        def run():
            try:
                box["end"] = bridge.run(api.state(url, tok, g), timeout=60)
            except Exception as e:  # the assertion below shows it
                box["end"] = e

        t = threading.Thread(target=run, daemon=True)
        t.start()
        p = wait_for(
            lambda: (panel(srv).get("remote") or {}).get("state") == "playing" and panel(srv),
            30,
            "the page to find the bridge's game",
        )["remote"]
        assert p["game"] == g and p["board"] == board and p["record"].startswith(board + "-"), p
        r = offer(srv, {"what": "resign", "game": g})
        assert r.status_code == 200 and r.json()["remote"]["result"] == "%s wins (you resigned)" % B
        t.join(60)
        assert not t.is_alive() and isinstance(box.get("end"), dict), (box, said.getvalue())
        assert (box["end"]["result"], box["end"]["reason"]) == ("N", "resign")
        ser, link, info = connect(path, None, timeout=3.0)
        try:
            pos = link.position()
            assert pos["id"] == p["record"] and pos["result"] == {"result": "N", "reason": "resign"}
        finally:
            ser.close()
        # The bridge has let the port go: a page that follows the board shows the game of
        # the board's own id, ended, and not as "not following the board".
        follows = Server(str(tmp_path / "pc2.sqlite"), board_port=path)
        try:
            got = wait_for(
                lambda: (lambda x: x.get("note") == "" and x)(panel(follows)),
                30,
                "the page to follow the board",
            )
            assert got["remote"]["state"] == "over" and got["remote"]["record"] == p["record"], got
        finally:
            follows.stop()


def test_the_page_says_when_another_program_holds_the_boards_port(tmp_path):
    """`bawo club play` holds the board's port through a game (opened exclusively): the
    page's status says so, not "no board connected", and it follows the board once free."""
    from _host_helpers import relayed_board
    from bawo.ports import connect

    with relayed_board(tmp_path) as path:
        ser, link, info = connect(path, None, timeout=3.0)
        s = Server(str(tmp_path / "pc.sqlite"), board_port=path)
        try:
            hub = s.app.app.state.site.hub

            def status():
                return (hub.last.get("status") or {}).get("text", "")

            wait_for(lambda: "in use by another program" in status(), 20, "the busy port's status")
            assert "bawo club play" in status()
            ser.close()
            wait_for(lambda: (hub.last.get("status") or {}).get("connected"), 20, "the board")
        finally:
            s.stop()
