"""Hardening of the game log commands (issue 9): records that cannot break the log, hostile
files, a read-only or locked log, terminal-safe output, the games listing, show, import speed."""

import json
import os

import pytest

from _host_helpers import journal_module, random_record
from shared_rules.record import Record

from bawo.sim import BoardProcess, choose_settings, play_moves


# -- header values: refused on the board too ---------------------------------------------------
def _board(tmp_path, game="oware", **env):
    b = BoardProcess(
        "bawo-4x8",
        str(tmp_path / "flash"),
        speed=None,
        extra_env=dict({"BAWO_BOUNCE": "15"}, **env),
    )
    return b


def test_board_refuses_a_board_id_with_control_characters(tmp_path):
    b = _board(tmp_path, BAWO_BOARD_ID="sim\x1b[2Jx")
    try:
        choose_settings(b, "oware", "people", 8)
        b.menu()
        b.idle()
        play_moves(b, "oware", ["A"])
        b.menu()
        b.menu()  # a new game archives the one just played: the board writes its record
        st = b.idle()
        assert st["ply"] == 0
        assert any("board id refused" in x for x in b.log), b.log[-8:]
        recs = [n for n in os.listdir(str(tmp_path / "flash")) if n.endswith(".rec")]
        assert recs == ["board-0001.rec"]
        text = (tmp_path / "flash" / recs[0]).read_text()
        rec = Record.from_text(text[: text.rindex("#crc")])
        assert rec.header["Device"] == "board" and rec.header["Id"] == "board-0001"
        assert rec.moves == ["A"]
    finally:
        b.quit()


@pytest.mark.parametrize(
    "field, value, why",
    [
        # an id that could hold an escape is not of the board's own form: the journal refuses it
        ("id", "x\x1b]0;pwned\x07-0001", "bad header"),
        # a start time is free text to the journal: the record module's check refuses it
        ("start", "2026-01-01\x1b[2J", "control character"),
    ],
)
def test_board_sets_aside_a_journal_whose_header_holds_control_characters(
    tmp_path, field, value, why
):
    J = journal_module()
    flash = tmp_path / "flash"
    flash.mkdir()
    header = {"game": "oware", "id": "sim-0a0b-0001", "opponent": "people", "seed": 1}
    header[field] = value
    (flash / "cur.jnl").write_bytes(J.seal("H " + json.dumps(header)) + J.seal("M 1 A"))
    b = _board(tmp_path, BAWO_BOARD_ID="sim-0a0b")
    try:
        st = b.idle()
        assert st["mode"] == "menu"
        assert "cur.jnl.bad" in os.listdir(str(flash))
        assert any("bad header" in x and why in x for x in b.log), b.log[-8:]
    finally:
        b.quit()


# -- the log commands --------------------------------------------------------------------------
import sqlite3  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from bawo import cli  # noqa: E402
from bawo.commands.log import Progress  # noqa: E402
from bawo.db import Log  # noqa: E402
from bawo.terminal_games import show_record  # noqa: E402
from _host_helpers import bawo_cmd, env_with_path  # noqa: E402


