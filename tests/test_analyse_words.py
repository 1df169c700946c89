"""`bawo analyse` as a player reads it (issue 27, points 14 and 19): each ply's mark printed as
it is found, a Ctrl-C keeping them, and the marks in words: who can force a win with which
moves, scores as seeds or goats, never a raw search score."""

import re
import signal
import subprocess

import pytest

from shared_rules import game as make_game, State
from shared_rules.record import Record

from _host_helpers import bawo_cmd, env_with_path, random_record
from bawo import analyse as A


# -- the wording -----------------------------------------------------------------------------


def _bawo_mark(**kw):
    x = {
        "ply": 3,
        "side": "S",
        "move": "B1+",
        "before": "win",
        "after": "loss",
        "mistake": True,
        "winning": ["B3+", "B8-"],
        "missed": True,
    }
    x.update(kw)
    return x


@pytest.mark.parametrize(
    "mark,words",
    [
        (
            _bawo_mark(),
            "South can force a win: B3+ or B8-; B1+ throws it away, North can force a win now",
        ),
        (
            _bawo_mark(after="unknown", mistake=False, winning=["A1+", "B3+", "B8-"]),
            "South can force a win: A1+, B3+ or B8-; after B1+ it is not settled within the budget",
        ),
        (
            _bawo_mark(after="win", mistake=False, missed=False, winning=[]),
            "South can force a win, and B1+ keeps it",
        ),
        (
            _bawo_mark(
                side="N", before="loss", after="loss", mistake=False, missed=False, winning=[]
            ),
            "South can force a win whatever North plays",
        ),
        (
            _bawo_mark(before="unknown", after="loss", mistake=False, missed=False, winning=[]),
            "after B1+, North can force a win",
        ),
        (
            _bawo_mark(before="unknown", after="unknown", mistake=False, missed=False, winning=[]),
            "not settled within the budget",
        ),
    ],
)
def test_a_bawo_mark_says_who_can_force_a_win_and_how(mark, words):
    assert A.mark_text(mark) == words


def test_a_value_is_a_forced_win_not_a_finished_game():
    assert A.value_text("N", "win") == "North can force a win"
    assert A.value_text("N", "loss") == "South can force a win"
    assert A.value_text("S", "unknown") == "not settled within the budget"


@pytest.mark.parametrize(
    "game,side,score,words",
    [
        ("oware", "S", 24, "South 1.5 seeds ahead"),
        ("oware", "N", 24, "North 1.5 seeds ahead"),
        ("oware", "S", -80, "North 5.0 seeds ahead"),
        ("bagh-chal", "G", -240, "Tigers 2.0 goats ahead"),
        ("oware", "S", 0, "level"),
        ("oware", "S", 29995, "South can force a win in 5 plies"),
        ("oware", "S", -29990, "North can force a win in 10 plies"),
        ("bagh-chal", "T", 10**6, "Tigers has won"),
    ],
)
def test_an_estimate_is_in_seeds_or_goats_never_a_raw_score(game, side, score, words):
    assert A.score_text(game, side, score) == words


def test_an_estimated_mark_reads_once_without_its_own_prefix():
    x = {
        "ply": 1,
        "side": "S",
        "move": "C",
        "game": "oware",
        "score": -5 * 16,
        "after": -19 * 16,
        "drop": 14 * 16,
        "estimate": True,
        "worst": True,
    }
    assert A.mark_text(x) == (
        "North 5.0 seeds ahead before, North 19.0 seeds ahead after; "
        "costs South 14.0 seeds; one of the three costliest moves"
    )


