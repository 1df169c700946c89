"""The club's storage on both engines (a real PostgreSQL server, tests/_club_pg.py): migrations
from every past schema version, and the upload's rules (replay, idempotence, conflicts)."""

import pytest

from _club_pg import club_url  # noqa: F401  (fixture)
from _host_helpers import random_record

from bawo.club import ClubError
from bawo.club.migrations import LATEST, MIGRATIONS
from bawo.club.records import Refused, verify
from bawo.club.store import (
    ADDED,
    CONFLICT,
    DUPLICATE,
    PgStore,
    SqliteStore,
    is_postgres,
    open_store,
)

pytestmark = pytest.mark.xdist_group("club_pg")


def _raw(url):
    return PgStore(url) if is_postgres(url) else SqliteStore(url)


# What a club at each past version holds: rows written with that version's columns only.
SAMPLES = {
    1: [
        "INSERT INTO boards (id, added) VALUES ('b1', '2025-01-01T00:00:00Z')",
        "INSERT INTO records (board, rid, sha, status, game, result, reason, plies, start, played,"
        " first_tag, second_tag, added, record) VALUES ('b1', 'b1-0001', 'abc', 'ok', 'oware', 'S',"
        " 'x', 3, NULL, NULL, NULL, NULL, '2025-01-01T00:00:00Z', 'text')",
    ],
    2: ["INSERT INTO tokens (board, hash, created) VALUES ('b1', 'h1', '2025-01-02T00:00:00Z')"],
    3: [
        "INSERT INTO seats (board, south, north, since) VALUES ('b1', 'Ada', 'Bo', '2025-01-03T00:00:00Z')"
    ],
    4: [
        "INSERT INTO admins (name, salt, hash, added) VALUES ('root', 's', 'h', '2025-01-04T00:00:00Z')"
    ],
    5: [
        "INSERT INTO live (board, rid, game, start, moves, ply, done, updated) VALUES"
        " ('b1', 'b1-0002', 'oware', NULL, 'F3', 1, 0, '2025-01-05T00:00:00Z')"
    ],
    6: [
        "INSERT INTO players (name, added) VALUES ('Ada', '2025-01-06T00:00:00Z')",
        "INSERT INTO tournaments (name, game, system, rounds, created) VALUES"
        " ('Spring', 'oware', 'swiss', 4, '2025-01-06T00:00:00Z')",
        "INSERT INTO entrants (tournament, player, seed) VALUES (1, 'Ada', 1)",
        "INSERT INTO pairings (tournament, round, tbl, south, north, board, result, started)"
        " VALUES (1, 1, 1, 'Ada', NULL, NULL, 'bye', '2025-01-06T00:00:00Z')",
    ],
    7: [
        "INSERT INTO remote_games (game, state, by_board, by_side, position, moves, ply, version,"
        " created, updated) VALUES ('oware', 'open', 'b1', 'any', '4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S',"
        " '', 0, 1, '2025-01-07T00:00:00Z', '2025-01-07T00:00:00Z')"
    ],
}


def test_every_version_has_a_sample():
    assert sorted(SAMPLES) == list(range(1, LATEST + 1)) == list(range(1, len(MIGRATIONS) + 1))


