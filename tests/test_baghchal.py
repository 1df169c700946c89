"""Bagh-Chal: each numbered rule of 003 as a position test (RULES.md section 3)."""

import pytest

from shared_rules import BaghChal, State, IllegalMoveError, InvalidPositionError, InvalidMoveError
from shared_rules.baghchal import ADJ, parse_point

g = BaghChal()


def legal(pos):
    return sorted(g.move_str(m, pos) for m in g.legal_moves(pos))


def test_rule_1_lines_alquerque():
    # Diagonals only through points with file + rank even.
    assert parse_point("b2") in ADJ[parse_point("a1")]
    assert parse_point("c2") not in ADJ[parse_point("b1")]
    assert len(ADJ[parse_point("c3")]) == 8 and len(ADJ[parse_point("b3")]) == 4


def test_rules_2_3_start_and_placement_first():
    s = State(g)
    assert str(s.position) == "T...T/...../...../...../T...T H:20 C:0 G"
    assert len(s.legal_moves) == 21 and all(m < 25 for m in s.legal_moves)
    s.push("c3")
    assert s.position.hand == 19 and s.turn == 1


def test_rule_4_tiger_step_jump_optional_capture():
    pos = g.parse("T...T/...../...../G..../T...T H:19 C:0 T")
    moves = legal(pos)
    assert "a1xa3" in moves and "a1-b1" in moves, "capturing is never compulsory"
    after = g.play(pos, "a1xa3")
    assert str(after) == "T...T/...../T..../...../....T H:19 C:1 G"
    assert after.turn == 0, "one jump per move: no double jumps"


def test_no_double_jump():
    pos = g.parse("T...T/G..../...../G..../T...T H:18 C:0 T")
    after = g.play(pos, "a1xa3")
    assert after.turn == 0
    with pytest.raises(InvalidMoveError, match="a jump is written"):
        g.play(pos, "a1xa5")  # two goats in one move cannot even be written


def test_jump_needs_a_line_and_an_empty_landing():
    pos = g.parse("T...T/...../.G.../.G.../TG..T H:17 C:0 T")
    assert "a1xc3" in legal(pos)  # a1-b2-c3 is a diagonal line
    pos = g.parse("T...T/...../...../.GG../TG..T H:17 C:0 T")
    assert "b1xb3" not in legal(pos)  # b1 is not a tiger
    with pytest.raises(InvalidMoveError):
        g.parse_move("b1xc2")  # not on a line


def test_rule_5_goats_step_after_placement():
    pos = g.parse("TGGGT/GGGGG/GG.GG/GGGGG/TG..T H:0 C:2 G")
    moves = legal(pos)
    assert all("-" in m for m in moves)
    assert "c2-c3" in moves and "b2-c3" in moves
    with pytest.raises(IllegalMoveError, match="goats now step"):
        g.play(pos, "c3")


def test_rule_6_five_captures_tigers_win():
    s = State(g, "T...T/...../...../G..../T...T H:15 C:4 T")
    s.push("a1xa3")
    out = s.outcome()
    assert out.winner == 1 and out.reason == "5 goats captured"


def test_rule_7_immobilised_tigers_goats_win():
    # Tigers in the corners, boxed by goats that cannot be jumped (the one hole, b3, is
    # not a corner's landing point).
    pos = g.parse("TGGGT/GGGGG/G.GGG/GGGGG/TGGGT H:0 C:0 T")
    out = g.outcome(pos)
    assert out is not None and out.winner == 0 and out.reason == "tigers cannot move"
    # Whoever moved: the same holds with goats to move.
    assert g.outcome(g.parse("TGGGT/GGGGG/G.GGG/GGGGG/TGGGT H:0 C:0 G")).winner == 0


def test_goats_without_a_move_lose():
    # The only hole, b1, has tigers on all its lines: goats cannot step, a tiger can.
    pos = g.parse("GGGGT/GGGGG/GGGGG/GTGGG/T.TGG H:0 C:0 G")
    assert g.legal_moves(pos) == []
    assert g.legal_moves(g.parse("GGGGT/GGGGG/GGGGG/GTGGG/T.TGG H:0 C:0 T"))
    out = g.outcome(pos)
    assert out.winner == 1 and out.reason == "goats cannot move"


def test_rule_8_threefold_repetition_draw():
    s = State(g, "TGGGT/GGGGG/GG.GG/GGGG./T.GGT H:0 C:2 T")
    cycle = ["a1-b1", "d2-e2", "b1-a1", "e2-d2"]
    # Position after each full cycle repeats: third occurrence of the start is a draw.
    for k in range(8):
        if s.outcome() is not None:
            break
        s.push(cycle[k % 4])
    out = s.outcome()
    assert out is not None and out.winner is None and out.reason == "threefold repetition"
    assert s.ply == 8


def test_bad_positions():
    for text, msg in [
        ("T...T/...../...../...../T..TT H:20 C:0 G", "5 tigers"),
        ("T...T/...../...../...../T...T H:19 C:0 G", "is not 20"),
        ("T...T/...../...../..../T...T H:20 C:0 G", "rank 2 has 4"),
        ("T...T/...../..X../...../T...T H:20 C:0 G", "bad point 'X' at c3"),
        ("T...T/...../...../...../T...T H:20 C:0 Q", "side to move"),
        ("T...T/...../...../...../T...T 20 C:0 G", "goats in hand"),
    ]:
        with pytest.raises(InvalidPositionError, match=msg):
            g.parse(text)
