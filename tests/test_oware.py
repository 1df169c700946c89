"""Oware (Abapa): each rule of 002 as a position test (RULES.md section 2)."""

import pytest

from shared_rules import Oware, State, IllegalMoveError, InvalidPositionError
from shared_rules.events import CAPTURE, STORE

g = Oware()


def test_opening_and_counter_clockwise_sowing():
    pos = g.start()
    assert str(pos) == "4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S"
    after = g.play(pos, "F")
    # F's 4 seeds go into North's a, b, c, d: North's row reads f..a from South's side.
    assert str(after) == "4,4,5,5,5,5/4,4,4,4,4,0 S:0 N:0 N"
    assert g.move_str(g.legal_moves(after)[0], after) == "a"


def test_capture_chain_backwards():
    # F (3) sows a, b, c: they become 2, 3, 2 -> c, b, a are captured, 7 seeds.
    pos = g.parse("4,4,4,1,2,1/4,4,4,4,4,3 S:6 N:3 S")
    ev = []
    after = g.play(pos, "F", ev)
    assert str(after) == "4,4,4,0,0,0/4,4,4,4,4,0 S:13 N:3 N"
    assert [e[1] for e in ev if e[0] == CAPTURE] == [8, 7, 6]
    assert (STORE, 0, 7) in ev


def test_capture_chain_stops_at_first_pit_not_2_or_3():
    # a becomes 4: the chain c, b stops there.
    pos = g.parse("4,4,4,1,2,3/4,4,4,4,4,3 S:4 N:3 S")
    after = g.play(pos, "F")
    assert str(after) == "4,4,4,0,0,4/4,4,4,4,4,0 S:9 N:3 N"


def test_no_capture_in_own_row():
    pos = g.parse("4,4,4,4,4,4/1,1,0,4,4,4 S:5 N:5 S")
    after = g.play(pos, "B")  # lands in C, own row: nothing taken
    assert after.stores[0] == 5


def test_twelve_or_more_skip_the_origin():
    pos = g.parse("1,1,1,1,1,1/12,1,1,1,1,1 S:13 N:12 S")
    after = g.play(pos, "A")
    assert after.pits[0] == 0, "the origin stays empty"
    # 12 seeds: B..F (5), a..f (6), skip A, then B: B gets 2.
    assert after.pits[1] == 3


def test_feeding_rule_only_feeding_moves_are_legal():
    # North's row is empty: only South's moves that reach it are legal.
    pos = g.parse("0,0,0,0,0,0/6,1,0,0,1,2 S:19 N:19 S")
    legal = [g.move_str(m, pos) for m in g.legal_moves(pos)]
    assert legal == ["A", "F"]  # A (6) reaches a; F (2) reaches a, b; B and E stay home
    with pytest.raises(IllegalMoveError, match="leaves the opponent no seeds"):
        g.play(pos, "B")


def test_forced_starving_move_ends_and_collects():
    # No South move can reach North: South plays one and takes everything left.
    pos = g.parse("0,0,0,0,0,0/1,0,0,2,0,0 S:20 N:25 S")
    assert g.outcome(pos) is not None  # N already has 25
    pos = g.parse("0,0,0,0,0,0/1,0,0,1,0,0 S:22 N:24 S")
    assert [g.move_str(m, pos) for m in g.legal_moves(pos)] == ["A", "D"]
    s = State(g, pos)
    s.push("A")
    assert str(s.position) == "0,0,0,0,0,0/0,0,0,0,0,0 S:24 N:24 N"
    out = s.outcome()
    assert out.winner is None and out.reason == "opponent cannot move"  # 24-24: a draw


def test_25_wins_at_once():
    pos = g.parse("4,4,4,1,2,1/0,0,0,0,0,3 S:18 N:11 S")
    s = State(g, pos)
    s.push("F")
    assert s.position.stores[0] == 25
    out = s.outcome()
    assert out.winner == 0 and out.reason == "25 seeds"
    assert s.legal_moves == []
    assert sum(s.position.pits) > 0, "the board stays as it is"


def test_larger_store_wins_after_starving_end():
    pos = g.parse("0,0,0,0,0,0/0,0,0,0,0,1 S:20 N:27 S")
    assert g.outcome(pos).winner == 1


def test_threefold_repetition_ends_and_each_side_takes_its_row():
    # One seed a side chase each other round the board (no pit ever reaches 2): every
    # 12 plies the start position recurs, so its third occurrence comes at ply 24.
    s = State(g, "0,0,0,0,0,1/1,0,0,0,0,0 S:23 N:23 S")
    seen = {}
    seen[s.position.key()] = 1
    while s.outcome() is None:
        s.push(s.legal_moves[0])
        k = s.position.key()
        seen[k] = seen.get(k, 0) + 1
        assert s.ply < 200
    out = s.outcome()
    if out.reason == "threefold repetition":
        # The third occurrence is of the set-up, and the final position shows the collection.
        assert max(seen.values()) == 2 and seen[s.position.key()] == 1
        assert s.ply == 24
        assert str(s.position) == "0,0,0,0,0,0/0,0,0,0,0,0 S:24 N:24 S"
        assert out.winner is None
        s.pop()
        assert str(g.play(s.position, s.legal_moves[0])) == "0,0,0,0,0,1/1,0,0,0,0,0 S:23 N:23 S"
    else:
        pytest.fail("expected the game to end by repetition, got %r" % (out,))


def test_bad_positions_name_the_problem():
    for text, msg in [
        ("4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S", "North's row has 5 pits"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 S:1 N:0 S", "49 seeds"),
        ("4,4,4,4,4,4/4,4,4,4,4,-4 S:0 N:0 S", "bad count '-4'"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 X", "side to move"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 0 0 S", "bad stores"),
    ]:
        with pytest.raises(InvalidPositionError, match=msg):
            g.parse(text)


def test_wrong_side_pit_is_illegal():
    with pytest.raises(IllegalMoveError, match="South is to move"):
        State(g).push("a")
