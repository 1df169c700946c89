"""Issue 27: one id, two games. Two boards with one id (a cloned flash, an id reset), or a board
whose counter went back, list another game under an id the log holds. The log keeps both (the
second beside the first as a conflict), says so, and the board acks only what the log holds.
The boards are firmware/link.py + firmware/journal.py under the MicroPython unix port on a pty."""

import json
import os
import subprocess

from _host_helpers import Relay, seed_journal, write_board_script, bawo_cmd, env_with_path

from bawo.db import Log


def _board(tmp_path, name, board, seed):
    journal = tmp_path / name
    recs = seed_journal(journal, 1, board=board, seed=seed)
    relay = Relay(
        write_board_script(tmp_path / (name + ".py"), journal, board=board),
        stderr_path=str(tmp_path / (name + ".err")),
    )
    return relay, journal, recs[0]


def _bawo(*args):
    r = subprocess.run(
        bawo_cmd() + list(args), capture_output=True, text=True, env=env_with_path(), timeout=120
    )
    assert "Traceback" not in r.stderr, r.stderr
    return r


def _synced(journal):
    return sorted(n for n in os.listdir(journal) if n.endswith((".rec", ".syn")))


def test_two_boards_with_one_id_keep_both_games(tmp_path):
    db = str(tmp_path / "games.sqlite")
    a, ja, rec_a = _board(tmp_path, "a", "pico-00000000", 1)
    b, jb, rec_b = _board(tmp_path, "b", "pico-00000000", 2)
    gid = rec_a.header["Id"]
    try:
        assert rec_b.header["Id"] == gid and rec_a.to_text() != rec_b.to_text()
        a.ensure_board()
        r = _bawo("sync", "--port", a.port_name, "--db", db)
        assert r.returncode == 0 and "1 new game(s) stored" in r.stdout, r.stdout + r.stderr
        b.ensure_board()
        r = _bawo("sync", "--port", b.port_name, "--db", db)
        # Told, and the exit status says so.
        assert r.returncode == 1, r.stdout + r.stderr
        assert "1 conflict(s) kept" in r.stdout and ("conflict %s" % gid) in r.stdout, r.stdout
        # Held, so the board may forget it: acked, and the next sync has nothing to do.
        assert _synced(jb) == [gid + ".syn"]
        r = _bawo("sync", "--port", b.port_name, "--db", db, "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["listed"] == 0, r.stdout
    finally:
        a.close()
        b.close()
    log = Log(db)
    try:
        rows = {row["id"]: row for row in log.games()}
    finally:
        log.close()
    assert len(rows) == 2 and rows[gid]["record"] == rec_a.to_text()
    (cid,) = set(rows) - {gid}
    assert rows[cid]["status"] == "conflict" and rows[cid]["record"] == rec_b.to_text()
    r = _bawo("games", "--db", db)
    assert ("%s" % cid) in r.stdout and ("conflict: another game has id %s" % gid) in r.stdout, (
        r.stdout
    )


def test_a_reused_id_is_fetched_not_acked_unseen(tmp_path):
    """A board's synced record was pruned and its counter went back: its next game has the
    old id. LIST's crc differs from the one the log holds, so sync fetches it and keeps it."""
    db = str(tmp_path / "games.sqlite")
    relay, journal, old = _board(tmp_path, "a", "tb", 1)
    gid = old.header["Id"]
    try:
        relay.ensure_board()
        assert _bawo("sync", "--port", relay.port_name, "--db", db).returncode == 0
        relay.kill_board()
        os.remove(os.path.join(str(journal), gid + ".syn"))  # pruned to free flash
        (new,) = seed_journal(journal, 1, board="tb", seed=7)  # the same id again
        assert new.header["Id"] == gid and new.to_text() != old.to_text()
        relay.ensure_board()
        r = _bawo("sync", "--port", relay.port_name, "--db", db, "--json")
        rep = json.loads(r.stdout)
        assert r.returncode == 1 and rep["bytes"] > 0 and not rep["reacked"], r.stdout
        assert [c["id"] for c in rep["conflicts"]] == [gid], rep
    finally:
        relay.close()
    log = Log(db)
    try:
        texts = sorted(row["record"] for row in log.games())
    finally:
        log.close()
    assert texts == sorted([old.to_text(), new.to_text()])


def test_import_keeps_another_game_with_a_taken_id(tmp_path):
    from _host_helpers import random_record

    db = str(tmp_path / "games.sqlite")
    a, b = random_record(1, "pico-00000000-0001"), random_record(2, "pico-00000000-0001")
    (tmp_path / "a.txt").write_text(a.to_text())
    (tmp_path / "b.txt").write_text(b.to_text())
    assert _bawo("import", str(tmp_path / "a.txt"), "--db", db).returncode == 0
    r = _bawo("import", str(tmp_path / "b.txt"), "--db", db)
    assert r.returncode == 1 and "0 added, 0 already in the log, 1 conflict(s) kept" in r.stdout, (
        r.stdout
    )
    assert "kept beside it as pico-00000000-0001~" in r.stdout, r.stdout
    # Seen again: a duplicate of the kept copy, not a second conflict.
    r = _bawo("import", str(tmp_path / "b.txt"), "--db", db)
    assert r.returncode == 0 and "0 added, 1 already in the log, 0 failed" in r.stdout, r.stdout
    r = _bawo("games", "--db", db, "--json")
    rows = json.loads(r.stdout)
    assert sorted(x["status"] for x in rows) == ["conflict", "done"], rows
