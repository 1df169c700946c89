"""`bawo serve` without a browser: each security rule tried as an attack over real HTTP, the
pages escaping what comes from the log, the JSON refusing bad input, `bawo serve` starting and
stopping on Ctrl-C as a command."""
import os
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
        con.execute("INSERT INTO games (id, game, device, start, result, reason, plies, status, source,"
                    " added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    ("evil-" + EVIL, rec.header["Game"], EVIL, "2025-01-01", "S", EVIL, len(rec.moves),
                     "done", "import", "2025-01-01", text))
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
    for path in ("/", "/library", "/stats", "/board", "/game/dev-0001", "/api/game/dev-0001",
                 "/static/app.js", "/static/style.css"):
        r = get(srv, path)
        assert r.status_code == 200, path


def test_dns_rebinding_other_host_is_refused(srv):
    r = get(srv, "/library", Host="evil.example:%d" % srv.cfg.port)
    assert r.status_code == 403 and "refused" in r.text
    assert get(srv, "/library", Host="127.0.0.1:1").status_code == 403   # another port
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
        assert post(srv, path, {"move": "A1+"}, **{"X-Bawo-Token": srv.cfg.token[:-1]}).status_code == 403
    # With the token: past the guard (no board here, so the route says so).
    r = post(srv, "/api/sync", **{"X-Bawo-Token": srv.cfg.token})
    assert r.status_code == 409 and "no board" in r.json()["error"]
    assert srv.cfg.token in get(srv, "/").text           # the page knows it ...
    assert srv.cfg.token not in get(srv, "/static/app.js").text   # ... nothing else serves it


def test_static_files_cannot_escape_their_folder(srv):
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                 "/static/%2e%2e%2f%2e%2e%2fdb.py", "/static//etc/passwd", "/static/....//app.py"):
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
    assert get(srv, "/game/" + "x" * 5000).status_code == 200      # "not found" page


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
    p = subprocess.Popen(bawo_cmd() + ["serve", "--db", str(tmp_path / "g.sqlite"), "--no-board"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_with_path())
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
