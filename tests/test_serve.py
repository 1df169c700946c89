"""`bawo serve` without a browser: each security rule tried as an attack over real HTTP, the
pages escaping what comes from the log, the JSON refusing bad input, `bawo serve` starting and
stopping on Ctrl-C as a command."""

import signal
import sqlite3
import subprocess
import time

import httpx
import pytest

from shared_rules.record import Record

from _host_helpers import random_record, bawo_cmd, env_with_path
from _serve_helpers import Server
from bawo.db import Log
from bawo.errors import BawoError
from bawo.serve import make

EVIL = '<script>alert("x")</script>'


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("srv") / "g.sqlite")
    with Log(db) as log:
        for i in range(5):
            log.add(random_record(i, "dev-%04d" % i), "import")
    # Text from the log is never trusted: a reason and an id with markup in them.
    rec = random_record(9, "evil-0001")
    text = rec.to_text()
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "INSERT INTO games (id, game, device, start, result, reason, plies, status, source,"
            " added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                "evil-" + EVIL,
                rec.header["Game"],
                EVIL,
                "2025-01-01",
                "S",
                EVIL,
                len(rec.moves),
                "done",
                "import",
                "2025-01-01",
                text,
            ),
        )
    con.close()
    s = Server(db, follow_board=False)
    yield s
    s.stop()


def get(srv, path, **headers):
    h = {"Host": "127.0.0.1:%d" % srv.cfg.port}
    h.update(headers)
    return httpx.get(srv.url.rstrip("/") + path, headers=h, timeout=10)


def post(srv, path, body=None, **headers):
    h = {"Host": "127.0.0.1:%d" % srv.cfg.port, "Content-Type": "application/json"}
    h.update(headers)
    return httpx.post(srv.url.rstrip("/") + path, headers=h, json=body or {}, timeout=30)


def test_pages_answer(srv):
    for path in (
        "/",
        "/library",
        "/stats",
        "/board",
        "/game/dev-0001",
        "/api/game/dev-0001",
        "/static/app.js",
        "/static/style.css",
    ):
        r = get(srv, path)
        assert r.status_code == 200, path


def test_dns_rebinding_other_host_is_refused(srv):
    r = get(srv, "/library", Host="evil.example:%d" % srv.cfg.port)
    assert r.status_code == 403 and "refused" in r.text
    assert get(srv, "/library", Host="127.0.0.1:1").status_code == 403  # another port
    assert get(srv, "/library", Host="localhost:%d" % srv.cfg.port).status_code == 200


def test_cross_site_requests_are_refused(srv):
    r = get(srv, "/api/game/dev-0001", Origin="http://evil.example")
    assert r.status_code == 403
    r = post(srv, "/api/sync", Origin="http://evil.example", **{"X-Bawo-Token": srv.cfg.token})
    assert r.status_code == 403
    # The page's own origin is fine.
    r = get(srv, "/api/game/dev-0001", Origin="http://127.0.0.1:%d" % srv.cfg.port)
    assert r.status_code == 200


def test_changes_need_the_pages_token(srv):
    for path in ("/api/sync", "/api/move"):
        assert post(srv, path, {"move": "A1+"}).status_code == 403
        assert post(srv, path, {"move": "A1+"}, **{"X-Bawo-Token": "guess"}).status_code == 403
        assert (
            post(srv, path, {"move": "A1+"}, **{"X-Bawo-Token": srv.cfg.token[:-1]}).status_code
            == 403
        )
    # With the token: past the guard (no board here, so the route says so).
    r = post(srv, "/api/sync", **{"X-Bawo-Token": srv.cfg.token})
    assert r.status_code == 409 and "no board" in r.json()["error"]
    assert srv.cfg.token in get(srv, "/").text  # the page knows it ...
    assert srv.cfg.token not in get(srv, "/static/app.js").text  # ... nothing else serves it


def test_static_files_cannot_escape_their_folder(srv):
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2fdb.py",
        "/static//etc/passwd",
        "/static/....//app.py",
    ):
        r = get(srv, path)
        assert r.status_code == 404, path
        assert "create_app" not in r.text and "root:" not in r.text


def test_text_from_the_log_is_escaped(srv):
    from urllib.parse import quote

    lib = get(srv, "/library").text
    assert EVIL not in lib and "&lt;script&gt;" in lib
    page = get(srv, "/game/" + quote("evil-" + EVIL, safe="")).text
    assert EVIL not in page and "&lt;script&gt;" in page
    r = get(srv, "/library?q=" + quote(EVIL))
    assert EVIL not in r.text
    csp = get(srv, "/").headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src" not in csp.replace("default-src", "")