@pytest.mark.parametrize("start", range(0, LATEST + 1))
def test_migrates_from_every_past_version(club_url, start):
    s = _raw(club_url)
    try:
        s.migrate(to=start)
        assert s.version() == start
        with s.tx() as t:
            for v in range(1, start + 1):
                for q in SAMPLES[v]:
                    t.execute(q)
    finally:
        s.close()
    s = open_store(club_url)  # what `bawo club serve` does on start
    try:
        assert s.version() == LATEST
        if start >= 1:
            (r,) = s.records()
            assert (r["rid"], r["south"], r["north"]) == ("b1-0001", None, None)
        if start >= 2:
            assert s.board_of_token("h1") == "b1"
        if start >= 3:
            assert [(x["board"], x["south"]) for x in s.seats()] == [("b1", "Ada")]
        if start >= 4:
            assert s.admin("root")["hash"] == "h"
        if start >= 5:
            assert [(x["board"], x["ply"]) for x in s.live_boards(since="2000")] == [("b1", 1)]
        if start >= 6:
            from bawo.club import tournaments

            assert [(x["name"], x["players"], x["round"]) for x in tournaments.listing(s)] == [
                ("Spring", 1, 1)
            ]
        if start >= 7:
            from bawo.club import remote_games as remote

            rows = s.query("SELECT id, state, reason FROM remote_games")
            assert [(r["id"], r["state"], r["reason"]) for r in rows] == [(1, "open", None)]
            # The sample seek is from 2025: the first listing withdraws it (SEEK_TTL_H).
            assert remote.open_seeks(s, "b2").answer["seeks"] == []
            rows = s.query("SELECT id, state, reason FROM remote_games")
            assert [(r["id"], r["state"], r["reason"]) for r in rows] == [(1, "over", "expired")]
        # A second start finds nothing to do and keeps the data.
        assert s.migrate() == LATEST and len(s.records()) == (1 if start else 0)
    finally:
        s.close()


def test_a_newer_database_is_refused(club_url):
    s = open_store(club_url)
    try:
        with s.tx() as t:
            t.execute("UPDATE club_schema SET version=?", (LATEST + 1,))
    finally:
        s.close()
    with pytest.raises(ClubError, match="newer than this bawo"):
        open_store(club_url)


def test_upload_is_idempotent_and_keeps_conflicts(club_url):
    s = open_store(club_url)
    try:
        s.add_board("b1")
        a = random_record(1, "b1-0001")
        b = random_record(2, "b1-0001")
        assert a.to_text() != b.to_text()
        va = verify("b1", a.to_text().encode())
        assert s.upload("b1", va)[0] == ADDED
        # The same content again (also sent as JSON): nothing new.
        import json

        assert s.upload("b1", verify("b1", json.dumps(a.to_dict()).encode()))[0] == DUPLICATE
        # Another content under the same id: kept beside it, and shown as a conflict.
        assert s.upload("b1", verify("b1", b.to_text().encode()))[0] == CONFLICT
        assert s.upload("b1", verify("b1", b.to_text().encode()))[0] == DUPLICATE
        rows = s.records()
        assert sorted(r["status"] for r in rows) == ["conflict", "ok"]
        assert [r["rid"] for r in s.records(status="conflict")] == ["b1-0001"]
    finally:
        s.close()


def test_what_does_not_replay_is_refused():
    rec = random_record(3, "b1-0002", name="oware")
    text = rec.to_text()
    bad = text.replace(rec.moves[2], "F6" if rec.moves[2] != "F6" else "E6", 1)
    with pytest.raises(Refused, match="does not replay"):
        verify("b1", bad.encode())
    with pytest.raises(Refused, match="not by this token's board"):
        verify("b2", text.encode())
    with pytest.raises(Refused, match="at most"):
        verify("b1", b"x" * (256 * 1024 + 1))
    with pytest.raises(Refused):
        verify("b1", b"\xff\xfe not text")


def test_processes_starting_at_once_migrate_once(club_url):
    # Four club processes start together on a new database: one migrates, the others wait for
    # its lock and find nothing to do.
    import threading

    got, errors = [], []

    def start():
        try:
            s = open_store(club_url)
            got.append(s.version())
            s.close()
        except Exception as e:  # the test fails on any, named below
            errors.append(repr(e))

    ts = [threading.Thread(target=start) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    assert errors == [] and got == [LATEST] * 4


def test_missing_postgresql_fails_the_tests_not_skips(monkeypatch):
    import _club_pg

    monkeypatch.setattr(_club_pg.glob, "glob", lambda pattern: [])
    with pytest.raises(pytest.fail.Exception, match="install-system-deps"):
        _club_pg._bindir()
