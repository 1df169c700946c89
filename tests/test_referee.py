"""The referee command: JSON lines in, a line per position out; the same on CPython and MicroPython."""

import json
import os
import random
import subprocess
import sys

import pytest

from conftest import ROOT, run_micropython, tool
from shared_rules import GAMES, game, State

A1 = "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"

BAD = [
    ('not json at all', 0, "not a JSON object"),
    ('[1, 2]', 0, "expected a JSON object"),
    ('{"game": "chess", "moves": []}', 0, "unknown game 'chess'"),
    ('{"game": "bawo", "position": "2,2/2,2 S", "moves": []}', 0, "2 rows, expected 4"),
    (
        '{"game": "bawo", "position": "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,-1 S"}',
        0,
        "bad count '-1'",
    ),
    (
        '{"game": "bawo", "position": "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"}',
        0,
        "row 2 has 7 pockets",
    ),
    (
        '{"game": "bagh-chal", "position": "TTTTT/...../...../...../..... H:20 C:0 G"}',
        0,
        "5 tigers",
    ),
    ('{"game": "oware", "position": 7}', 0, "position must be a string"),
    ('{"game": "bawo", "moves": ["A1+", "Z9"]}', 2, "bad move 'Z9'"),
    ('{"game": "bawo", "moves": ["A1-"]}', 1, "capture is available"),
    ('{"game": "oware", "moves": ["A", "B"]}', 2, "that pit is South's, and North is to move"),
    ('{"game": "bagh-chal", "moves": ["c3", "c3"]}', 2, "tigers step"),
    ('{"game": "bawo", "moves": "A1+"}', 0, "moves must be a list"),
    # Counts are ASCII digits on both runtimes (RULES.md 1): Arabic-Indic, fullwidth, superscript.
    (
        '{"game": "bawo", "position": "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,\u0663 S"}',
        0,
        "ASCII digits",
    ),
    ('{"game": "oware", "position": "4,4,4,4,4,4/4,4,4,4,4,4 S:\uff10 N:0 S"}', 0, "ASCII digits"),
    (
        '{"game": "bagh-chal", "position": "T...T/...../...../...../T...T H:\u00b2\u2070 C:0 G"}',
        0,
        "ASCII digits",
    ),
    (
        '{"game": "bawo", "position": "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,\u00b2 S"}',
        0,
        "ASCII digits",
    ),
    ('{"game": "bawo", "moves": [17]}', 1, "is not a string"),
]


