"""The game log's readers and its import boundary (issue 27: points 5, 14, 18, 21, the lone
surrogate): a bad record is refused or quarantined on its own, a row nothing can read is named
and skipped while the rest is listed and exported, Ctrl-C keeps what was stored, and PLAYED is
one rule on the terminal and on the web page."""

import codecs
import json
import os
import re
import signal
import sqlite3
import subprocess
import time

import pytest

from _host_helpers import bawo_cmd, env_with_path, random_record
from bawo import cli
from bawo.db import Log


def run(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _line(rec, **change):
    d = rec.to_dict()
    d.update(change)
    return json.dumps(d) + "\n"


def _raw_row(db, rid, start, record, added="2026-01-01T00:00:00+00:00"):
    """A row as an older bawo (or another program, or a bad disk) left it: no check at all.
    bytes values are stored as TEXT that is not UTF-8."""

    def text(v):
        return ("CAST(? AS TEXT)", v) if isinstance(v, bytes) else ("?", v)

    cols = [text(rid), text(start), text(record)]
    con = sqlite3.connect(str(db))
    with con:
        con.execute(
            "INSERT INTO games (id, game, start, result, plies, status, source, added, record)"
            " VALUES (%s, 'bawo', %s, '*', 0, 'done', 'import', ?, %s)"
            % (cols[0][0], cols[1][0], cols[2][0]),
            (cols[0][1], cols[1][1], added, cols[2][1]),
        )
    con.close()


@pytest.mark.parametrize("start", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+01:00"])
def test_a_start_no_board_can_write_is_refused_at_import(tmp_path, capsys, start):
    db = tmp_path / "g.sqlite"
    good = [random_record(i, "pico-%04d" % i) for i in (1, 2)]
    f = tmp_path / "in.jsonl"
    f.write_text(_line(good[0]) + _line(good[0], id="pico-0009", start=start) + _line(good[1]))
    rc, out, err = run(capsys, "import", f, "--db", db)
    assert rc == 1 and "2 added, 0 already in the log, 1 failed" in out, out
    bad = [x for x in out.splitlines() if "line 2" in x]
    assert len(bad) == 1 and "Start" in bad[0] and "between 2000 and 2099" in bad[0], out
    assert start in bad[0]
    rc, out, err = run(capsys, "games", "--db", db)
    assert rc == 0 and "2 game(s)" in out and err == ""
    rc, out, err = run(capsys, "export", "--db", db)
    assert rc == 0 and [json.loads(x)["id"] for x in out.splitlines()] == ["pico-0001", "pico-0002"]
    # The refused record is kept in quarantine as it was in the file.
    q = Log(str(db)).quarantined()
    assert [json.loads(r["record"])["start"] for r in q] == [start]


def test_a_row_nothing_can_read_is_named_and_the_rest_listed_and_exported(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    good = [random_record(i, "pico-%04d" % i) for i in (1, 2, 3)]
    with Log(str(db)) as log:
        for r in good:
            log.add(r, "import")
    # As an older bawo stored it: a start out of any clock's range, in the row and the record.
    far = (
        good[0]
        .to_text()
        .replace("pico-0001", "pico-0091")
        .replace(good[0].header["Start"], "9999-12-31T23:59:59-23:59")
    )
    _raw_row(db, "pico-0091", "9999-12-31T23:59:59-23:59", far)
    _raw_row(db, "pico-0092", "0001-01-01T00:00:00+01:00", far.replace("pico-0091", "pico-0092"))
    # Text that is not UTF-8: in the record, in the id, in the start.
    _raw_row(db, "pico-0093", "2025-06-01 10:00:00", b'[Game "bawo"]\n\xff\xfe')
    _raw_row(db, b"pico-\xff94", "2025-06-01 10:00:00", "x")
    _raw_row(
        db, "pico-0095", b"2025-06-01\xff", good[1].to_text().replace("pico-0002", "pico-0095")
    )
    readable = ["pico-0001", "pico-0002", "pico-0003", "pico-0091", "pico-0092"]
    named = ["pico-0093 (row 6)", "pico-\\xff94 (row 7)", "pico-0095 (row 8)"]

    def names(err):
        lines = err.strip().splitlines()
        assert all(x.startswith("bawo: skipped game ") and "cannot be read" in x for x in lines), (
            err
        )
        return [x[len("bawo: skipped game ") :].split(":")[0] for x in lines]

    rc, out, err = run(capsys, "games", "--db", db)
    assert rc == 1 and "5 game(s)" in out and names(err) == named
    listed = [x.split()[0] for x in out.splitlines()[1:-1]]
    assert sorted(listed) == readable
    assert [
        x.split()[2] for x in out.splitlines()[1:-1] if x.split()[0] in ("pico-0091", "pico-0092")
    ] == ["unknown", "unknown"]
    rc, out, err = run(capsys, "games", "--db", db, "--json", "--since", "2025-01-01")
    assert rc == 1 and sorted(g["id"] for g in json.loads(out)) == readable[:3]
    assert names(err) == named[:2]  # pico-0095's start is no date: not in the range asked
    for fmt in ("jsonl", "text", "csv"):
        f = tmp_path / ("out." + fmt)
        rc, out, err = run(capsys, "export", "--db", db, "-f", fmt, "-o", f)
        assert rc == 1, err
        assert names(err.split("5 game(s) written")[0]) == named, err
        assert "5 game(s) written to %s; 3 unreadable row(s) skipped" % f in err
        text = f.read_text()
        assert all(g in text for g in readable)
    # The text export holds the stored records as they are: far among them.
    assert far in (tmp_path / "out.text").read_text()
    rc, out, err = run(capsys, "show", "pico-0093", "--db", db, "--all")
    assert rc == 1 and "pico-0093 (row 6) cannot be read: its record is not UTF-8 text" in err
    rc, out, err = run(capsys, "show", "pico-0002", "--db", db, "--all")
    assert rc == 0 and "plays" in out
    # The web library lists the log too, bad rows and all.
    from _serve_helpers import Server
    import httpx

    s = Server(str(db), follow_board=False)
    try:
        for path in ("/library", "/stats", "/library?sort=id"):
            r = httpx.get(
                s.url.rstrip("/") + path, headers={"Host": "127.0.0.1:%d" % s.cfg.port}, timeout=30
            )
            assert r.status_code == 200, (path, r.text[-500:])
            if path.startswith("/library"):
                assert all(g in r.text for g in readable + ["pico-0093", "pico-0095"])
    finally:
        s.stop()


def test_a_lone_surrogate_is_one_quarantined_record_and_a_bom_is_read(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    recs = [random_record(i, "pico-%04d" % i) for i in (1, 2, 3)]
    bad_id = _line(recs[1], id="pico-\ud800")
    bad_move = recs[1].to_dict()
    bad_move["id"] = "pico-0008"
    bad_move["moves"] = bad_move["moves"][:3] + ["A\udc00"] + bad_move["moves"][4:]
    bad_move = json.dumps(bad_move) + "\n"
    assert "\\ud800" in bad_id and "\\udc00" in bad_move  # as JSON writes them: ASCII
    f = tmp_path / "in.jsonl"
    f.write_bytes(codecs.BOM_UTF8 + (_line(recs[0]) + bad_id + bad_move + _line(recs[2])).encode())
    rc, out, err = run(capsys, "import", f, "--db", db)
    assert rc == 1 and "2 added, 0 already in the log, 2 failed" in out, (out, err)
    fails = [x for x in out.splitlines() if " line " in x]
    assert [x.split(":")[0].rsplit(" ", 1)[1] for x in fails] == ["2", "3"], out
    assert "lone surrogate" in fails[0] and "ply 4" in fails[1], out
    assert err == ""
    q = Log(str(db)).quarantined()
    assert sorted((r["record"], r["ply"]) for r in q) == sorted(
        [(bad_id.rstrip("\n"), None), (bad_move.rstrip("\n"), 4)]
    )
    rc, out, err = run(capsys, "games", "--db", db, "--quarantine")
    assert rc == 0 and len(out.splitlines()) == 2
    # Text records behind a BOM read as well.
    t = tmp_path / "in.txt"
    t.write_bytes(codecs.BOM_UTF8 + "\n".join(r.to_text() for r in recs).encode())
    rc, out, err = run(capsys, "import", t, "--db", tmp_path / "h.sqlite")
    assert rc == 0 and "3 added" in out, out


def test_import_of_a_csv_says_what_a_csv_lacks(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    with Log(str(db)) as log:
        log.add(random_record(1, "pico-0001"), "import")
    f = tmp_path / "x.csv"
    assert run(capsys, "export", "-f", "csv", "--db", db, "-o", f)[0] == 0
    rc, out, err = run(capsys, "import", f, "--db", tmp_path / "h.sqlite")
    assert rc == 1 and out == "" and len(err.strip().splitlines()) == 1, (out, err)
    assert "CSV" in err and "moves" in err and "-f jsonl" in err and "[Game]" not in err
    assert Log(str(tmp_path / "h.sqlite")).count("quarantine") == 0


def test_ctrl_c_in_import_says_what_was_stored_in_one_line(tmp_path):
    pool = [random_record(i, "x") for i in range(1, 41)]
    f = tmp_path / "big.jsonl"
    n = 40000
    with open(str(f), "w") as out:
        for k in range(n):
            out.write(_line(pool[k % 40], id="pico-%06d" % k))
    db = tmp_path / "g.sqlite"
    p = subprocess.Popen(
        bawo_cmd() + ["import", str(f), "--db", str(db), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_with_path(),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        stored = 0
        while not stored:  # the first batch committed: the workers are replaying
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            try:
                con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
                stored = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                con.close()
            except sqlite3.Error:
                pass
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)  # as Ctrl-C does: the importer and its workers
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130, (out, err)
    assert "Traceback" not in err and "Error" not in err, err
    lines = [x for x in err.splitlines() if not x.startswith("import: ")]  # progress lines
    assert len(lines) == 1 and "interrupted" in lines[0], err
    m = re.search(
        r"(\d+) game\(s\) added and (\d+) failed record\(s\) quarantined are kept", lines[0]
    )
    assert m, lines[0]
    con = sqlite3.connect(str(db))
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = [r[0] for r in con.execute("SELECT id FROM games ORDER BY id")]
        assert len(ids) == int(m.group(1)) > 0 and int(m.group(2)) == 0
        assert len(ids) < n
        assert ids == ["pico-%06d" % k for k in range(len(ids))]  # the file's first ones, whole
    finally:
        con.close()


def _games(db, tz_env):
    r = subprocess.run(
        bawo_cmd() + ["games", "--db", str(db)],
        capture_output=True,
        text=True,
        env=dict(env_with_path(), **tz_env),
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return {
        x.split()[0]: " ".join(x.split()[2:4]) if x.split()[2] != "unknown" else "unknown"
        for x in r.stdout.splitlines()[1:-1]
    }


def test_played_is_one_rule_in_games_and_the_library(tmp_path, monkeypatch):
    db = tmp_path / "g.sqlite"
    starts = {
        "pico-0001": "2025-06-01 09:00:00",
        "pico-0002": "2025-06-02T09:00:00+02:00",
        "pico-0003": None,
    }
    with Log(str(db)) as log:
        for k, (gid, start) in enumerate(starts.items()):
            rec = random_record(k + 1, gid)
            del rec.header["Start"]
            if start:
                rec.header["Start"] = start
            log.add(rec, "sync")
    tz = {"TZ": "Asia/Kolkata"}  # +05:30: neither UTC nor the record's own zone
    want = {
        "pico-0001": "2025-06-01 14:30",
        "pico-0002": "2025-06-02 12:30",
        "pico-0003": "unknown",
    }
    assert _games(db, tz) == want
    monkeypatch.setenv("TZ", tz["TZ"])
    time.tzset()
    from _serve_helpers import Server
    import httpx

    s = Server(str(db), follow_board=False)
    try:
        html = httpx.get(
            s.url.rstrip("/") + "/library",
            headers={"Host": "127.0.0.1:%d" % s.cfg.port},
            timeout=30,
        ).text
    finally:
        s.stop()
        monkeypatch.delenv("TZ")
        time.tzset()
    shown = dict(re.findall(r'>(pico-\d{4})</a></td><td>[^<]*</td>\s*<td>([^<]*)</td>', html))
    assert shown == want, shown


def test_statistics_leave_unfinished_games_out_of_results(tmp_path):
    from bawo.serve.stats import charts

    db = tmp_path / "g.sqlite"
    finished, unfinished = [], []
    k = 0
    while len(finished) < 3 or len(unfinished) < 2:
        k += 1
        rec = random_record(k, "pico-%04d" % k, "oware", max_plies=400 if len(finished) < 3 else 6)
        rec.header["First"], rec.header["Second"] = "person", "board (level 2)"
        (finished if rec.header["Result"] != "*" else unfinished).append(rec)
    with Log(str(db)) as log:
        for rec in finished[:3] + unfinished[:2]:
            log.add(rec, "import")
    con = sqlite3.connect(str(db))
    try:
        out = {c["title"]: str(c["svg"]) for c in charts(con)}
    finally:
        con.close()
    by_players = out["First side's win rate by players"]
    assert "person vs board (3)" in by_players, by_players
    lengths = [t for t in out if t.startswith("Game length")]
    counts = [int(x) for x in re.findall(r'class="">(\d+)</text>', out[lengths[0]])]
    assert sum(counts) == 3, out[lengths[0]]
    assert "oware S wins (3)" in out["Win rate by side (95% interval)"]


def test_games_fits_a_narrow_terminal_without_cutting_a_word(tmp_path):
    import fcntl
    import pty
    import struct
    import termios

    db = tmp_path / "g.sqlite"
    with Log(str(db)) as log:
        for i in range(1, 6):
            log.add(random_record(i, "pico-00000000-%04d" % i), "import")
    env = dict(env_with_path(), TZ="UTC")
    env.pop("COLUMNS", None)
    wide = subprocess.run(
        bawo_cmd() + ["games", "--db", str(db)], capture_output=True, text=True, env=env, timeout=60
    ).stdout
    for cols in (40, 60, 100):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
        p = subprocess.Popen(
            bawo_cmd() + ["games", "--db", str(db)], stdout=slave, stderr=subprocess.PIPE, env=env
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:  # EIO: the other end closed
                break
            if not b:
                break
            chunks.append(b)
        os.close(master)
        assert p.wait(timeout=60) == 0
        text = b"".join(chunks).decode().replace("\r\n", "\n")
        lines = text.rstrip("\n").split("\n")
        assert all(len(x) <= cols for x in lines), (cols, text)
        words = set(wide.split()) | {"plies", "then", "ID,"}
        assert set(text.split()) <= words, (cols, set(text.split()) - words)
        for i in range(1, 6):  # each game's id and when it was played, whole
            assert "pico-00000000-%04d" % i in text.split()
        assert text.count("2025-06-0") == 5
