"""Export then import is the identity (issue 27 point 6): for generated records (every game,
set-up starts, every header tag, extra tags of any printable text, Start in each form a reader
takes), `bawo export -f jsonl` and `-f text` imported into a new log give the same games, and
into the same log give only "already in the log". The CSV is a summary by design: it carries
its columns, exactly, and import refuses it. Also the Start rule against datetime."""

import contextlib
import csv
import datetime
import io
import os
import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bawo import cli
from bawo.db import Log
from bawo.export import CSV_FIELDS
from shared_rules import GAMES, State, game
from shared_rules.errors import RecordError
from shared_rules.record import Record, START_MAX, START_MIN, TAGS, start_time

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Header text: one line of printable text of any script (RULES.md 4); no C0/C1 controls, no
# line or paragraph separators, no lone surrogates.
text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=24)
names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,31}", fullmatch=True).filter(
    lambda n: n.lower() not in {t.lower() for t in TAGS}
)


@st.composite
def starts(draw):
    t = draw(st.integers(START_MIN, START_MAX))
    form = draw(st.sampled_from(["board", "T", "Z", "zone", "minutes", "fraction"]))
    off = draw(st.integers(-12 * 4, 14 * 4)) * 15 if form == "zone" else 0
    when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc) + datetime.timedelta(
        minutes=off
    )
    s = when.strftime("%Y-%m-%d %H:%M:%S" if form == "board" else "%Y-%m-%dT%H:%M:%S")
    if form == "minutes":
        s = s[:16]
    elif form == "fraction":
        s += "." + "%0*d" % (draw(st.integers(1, 6)), draw(st.integers(0, 9)))
    elif form == "Z":
        s += "Z"
    elif form == "zone":
        s += "%s%02d:%02d" % ("-" if off < 0 else "+", abs(off) // 60, abs(off) % 60)
    return s


@st.composite
def records(draw):
    name = draw(st.sampled_from(sorted(GAMES)))
    rnd = random.Random(draw(st.integers(0, 2**32)))
    g = game(name)
    s = State(g)
    if draw(st.booleans()):  # a set-up start: a position reached by play
        for _ in range(rnd.randrange(1, 12)):
            if s.outcome() is not None:
                break
            s.push(rnd.choice(s.legal_moves))
        s = State(g, g.format(s.position))
    for _ in range(draw(st.integers(0, 80))):
        if s.outcome() is not None:
            break
        s.push(rnd.choice(s.legal_moves))
    tags = {}
    for t in ("First", "Second", "Device", "Id"):
        if draw(st.booleans()):
            tags[t] = draw(text)
    if draw(st.booleans()):
        tags["Start"] = draw(starts())
    rec = Record.from_state(s, **tags)
    rec.header.update(draw(st.dictionaries(names, text, max_size=4)))
    return rec


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _rows(db):
    con = Log(db, readonly=True)
    try:
        return sorted(
            (
                r["id"],
                r["record"],
                r["game"],
                r["device"],
                r["start"],
                r["result"],
                r["reason"],
                r["plies"],
            )
            for r in con.select()
        )
    finally:
        con.close()


@SETTINGS
@given(st.lists(records(), min_size=1, max_size=5))
def test_export_then_import_is_the_identity(recs):
    with tempfile.TemporaryDirectory() as d:
        a = os.path.join(d, "a.sqlite")
        with Log(a) as log:
            for r in recs:
                log.add(r, "import")
        want = _rows(a)
        # Records that share an id and differ are kept as conflicts, in export and import alike.
        con = Log(a, readonly=True)
        try:
            kept = sum(1 for r in con.select() if r["status"] == "conflict")
        finally:
            con.close()
        added = "%d added, 0 already in the log, %s0 failed" % (
            len(want) - kept,
            "%d conflict(s) kept, " % kept if kept else "",
        )
        for fmt in ("jsonl", "text"):
            f = os.path.join(d, "out." + fmt)
            assert _cli("export", "-f", fmt, "--db", a, "-o", f)[0] == 0
            b = os.path.join(d, fmt + ".sqlite")
            rc, out, err = _cli("import", f, "--db", b, "--jobs", "1")
            assert rc == (1 if kept else 0) and added in out, (fmt, out)
            assert _rows(b) == want, fmt
            # Into the log it came from: every game already there, no conflict.
            rc, out, err = _cli("import", f, "--db", a, "--jobs", "1")
            assert rc == 0 and "0 added, %d already in the log, 0 failed" % len(want) in out, (
                fmt,
                out,
            )
            assert _rows(a) == want
        # The CSV carries its columns, every game's exactly (a summary: no moves, no other tags).
        f = os.path.join(d, "out.csv")
        assert _cli("export", "-f", "csv", "--db", a, "-o", f)[0] == 0
        with open(f, newline="", encoding="utf-8") as fh:
            got = list(csv.reader(fh))
        assert tuple(got[0]) == CSV_FIELDS
        con = Log(a, readonly=True)
        try:
            rows = list(con.select())
        finally:
            con.close()
        assert got[1:] == [["" if r[k] is None else str(r[k]) for k in CSV_FIELDS] for r in rows]
        rc, out, err = _cli("import", f, "--db", a)
        assert rc == 1 and "CSV" in err and "moves" in err


def test_the_dict_form_holds_extra_tags_under_tags_and_refuses_them_beside_moves():
    rec = Record.from_state(State(game("oware")), Id="x-1")
    rec.header["Event"] = "club night"
    d = rec.to_dict()
    assert d["tags"] == {"Event": "club night"} and "event" not in d
    assert Record.from_dict(d) == rec
    for bad in (
        {"tags": {"Id": "y"}},
        {"tags": {"bad name": "y"}},
        {"tags": {"GAME": "y"}},
        {"tags": ["Event"]},
        {"tags": {"Event": ["x"]}},
        {"id": True},
    ):
        with pytest.raises(RecordError):
            Record.from_dict(dict(d, **bad))
    text = rec.to_text()
    with pytest.raises(RecordError, match="given twice"):
        Record.from_text(text.replace('[Event "club night"]', '[Event "club night"]\n[Event "x"]'))


@given(starts())
def test_start_time_is_the_instant_datetime_reads(s):
    t = datetime.datetime.fromisoformat(s)
    zone = None if t.tzinfo is None else int(t.utcoffset().total_seconds()) // 60
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    assert start_time(s) == (int(t.timestamp()), t.microsecond, zone)


@pytest.mark.parametrize(
    "s",
    [
        "9999-12-31T23:59:59-23:59",
        "0001-01-01T00:00:00+01:00",
        "1999-12-31T23:59:59Z",
        "2100-01-01 00:00:00",
        "2000-01-01T00:30:00+01:00",
        "2025-02-29 10:00:00",
        "2025-13-01 10:00:00",
        "2025-06-01 24:00:00",
        "2025-06-01T10:00:00+15:00",
        "\u0662\u0660\u0662\u0665-06-01 10:00:00",
        "2025-06-01",
        "yesterday",
        "",
        "2025-06-01 10:00:00 ",
        "2025-06-01T10:00:00.1234567",
    ],
)
def test_start_times_no_board_writes_are_refused(s):
    with pytest.raises(RecordError, match="between 2000 and 2099"):
        start_time(s)
    with pytest.raises(RecordError, match="Start"):
        Record.from_dict({"game": "bawo", "rules": "1", "start": s, "moves": []})


@pytest.mark.parametrize(
    "s",
    [
        "2000-01-01 00:00:00",
        "2099-12-31 23:59:59",
        "2024-02-29T12:00",
        "2099-12-31T23:59:59-00:00",
        "2000-01-01T05:30:00+05:30",
    ],
)
def test_the_board_clocks_range_is_taken_to_its_ends(s):
    secs = start_time(s)[0]
    assert START_MIN <= secs <= START_MAX
