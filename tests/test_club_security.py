"""Attacks on the club server, each tried: admin login (scrypt, rate limit), sessions and CSRF,
tokens shown once and kept hashed, upload floods, SQL injection through every field a client
sends, and XSS through player names and record tags (escaped text, and Chromium runs none)."""

import urllib.parse
import urllib.request

import pytest

from _club_pg import club_url  # noqa: F401  (fixture)
from _club_helpers import bearer, club_client, live_server, login, token_for
from _host_helpers import random_record

from bawo.club import auth
from bawo.club.asgi import COOKIE

pytestmark = pytest.mark.xdist_group("club_pg")

XSS = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
SQLI = "x'); DROP TABLE records; --"


def test_password_is_scrypt_and_login_is_rate_limited(tmp_path):
    with club_client(str(tmp_path / "c.sqlite"), login_burst=3, login_rate=0.001) as (c, store):
        login(c, store, "root", "correct horse battery")
        row = store.admin("root")
        salt, h = auth.hash_password("correct horse battery", row["salt"])
        assert row["hash"] == h and "correct horse" not in repr(row)
        c.cookies.clear()
        r = c.post("/login", data={"name": "root", "password": "wrong"}, follow_redirects=False)
        assert r.status_code == 403 and COOKIE not in c.cookies
        codes = [
            c.post(
                "/login",
                data={"name": "root", "password": "correct horse battery"},
                follow_redirects=False,
            ).status_code
            for _ in range(3)
        ]
        # The burst is spent (1 login + 1 wrong + 1 more): even the right password waits now.
        assert codes[-1] == 429, codes


def test_admin_forms_need_session_and_csrf_and_tokens_are_shown_once(tmp_path):
    with club_client(str(tmp_path / "c.sqlite")) as (c, store):
        # No session: refused, nothing issued.
        assert c.post("/admin/token", data={"board": "pico-ee05", "csrf": "x"}).status_code == 403
        csrf = login(c, store)
        # A session but no (or another) CSRF token: what a cross-site form would send.
        assert c.post("/admin/token", data={"board": "pico-ee05"}).status_code == 403
        assert (
            c.post("/admin/token", data={"board": "pico-ee05", "csrf": csrf + "x"}).status_code
            == 403
        )
        assert store.tokens() == []
        r = c.post("/admin/token", data={"board": "pico-ee05", "csrf": csrf})
        assert r.status_code == 200
        tok = r.text.split('<code id="token">')[1].split("<")[0]
        assert tok.startswith("bawo_") and c.get("/api/whoami", headers=bearer(tok)).json() == {
            "board": "pico-ee05"
        }
        # Shown once; the database holds its hash only.
        assert tok not in c.get("/admin").text
        assert all(
            tok not in repr(row)
            for t in ("tokens", "boards")
            for row in store.query("SELECT * FROM " + t)
        )
        r = c.post(
            "/admin/revoke",
            data={"id": store.tokens()[0]["id"], "csrf": csrf},
            follow_redirects=False,
        )
        assert r.status_code == 303 and c.get("/api/whoami", headers=bearer(tok)).status_code == 401
        # Logged out: the session is gone from the database, so no process takes it.
        cookie = c.cookies[COOKIE]
        c.post("/logout", data={"csrf": csrf})
        assert store.session(auth.token_hash(cookie)) is None
        c.cookies.set(COOKIE, cookie)
        assert c.post("/admin/token", data={"board": "pico-ee05", "csrf": csrf}).status_code == 403


def test_upload_flood_is_rate_limited(tmp_path):
    with club_client(str(tmp_path / "c.sqlite"), upload_burst=3, upload_rate=0.001) as (c, store):
        tok = token_for(store, "pico-aa01")
        rec = random_record(21, "pico-aa01-0001").to_text()
        codes = [
            c.post("/api/records", content=rec, headers=bearer(tok)).status_code for _ in range(5)
        ]
        assert codes == [200, 200, 200, 429, 429]
        # Another board's bucket is its own.
        other = token_for(store, "pico-bb02")
        assert (
            c.post(
                "/api/records",
                content=random_record(22, "pico-bb02-0001").to_text(),
                headers=bearer(other),
            ).status_code
            == 200
        )


