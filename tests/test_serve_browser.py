"""`bawo serve` in a real browser (Debian's headless Chromium, driven by selenium): the live page
follows a whole game on the simulated board ply by ply and reconnects when the board is
unplugged; the library filters and pages 10,000 games; the replay steps back and forth; an
export downloads a file `bawo verify` accepts; the board page syncs. Screenshots go to
test-artifacts/. One browser and one server for the module."""

import json
import os
import sqlite3
import subprocess

import pytest

from shared_rules import game as make_game, State

from _host_helpers import bawo_cmd
from _serve_helpers import (
    fill_log,
    Server,
    SimBoard,
    browser,
    quit_browser,
    screenshot,
    wait_for,
    press_move,
)
from bawo.serve import boardview as B
from bawo import sim

N_GAMES = 10000

# One browser, one server and one simulated board for the module: under pytest -n its tests
# run on one worker (pyproject's --dist loadgroup), so those are started once.
pytestmark = pytest.mark.xdist_group("serve_browser")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    db = str(tmp / "games.sqlite")
    fill_log(db, N_GAMES)
    data = str(tmp / "sim")
    os.makedirs(data)
    board = SimBoard(data, "bawo", speed=8)
    srv = Server(db, sim=data)
    downloads = str(tmp / "downloads")
    os.makedirs(downloads)
    drv = browser(downloads)
    e = {"db": db, "data": data, "board": board, "srv": srv, "drv": drv, "downloads": downloads}
    yield e
    quit_browser(drv)
    srv.stop()
    e["board"].kill()


def js(drv, expr):
    return drv.execute_script("return " + expr)


def shown_counts(drv):
    """The counts the page's SVG shows, by pocket label (what a player reads)."""
    return js(
        drv,
        """Array.from(document.querySelectorAll('#board g.pocket')).map(
        g => [g.dataset.label, g.querySelector('text.count').textContent])""",
    )


def expected_counts(game, position):
    lay = B.layout(game)
    c = B.counts(game, position)
    return [[p["label"], c.get(p["cell"], "")] for p in lay["pockets"]]