def test_a_move_proved_winning_is_never_unknown_beside_its_own_win(monkeypatch):
    # The child of the move was not settled on its own, but the search of every move proved the
    # move a win: the mark says the move keeps the win (it said "win -> unknown; winning: B3+").
    from bawo import solve as S

    g = make_game("bawo")
    s = State(g)
    s.push("A3-")
    played = s.position
    real = S.solve

    def solve(pos, solver=None, all_moves=True, **kw):
        r = real(pos, solver=solver, all_moves=all_moves, **kw)
        if pos.key() == g.start().key():
            if all_moves:  # proves the played move among the winning ones
                return S.Result(
                    pos, S.WIN, [g.parse_move("A3-")], [], g.parse_move("A3-"), {}, 0, 0
                )
            return S.Result(pos, S.WIN, [], [], None, {}, 0, 0)
        if pos.key() == played.key():
            return S.Result(pos, S.UNKNOWN, [], [], None, None, 0, 0)
        return r

    monkeypatch.setattr(S, "solve", solve)
    monkeypatch.setattr(S, "open_book", lambda path=None: None)
    x = A.analyse(Record.from_state(s), max_nodes=100, max_seconds=1)[0]
    assert x["after"] == "win" and not x["missed"] and x["winning"] == []
    assert A.mark_text(x) == "South can force a win, and A3- keeps it"


def test_the_curve_is_a_value_a_position_from_the_first_sides_view():
    marks = [
        _bawo_mark(ply=1, before="win", after="win", mistake=False, missed=False),
        _bawo_mark(ply=2, side="N", before="loss", after="loss", mistake=False, missed=False),
        _bawo_mark(ply=3, before="win", after="loss"),
    ]
    assert A.curve(marks) == [1.0, 1.0, 1.0, -1.0]
    est = [{"side": "S", "game": "oware", "score": 80, "after": -400, "estimate": True}]
    assert A.curve(est) == [0.5, -1.0]


def test_the_cli_speaks_words_for_an_estimate(tmp_path):
    rec = random_record(3, "test-0003", "oware", max_plies=12)
    f = tmp_path / "g.txt"
    f.write_text(rec.to_text())
    out = subprocess.run(
        bawo_cmd() + ["analyse", "--file", str(f)],
        capture_output=True,
        text=True,
        env=env_with_path(),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ESTIMATE: ") and "estimate" not in "\n".join(lines[1:]).lower()
    plies = [ln for ln in lines if re.match(r"\s+\d+\. ", ln)]
    assert len(plies) == len(rec.moves)
    for ln in plies:  # seeds, never the search's raw numbers (1000000, 29995)
        assert not re.search(r"\d{3,}", ln.split(None, 3)[3]), ln
        assert " before, " in ln and " after" in ln
    assert lines[-1].startswith("the costliest moves: ply ")


# -- Ctrl-C keeps what was found (point 14) ---------------------------------------------------


def _slow_game():
    """A long random Bawo game: most of its positions take the budget to value."""
    for seed in range(50):
        rec = random_record(seed, "slow-%04d" % seed, "bawo", max_plies=400)
        if len(rec.moves) >= 60:
            return rec
    raise AssertionError("no long random game")


def test_ctrl_c_in_analyse_keeps_the_marks_printed(tmp_path):
    rec = _slow_game()
    f = tmp_path / "g.txt"
    f.write_text(rec.to_text())
    p = subprocess.Popen(
        bawo_cmd() + ["analyse", "--file", str(f), "--max-seconds", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_with_path(),
    )
    try:
        seen = []
        for line in p.stdout:  # the first mark, streamed while the rest is searched
            seen.append(line)
            if re.match(r"\s+1\. S ", line):
                break
        assert p.poll() is None, "".join(seen)  # still analysing: this is streaming
        p.send_signal(signal.SIGINT)
        rest, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    kept = len([ln for ln in seen + rest.splitlines(True) if re.match(r"\s+\d+\. ", ln)])
    assert re.fullmatch(
        r"stopped at ply (\d+) of %d: the (\d+) marks? above are kept" % len(rec.moves), err.strip()
    )
    assert int(re.search(r"the (\d+) mark", err).group(1)) == kept >= 1