def run(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _log(path, recs):
    log = Log(str(path))
    for r in recs:
        log.add(r, "import")
    log.close()


def _store_raw(path, rid, text, start=None):
    """A row as an older bawo (or another program) could have left it: no check at all."""
    db = sqlite3.connect(str(path))
    db.execute(
        "INSERT INTO games (id, game, start, result, plies, status, source, added, record)"
        " VALUES (?, 'bawo', ?, '*', 0, 'done', 'import', '2026-01-01T00:00:00+00:00', ?)",
        (rid, start, text),
    )
    db.commit()
    db.close()


def test_import_refuses_a_header_line_break_and_export_writes_every_stored_record(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    good = [random_record(i, "pico-%04d" % i) for i in (1, 2)]
    bad = good[0].to_dict()
    bad["id"] = "pico-9999\n[Result \"S\"]"
    f = tmp_path / "in.jsonl"
    f.write_text("".join(json.dumps(d) + "\n" for d in (good[0].to_dict(), bad, good[1].to_dict())))
    rc, out, _ = run(capsys, "import", f, "--db", db)
    assert rc == 1 and "1 failed" in out and "control character" in out
    assert "2 added" in out
    # A record stored before this check (or by another program) still cannot break the log.
    broken = good[0].to_text().replace('[Id "pico-0001"]', '[Id "pico-0003\n[Evil "1"]')
    _store_raw(db, "pico-0003", broken)
    _store_raw(db, "pico-0004", good[1].to_text().replace("pico-0002", "pico-\x1b[2J0004"))
    rc, out, err = run(capsys, "export", "--db", db, "-f", "text")
    assert rc == 0 and out.count('[Game "') == 4 and broken in out
    rc, out, err = run(capsys, "export", "--db", db, "-f", "jsonl")
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and len(rows) == 4 and "2 stored record(s) no longer read" in err
    assert sum("stored_record" in r for r in rows) == 2
    assert any(r.get("stored_record") == broken for r in rows)
    rc, out, err = run(capsys, "show", "pico-0002", "--db", db, "--all")
    assert rc == 0 and "plays" in out
    rc, out, err = run(capsys, "show", "pico-0003", "--db", db, "--all")
    assert rc == 1 and "does not read" in err and len(err.strip().splitlines()) == 1
    rc, out, _ = run(capsys, "games", "--db", db)
    assert rc == 0 and "4 game(s)" in out
    # The JSON export of it imports as a failure, never as a game.
    (tmp_path / "out.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    rc, out, _ = run(capsys, "import", tmp_path / "out.jsonl", "--db", tmp_path / "h.sqlite")
    assert rc == 1 and "2 added" in out and "2 failed" in out


@pytest.mark.parametrize(
    "line",
    [
        "[" * 100000 + "]" * 100000,
        '{"game": "bawo", "x": ' + "{\"a\": " * 50000 + "1" + "}" * 50001,
    ],
)
def test_deeply_nested_json_is_a_failed_record_not_a_traceback(tmp_path, capsys, line):
    f = tmp_path / "deep.jsonl"
    ok = random_record(1, "pico-0001")
    f.write_text(json.dumps(ok.to_dict()) + "\n" + line + "\n")
    rc, out, err = run(capsys, "verify", f)
    assert rc == 1 and "nested too deeply" in out and "1 OK, 1 failed" in out
    rc, out, err = run(capsys, "import", f, "--db", tmp_path / "g.sqlite")
    assert rc == 1 and "1 added" in out and "1 failed" in out


def test_over_long_and_non_utf8_lines_are_failed_records(tmp_path, capsys):
    from bawo.export import MAX_RECORD

    ok = random_record(1, "pico-0001")
    f = tmp_path / "x.jsonl"
    f.write_bytes(
        json.dumps(ok.to_dict()).encode()
        + b"\n"
        + b'{"game": "'
        + b"a" * (MAX_RECORD + 10)
        + b'"}\n{"game": "\xff"}\n'
        + json.dumps(random_record(2, "pico-0002").to_dict()).encode()
        + b"\n"
    )
    rc, out, _ = run(capsys, "verify", f)
    assert rc == 1 and "4 record(s), 2 OK, 2 failed" in out
    assert "longer than" in out and "not UTF-8" in out


def _read_only(paths, on):
    """Make files and dirs read-only even for root (the immutable attribute), or writable again."""
    for p in paths:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "+i" if on else "-i", p], check=True)
        else:
            os.chmod(p, (0o555 if os.path.isdir(p) else 0o444) if on else 0o755)


def test_read_commands_work_on_a_read_only_log(tmp_path):
    d = str(tmp_path / "ro")
    db = os.path.join(d, "g.sqlite")
    _log(db, [random_record(i, "pico-%04d" % i) for i in (1, 2, 3)])
    _read_only([db, d], True)
    try:
        for argv, want in (
            (["games"], "3 game(s)"),
            (["show", "pico-0002", "--all"], "plays"),
            (["export", "-f", "csv"], "pico-0003"),
        ):
            r = subprocess.run(
                bawo_cmd() + argv + ["--db", db],
                capture_output=True,
                text=True,
                env=env_with_path(),
                timeout=60,
            )
            assert r.returncode == 0 and want in r.stdout, (argv, r.stderr)
        r = subprocess.run(
            bawo_cmd() + ["import", "-", "--db", db],
            input="",
            capture_output=True,
            text=True,
            env=env_with_path(),
            timeout=60,
        )
        assert r.returncode == 1 and "bawo: error: game log" in r.stderr, r.stderr
        assert "read-only" in r.stderr or "cannot be used" in r.stderr, r.stderr
        assert sorted(os.listdir(d)) == ["g.sqlite"]
    finally:
        _read_only([d, db], False)


HOLD_LOCK = r'''
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode=EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO quarantine VALUES ('x', 'x', 'x', NULL, 'x', 'x', 'x')")
print("locked", flush=True)
sys.stdin.read()
'''


def test_a_locked_log_says_so_promptly(tmp_path):
    db = tmp_path / "g.sqlite"
    _log(db, [random_record(1, "pico-0001")])
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        for argv in (["games"], ["export"], ["show", "pico-0001", "--all"], ["import", "-"]):
            t = time.monotonic()
            r = subprocess.run(
                bawo_cmd() + argv + ["--db", str(db)],
                input="",
                capture_output=True,
                text=True,
                env=env_with_path(),
                timeout=60,
            )
            took = time.monotonic() - t
            assert r.returncode == 1 and "is locked by another program" in r.stderr, (
                argv,
                r.stderr,
            )
            assert "is it a bawo log" not in r.stderr and took < 10, (argv, took)
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)