def test_live_page_follows_a_whole_game_on_the_simulator(env):
    drv, board = env["drv"], env["board"].board
    drv.get(env["srv"].url)
    wait_for(
        lambda: js(drv, "window.bawo && window.bawo.connected"), what="the page to see the board"
    )
    board.menu()  # start a Bawo game, people vs people
    st = board.idle()
    wait_for(
        lambda: js(drv, "window.bawo.updates.length && window.bawo.updates.slice(-1)[0].ply === 0"),
        what="the new game on the page",
    )
    moves = sim.random_moves("bawo", st["pos"], 21, 400)  # a whole game of 13 plies (seed 7's
    # 32 took 38 s of the run; each ply is a round trip through the board and the page)
    g = make_game("bawo")
    s = State(g, st["pos"])
    lat = []
    for k, mv in enumerate(moves, 1):
        s.push(mv)
        want = expected_counts("bawo", g.format(s.position))
        t0 = press_move(board, st["pos"], mv) * 1000
        try:
            wait_for(
                lambda: js(drv, "window.bawo.updates.slice(-1)[0].ply") == k,
                what="ply %d on the page" % k,
            )
        except AssertionError:
            raise AssertionError(
                "ply %d %s: board %s; page %s"
                % (
                    k,
                    mv,
                    board.idle(),
                    js(
                        drv,
                        "JSON.stringify(window.bawo.updates.slice(-2)) + document.getElementById('status').textContent",
                    ),
                )
            )
        u = js(drv, "window.bawo.updates.slice(-1)[0]")
        lat.append((u["t_page"] - t0, u["t_page"] - u["t_recv"]))
        wait_for(
            lambda: (
                js(drv, "window.bawo.shown && window.bawo.shown.position") == g.format(s.position)
                and shown_counts(drv) == want
            ),
            timeout=10,
            what="the counts of ply %d" % k,
        )
        assert js(drv, "document.getElementById('last').textContent") == mv
        st = board.idle()
        if k == 12:
            screenshot(drv, "live-board")
    assert s.outcome() is not None, "the scripted game is played to its end"
    wait_for(
        lambda: js(drv, "document.getElementById('result').textContent") != "–", what="the result"
    )
    screenshot(drv, "live-board-over")
    press = sorted(a for a, _ in lat)
    host = sorted(b for _, b in lat)
    print(
        "live latency, press->page ms: median %.1f max %.1f; board event->page ms: median %.1f "
        "max %.1f; %d plies"
        % (press[len(lat) // 2], press[-1], host[len(lat) // 2], host[-1], len(lat))
    )


def test_board_page_syncs_the_finished_game(env, tmp_path):
    """A board of its own, with a finished game the firmware played (`bawo sim --random`), and
    a server on a log of its own: the test needs no game an earlier test played."""
    from _pico_helpers import sim_games

    drv = env["drv"]
    data = tmp_path / "sim"
    recs = sim_games(data, [("bawo", 25)])
    assert len(recs) == 1
    gid = next(iter(recs))[:-4]
    db = str(tmp_path / "games.sqlite")
    board = SimBoard(str(data), "bawo", speed=8)
    srv = Server(db, sim=str(data))
    try:
        drv.get(srv.url + "board")
        wait_for(
            lambda: "connected" in js(drv, "document.getElementById('status').textContent"),
            timeout=60,
            what="status",
        )

        def info():
            return dict(
                js(
                    drv,
                    """Array.from(document.querySelectorAll('#boardinfo dt')).map(
                dt => [dt.textContent, dt.nextElementSibling.textContent])""",
                )
            )

        wait_for(lambda: info().get("unsynced") == "1", timeout=60, what="one unsynced game shown")
        assert info()["device"].startswith("sim-") and info()["profile"] == "bawo-4x8"
        # The simulated board's HELLO says its free flash and heap (docs/protocol.md): shown as
        # sizes a person reads, the protocol's version in words.
        for k in ("flash free", "heap free"):
            n, unit = info()[k].split()
            assert unit in ("bytes", "KB", "MB", "GB") and float(n) > 0, info()
        assert info()["protocol"].startswith("version "), info()
        drv.find_element("id", "sync").click()
        r = wait_for(lambda: js(drv, "window.bawo.sync"), timeout=120, what="the sync")
        assert not r.get("error") and r["added"] == [gid], r
        wait_for(lambda: info().get("unsynced") == "0", timeout=60, what="nothing left to sync")
        screenshot(drv, "board-page")
    finally:
        srv.stop()
        board.kill()
    c = sqlite3.connect(db)
    try:
        assert c.execute("SELECT status FROM games WHERE id=?", (gid,)).fetchone()[0] == "done"
    finally:
        c.close()


def test_live_page_reconnects_after_the_simulator_restarts(env):
    drv = env["drv"]
    drv.get(env["srv"].url)
    wait_for(lambda: js(drv, "window.bawo.connected"), what="connected")
    env["board"].kill()
    wait_for(
        lambda: js(drv, "window.bawo.connected") is False,
        timeout=15,
        what="the page to say unplugged",
    )
    assert "no board" in js(
        drv, "document.getElementById('status').textContent"
    ) or "disconnected" in js(drv, "document.getElementById('status').textContent")
    screenshot(drv, "live-unplugged")
    env["board"] = SimBoard(env["data"], "bawo", speed=8)
    wait_for(lambda: js(drv, "window.bawo.connected"), timeout=20, what="the page to reconnect")
    b = env["board"].board
    b.menu()
    st = b.idle()
    mv = sim.random_moves("bawo", st["pos"], 1, 1)[0]
    press_move(b, st["pos"], mv)
    wait_for(
        lambda: js(drv, "window.bawo.updates.slice(-1)[0].last") == mv,
        what="a move after reconnecting",
    )
    # A move typed on the page is played on the board (POST with the page's token).
    st = b.idle()
    g = make_game("bawo")
    nxt = sim.random_moves("bawo", st["pos"], 2, 1)[0]
    drv.find_element("id", "move").send_keys(nxt)
    drv.find_element("css selector", "#moveform button").click()
    wait_for(
        lambda: js(drv, "window.bawo.updates.slice(-1)[0].last") == nxt, what="the page's move"
    )
    st = b.idle()
    assert st["moves"][-1] == nxt and st["ply"] == 2
    s = State(g, None)
    for m in st["moves"]:
        s.push(m)
    assert st["pos"] == g.format(s.position)
    # An illegal one is refused by the board, and the page says so.
    drv.find_element("id", "move").send_keys("Q9+")
    drv.find_element("css selector", "#moveform button").click()
    wait_for(lambda: js(drv, "document.getElementById('moveerr').textContent"), what="the refusal")
    assert b.idle()["ply"] == 2


def test_library_filters_and_pages_10000_games(env):
    drv = env["drv"]
    drv.get(env["srv"].url + "library")
    n_all = sqlite3.connect(env["db"]).execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert n_all >= N_GAMES  # and the games the live tests logged, when they ran first
    assert js(drv, "document.getElementById('total').textContent") == "%d games" % n_all
    from selenium.webdriver.support.ui import Select

    Select(drv.find_element("name", "game")).select_by_value("oware")
    Select(drv.find_element("name", "opponent")).select_by_value("board")
    drv.find_element("css selector", "form.filters button").click()
    db = sqlite3.connect(env["db"])
    want = db.execute("""SELECT COUNT(*) FROM games WHERE game='oware' AND
                         (record LIKE '%[First "board"]%' OR record LIKE '%[Second "board"]%')""").fetchone()[
        0
    ]
    assert 0 < want < N_GAMES
    wait_for(
        lambda: js(drv, "document.getElementById('total').textContent").startswith(
            "%d game" % want
        ),
        what="the filtered total",
    )
    games = js(
        drv,
        "Array.from(document.querySelectorAll('table.games tbody tr td:nth-child(2)')).map(t => t.textContent)",
    )
    assert len(games) == 50 and set(games) == {"oware"}
    first_page = js(
        drv,
        "Array.from(document.querySelectorAll('table.games tbody tr td:first-child')).map(t => t.textContent)",
    )
    drv.find_element("id", "next").click()
    wait_for(
        lambda: js(drv, "document.getElementById('pageinfo').textContent").startswith(
            "page 2 of %d" % ((want + 49) // 50)
        ),
        what="page 2",
    )
    second = js(
        drv,
        "Array.from(document.querySelectorAll('table.games tbody tr td:first-child')).map(t => t.textContent)",
    )
    assert not set(first_page) & set(second)
    ids = [
        r[0]
        for r in db.execute("""SELECT id FROM games WHERE game='oware' AND
           (record LIKE '%[First "board"]%' OR record LIKE '%[Second "board"]%')
           ORDER BY COALESCE(NULLIF(start, ''), added) DESC, id DESC LIMIT 50 OFFSET 50""")
    ]
    assert second == ids
    screenshot(drv, "library")
    # Sort by plies, ascending, then search by id.
    drv.get(env["srv"].url + "library?sort=plies&dir=asc")
    plies = js(
        drv,
        "Array.from(document.querySelectorAll('table.games tbody tr td:nth-child(5)')).map(t => +t.textContent)",
    )
    assert (
        plies == sorted(plies)
        and plies[0] == db.execute("SELECT MIN(plies) FROM games").fetchone()[0]
    )
    box = drv.find_element("name", "q")
    box.send_keys("000777")
    box.submit()
    wait_for(
        lambda: js(drv, "document.querySelectorAll('table.games tbody tr').length") == 1,
        what="id search",
    )
    assert js(drv, "document.querySelector('table.games tbody td a').textContent") == "club-000777"


def test_replay_steps_back_and_forth_and_exports(env):
    drv = env["drv"]
    db = sqlite3.connect(env["db"])
    gid, rec_text = db.execute(
        "SELECT id, record FROM games WHERE game='bawo' AND plies > 20 ORDER BY id LIMIT 1"
    ).fetchone()
    from shared_rules.record import Record

    rec = Record.from_text(rec_text)
    g = make_game("bawo")
    s = State(g, rec.header.get("Position"))
    positions = [g.format(s.position)]
    for m in rec.moves:
        s.push(m)
        positions.append(g.format(s.position))
    drv.get(env["srv"].url + "game/" + gid)
    wait_for(lambda: js(drv, "window.bawo.ready"), what="the replay")
    from selenium.webdriver.common.keys import Keys

    body = drv.find_element("tag name", "body")

    def at(ply):
        wait_for(
            lambda: (
                js(drv, "window.bawo.shownPly") == ply
                and js(drv, "window.bawo.shown.position") == positions[ply]
            ),
            timeout=15,
            what="ply %d" % ply,
        )
        assert shown_counts(drv) == expected_counts("bawo", positions[ply])
        assert js(drv, "document.getElementById('plyinfo').textContent") == "ply %d / %d" % (
            ply,
            len(rec.moves),
        )

    for k in range(1, 6):
        body.send_keys(Keys.ARROW_RIGHT)
        at(k)
    screenshot(drv, "replay")
    body.send_keys(Keys.ARROW_LEFT)
    at(4)
    body.send_keys(Keys.ARROW_LEFT)
    at(3)
    drv.find_element("css selector", "#moves li[data-ply='17']").click()
    at(17)
    body.send_keys(Keys.END)
    at(len(rec.moves))
    body.send_keys(Keys.HOME)
    at(0)
    drv.find_element("id", "play").click()  # play: animated sowing, ply after ply
    wait_for(
        lambda: (js(drv, "window.bawo.shownPly") or 0) >= 2, timeout=20, what="play to advance"
    )
    drv.find_element("id", "play").click()
    # Export: the downloaded file is a record `bawo verify` accepts.
    drv.find_element("id", "export-jsonl").click()
    path = os.path.join(env["downloads"], gid + ".jsonl")
    wait_for(lambda: os.path.exists(path) and os.path.getsize(path) > 0, what="the download")
    r = subprocess.run(bawo_cmd() + ["verify", path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "1 OK" in r.stdout, r.stdout + r.stderr
    assert json.loads(open(path).read())["moves"] == list(rec.moves) or gid in open(path).read()


def blunder_game():
    """A Bawo game from the opening: South keeps to the book for two plies, then plays A3-,
    after which North's proved win is played out (tests/test_analyse.py: the mistake is ply 3)."""
    from bawo.solve import solve

    g = make_game("bawo")
    s = State(g)
    for t in ("A3-", "A3+", "A3-"):
        s.push(t)
    r = solve(s.position, max_nodes=20000, all_moves=False)
    while s.outcome() is None:
        p = s.position
        s.push(g.move_str(r.strategy[p.key()] if p.turn == 1 else g.legal_moves(p)[0]))
    from shared_rules.record import Record

    return Record.from_state(s, Id="blunder-0001")


def test_game_page_analysis_marks_the_mistake_on_its_ply(env):
    from bawo.db import Log

    rec = blunder_game()
    with Log(env["db"]) as log:
        log.add(rec, "import")
    drv = env["drv"]
    drv.get(env["srv"].url + "game/blunder-0001")
    wait_for(lambda: js(drv, "window.bawo.ready"), what="the replay")
    assert js(drv, "document.getElementById('value').textContent") == "–"  # nothing before asked
    drv.find_element("id", "analyse").click()
    r = wait_for(lambda: js(drv, "window.bawo.analysis"), timeout=120, what="the analysis")
    assert r["state"] == "done" and len(r["marks"]) == len(rec.moves), r
    assert (
        js(drv, "document.getElementById('anastate').textContent") == "the game was lost at ply 3"
    )
    assert js(
        drv, "Array.from(document.querySelectorAll('#moves li.mistake')).map(li => +li.dataset.ply)"
    ) == [3]
    drv.find_element("css selector", "#moves li[data-ply='2']").click()
    wait_for(lambda: js(drv, "window.bawo.shownPly") == 2, what="ply 2")
    assert (
        js(drv, "document.getElementById('value').textContent")
        == "South can force a win (South to move)"
    )
    drv.find_element("css selector", "#moves li[data-ply='3']").click()
    wait_for(lambda: js(drv, "window.bawo.shownPly") == 3, what="ply 3")
    mark = js(drv, "document.getElementById('plymark').textContent")
    assert mark.startswith("South can force a win: ") and mark.endswith(
        "; A3- throws it away, North can force a win now"
    ), mark
    assert "A3-" not in mark.split(": ", 1)[1].split(";")[0], (
        mark
    )  # the winning moves, not the one played
    assert (
        js(drv, "document.getElementById('value').textContent")
        == "North can force a win (North to move)"
    )
    # The evaluation graph: a point a position, South's forced win at the top until ply 3.
    pts = js(drv, "document.querySelector('#evalgraph polyline').getAttribute('points')").split()
    ys = [float(p.split(",")[1]) for p in pts]
    assert len(pts) == len(rec.moves) + 1 and ys[:3] == [4.0] * 3 and ys[3] > 40, pts  # 4: the top
    assert js(drv, "document.getElementById('analegend').hidden") is False
    screenshot(drv, "analysis")


def test_statistics_page_draws_svg(env):
    drv = env["drv"]
    drv.get(env["srv"].url + "stats")
    n = js(drv, "document.querySelectorAll('svg.chart').length")
    assert n >= 4
    # The per-side rates add up with the log: the first Bawo bar is South's share of Bawo wins.
    labels = js(
        drv, "Array.from(document.querySelectorAll('svg.chart text')).map(t => t.textContent)"
    )
    db = sqlite3.connect(env["db"])
    s_wins, decided = db.execute(
        "SELECT SUM(result='S'), SUM(result IN ('S', 'N', 'draw')) FROM games WHERE game='bawo'"
    ).fetchone()
    i = labels.index("bawo S wins (%d)" % decided)
    assert labels[i + 1] == "%.0f%%" % (100.0 * s_wins / decided)
    screenshot(drv, "statistics")


def test_play_the_computer_by_clicking_pockets(env):
    drv = env["drv"]
    drv.get(env["srv"].url + "play")
    from selenium.webdriver.support.ui import Select

    Select(drv.find_element("name", "game")).select_by_value("bawo")
    Select(drv.find_element("name", "level")).select_by_value("1")
    drv.find_element("css selector", "#newgame button").click()
    wait_for(lambda: js(drv, "window.bawo.play && window.bawo.play.ply === 0"), what="a new game")
    g = make_game("bawo")
    for turn in range(3):
        r = js(drv, "window.bawo.play")
        mv = sorted(r["presses"])[turn % len(r["presses"])]
        for key in r["presses"][mv]:
            drv.find_element(
                "css selector", "#board g.pocket[data-key='%d'] rect.hit" % key
            ).click()
        wait_for(
            lambda: js(drv, "window.bawo.play.ply") == 2 * (turn + 1),
            timeout=60,
            what="the computer's reply",
        )
        r = js(drv, "window.bawo.play")
        assert r["moves"][2 * turn] == mv
        s = State(g)
        for m in r["moves"]:
            s.push(m)  # the computer's moves are legal
        wait_for(
            lambda: shown_counts(drv) == expected_counts("bawo", g.format(s.position)),
            what="counts",
        )
    screenshot(drv, "play")
    drv.find_element("id", "move").send_keys("Q9+")
    drv.find_element("css selector", "#moveform button").click()
    wait_for(lambda: js(drv, "document.getElementById('moveerr').textContent"), what="the refusal")
    assert js(drv, "window.bawo.play.ply") == 6


def test_firmware_button_flashes_the_simulator(env, tmp_path):
    """The board page's firmware button against `bawo sim --headless`: bawo.flash.run with the
    port released, its progress lines on the page, the files verified by SHA-256 on the flash."""
    import signal
    from _host_helpers import env_with_path

    data = tmp_path / "flashsim"
    data.mkdir()
    p = subprocess.Popen(
        bawo_cmd() + ["sim", "--headless", "--data", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env_with_path(),
        start_new_session=True,
    )
    srv = None
    try:
        for line in p.stdout:
            if "running headless" in line:
                break
        srv = Server(str(tmp_path / "f.sqlite"), sim=str(data))
        drv = env["drv"]
        drv.get(srv.url + "board")
        wait_for(
            lambda: js(drv, "document.getElementById('status').className") == "status on",
            what="connected",
        )
        drv.find_element("id", "flash").click()
        drv.switch_to.alert.accept()
        r = wait_for(lambda: js(drv, "window.bawo.flash"), timeout=300, what="the firmware update")
        assert r.get("ok"), r
        log = js(drv, "window.bawo.flashlog")
        assert any(x.startswith("board runs MicroPython") for x in log), log
        assert "staged files verified; moving them into place" in log
        assert any(x.startswith("installed ") and "verified on the board" in x for x in log), log
        assert log[-1] == "firmware updated"
        # The bar follows the per-file lines: it rises through the copy and ends full.
        files = [x for x in log if x.startswith("  ") and "/" in x.split()[0]]
        n = int(files[0].split()[0].split("/")[1])
        pct = js(drv, "window.bawo.flashpct")
        assert len(files) == n >= 2 and pct[:n] == [100 * k // n for k in range(n)], pct
        assert pct[-1] == 100 and js(drv, "document.getElementById('flashbar').value") == 100
        assert js(drv, "document.getElementById('flashpct').textContent") == "100%"
        assert (data / "app.mpy").exists() and (data / "shared_rules" / "state.mpy").exists()
        screenshot(drv, "board-flash")
        drv.get("about:blank")  # the page's event stream closed before the server stops
    finally:
        if srv is not None:
            srv.stop()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(10)
