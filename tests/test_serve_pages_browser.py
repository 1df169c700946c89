"""`bawo serve` in headless Chromium, each test with its own log, server, simulated board and
browser: the live page keeps a finished game (final position, winner, reason, replay and
Analyse links) after its end and after a reload; every page fits a phone (390x844 and 360 px)
without a sideways scroll, opens at its top, and has one line of navigation; the Play page
opens on the last game played, shows a picked pocket's targets, says why a press starts no
move, and links the finished game's replay."""

import os

import httpx
import pytest

from _host_helpers import random_record
from _serve_helpers import (
    Server,
    SimBoard,
    browser,
    quit_browser,
    screenshot,
    wait_for,
    press_move,
    fill_log,
)
from bawo import sim
from bawo.db import Log
from bawo.serve import boardview as B

pytestmark = pytest.mark.xdist_group("serve_browser")

PHONES = [(390, 844), (360, 740)]


def js(drv, expr):
    return drv.execute_script("return " + expr)


def phone(drv, w, h):
    """The page laid out as on a phone of w x h CSS pixels (Chromium's device emulation)."""
    drv.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": True},
    )


@pytest.fixture
def drv():
    d = browser()
    yield d
    quit_browser(d)


@pytest.fixture
def live(tmp_path):
    made = []

    def start(speed=5, games=0):
        db = str(tmp_path / "games.sqlite")
        if games:
            fill_log(db, games)
        else:
            Log(db).close()
        data = str(tmp_path / "sim")
        os.makedirs(data)
        board = SimBoard(data, "bawo", speed=speed)
        srv = Server(db, sim=data)
        made.append((board, srv))
        return {"db": db, "board": board, "srv": srv}

    yield start
    for board, srv in made:
        srv.stop()
        board.kill()


def _fits(drv, what):
    w = js(drv, "window.innerWidth")
    sw = js(drv, "document.documentElement.scrollWidth")
    assert sw <= w, "%s: the page is %d px wide on a %d px screen" % (what, sw, w)


def _nav_one_line(drv, what):
    tops = js(
        drv,
        "Array.from(document.querySelectorAll('header nav a')).map(a => a.getBoundingClientRect().top)",
    )
    assert len(tops) == 5 and max(tops) - min(tops) < 2, "%s: the navigation wraps: %s" % (
        what,
        tops,
    )
    h = js(drv, "document.querySelector('header').getBoundingClientRect().height")
    assert h <= 90, "%s: the header is %d px tall" % (what, h)


def _finished(drv):
    return js(
        drv,
        """(() => { const l = document.getElementById('gamelinks');
        return [document.getElementById('turnline').textContent, document.getElementById('result').textContent,
                document.getElementById('gametitle').textContent, l.hidden,
                document.getElementById('replaylink').getAttribute('href'),
                document.getElementById('analyselink').getAttribute('href'),
                document.getElementById('ply').textContent, window.scrollY]; })()""",
    )


def test_live_page_keeps_the_finished_game_after_its_end_and_a_reload(live, drv):
    env = live(speed=5)  # the board's default animation speed
    srv, b = env["srv"], env["board"].board
    phone(drv, 390, 844)
    drv.get(srv.url)
    wait_for(
        lambda: js(drv, "window.bawo && window.bawo.connected"),
        timeout=30,
        what="the page to see the board",
    )
    b.menu()
    st = b.idle()
    gid = st["id"]
    moves = sim.random_moves("bawo", st["pos"], 27, 400)  # 9 plies to its end
    for k, mv in enumerate(moves, 1):
        if k % 2:  # typed into the page's move box ...
            box = drv.find_element("id", "move")
            box.send_keys(mv)
            drv.find_element("css selector", "#moveform button").click()
        else:  # ... or pressed on the board
            press_move(b, st["pos"], mv)
        wait_for(
            lambda: js(drv, "window.bawo.updates.slice(-1)[0].ply") == k,
            what="ply %d on the page" % k,
        )
        st = b.idle()
    assert st["mode"] == "over" and st["ply"] == len(moves)
    want = "%s wins (%s)" % ({"S": "South", "N": "North"}[st["result"]], st["reason"])
    wait_for(
        lambda: js(drv, "window.bawo.updates.slice(-1)[0].replay"),
        what="the game's end on the page",
    )

    def check(when):
        turn, result, title, hidden, replay, analyse, ply, _ = _finished(drv)
        assert turn == "Game over: " + want and result == want, (when, turn, result)
        assert gid in title and ply == str(len(moves)), (when, title, ply)
        assert not hidden and replay == "/game/" + gid and analyse == "/game/%s#analyse" % gid, when
        assert js(drv, "window.bawo.shown.position") == st["pos"], when

    check("after the end")
    screenshot(drv, "live-phone-over")
    drv.refresh()
    wait_for(
        lambda: js(drv, "window.bawo.updates.length && window.bawo.updates.slice(-1)[0].over"),
        what="the finished game after a reload",
    )
    check("after a reload")
    assert js(drv, "window.scrollY") == 0
    _fits(drv, "the live page")
    screenshot(drv, "live-phone-reload")
    drv.find_element("id", "analyselink").click()
    wait_for(lambda: js(drv, "window.bawo && window.bawo.ready"), what="the game's page")
    assert js(drv, "location.pathname") == "/game/" + gid
    wait_for(
        lambda: js(drv, "document.getElementById('anastate').textContent"),
        what="the analysis to start",
    )
    assert js(drv, "document.getElementById('plyinfo').textContent") == "ply 0 / %d" % len(moves)