def test_missing_log_is_an_error_not_a_new_empty_log(tmp_path, capsys):
    db = tmp_path / "nope" / "g.sqlite"
    for argv in (["games"], ["export"], ["show", "x"]):
        rc, out, err = run(capsys, *argv, "--db", db)
        assert rc == 1 and "no game log at" in err, (argv, err)
    assert not (tmp_path / "nope").exists()
    rc, out, err = run(capsys, "games", "--db", tmp_path)  # a directory
    assert rc == 1 and "not a bawo game log" in err


def test_outside_text_never_reaches_the_terminal_raw(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    rec = random_record(1, "pico-0001", "oware")
    _log(db, [rec])
    evil = "pico-\x1b]0;owned\x07\x1b[2J\u202e\x9b1m"
    _store_raw(db, evil, rec.to_text().replace("pico-0001", evil), start="2026-01-01 10:00:00")
    d = rec.to_dict()
    d["moves"] = list(d["moves"])
    d["moves"][0] = "\x1b[31mA"
    d["id"] = "pico-0007"
    f = tmp_path / "evil.jsonl"
    f.write_text(json.dumps(d) + "\n" + json.dumps(dict(rec.to_dict(), id=evil)) + "\n")
    outputs = []
    for argv in (
        ["games"],
        ["games", "--json"],
        ["show", "pico-\x1b", "--all"],
        ["verify", f],
        ["verify", "--json", f],
        ["import", f],
        ["games", "--quarantine"],
        ["games", "--quarantine", "--json"],
        ["show", evil],
    ):
        rc, out, err = run(capsys, *argv, *(["--db", db] if argv[0] != "verify" else []))
        outputs.append((argv, out + err))
    for argv, text in outputs:
        for c in ("\x1b", "\x07", "\u202e", "\x9b"):
            assert c not in text, (argv, text)
    assert "pico-\\x1b]0;owned\\x07\\x1b[2J\\u202e\\x9b1m" in outputs[0][1]  # shown, escaped
    assert evil in [g["id"] for g in json.loads(outputs[1][1])]  # still the same JSON
    assert "\\x1b[31mA" in outputs[3][1] and "\\x1b[31mA" in outputs[6][1]


def test_games_lists_by_when_played_in_one_format_and_unknown_is_unknown(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        db = tmp_path / "g.sqlite"
        base = random_record(1, "x")
        starts = {
            "pico-0001": "2025-06-03T10:00:00",
            "pico-0002": "2025-06-01 09:00:00",
            "pico-0003": "2025-06-02T10:00:00+02:00",
            "pico-0004": None,
            "pico-0005": "yesterday",
            "pico-0006": "2025-06-02T09:30:00Z",
        }
        log = Log(str(db))
        for gid, start in starts.items():
            r = Record(dict(base.header), list(base.moves))
            r.header["Id"] = gid
            r.header.pop("Start")
            if start:
                r.header["Start"] = start
            log.add(r, "sync")
        log.close()
        rc, out, _ = run(capsys, "games", "--db", db)
        lines = out.splitlines()[1:-1]
        assert [x.split()[0] for x in lines] == [
            "pico-0002",
            "pico-0003",
            "pico-0006",
            "pico-0001",
            "pico-0004",
            "pico-0005",
        ]
        assert [" ".join(x.split()[2:4]) for x in lines[:4]] == [
            "2025-06-01 09:00",
            "2025-06-02 08:00",
            "2025-06-02 09:30",
            "2025-06-03 10:00",
        ]
        assert [x.split()[2] for x in lines[4:]] == ["unknown", "unknown"]
        rc, out, _ = run(capsys, "games", "--db", db, "--json")
        played = {g["id"]: g["played"] for g in json.loads(out)}
        assert played["pico-0003"] == "2025-06-02T08:00:00Z" and played["pico-0005"] is None
        rc, out, _ = run(
            capsys, "games", "--db", db, "--json", "--since", "2025-06-02", "--until", "2025-06-02"
        )
        assert [g["id"] for g in json.loads(out)] == ["pico-0003", "pico-0006"]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_an_ambiguous_prefix_lists_the_matches(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    _log(db, [random_record(i, "pico-%04d" % i) for i in (1, 2, 13)])
    rc, out, err = run(capsys, "show", "pico-00", "--db", db, "--all")
    assert (
        rc == 1
        and "ambiguous" in err
        and all(g in err for g in ("pico-0001", "pico-0002", "pico-0013"))
    )
    rc, out, err = run(capsys, "show", "pico-001", "--db", db, "--all")
    assert rc == 0 and "pico-0013" in out
    rc, out, err = run(capsys, "show", "pico-0_", "--db", db, "--all")  # LIKE wildcards are literal
    assert rc == 1 and "no game" in err


def test_show_steps_back_as_well_as_forward():
    rec = random_record(5, "pico-0005", "oware")
    import io

    out = io.StringIO()
    answers = iter(["", "", "b", "b", "b", "", "q"])
    assert show_record(rec, interactive=True, out=out, ask=lambda p: next(answers)) == 0
    text = out.getvalue()
    heads = [
        x
        for x in text.splitlines()
        if "plays" in x or "back to" in x or x.strip().endswith("start")
    ]
    assert "back to ply 1: %s" % rec.moves[0] in text and "(at the start)" in text
    assert text.count("plays %s" % rec.moves[0]) >= 2, heads


def test_import_streams_stdin_and_reports_progress(tmp_path):
    recs = [random_record(i, "pico-%04d" % i) for i in range(1, 41)]
    data = "".join(json.dumps(r.to_dict()) + "\n" for r in recs)
    db = str(tmp_path / "g.sqlite")
    r = subprocess.run(
        bawo_cmd() + ["import", "-", "--db", db],
        input=data,
        capture_output=True,
        text=True,
        env=env_with_path(),
        timeout=120,
    )
    assert r.returncode == 0 and "40 added" in r.stdout, r.stderr
    import io

    buf = io.StringIO()
    p = Progress(buf, total_bytes=1000, every=0.0)
    p.update(256, 500)
    p.update(512, 1000)
    assert buf.getvalue().splitlines()[-1].startswith("import: 512 games read (100% of the file)")
    assert len(buf.getvalue().splitlines()) == 2


def test_import_replays_in_worker_processes_in_order(tmp_path, capsys):
    pool = [random_record(i, "x") for i in range(1, 21)]
    lines = []
    for k in range(600):
        d = pool[k % 20].to_dict()
        d["id"] = "pico-%04d" % k
        if k in (5, 300, 599):  # failures in the first chunk, a middle one and the tail
            d["moves"] = d["moves"][:2] + ["Z9"] + d["moves"][3:]
        lines.append(json.dumps(d) + "\n")
    f = tmp_path / "in.jsonl"
    f.write_text("".join(lines))
    outs = {}
    for jobs in (1, 2):
        db = tmp_path / ("j%d.sqlite" % jobs)
        rc, out, err = run(capsys, "import", f, "--db", db, "--jobs", jobs)
        assert rc == 1 and "597 added, 0 already in the log, 3 failed" in out, out
        fails = [x.split(":")[0] for x in out.splitlines() if "does not replay" in x or "ply" in x]
        assert [x.rsplit(" ", 1)[-1] for x in fails] == ["6", "301", "600"], fails
        outs[jobs] = run(capsys, "export", "--db", db)[1]
    assert outs[1] == outs[2] and outs[1].count("\n") == 597


def test_import_progress_is_a_live_line_on_a_terminal():
    import pty

    master, slave = pty.openpty()
    try:
        stream = os.fdopen(slave, "w", closefd=False)
        p = Progress(stream, total_bytes=None)
        p._last -= 1.0
        p.t0 -= 2.0
        p.update(1024)
        p.finish()
        stream.flush()
        import select

        got = ""
        while not got.endswith("\r\x1b[K") and select.select([master], [], [], 5)[0]:
            got += os.read(master, 4096).decode()
        assert (
            got.startswith("\rimport: 1024 games read, ")
            and " games/s\x1b[K" in got
            and "\n" not in got
        )
        assert got.endswith("\r\x1b[K")
    finally:
        os.close(master)
        os.close(slave)


def test_export_to_a_terminal_is_escaped_and_to_a_file_is_faithful(tmp_path):
    import pty
    import select

    db = tmp_path / "g.sqlite"
    rec = random_record(1, "pico-0001", "oware")
    _log(db, [rec])
    evil = rec.to_text().replace("pico-0001", "pico-\x1b[2J")
    _store_raw(db, "pico-\x1b[2J", evil)
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(
            bawo_cmd() + ["export", "-f", "text", "--db", str(db)],
            stdout=slave,
            stderr=subprocess.PIPE,
            env=env_with_path(),
        )
        os.close(slave)
        got = b""
        while True:
            r = select.select([master], [], [], 30)[0]
            try:
                d = os.read(master, 65536) if r else b""
            except OSError:  # EIO: the child closed the terminal
                d = b""
            if not d:
                break
            got += d
        assert p.wait(timeout=30) == 0
    finally:
        os.close(master)
    assert b"\x1b" not in got and b"pico-\\x1b[2J" in got and got.count(b'[Game "') == 2
    out = tmp_path / "out.txt"
    subprocess.run(
        bawo_cmd() + ["export", "-f", "text", "--db", str(db), "-o", str(out)],
        check=True,
        env=env_with_path(),
        capture_output=True,
    )
    assert evil in out.read_text()


def test_games_json_is_written_row_by_row_as_one_json_array(tmp_path, capsys):
    from bawo.db import row_dict

    db = tmp_path / "g.sqlite"
    _log(db, [random_record(i, "pico-%04d" % i) for i in (1, 2, 3)])
    rc, out, _ = run(capsys, "games", "--db", db, "--json")
    log = Log(str(db), readonly=True)
    want = json.dumps([row_dict(r) for r in log.games()], indent=1, ensure_ascii=False) + "\n"
    log.close()
    assert rc == 0 and out == want
    rc, out, _ = run(
        capsys, "games", "--db", db, "--json", "--game", "oware", "--since", "2999-01-01"
    )
    assert rc == 0 and out == "[]\n"
