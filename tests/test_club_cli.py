"""The admin's `bawo club` commands on the club's database: tokens (printed once, listed by
number, revoked), admin accounts (password from stdin), seats; bad input refused in one line."""

import io
import sys

from bawo.cli import main
from bawo.club import auth
from bawo.club.store import open_store


def _run(capsys, *argv, stdin=None):
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        rc = main(list(argv))
    finally:
        sys.stdin = sys.__stdin__
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_club_admin_commands(tmp_path, capsys):
    db = str(tmp_path / "club.sqlite")
    rc, out, err = _run(capsys, "club", "token", "--db", db, "pico-1a2b")
    tok = out.strip()
    assert rc == 0 and tok.startswith("bawo_") and "shown this once" in err
    store = open_store(db)
    try:
        assert store.board_of_token(auth.token_hash(tok)) == "pico-1a2b"
        rc, out, _ = _run(capsys, "club", "tokens", "--db", db)
        assert rc == 0 and "pico-1a2b" in out and tok not in out
        assert _run(capsys, "club", "revoke", "--db", db, "1")[0] == 0
        assert store.board_of_token(auth.token_hash(tok)) is None
        rc, _, err = _run(capsys, "club", "revoke", "--db", db, "1")
        assert rc == 1 and "no live token 1" in err
        rc, out, _ = _run(capsys, "club", "admin", "--db", db, "alice", stdin="a long password\n")
        assert rc == 0 and store.admin("alice") is not None
        rc, _, err = _run(capsys, "club", "admin", "--db", db, "bob", stdin="short\n")
        assert rc == 1 and "10 to" in err and store.admin("bob") is None
        rc, _, err = _run(capsys, "club", "token", "--db", db, "../etc/passwd")
        assert rc == 1 and "board id" in err
        rc, _, err = _run(capsys, "club", "seat", "--db", db, "pico-9999", "Ada", "Bo")
        assert rc == 1 and "no board pico-9999" in err
        assert _run(capsys, "club", "seat", "--db", db, "pico-1a2b", "Ada", "Bo")[0] == 0
        assert [(s["south"], s["north"]) for s in store.seats()] == [("Ada", "Bo")]
    finally:
        store.close()


def test_push_and_stream_need_a_joined_club(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    rc, _, err = _run(capsys, "club", "push")
    assert rc == 1 and "joined no club" in err
    rc, _, err = _run(capsys, "club", "join", "ftp://club", "--token", "x")
    assert rc == 1 and "http(s)://" in err
    # A club that is not there: refused, nothing kept.
    rc, _, err = _run(capsys, "club", "join", "http://127.0.0.1:9/", "--token", "bawo_x")
    assert rc == 1 and "did not take the token" in err
    assert not (tmp_path / "bawo" / "club.json").exists()


def test_push_reports_conflicts_and_refusals(tmp_path):
    import sqlite3
    from _club_helpers import live_server, token_for
    from _host_helpers import random_record
    from bawo.commands.club import deliver
    from bawo.club.client import Outbox

    pc = str(tmp_path / "pc.sqlite")
    with live_server(str(tmp_path / "club.sqlite")) as (url, store):
        tok = token_for(store, "pico-aa01")
        a, b = random_record(1, "pico-aa01-0001"), random_record(2, "pico-aa01-0001")
        bad = random_record(3, "pico-aa01-0002").to_text().replace('[Rules "1"]', '[Rules "0"]')
        with sqlite3.connect(pc) as conn:
            box = Outbox(conn)
            for text in (a.to_text(), b.to_text(), bad):
                box.put("pico-aa01", text)
        out = io.StringIO()
        rep = deliver(pc, {"url": url, "boards": {"pico-aa01": tok}}, out=out)
        text = out.getvalue()
        assert "2 record(s) delivered, 1 refused" in text
        assert "club refused pico-aa01-0002: the record does not replay" in text
        assert "pico-aa01-0001 is another game under an id the club holds" in text
        assert not rep.ok() and len(store.records()) == 2


def test_a_damaged_club_config_does_not_stop_a_sync(tmp_path, monkeypatch, capsys):
    # The sync itself fails here (no board at the port), but after the warning, not before.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "bawo").mkdir()
    (tmp_path / "bawo" / "club.json").write_text("{not json")
    rc, _, err = _run(
        capsys, "sync", "--port", str(tmp_path / "no-such-port"), "--db", str(tmp_path / "g.sqlite")
    )
    assert rc == 1
    assert "warning: the club config" in err and "syncing without the club" in err


def test_an_admin_seats_players_from_another_pc(tmp_path, capsys):
    from _club_helpers import live_server, token_for

    with live_server(str(tmp_path / "club.sqlite")) as (url, store):
        token_for(store, "pico-aa01")
        store.add_admin("root", *auth.hash_password("a long password"))
        rc, out, _ = _run(
            capsys,
            "club",
            "seat",
            "--url",
            url,
            "--admin",
            "root",
            "pico-aa01",
            "Ada",
            "Bo",
            stdin="a long password\n",
        )
        assert rc == 0 and "South Ada, North Bo" in out
        assert [(s["south"], s["north"]) for s in store.seats()] == [("Ada", "Bo")]
        rc, _, err = _run(
            capsys,
            "club",
            "seat",
            "--url",
            url,
            "--admin",
            "root",
            "pico-aa01",
            "Chi",
            "Bo",
            stdin="wrong\n",
        )
        assert rc == 1 and "refused the login" in err
        rc, _, err = _run(
            capsys,
            "club",
            "seat",
            "--url",
            url,
            "--admin",
            "root",
            "pico-zz99",
            "Chi",
            "Bo",
            stdin="a long password\n",
        )
        assert rc == 1 and "no board pico-zz99" in err
        assert len(store.seats()) == 1