def test_bad_input_is_refused_not_crashed(srv):
    assert get(srv, "/api/picture?game=bawo&position=" + "9" * 5000).status_code == 400
    assert get(srv, "/api/picture?game=chess&position=x").status_code == 400
    assert get(srv, "/api/sow?game=bawo&position=2,2/2&move=A1+").status_code == 400
    start = "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"
    assert get(srv, "/api/sow?game=bawo&position=%s&move=Z9%%2B" % start).status_code == 400
    assert get(srv, "/library?page=-5&sort=id;DROP TABLE games&dir=x").status_code == 200
    assert get(srv, "/export/dev-0001?format=../../etc").status_code == 404
    r = get(srv, "/game/" + "x" * 5000)
    assert r.status_code == 404 and "Not found" in r.text and "<nav" in r.text  # a page


def test_non_local_bind_needs_the_flag_and_then_a_token(tmp_path):
    db = str(tmp_path / "g.sqlite")
    with pytest.raises(BawoError, match="allow-remote"):
        make(db, host="0.0.0.0", follow_board=False)
    s = Server(db, host="0.0.0.0", remote=True, follow_board=False)
    try:
        host = {"Host": "127.0.0.1:%d" % s.cfg.port}
        base = "http://127.0.0.1:%d" % s.cfg.port
        assert httpx.get(base + "/library", headers=host).status_code == 403
        r = httpx.get(base + "/library?token=" + s.cfg.token, headers=host)
        assert r.status_code == 200 and "bawo_token" in r.headers.get("set-cookie", "")
        r = httpx.get(base + "/library", headers=host, cookies={"bawo_token": s.cfg.token})
        assert r.status_code == 200
        # Another computer names this one by its address: fine with the token, refused without.
        lan = {"Host": "192.168.1.5:%d" % s.cfg.port}
        assert httpx.get(base + "/library", headers=lan).status_code == 403
        assert httpx.get(base + "/library?token=" + s.cfg.token, headers=lan).status_code == 200
        assert httpx.get(base + "/library?token=x" + s.cfg.token, headers=lan).status_code == 403
        assert "?token=" in s.url
    finally:
        s.stop()