def test_live_update_flood_is_rate_limited(tmp_path):
    with club_client(str(tmp_path / "c.sqlite"), live_burst=2, live_rate=0.001) as (c, store):
        tok = token_for(store, "pico-aa01")
        body = {"id": "pico-aa01-1", "game": "oware", "from": 0, "moves": []}
        codes = [c.post("/api/live", json=body, headers=bearer(tok)).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        # Nested or oversized bodies are refused before they are parsed.
        deep = '{"id": "x", "moves": [[[["F3"]]]]}'
        assert (
            c.post(
                "/api/live", content=deep, headers=bearer(token_for(store, "pico-bb02"))
            ).status_code
            == 400
        )
        assert (
            c.post(
                "/api/live", content=b"{" * 70000, headers=bearer(token_for(store, "pico-cc03"))
            ).status_code
            == 413
        )


def test_sql_injection_through_every_field(club_url):
    with club_client(club_url) as (c, store):
        tok = token_for(store, "pico-aa01")
        csrf = login(c, store)
        # A board id with SQL in it: refused by its check, before any query.
        r = c.post("/admin/token", data={"board": SQLI, "csrf": csrf})
        assert r.status_code == 400 and "board id" in r.text
        # Names and record tags are values, never SQL: stored and shown as written.
        r = c.post(
            "/admin/seat",
            data={"board": "pico-aa01", "south": SQLI, "north": "Bo' OR '1'='1", "csrf": csrf},
            follow_redirects=False,
        )
        assert r.status_code == 303
        rec = random_record(23, "pico-aa01-0001' OR '1'='1")
        rec.header["Event"] = SQLI
        rec.header["Start"] = "2099-01-01T00:00:00"  # after the seat above
        assert (
            c.post("/api/records", content=rec.to_text(), headers=bearer(tok)).json()["outcome"]
            == "added"
        )
        (row,) = store.records()
        assert (row["rid"], row["north"]) == ("pico-aa01-0001' OR '1'='1", "Bo' OR '1'='1")
        assert {p["name"] for p in store.players()} >= {" ".join(SQLI.split()), "Bo' OR '1'='1"}
        # Query strings: no row matches a condition smuggled in.
        assert c.get("/player", params={"name": "x' OR '1'='1"}).status_code == 404
        assert c.get("/game?seq=1%20OR%201=1").status_code == 404
        assert c.get("/leaderboard?game=bawo'--").status_code == 200
        # The login form and a live game's id.
        c.cookies.clear()
        r = c.post(
            "/login",
            data={"name": "root' OR '1'='1' --", "password": "' OR '1'='1"},
            follow_redirects=False,
        )
        assert r.status_code == 403
        r = c.post(
            "/api/live",
            json={"id": SQLI, "game": "oware", "from": 0, "moves": []},
            headers=bearer(tok),
        )
        assert r.status_code == 200 and store.live_boards("2000")[0]["rid"] == SQLI
        assert len(store.records()) == 1 and store.version() > 0


def _seed_xss(c, store):
    tok = token_for(store, "pico-aa01")
    store.seat("pico-aa01", XSS, "Bo", since="2000-01-01T00:00:00Z")
    rec = random_record(24, "pico-aa01-0001", name="oware")
    rec.header["Event"] = "</pre><script>alert(3)</script>"
    seq = c.post("/api/records", content=rec.to_text(), headers=bearer(tok)).json()["seq"]
    return seq


def test_xss_through_names_and_tags_is_escaped(tmp_path):
    with club_client(str(tmp_path / "c.sqlite")) as (c, store):
        seq = _seed_xss(c, store)
        pages = ["/", "/game?seq=%d" % seq, "/players", "/leaderboard?game=oware"]
        pages.append("/player?name=" + urllib.parse.quote(XSS))
        for p in pages:
            r = c.get(p)
            assert r.status_code == 200, p
            assert "<script>alert" not in r.text and "<img src=x" not in r.text, p
            assert "script-src 'self'" in r.headers["content-security-policy"]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in c.get(pages[-1]).text
        assert "&lt;/pre&gt;&lt;script&gt;alert(3)" in c.get(pages[1]).text


def test_xss_in_chromium_runs_nothing(tmp_path):
    from _serve_helpers import browser, quit_browser

    with live_server(str(tmp_path / "c.sqlite")) as (url, store):
        tok = token_for(store, "pico-aa01")
        store.seat("pico-aa01", XSS, "Bo", since="2000-01-01T00:00:00Z")
        rec = random_record(24, "pico-aa01-0001", name="oware")
        rec.header["Event"] = "</pre><script>alert(3)</script>"
        req = urllib.request.Request(
            url + "api/records", data=rec.to_text().encode(), headers=bearer(tok)
        )
        urllib.request.urlopen(req, timeout=10).read()
        drv = browser()
        try:
            for path in ("", "player?name=" + urllib.parse.quote(XSS), "game?seq=1"):
                drv.get(url + path)
                # An alert would be open now (and get() would have raised); none is.
                assert (
                    drv.execute_script("return document.querySelectorAll('script, img').length")
                    == 0
                )
                assert XSS in drv.find_element("tag name", "body").text or path.startswith("game")
            assert "</pre><script>alert(3)</script>" in drv.find_element("id", "record").text
        finally:
            quit_browser(drv)
