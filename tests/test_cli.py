"""The `bawo` command without a board: help, one-line errors, the log, export/import/verify."""

import json
import re
import subprocess

import pytest

from _host_helpers import random_record, bawo_cmd, env_with_path
from shared_rules.record import Record

from bawo import cli
from bawo.db import Log, ADDED, SAME, CONFLICT, REPLACED
from bawo.sync import Report, store_one

COMMANDS = [
    "ports",
    "sync",
    "games",
    "show",
    "export",
    "import",
    "verify",
    "watch",
    "flash",
    "play",
    "demo",
]


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_help_with_examples(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "bawo %s" % cmd in out


def test_errors_are_one_line_without_traceback(tmp_path):
    env = env_with_path()
    env["BAWO_PORT"] = str(tmp_path / "no-such-tty")
    cases = [
        (["sync", "--db", str(tmp_path / "g.sqlite")], "does not exist"),
        (["verify", str(tmp_path / "missing.txt")], "cannot read"),
        (["show", "nope", "--db", str(tmp_path / "g.sqlite")], "no game"),
        (
            ["flash", "--profile", "no-such-profile", "--bundle-only", str(tmp_path / "b")],
            "no hardware profile",
        ),
        (["games", "--db", str(tmp_path)], "game log"),  # a directory, not a database
    ]
    for argv, words in cases:
        r = subprocess.run(bawo_cmd() + argv, capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 1, (argv, r.stderr)
        assert "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bawo: error: ") and words in lines[0], (
            argv,
            r.stderr,
        )
    r = subprocess.run(bawo_cmd() + ["games", "--bogus"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_permission_and_busy_messages():
    import errno
    from bawo.ports import explain_open_error

    e = OSError(errno.EACCES, "Permission denied")
    assert "dialout" in explain_open_error("/dev/ttyACM0", e)
    e = OSError(errno.EBUSY, "Device or resource busy")
    assert "busy" in explain_open_error("/dev/ttyACM0", e)


def _records(n, seed=0):
    return [random_record(seed + i, "pico-%04d" % i) for i in range(1, n + 1)]


def test_log_is_idempotent_and_detects_conflicts(tmp_path):
    log = Log(str(tmp_path / "g.sqlite"))
    recs = _records(5)
    for r in recs:
        assert log.add(r, "sync")[0] == ADDED
    for r in recs:
        assert log.add(r, "sync")[0] == SAME
    # Another game with a taken id: both kept, the new one beside it as a conflict, and
    # seeing it again is a duplicate of that copy, not a new conflict.
    other = random_record(99, "pico-0001")
    outcome, cid = log.add(other, "sync")
    assert outcome == CONFLICT and cid.startswith("pico-0001~")
    assert log.add(other, "sync") == (SAME, cid)
    assert log.count() == 6 and not log.quarantined()
    assert log.get(cid)["status"] == "conflict" and log.get(cid)["record"] == other.to_text()
    assert log.get("pico-0001")["record"] == recs[0].to_text()
    # A watched (live) row is completed by the synced record.
    live = Record(dict(recs[0].header), recs[0].moves[:3])
    live.header["Id"] = "pico-0100"
    live.header["Result"] = "*"
    assert log.add(live, "watch", status="live")[0] == ADDED
    final = Record(dict(recs[0].header), list(recs[0].moves))
    final.header["Id"] = "pico-0100"
    assert not log.has("pico-0100")
    assert log.add(final, "sync")[0] == REPLACED and log.has("pico-0100")
    log.close()


def test_bad_record_is_quarantined_not_acked(tmp_path):
    log = Log(str(tmp_path / "g.sqlite"))
    rec = _records(1)[0]
    text = rec.to_text().replace(rec.moves[2], "Z9", 1) if len(rec.moves) > 2 else "junk"
    report = Report()
    assert store_one(log, "pico-0001", text.encode(), report) is False
    assert report.quarantined and report.quarantined[0][2] is not None
    assert log.count() == 0 and len(log.quarantined()) == 1
    # Seeing it again stores nothing twice.
    store_one(log, "pico-0001", text.encode(), Report())
    assert len(log.quarantined()) == 1
    log.close()


@pytest.mark.parametrize("fmt", ["jsonl", "text"])
def test_export_import_verify_round_trip(tmp_path, capsys, fmt):
    db1, db2 = str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")
    log = Log(db1)
    recs = _records(12)
    for r in recs:
        log.add(r, "sync")
    log.close()
    out = str(tmp_path / ("games." + fmt))
    assert run(capsys, "export", "--db", db1, "-f", fmt, "-o", out)[0] == 0
    rc, text, _ = run(capsys, "verify", out)
    assert rc == 0 and "12 OK, 0 failed" in text
    rc, text, _ = run(capsys, "import", out, "--db", db2)
    assert rc == 0 and "12 added" in text
    rc, text, _ = run(capsys, "import", out, "--db", db2)
    assert rc == 0 and "0 added, 12 already" in text
    rc, a, _ = run(capsys, "export", "--db", db1, "-f", fmt)
    rc, b, _ = run(capsys, "export", "--db", db2, "-f", fmt)
    assert a == b
    rc, csv_text, _ = run(capsys, "export", "--db", db2, "-f", "csv")
    assert len(csv_text.strip().splitlines()) == 13


def test_verify_reports_failing_ply(tmp_path, capsys):
    rec = random_record(3, "pico-0003", "bawo")
    bad = Record(dict(rec.header), list(rec.moves))
    bad.moves[4] = "A1+" if bad.moves[4] != "A1+" else "B8-"
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(rec.to_dict()) + "\n" + json.dumps(bad.to_dict()) + "\n{oops\n")
    rc, out, _ = run(capsys, "verify", str(f))
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith("OK") and lines[1].startswith("FAIL") and "ply" in lines[1]
    assert lines[2].startswith("FAIL") and "3 record(s), 1 OK, 2 failed" in lines[3]
    rc, out, _ = run(capsys, "verify", "--json", str(f))
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r["ok"] for r in rows] == [True, False, False] and rows[1]["ply"] is not None


def test_games_filters_and_json(tmp_path, capsys):
    db = str(tmp_path / "g.sqlite")
    log = Log(db)
    recs = _records(20)
    for r in recs:
        log.add(r, "import")
    log.close()
    rc, out, _ = run(capsys, "games", "--db", db, "--json")
    assert rc == 0 and len(json.loads(out)) == 20
    for name in ("bawo", "oware", "bagh-chal"):
        rc, out, _ = run(capsys, "games", "--db", db, "--json", "--game", name)
        assert {g["game"] for g in json.loads(out)} <= {name}
    rc, out, _ = run(
        capsys, "games", "--db", db, "--json", "--since", "2025-06-10", "--until", "2025-06-15"
    )
    starts = [g["start"][:10] for g in json.loads(out)]
    assert starts and all("2025-06-10" <= s <= "2025-06-15" for s in starts)
    want = sum(1 for r in recs if r.header["Result"] == "S")
    rc, out, _ = run(capsys, "games", "--db", db, "--json", "--result", "S")
    assert len(json.loads(out)) == want


def test_show_steps_and_ply(tmp_path, capsys):
    db = str(tmp_path / "g.sqlite")
    log = Log(db)
    rec = random_record(5, "pico-0005", "oware")
    log.add(rec, "import")
    log.close()
    rc, out, _ = run(capsys, "show", "pico-00", "--db", db, "--all")
    assert rc == 0 and out.count("plays") == len(rec.moves)
    rc, out, _ = run(capsys, "show", "pico-0005", "--db", db, "--ply", "2")
    assert rc == 0 and "after ply 2" in out
    rc, out, err = run(capsys, "show", "pico-0005", "--db", db, "--ply", "9999")
    assert rc == 1 and "out of range" in err


def test_show_says_which_side_had_hints(tmp_path, capsys):
    # The board writes the hints a person took into the side's tag (firmware/app.py).
    db = str(tmp_path / "g.sqlite")
    log = Log(db)
    rec = random_record(6, "pico-0006", "bawo")
    rec.header["First"] = "person (2 hints)"
    rec.header["Second"] = "board (level 5)"
    log.add(rec, "import")
    log.close()
    rc, out, _ = run(capsys, "show", "pico-0006", "--db", db, "--ply", "0")
    assert rc == 0 and "South had 2 hints" in out.splitlines()[0], out
    assert "North had" not in out


def test_play_two_players_logs_game(tmp_path, monkeypatch, capsys):
    from bawo import terminal_games as playmod

    moves = iter(["?", "zz", "A", "f", "quit", "y"])  # y: end it here, unfinished
    db = str(tmp_path / "g.sqlite")
    log = Log(db)
    playmod.play("oware", two_players=True, log=log, ask=lambda prompt: next(moves))
    assert log.count() == 1
    row = log.games()[0]
    assert row["plies"] == 2 and row["result"] == "*"
    log.close()


def test_demo_end_to_end(tmp_path, capsys):
    rc, out, err = run(
        capsys, "demo", "--data", str(tmp_path / "sim"), "--db", str(tmp_path / "d.sqlite")
    )
    assert rc == 0, err
    assert "1 new game(s) stored" in out and "1 game(s)" in out
    # Its last line names the game, after a blank line (it read "\x0athe demo's game ...").
    assert "\nthe demo's game is in your game log with the others: bawo show sim-" in out, out
    # The demo's game has a start time, as a game on a board whose clock a host set has: its
    # PLAYED was "unknown" (the scripted game ran before any TIME).
    row = [ln for ln in out.splitlines() if ln.startswith("sim-")][0]
    assert "unknown" not in row and re.search(r"\b20\d\d-\d\d-\d\d \d\d:\d\d\b", row), row


def test_bad_date_filter_is_refused():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "bawo.cli", "games", "--since", "29/11/2026"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "bad date '29/11/2026': expected YYYY-MM-DD" in out.stderr
