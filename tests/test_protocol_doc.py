"""docs/protocol.md against the code, both directions: every example frame in it has a right
CRC; every request in the worked example, sent to the real firmware (app, handler, link and
journal on the simulated board), gets a reply of the documented type, code and fields (and
their JSON types); every documented event is one the board sends with those fields; the
field-range table is protocol.SCHEMA and the message table names the fields the code uses."""

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "mp"))
import harness  # noqa: E402

harness.load("check_link_requests")  # firmware/ first on sys.path, as the board has it
import protocol as P  # noqa: E402
from real_board import RealBoard, tmpdir, rmtree  # noqa: E402
from journal import Journal  # noqa: E402

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
TEXT = DOC.read_text()
LINE = re.compile(r"^([<>]) (#BW\S* .*?)(?:\s{2,}\((.*)\))?$")


def examples():
    """[(direction, Frame or Bad, note)] of every frame line in the document."""
    out = []
    for line in TEXT.splitlines():
        m = LINE.match(line)
        if m:
            [r] = P.Parser().feed(m.group(2).encode() + b"\n")
            out.append((m.group(1), r, m.group(3) or ""))
    return out


def test_every_example_frame_has_a_right_crc():
    ex = examples()
    assert len(ex) >= 20
    for d, r, note in ex:
        if note.startswith("damaged"):
            assert isinstance(r, P.Bad) and r.reason == P.BAD_CRC, (r, note)
        else:
            assert isinstance(r, P.Frame), (d, r, note)


def _shape(v):
    if isinstance(v, dict):
        return {k: _shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_shape(v[0])] if v else []
    return type(v).__name__


@pytest.fixture
def board():
    root = tmpdir("doc")
    rmtree(root)
    os.makedirs(root + "/data")
    # The example's board: id bw-3f2a, one finished game on flash, number 12.
    j = Journal(root + "/data", "bw-3f2a", min_free=0, log=lambda m: None)
    j.finish("bw-3f2a-0012", "BAWO1\n")
    b = RealBoard(root, board_id="bw-3f2a", settings={"opponent": "people"})
    yield b
    rmtree(root)


def test_the_worked_example_against_the_firmware(board):
    b = board
    frames = [(d, r) for d, r, note in examples() if isinstance(r, P.Frame)]
    doc_events = [r for d, r in frames if r.type == P.EVENT]
    checked = 0
    for i, (d, r) in enumerate(frames):
        if d != ">" or r.type not in P.REQUESTS:
            continue
        doc = next(
            x
            for dd, x in frames[i + 1 :]
            if dd == "<" and x.seq == r.seq and x.type in (P.OK, P.ERROR)
        )
        real = b.request(r.type, r.payload, seq=r.seq)
        assert real.type == doc.type, (r, real, doc)
        if real.type == P.ERROR:
            assert real.payload["code"] == doc.payload["code"], (r, real, doc)
        else:
            assert _shape(real.payload) == _shape(doc.payload), (r, real.payload, doc.payload)
        checked += 1
        if r.type == P.NEW:  # the example's person presses A1+ on the board
            b.app.play(b.app.session.s.parse_move("A1+"))
            b.step(10000)
            b.replies()
    assert checked >= 8
    for ev in doc_events:
        real = [e for e in b.events if e["ev"] == ev.payload["ev"]]
        assert real and _shape(real[-1]) == _shape(ev.payload), (ev.payload, b.events)


def _table(title):
    """Rows (lists of cells) of the first table after a heading."""
    part = TEXT[TEXT.index(title) :]
    block = next(b for b in part.split("\n\n") if b.startswith("|"))
    rows = block.splitlines()
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]


def test_the_range_table_is_the_schema():
    doc = {}
    for msg, field, kind, rng, absent in _table("### Field ranges"):
        doc[(msg.strip("`"), field.strip("`"))] = (kind, rng, absent)
    code = {}
    names = {P.INT: "integer", P.TEXT: "text", P.GAME_ID: "game id", P.CHOICE: "one of"}
    for typ, fields in P.SCHEMA.items():
        for name, kind, lo, hi, default in fields:
            if kind == P.INT:
                rng = "%d..%d" % (lo, hi)
            elif kind == P.CHOICE:
                rng = ", ".join("`%s`" % x for x in lo)
            else:
                rng = "%d..%d characters" % (lo, hi)
            absent = (
                "required" if default is P.REQUIRED else ("—" if default is None else str(default))
            )
            code[(typ, name)] = (names[kind], rng, absent)
    assert set(doc) == set(code)
    for k in code:
        kind, rng, absent = doc[k]
        assert (kind, rng.split(" (")[0], absent) == code[k], (k, doc[k], code[k])


def test_the_message_table_names_the_request_fields():
    rows = {r[0].strip("`"): r for r in _table("## Messages")}
    for typ in P.REQUESTS:
        named = re.findall(r"`([a-z_]+)`", rows[typ][2])
        assert set(named) >= {f[0] for f in P.SCHEMA[typ]}, (typ, named)
        for n in named:  # a name in the request column is a field or one of its values
            assert (
                n in {f[0] for f in P.SCHEMA[typ]}
                or n in P.OPPONENTS
                or n in ("bawo", "oware", "bagh-chal", "games")
            ), (typ, n)


def test_hello_sends_what_the_table_says(board):
    rows = {r[0].strip("`"): r for r in _table("## Messages")}
    listed = re.findall(r"`([a-z_]+)`", rows["HELLO"][3])
    info = board.ok(P.HELLO, {"proto": 1, "host": "t"})
    assert set(listed) == set(info), (listed, sorted(info))