def test_bawo_serve_prints_its_url_and_stops_on_ctrl_c(tmp_path):
    p = subprocess.Popen(
        bawo_cmd() + ["serve", "--db", str(tmp_path / "g.sqlite"), "--no-board"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_with_path(),
    )
    try:
        line = p.stdout.readline()
        assert line.startswith("bawo serve: http://127.0.0.1:"), line
        url = line.split()[2]
        deadline = time.monotonic() + 20
        while True:
            try:
                assert httpx.get(url + "library", timeout=5).status_code == 200
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        assert p.wait(15) == 0
        assert "Traceback" not in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()


def test_wilson_interval():
    from bawo.serve.stats import wilson

    p, lo, hi = wilson(50, 100)
    assert p == 0.5 and round(lo, 4) == 0.4038 and round(hi, 4) == 0.5962
    assert wilson(0, 0) == (0.0, 0.0, 0.0)
    p, lo, hi = wilson(10, 10)
    assert p == 1.0 and hi == 1.0 and round(lo, 4) == 0.7225


def test_players_parses_the_one_format_of_first_and_second():
    from bawo import players as P

    assert P.parse("board (level 5)") == ("board", 5, 0)
    assert P.parse("computer (level 2)") == ("computer", 2, 0)
    assert P.parse("person (3 hints)") == ("person", None, 3)
    assert P.parse("board") == ("board", None, 0)  # a record from before levels
    assert P.parse("host") == ("host", None, 0)
    # Whatever else a record says is not a level.
    for bad in (
        "board (level 99)",
        "board (level x)",
        "person (level 3)",
        "board (level 5",
        "Bob",
        "board (level 5) (level 4)",
        "computer (hints 2)",
        "",
        None,
        "board (level " + "9" * 50,
    ):
        k, lv, _ = P.parse(bad)
        assert lv is None, bad
    assert P.level_of("person", "board (level 4)") == 4
    assert P.level_of("board", "person") is None and P.level_of("person", "you") is None


@pytest.fixture(scope="module")
def levels(tmp_path_factory):
    """A log with the board's AI at levels 2 and 5, `bawo play`'s at 3, and old records
    without a level."""
    db = str(tmp_path_factory.mktemp("lv") / "g.sqlite")
    who = [
        ("board (level 2)", "person"),
        ("person (1 hints)", "board (level 5)"),
        ("you", "computer (level 3)"),
        ("board", "person"),
        ("person", "person"),
    ]
    with Log(db) as log:
        for i in range(15):
            rec = random_record(i, "lv-%04d" % i)
            rec.header["First"], rec.header["Second"] = who[i % 5]
            log.add(rec, "import")
    s = Server(db, follow_board=False)
    yield s, db, who
    s.stop()


def _ids(html):
    import re

    return sorted(set(re.findall(r'>(lv-\d{4})</a>', html)))


def test_library_filters_by_the_ais_level(levels):
    s, db, who = levels
    want = {"2": [0], "5": [1], "3": [2], "unknown": [3], "4": []}
    for lv, ks in want.items():
        r = get(s, "/library?level=" + lv)
        assert r.status_code == 200
        assert _ids(r.text) == ["lv-%04d" % i for i in range(15) if i % 5 in ks], lv
    # The player filter still finds the board whether its tag has a level or not.
    r = get(s, "/library?opponent=board")
    assert _ids(r.text) == ["lv-%04d" % i for i in range(15) if i % 5 in (0, 1, 3)]
    r = get(s, "/library?opponent=computer&level=3")
    assert _ids(r.text) == ["lv-%04d" % i for i in range(15) if i % 5 == 2]
    assert get(s, "/library?level=2%27%20OR%201").status_code == 200  # not a level: ignored


def test_statistics_show_the_ais_win_rate_per_level(levels):
    s, db, who = levels
    html = get(s, "/stats").text
    assert "The AI&#39;s win rate by level" in html or "The AI's win rate by level" in html
    con = sqlite3.connect(db)
    from shared_rules import game as make_game

    for lv, k, ai in (
        ("level 2", 0, 0),
        ("level 5", 1, 1),
        ("level 3", 2, 1),
        ("level unknown", 3, 0),
    ):
        rows = [
            r
            for (i, r) in enumerate(con.execute("SELECT game, result FROM games ORDER BY id"))
            if i % 5 == k
        ]
        decided = sum(r[1] != "*" for r in rows)
        won = sum(r[1] == make_game(r[0]).sides[ai] for r in rows)
        assert ">%s (%d)<" % (lv, decided) in html, lv
        assert ">%.0f%%<" % (100.0 * won / decided) in html


def test_board_facts_show_free_flash_and_heap_or_unknown():
    from bawo.serve.live import facts

    # docs/protocol.md's HELLO answer
    f = facts(
        {
            "fw": "0.1.0",
            "rules": "1",
            "board": "bw-3f2a",
            "flash_free": 812032,
            "heap_free": 143360,
            "proto": 1,
            "profile": "bawo-4x8",
            "games": ["bawo", "oware"],
        }
    )
    assert f["device"] == "bw-3f2a" and f["firmware"] == "0.1.0" and f["games"] == ["bawo", "oware"]
    assert f["flash free"] == "793 KB" and f["heap free"] == "140 KB"
    assert f["protocol"] == "version 1" and "proto" not in f
    # Sizes as a person reads them, not "84132052992 bytes".
    sizes = {
        0: "0 bytes",
        1023: "1023 bytes",
        1536: "1.5 KB",
        84132052992: "78.4 GB",
        5 * 2**20: "5.0 MB",
    }
    for n, text in sizes.items():
        assert facts({"flash_free": n})["flash free"] == text, n
    # A firmware that does not say, or says it could not tell, or sends nonsense.
    f = facts({"device": "sim-1", "firmware": "0.1", "proto": 1})
    assert f["device"] == "sim-1" and f["flash free"] == "unknown" and f["heap free"] == "unknown"
    for bad in (-1, "812032", True, 1 << 60, 1.5, [1]):
        assert facts({"flash_free": bad, "heap_free": bad})["flash free"] == "unknown", bad
    assert len(facts({"board": "x" * 5000})["device"]) <= 64


def test_board_facts_say_how_the_firmware_was_installed():
    # Issue 25: the board page, `bawo flash --dry-run` and `bawo flash --uf2` say it alike.
    from bawo.ports import firmware_words
    from bawo.serve.live import facts

    hello = {"fw": "0.1.0", "build": "1a92625bc2d09661", "image": "uf2"}
    assert facts(hello)["installed as"] == "the frozen UF2 image, build 1a92625bc2d09661"
    assert (
        firmware_words(hello) == "Bawo Board 0.1.0 (the frozen UF2 image, build 1a92625bc2d09661)"
    )
    assert (
        firmware_words({"fw": "0.1.0", "image": "files", "build": "00ff"})
        == "Bawo Board 0.1.0 (files copied by bawo flash, build 00ff)"
    )
    # An older firmware says neither; a hostile one gets no raw text through.
    assert "installed as" not in facts({"fw": "0.0.9"})
    assert firmware_words({"fw": "0.0.9"}) == "Bawo Board 0.0.9"
    bad = {"fw": "1\x1b[2J\u202e", "image": "<script>", "build": "\u202egnp.exe"}
    assert firmware_words(bad) == "Bawo Board 1[2J" and "installed as" not in facts(bad)


def test_analysis_api_estimates_oware_once_and_refuses_what_it_cannot(srv):
    from shared_rules import game as make_game, State

    g = make_game("oware")
    s = State(g)
    for _ in range(4):
        s.push(g.move_str(g.legal_moves(s.position)[0], s.position))
    with Log(srv.cfg.db_path) as log:
        log.add(Record.from_state(s, Id="ow-0001"), "import")
    tok = {"X-Bawo-Token": srv.cfg.token}
    assert get(srv, "/api/analysis/ow-0001").json() == {"state": "none"}  # GET never starts one
    assert post(srv, "/api/analysis/ow-0001").status_code == 403  # a change needs the token
    r = post(srv, "/api/analysis/ow-0001", **tok).json()
    assert r["estimate"] is True and r["total"] == 5
    deadline = time.monotonic() + 120
    while r["state"] != "done" and time.monotonic() < deadline:
        time.sleep(0.2)
        r = get(srv, "/api/analysis/ow-0001").json()
    assert r["state"] == "done" and [x["ply"] for x in r["marks"]] == [1, 2, 3, 4]
    assert all(
        x["estimate"] and " before, " in x["text"] and "estimate" not in x["text"]
        for x in r["marks"]
    )
    assert len(r["curve"]) == 5 and all(-1 <= v <= 1 for v in r["curve"])  # the page's graph
    assert post(srv, "/api/analysis/ow-0001", **tok).json() == r  # cached per game id
    assert post(srv, "/api/analysis/no-such-game", **tok).status_code == 404


def test_flash_step_reads_bawo_flashs_per_file_lines():
    from bawo.serve.live import flash_step

    assert flash_step("  3/41 shared_rules/state.mpy (5120 B)") == (3, 41)
    assert flash_step("  41/41 app.mpy (100 B)") == (41, 41)
    for other in (
        "copying 41 file(s) to .stage/ on the board",
        "  0/41 x",
        "  42/41 x",
        "3/41 x",
        "  a/41 x",
        "  3/ x",
        "  999999/9999999 x",
        "",
        "  ",
    ):
        assert flash_step(other) is None, other


def test_bawo_play_records_the_computers_level(tmp_path):
    import io
    from bawo import players as P
    from bawo.terminal_games import play
    from shared_rules import game as make_game

    g = make_game("oware")
    db = str(tmp_path / "p.sqlite")
    answers = iter(["A", "quit", "y"])  # South: one move, then end the game unfinished
    with Log(db) as log:
        play(
            "oware",
            level=2,
            side="S",
            seed=1,
            log=log,
            ask=lambda _: next(answers),
            out=io.StringIO(),
        )
    text = sqlite3.connect(db).execute("SELECT record FROM games").fetchone()[0]
    assert '[First "you"]' in text and '[Second "computer (level 2)"]' in text, text
    rec = Record.from_text(text)
    assert P.level_of(rec.header["First"], rec.header["Second"]) == 2
    assert g.name == rec.header["Game"]


def test_the_play_page_records_the_computers_level(tmp_path):
    from bawo.serve.play_session import Session

    db = str(tmp_path / "w.sqlite")
    Log(db).close()
    s = Session(db)
    s.new("oware", 1, 4)  # the computer plays South at level 4, and moves
    s._log()  # as the end of the game logs it
    text = sqlite3.connect(db).execute("SELECT record FROM games").fetchone()[0]
    assert '[First "computer (level 4)"]' in text and '[Second "you"]' in text, text
