"""Game records (RULES.md section 4): text and dict forms, replay verification."""

import doctest

import pytest

import shared_rules
import shared_rules.state
from shared_rules import State, game, RecordError
from shared_rules.record import Record


def finished_bawo():
    s = State(game("bawo"))
    import random

    rnd = random.Random(5)
    while s.outcome() is None:
        s.push(rnd.choice(s.legal_moves))
    return s


def test_text_form_is_pgn_like_and_round_trips():
    s = finished_bawo()
    rec = Record.from_state(
        s, Id="pico-e660-0001", Device="pico-e660", Start="2026-11-29T10:00:00Z"
    )
    text = rec.to_text()
    assert text.startswith(
        '[Game "bawo"]\n[Rules "1"]\n[Device "pico-e660"]\n[Id "pico-e660-0001"]\n'
    )
    assert "\n1. %s %s 2. " % (s.moves[0], s.moves[1]) in text
    assert text.rstrip().endswith(rec.header["Result"])
    assert Record.from_text(text) == rec
    assert rec.replay().moves == s.moves


def test_setup_position_is_recorded():
    s = State(game("oware"), "0,0,0,0,0,1/1,0,0,0,0,0 S:23 N:23 S")
    s.push("A")
    rec = Record.from_state(s)
    assert rec.header["Position"] == "0,0,0,0,0,1/1,0,0,0,0,0 S:23 N:23 S"
    assert rec.replay().ply == 1


def test_a_record_that_does_not_replay_names_the_ply():
    rec = Record({"Game": "bawo", "Rules": "1", "Result": "*"}, ["A1+", "A3+", "A1+"])
    with pytest.raises(RecordError) as e:
        rec.replay()
    assert e.value.ply == 3
    assert "ply 3 (A1+)" in str(e.value)


def test_wrong_result_is_rejected_not_repaired():
    s = finished_bawo()
    rec = Record.from_state(s)
    rec.header["Result"] = "N" if rec.header["Result"] == "S" else "S"
    with pytest.raises(RecordError, match="result"):
        rec.replay()


def test_wrong_reason_is_rejected_not_repaired():
    s = finished_bawo()
    rec = Record.from_state(s)
    rec.header["Reason"] = (
        "no legal move" if rec.header["Reason"] != "no legal move" else "front row empty"
    )
    with pytest.raises(RecordError, match="the reason is"):
        rec.replay()
    del rec.header["Reason"]
    with pytest.raises(RecordError, match="no \\[Reason\\] tag"):
        rec.replay()


@pytest.mark.parametrize(
    "text,msg",
    [
        ('[Game "go"]\n\n1. A1+ *\n', "unknown game 'go'"),
        ('1. A1+ *\n', "no \\[Game\\] tag"),
        ('[Game bawo]\n', "needs a quoted value"),
        ('[Game "bawo"\n', "bad tag"),
        ('[Game "bawo"]\n[Rules "1"]\n[Position "1,2 S"]\n\n*\n', "bad Position tag"),
        ('[Game "bawo"]\n\n1. A1+ *\n', "no \\[Rules\\] tag"),
        ('[Game "bawo"]\n[Rules "2"]\n\n1. A1+ *\n', "rules version '2' is not known"),
        (
            '[Game "bawo"]\n[Rules "1"]\n[Result "*"]\n[Reason "front row empty"]\n\n1. A1+ *\n',
            "do not end the game",
        ),
    ],
)
def test_bad_records(text, msg):
    with pytest.raises(RecordError, match=msg):
        Record.from_text(text).replay()


def test_dict_form():
    rec = Record.from_state(finished_bawo(), Id="x-1")
    d = rec.to_dict()
    assert d["game"] == "bawo" and d["id"] == "x-1" and isinstance(d["moves"], list)
    assert Record.from_dict(d) == rec
    with pytest.raises(RecordError, match="moves"):
        Record.from_dict({"game": "bawo", "moves": "A1+"})


def test_docstrings():
    for mod in (shared_rules.state,):
        failed, tried = doctest.testmod(mod)
        assert tried > 0 and failed == 0


@pytest.mark.parametrize(
    "bad",
    ["a\nb", "a\rb", "\x1b[31mred", "nul\x00", "del\x7f", "c1\x9b2J", "ls\u2028ps", "tab\there"],
)
def test_header_values_hold_no_control_characters(bad):
    rec = Record.from_state(finished_bawo(), Id="x-1")
    good = rec.to_text()
    # Read from a file (JSON lines or text) ...
    d = rec.to_dict()
    d["id"] = bad
    with pytest.raises(RecordError, match="control character"):
        Record.from_dict(d)
    # (a line feed in the text form splits the tag line itself)
    with pytest.raises(RecordError, match="control character|bad tag"):
        Record.from_text(good.replace('[Id "x-1"]', '[Id "%s"]' % bad))
    with pytest.raises(RecordError, match="control character|bad tag"):
        Record.from_text(good.replace('[Id "x-1"]', '[Id "x-1"]\n[X%s "1"]' % bad))
    # ... and written by the board or the host: no record text with a broken header exists.
    with pytest.raises(RecordError, match="control character"):
        Record.from_state(finished_bawo(), Id="x-1", Device=bad).to_text()
    # Printable text of any script is fine.
    d["id"] = "Bawo \u00e9\u4e2d \"quoted\" \\ back"
    assert Record.from_text(Record.from_dict(d).to_text()).header["Id"] == d["id"]


