"""`bawo sync` against a broken or hostile board over a real pty (tests/_hostile_board.py):
every reply is checked whole before it is used, one bad record is reported (or quarantined)
and the sync goes on with the next, a sync is bounded, and no traceback ever reaches the user."""

import json
import subprocess

import pytest

from _host_helpers import bawo_cmd, env_with_path, random_record
from _hostile_board import HostileBoard, records_board
from _link_helpers import P


def _records():
    return {
        "evil-01-%04d" % i: random_record(i, "evil-01-%04d" % i).to_text().encode()
        for i in (1, 2, 3)
    }


def _sync(board, db):
    r = subprocess.run(
        bawo_cmd() + ["sync", "--port", board.port, "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        env=env_with_path(),
        timeout=120,
    )
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    return r


def _run(tmp_path, broken, records=None):
    reply = records_board(records or _records(), broken)
    board = HostileBoard(reply)
    try:
        r = _sync(board, tmp_path / "games.sqlite")
    finally:
        board.close()
    return r, board, reply.acked


def _get_of(first, change):
    # Breaks the GET replies of the first record only.
    def broken(typ, p, good):
        if typ == P.GET and p["id"] == first and isinstance(good, dict):
            return change(dict(good))
        return None

    return broken


def _drop(key):
    def change(d):
        d.pop(key)
        return d

    return change


def _set(key, value):
    def change(d):
        d[key] = value
        return d

    return change


@pytest.mark.parametrize(
    "change",
    [
        _drop("total"),
        _drop("crc"),
        _drop("data"),
        _set("total", "9"),
        _set("total", 10**9),
        _set("data", 5),
        _set("data", "!!not base64"),
        _set("off", 3),
        _set("crc", -1),
    ],
    ids=[
        "no-total",
        "no-crc",
        "no-data",
        "string-total",
        "total-1e9",
        "int-data",
        "bad-base64",
        "wrong-off",
        "negative-crc",
    ],
)
def test_a_bad_get_reply_leaves_that_record_and_syncs_the_rest(tmp_path, change):
    recs = _records()
    first = list(recs)[0]
    r, board, acked = _run(tmp_path, _get_of(first, change), recs)
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert [f["id"] for f in rep["failed"]] == [first], rep
    assert sorted(rep["added"]) == sorted(list(recs)[1:]) and acked == set(list(recs)[1:])
    # Bounded: a record's GETs stop at the first bad reply.
    assert sum(1 for t, p in board.seen if t == P.GET and p["id"] == first) == 1


def _list(change):
    def broken(typ, p, good):
        if typ == P.LIST:
            return change(dict(good))
        return None

    return broken


def _growing(d):
    # A page of one game whose next runs ahead of it: a board that would be paged for ever.
    d["games"] = d["games"][:1]
    d["next"] = d["start"] * 2 + 5
    d["total"] = 60000
    return d


@pytest.mark.parametrize(
    "change",
    [
        _drop("games"),
        _set("games", {"a": 1}),
        _set("next", "8"),
        _set("total", "3"),
        _set("total", 10**9),
        _growing,
        _set("games", [{"id": "../../etc"}]),
        _set("games", [5]),
    ],
    ids=[
        "no-games",
        "games-not-list",
        "string-next",
        "string-total",
        "total-1e9",
        "growing-next",
        "id-a-path",
        "entry-not-dict",
    ],
)
def test_a_bad_list_reply_is_one_line_and_nothing_is_fetched(tmp_path, change):
    r, board, acked = _run(tmp_path, _list(change))
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bawo: error:") and "LIST" in lines[0], r.stderr
    assert sum(1 for t, _ in board.seen if t == P.LIST) == 1
    assert not any(t in (P.GET, P.ACK_GAME) for t, _ in board.seen) and not acked


@pytest.mark.parametrize("proto", ["1", None, 1.0, True, [1]])
def test_a_bad_hello_is_one_line(tmp_path, proto):
    def broken(typ, p, good):
        if typ == P.HELLO:
            good = dict(good)
            good["proto"] = proto
            return good
        return None

    r, board, _ = _run(tmp_path, broken)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bawo: error:") and "proto" in lines[0], r.stderr
    assert not any(t in (P.LIST, P.GET) for t, _ in board.seen)


def test_a_deeply_nested_record_is_quarantined_and_blocks_nothing(tmp_path):
    recs = _records()
    deep = "evil-01-0000"
    recs = dict([(deep, b'{"moves":' + b"[" * 60000 + b"]" * 60000 + b"}")] + list(recs.items()))
    for run in (1, 2):
        reply = records_board(recs)
        board = HostileBoard(reply)
        try:
            r = _sync(board, tmp_path / "games.sqlite")
        finally:
            board.close()
        assert r.returncode == 1, r.stderr
        rep = json.loads(r.stdout)
        assert [q["id"] for q in rep["quarantined"]] == [deep], rep
        good = sorted(set(recs) - {deep})
        assert sorted(rep["added"] if run == 1 else rep["reacked"]) == good, rep
        assert reply.acked == set(good)  # the bad one stays on the board


def test_a_sync_fetches_a_bounded_amount(tmp_path, monkeypatch):
    """A board whose records never end: MAX_SYNC_BYTES, then the rest are left for later."""
    import bawo.sync as S
    from bawo.db import Log
    from bawo.boardlink import BoardLink
    import serial

    recs = _records()
    monkeypatch.setattr(S, "MAX_SYNC_BYTES", len(recs["evil-01-0001"]))
    board = HostileBoard(records_board(recs))
    log = Log(str(tmp_path / "g.sqlite"))
    try:
        port = serial.Serial(board.port, timeout=0.05)
        link = BoardLink(port)
        link.hello()
        rep = S.sync(link, log)
        port.close()
    finally:
        board.close()
        log.close()
    assert rep.added == ["evil-01-0001"] and [f[0] for f in rep.failed] == [
        "evil-01-0002",
        "evil-01-0003",
    ]
    assert not rep.ok()