def test_every_page_fits_a_phone_and_opens_at_its_top(live, drv):
    env = live(speed=8, games=300)
    srv, b = env["srv"], env["board"].board
    b.menu()
    st = b.idle()
    for mv in sim.random_moves("bawo", st["pos"], 5, 6):  # a game in progress: its move list
        press_move(b, st["pos"], mv)
        st = b.idle()
    gid = "club-000001"
    for w, h in PHONES:
        phone(drv, w, h)
        for path in ("", "play", "library", "stats", "board", "game/" + gid):
            drv.get(srv.url + path)
            if path == "":
                wait_for(
                    lambda: (
                        js(
                            drv,
                            "window.bawo.updates.length && window.bawo.updates.slice(-1)[0].ply",
                        )
                        == 6
                    ),
                    what="the game on the live page",
                )
            elif path.startswith("game/"):
                wait_for(lambda: js(drv, "window.bawo.ready"), what="the replay")
            what = "/%s at %dx%d" % (path, w, h)
            assert js(drv, "window.scrollY") == 0, what
            _fits(drv, what)
            _nav_one_line(drv, what)
            if path == "stats":
                # Every chart inside the screen, not clipped at its edge.
                right = js(
                    drv,
                    "Math.max(...Array.from(document.querySelectorAll('svg.chart')).map("
                    "s => s.getBoundingClientRect().right))",
                )
                assert right <= w, (what, right)
            if w == 390:
                screenshot(drv, "phone-" + (path.split("/")[0] or "live"))


def _pockets(game):
    return {p["key"]: p for p in B.layout(game)["pockets"] if p["cell"] is not None}


def test_play_page_opens_on_the_last_game_shows_targets_says_why_and_links_the_replay(
    tmp_path, drv
):
    db = str(tmp_path / "games.sqlite")
    Log(db).close()
    srv = Server(db, follow_board=False)
    try:
        drv.get(srv.url + "play")
        assert (
            js(drv, "document.querySelector('select[name=game]').value") == "bawo"
        )  # an empty log
        with Log(db) as log:
            log.add(random_record(3, "old-0001", "bagh-chal"), "import")
            rec = random_record(4, "new-0001", "oware")
            rec.header["Start"] = "2026-01-02T10:00:00"
            log.add(rec, "import")
        drv.refresh()
        assert (
            js(drv, "document.querySelector('select[name=game]').value") == "oware"
        )  # the last played
        from selenium.webdriver.support.ui import Select

        Select(drv.find_element("name", "game")).select_by_value("bawo")
        Select(drv.find_element("name", "level")).select_by_value("1")
        drv.find_element("css selector", "#newgame button").click()
        wait_for(
            lambda: js(drv, "window.bawo.play && window.bawo.play.ply === 0"), what="a new game"
        )
        r = js(drv, "window.bawo.play")
        presses = {m: p for m, p in r["presses"].items()}
        first = sorted(p[0] for p in presses.values() if len(p) == 2)[0]
        want = sorted({p[1] for p in presses.values() if len(p) == 2 and p[0] == first})
        drv.find_element("css selector", "#board g.pocket[data-key='%d'] rect.hit" % first).click()
        assert js(drv, "window.bawo.targets") == want
        assert (
            js(
                drv,
                "Array.from(document.querySelectorAll('#board rect.hit.target')).map("
                "r => +r.parentNode.dataset.key).sort((a, b) => a - b)",
            )
            == want
        )
        assert js(
            drv,
            "document.querySelector(\"#board g.pocket[data-key='%d'] rect.hit\").classList"
            ".contains('picked')" % first,
        )
        # North's pocket, pressed by South: refused, and the page says why.
        pk = _pockets("bawo")
        north = next(k for k, p in sorted(pk.items()) if p["cell"] >> 4 == 1)
        drv.find_element("css selector", "#board g.pocket[data-key='%d'] rect.hit" % north).click()
        err = js(drv, "document.getElementById('moveerr').textContent")
        assert err == "%s is North's pocket; you play South's rows" % pk[north]["label"], err
        assert js(drv, "window.bawo.targets") == [] and js(drv, "window.bawo.play.ply") == 0
        # The game played out (the page's own requests, without the animations), then the
        # page opened again: the result and the link to the game's replay.
        h = {"Host": "127.0.0.1:%d" % srv.cfg.port, "X-Bawo-Token": srv.cfg.token}
        while not r.get("result"):
            r = httpx.post(
                srv.url + "api/play/move",
                json={"move": sorted(r["presses"])[0]},
                headers=h,
                timeout=60,
            ).json()
            assert "error" not in r, r
        drv.refresh()
        wait_for(
            lambda: js(drv, "window.bawo.play && window.bawo.play.result"), what="the finished game"
        )
        assert js(drv, "document.getElementById('result').textContent") == r["result"]
        assert js(drv, "document.getElementById('gamelinks').hidden") is False
        link = js(drv, "document.getElementById('replaylink').getAttribute('href')")
        assert link == "/game/" + r["id"]
        drv.find_element("id", "replaylink").click()
        wait_for(lambda: js(drv, "window.bawo && window.bawo.ready"), what="the replay")
        assert js(drv, "document.getElementById('plyinfo').textContent") == "ply 0 / %d" % r["ply"]
    finally:
        srv.stop()
