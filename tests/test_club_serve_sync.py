"""The `bawo serve` page's Sync button delivers to the club as `bawo sync` does, once the PC
joined one: the board's records are queued in the PC's log file before the board forgets them,
then delivered, and the answer says so. The board is the firmware's link.py + journal.py under
the MicroPython unix port on a pty (as tests/test_club_sync.py); the club is a real server on
loopback."""

import os

import httpx
import pytest

from _club_helpers import live_server, token_for
from _host_helpers import Relay, seed_journal, write_board_script
from _serve_helpers import Server, wait_for

from bawo.club.client import config_path, join

pytestmark = pytest.mark.xdist_group("club_pg")


def _sync(srv):
    r = httpx.post(
        srv.url + "api/sync",
        json={},
        timeout=60,
        headers={"Host": "127.0.0.1:%d" % srv.cfg.port, "X-Bawo-Token": srv.cfg.token},
    )
    return r.json() if r.status_code == 200 else None


def test_the_pages_sync_delivers_to_the_club(tmp_path, monkeypatch):
    board = "pico-cc05"
    recs = seed_journal(tmp_path / "j", 2, board=board, seed=9)
    relay = Relay(
        write_board_script(tmp_path / "b.py", tmp_path / "j", board=board),
        stderr_path=str(tmp_path / "b.err"),
    )
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the PC's bawo data dir
    club_db = str(tmp_path / "club.sqlite")
    srv = None
    try:
        with live_server(club_db) as (url, store):
            join(url, token_for(store, board))
            port = int(url.rsplit(":", 1)[1].strip("/"))
        relay.ensure_board()
        srv = Server(str(tmp_path / "pc.sqlite"), board_port=relay.port_name)
        # The club is away: the games are synced all the same, and wait for it.
        r = wait_for(lambda: _sync(srv), 60, "the page's link to the board")
        assert len(r["added"]) == 2, r
        assert r["club"]["delivered"] == 0 and r["club"]["queued"] == 2, r
        assert "the club cannot be reached" in r["club"]["stopped"], r
        with live_server(club_db, port=port) as (url, store):
            # Nothing new on the board; what waited goes now, in order, whole.
            r = _sync(srv)
            assert r["added"] == [] and r["club"]["delivered"] == 2, r
            assert r["club"]["lines"] == ["club: 2 record(s) delivered"], r
            rows = sorted(store.records(), key=lambda x: x["seq"])
            assert [x["rid"] for x in rows] == [x.header["Id"] for x in recs]
            assert [store.record(x["seq"])["record"] for x in rows] == [x.to_text() for x in recs]
            r = _sync(srv)
            assert r["club"]["delivered"] == 0 and r["club"]["stopped"] is None, r
        # A PC that joined no club: the page's sync says nothing of one.
        os.remove(config_path())
        r = _sync(srv)
        assert "club" not in r, r
    finally:
        if srv is not None:
            srv.stop()
        relay.close()
