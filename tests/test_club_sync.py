"""A PC joins a club and `bawo sync` delivers its board's records there; offline, they wait in
the PC's own log file and go later, in order, with `bawo club push`. The board is the firmware's
link.py + journal.py under the MicroPython unix port on a pty (as tests/test_sync_conflicts.py);
the club is a real server on loopback."""

import json
import os
import sqlite3
import subprocess

import pytest

from _club_helpers import live_server, token_for
from _host_helpers import Relay, bawo_cmd, env_with_path, seed_journal, write_board_script

pytestmark = pytest.mark.xdist_group("club_pg")


def _bawo(env, *args):
    r = subprocess.run(
        bawo_cmd() + list(args), capture_output=True, text=True, env=env, timeout=120
    )
    assert "Traceback" not in r.stderr, r.stderr
    return r


def test_sync_queues_offline_and_push_delivers_in_order(tmp_path):
    board = "pico-cc03"
    recs = seed_journal(tmp_path / "j", 3, board=board, seed=5)
    relay = Relay(
        write_board_script(tmp_path / "b.py", tmp_path / "j", board=board),
        stderr_path=str(tmp_path / "b.err"),
    )
    env = env_with_path()
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the PC's bawo data dir
    env.pop("BAWO_DB", None)
    club_db = str(tmp_path / "club.sqlite")
    pc_db = str(tmp_path / "pc.sqlite")
    try:
        with live_server(club_db) as (url, store):
            tok = token_for(store, board)
            port = int(url.rsplit(":", 1)[1].strip("/"))
            r = _bawo(env, "club", "join", url, "--token", tok)
            assert r.returncode == 0 and "board %s joined" % board in r.stdout, r.stderr
            cfg = os.path.join(env["XDG_DATA_HOME"], "bawo", "club.json")
            assert json.load(open(cfg))["boards"] == {board: tok}
            assert os.stat(cfg).st_mode & 0o077 == 0  # it holds a secret
        # The club is down: the sync still succeeds, and the records wait.
        relay.ensure_board()
        r = _bawo(env, "sync", "--port", relay.port_name, "--db", pc_db)
        assert r.returncode == 0 and "3 new game(s) stored" in r.stdout, r.stdout + r.stderr
        assert "0 record(s) delivered; 3 queued: the club cannot be reached" in r.stdout, r.stdout
        with sqlite3.connect(pc_db) as c:
            assert [
                x[0]
                for x in c.execute(
                    "SELECT rid FROM club_outbox WHERE delivered IS NULL ORDER BY seq"
                )
            ] == [x.header["Id"] for x in recs]
        with live_server(club_db, port=port) as (url, store):
            r = _bawo(env, "club", "push", "--db", pc_db)
            assert r.returncode == 0 and "3 record(s) delivered" in r.stdout, r.stdout + r.stderr
            rows = store.records()
            # In order, and exactly what the board wrote.
            assert [x["seq"] for x in sorted(rows, key=lambda x: x["rid"])] == sorted(
                x["seq"] for x in rows
            )
            assert {store.record(x["seq"])["record"] for x in rows} == {x.to_text() for x in recs}
            r = _bawo(env, "club", "push", "--db", pc_db)
            assert "0 record(s) delivered" in r.stdout and len(store.records()) == 3
    finally:
        relay.close()