def test_move_text_wraps_greedily_at_79_columns():
    # to_text fills each line with as many words as fit in 79 columns; a word longer than
    # that stands alone (written unchanged, whatever its length).
    moves = ["A1+", "B8-"] * 40 + ["x" * 90, "A2+"] + ["a1xa3"] * 30
    text = Record({"Game": "bawo", "Rules": "1", "Result": "*"}, moves).to_text()
    lines = text.split("\n\n", 1)[1].rstrip("\n").split("\n")
    words = [w for w in " ".join(lines).split() if not (w[-1] == "." and w[:-1].isdigit())]
    assert words == moves + ["*"]
    for a, b in zip(lines, lines[1:]):
        assert len(a) <= 79 or " " not in a
        assert len(a) + 1 + len(b.split(" ")[0]) > 79
    assert ("x" * 90) in lines


@pytest.mark.parametrize("bad", ["\x7f", "a\tb", "\x00", "\u0085", "\u2029"])
def test_control_characters_in_tags_are_refused(bad):
    with pytest.raises(RecordError, match="control character"):
        Record.from_dict({"game": "bawo", "rules": "1", "id": "x" + bad, "moves": []})


@pytest.mark.parametrize("moves", [["A1+", 3], ["A1+", None], [["A1+"]], "A1+ A2-", {"A1+": 1}])
def test_dict_moves_must_be_a_list_of_strings(moves):
    with pytest.raises(RecordError, match="'moves' must be a list of move strings"):
        Record.from_dict({"game": "bawo", "rules": "1", "moves": moves})


def _bawo_plies(n):
    s = State(game("bawo"))
    for _ in range(n):
        s.push(s.legal_moves[0])
    return s


@pytest.mark.parametrize(
    "result,reason",
    [("S", "resign"), ("N", "resign"), ("S", "time"), ("N", "time"), ("draw", "agreement")],
)
def test_a_game_ended_by_the_players_replays_with_its_result_and_reason(result, reason):
    # A remote game ends on the club's word (resign, draw agreed, flag) while its moves go on.
    s = _bawo_plies(3)
    rec = Record.from_state(s, Id="bw-0001-0001", Result=result, Reason=reason)
    assert (rec.header["Result"], rec.header["Reason"]) == (result, reason)
    text = rec.to_text()
    assert text.rstrip().endswith(" " + result)
    back = Record.from_text(text)
    assert back == rec
    assert back.replay().ply == 3
    assert Record.from_dict(rec.to_dict()).replay().ply == 3


@pytest.mark.parametrize(
    "result,reason,msg",
    [
        ("draw", "resign", "resign needs the winner"),
        ("draw", "time", "time needs the winner"),
        ("S", "agreement", "agreement needs the result draw"),
        ("*", "resign", "needs the winner"),
        ("G", "time", r"needs the winner \(S/N\)"),
    ],
)
def test_an_agreed_end_with_the_wrong_result_is_refused(result, reason, msg):
    s = _bawo_plies(2)
    rec = Record({"Game": "bawo", "Rules": "1", "Result": result, "Reason": reason}, s.moves)
    with pytest.raises(RecordError, match=msg) as e:
        rec.replay()
    assert e.value.ply == 2


def test_an_agreed_reason_does_not_replace_the_moves_own_end():
    s = finished_bawo()
    rec = Record.from_state(s)
    rec.header["Reason"] = "resign"
    with pytest.raises(RecordError, match="the reason is 'resign' but the moves give"):
        rec.replay()
    # Written from a finished state, the moves' own end wins over given tags.
    rec = Record.from_state(s, Result="draw", Reason="agreement")
    assert rec.header["Reason"] == s.outcome().reason
    rec.replay()


def test_bagh_chal_resign_names_goat_or_tiger():
    s = State(game("bagh-chal"))
    s.push(s.legal_moves[0])
    for res in ("G", "T"):
        assert Record.from_state(s, Result=res, Reason="resign").replay().ply == 1
    with pytest.raises(RecordError, match="needs the winner"):
        Record(
            {"Game": "bagh-chal", "Rules": "1", "Result": "S", "Reason": "resign"}, s.moves
        ).replay()
