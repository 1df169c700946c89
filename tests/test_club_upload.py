"""The club's record upload over HTTP, on both engines: trusts nothing, replays every record,
idempotent on (board, id, content), keeps and shows conflicts, answers only after commit."""

import json

import pytest

from _club_pg import club_url  # noqa: F401  (fixture)
from _club_helpers import bearer, club_client, token_for
from _host_helpers import random_record

pytestmark = pytest.mark.xdist_group("club_pg")


def test_upload_added_duplicate_conflict_and_shown(club_url):
    with club_client(club_url) as (c, store):
        tok = token_for(store, "pico-aa01")
        assert c.get("/api/whoami", headers=bearer(tok)).json() == {"board": "pico-aa01"}
        a = random_record(11, "pico-aa01-0001")
        b = random_record(12, "pico-aa01-0001")
        r = c.post("/api/records", content=a.to_text(), headers=bearer(tok))
        assert r.status_code == 200 and r.json()["outcome"] == "added", r.text
        # Acknowledged means committed: another connection to the database sees it now.
        assert [x["rid"] for x in store.records()] == ["pico-aa01-0001"]
        r = c.post("/api/records", content=json.dumps(a.to_dict()), headers=bearer(tok))
        assert r.json()["outcome"] == "duplicate"
        r = c.post("/api/records", content=b.to_text(), headers=bearer(tok))
        assert r.json()["outcome"] == "conflict"
        assert len(store.records()) == 2
        page = c.get("/").text
        assert "Conflicts" in page and "/game?seq=%d" % r.json()["seq"] in page
        g = c.get("/game?seq=%d" % r.json()["seq"]).text
        assert "conflict: another game has this id" in g


def test_upload_refusals(club_url):
    with club_client(club_url) as (c, store):
        tok = token_for(store, "pico-aa01")
        other = token_for(store, "pico-bb02")
        rec = random_record(13, "pico-aa01-0002")
        # No token, a made-up token: nothing is read.
        assert c.post("/api/records", content=rec.to_text()).status_code == 401
        assert (
            c.post(
                "/api/records", content=rec.to_text(), headers=bearer("bawo_" + "x" * 43)
            ).status_code
            == 401
        )
        # Another board's token: refused, as the record names its board.
        r = c.post("/api/records", content=rec.to_text(), headers=bearer(other))
        assert r.status_code == 422 and "not by this token's board" in r.json()["error"]
        # A forged record: a move changed, so it does not replay.
        forged = rec.to_text().replace(
            '[Result "%s"]' % rec.header["Result"],
            '[Result "%s"]' % ("draw" if rec.header["Result"] != "draw" else "S"),
        )
        r = c.post("/api/records", content=forged, headers=bearer(tok))
        assert r.status_code == 422 and "does not replay" in r.json()["error"]
        # Oversized: refused before it is read whole.
        r = c.post("/api/records", content=b"[" * (300 * 1024), headers=bearer(tok))
        assert r.status_code == 413
        # A revoked token uploads no more.
        n = [t["id"] for t in store.tokens() if t["board"] == "pico-aa01"][0]
        assert store.revoke_token(n) == "pico-aa01"
        assert c.post("/api/records", content=rec.to_text(), headers=bearer(tok)).status_code == 401
        assert store.records() == []