def referee_cpython(text):
    r = subprocess.run(
        [sys.executable, "-m", "shared_rules"],
        input=text,
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=300,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


def referee_micropython(text):
    r = run_micropython(["-m", "shared_rules"], input=text, path=(ROOT,))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


@pytest.mark.parametrize(
    "run", [referee_cpython, referee_micropython], ids=["cpython", "micropython"]
)
def test_a1_plus_reproduces_rules_md(run):
    out = [json.loads(line) for line in run('{"game": "bawo", "moves": ["A1+"]}\n').splitlines()]
    assert [o["ply"] for o in out] == [0, 1]
    assert out[1]["position"] == A1
    assert out[1]["result"] is None
    assert out[1]["legal"] == sorted(out[1]["legal"])


@pytest.mark.parametrize(
    "run", [referee_cpython, referee_micropython], ids=["cpython", "micropython"]
)
def test_bad_input_gets_a_clear_error_and_the_stream_goes_on(run):
    text = "".join(line + "\n" for line, _, _ in BAD) + '{"game": "oware"}\n'
    out = [json.loads(line) for line in run(text).splitlines()]
    errors = [o for o in out if "error" in o]
    assert len(errors) == len(BAD)
    for (line, ply, msg), err in zip(BAD, errors):
        assert err["ply"] == ply, (line, err)
        assert msg in err["error"], (line, err)
    assert out[-1] == {
        "ply": 0,
        "position": "4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S",
        "legal": ["A", "B", "C", "D", "E", "F"],
        "result": None,
    }


def referee_bytes(run, data):
    """The referee fed raw bytes; its output as text (it writes ASCII-escaped JSON)."""
    if run == "cpython":
        # A strict decoder, as under a UTF-8 locale other than C.UTF-8 (which escapes instead).
        cmd, env = (
            [sys.executable, "-m", "shared_rules"],
            dict(os.environ, PYTHONIOENCODING="utf-8:strict"),
        )
    else:
        cmd, env = (
            [tool("micropython"), "-m", "shared_rules"],
            dict(os.environ, MICROPYPATH=str(ROOT)),
        )
    r = subprocess.run(cmd, input=data, capture_output=True, cwd=str(ROOT), env=env, timeout=300)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    return r.stdout.decode("ascii")


@pytest.mark.parametrize("run", ["cpython", "micropython"])
def test_invalid_utf8_gets_an_error_line_and_the_stream_goes_on(run):
    bad = [
        b'{"game": "bawo"}\xff',
        b'\xe2\x82',
        b'{"game": "\xed\xa0\x80"}',
        b'\xf4\x90\x80\x80',
        b'\xc0\xaf',
        b'\xe0\x9f\xbf',
        b'\xf0\x8f\xbf\xbf',
        b'\xf8\x88\x80\x80\x80',
    ]
    data = b"".join(line + b"\n" for line in bad) + b'{"game": "oware"}\n'
    out = [json.loads(line) for line in referee_bytes(run, data).splitlines()]
    assert out[:-1] == [
        {"ply": 0, "error": "not UTF-8 text: send each game as one line of UTF-8 JSON"}
    ] * len(bad)
    assert out[-1]["position"] == "4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S"


@pytest.mark.parametrize("run", ["cpython", "micropython"])
def test_overlong_line_gets_an_error_line_and_the_stream_goes_on(run):
    # Memory stays bounded: the referee holds at most a line's limit (64 KiB), however long
    # the line (here 2.8 MB, more than MicroPython's whole heap).
    long_line = b'{"game": "bawo", "moves": [' + b'"A1+", ' * 400000 + b'"A1+"]}'
    data = long_line + b"\n" + b'{"game": "oware"}\n'
    out = [json.loads(line) for line in referee_bytes(run, data).splitlines()]
    assert out[0] == {
        "ply": 0,
        "error": "line longer than 65536 bytes: send each game as one line of JSON",
    }
    assert out[1]["position"] == "4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S"
    assert len(out) == 2


def test_non_ascii_input_gets_the_same_answer_on_both_runtimes():
    # The messages quote what they refuse; both runtimes write the same bytes for it.
    opening = "2,2,2,2,2,2,2,2/" * 3 + "2,2,2,2,2,2,2,2"
    lines = [
        {"game": "bawo\u00e9"},
        {"game": "bawo", "moves": ["A1\u20ac"]},
        {"game": "bawo", "moves": ["\U0001f600"]},
        {"game": "oware", "moves": ["\uff21"]},
        {"game": "bagh-chal", "moves": ["c\uff13"]},
        {"game": "bagh-chal", "moves": ["\u00e93"]},
        {"game": "bawo", "position": opening + " \uff33"},
        {"game": "bawo", "position": opening + ",\u00e9 S"},
        {"game": "oware", "position": "4,4,4,4,4,4/4,4,4,4,4,4 S:\u0660 N:0 S"},
        {"game": "bagh-chal", "position": "T...T/...../..\u00e9../...../T...T H:20 C:0 G"},
    ]
    text = (
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in lines) + "caf\u00e9 \U0001f600\n"
    )
    a = referee_cpython(text)
    b = referee_micropython(text)
    assert a == b
    out = [json.loads(line) for line in a.splitlines()]
    assert len([o for o in out if "error" in o]) == len(lines) + 1
    assert out[0]["error"].startswith("unknown game 'bawo\\xe9'")
    assert out[-1]["error"] == "not a JSON object: caf\u00e9 \U0001f600"


def random_games(n, seed):
    rnd = random.Random(seed)
    lines = []
    for k in range(n):
        name = sorted(GAMES)[k % 3]
        s = State(game(name))
        while s.outcome() is None and s.ply < 400:
            s.push(rnd.choice(s.legal_moves))
        lines.append(json.dumps({"game": name, "moves": s.moves}))
    return "".join(line + "\n" for line in lines)


def test_cpython_and_micropython_agree_move_for_move():
    text = random_games(12, seed=2026)
    a = referee_cpython(text)
    b = referee_micropython(text)
    assert a == b
    finals = [json.loads(line) for line in a.splitlines()]
    results = [o["result"] for o in finals if o["result"] is not None]
    assert len(results) >= 10, "most random games reach a result within 400 plies"
