"""Bawo two-two rules: the golden worked turns of 001 and the decided points of RULES.md 1."""

import json
from pathlib import Path

import pytest

from shared_rules import Bawo, State, IllegalMoveError, InvalidMoveError
from shared_rules.bawo import DISPLAY
from shared_rules.events import PICKUP, DROP, LAP_END, CAPTURE, RELAY, DIRECTION, TURN_END

GOLDEN = json.loads((Path(__file__).parent / "golden" / "bawo_001.json").read_text())
g = Bawo()


def rows(board):
    return "/".join(",".join(str(board[DISPLAY[r * 8 + x]]) for x in range(8)) for r in range(4))


def name(idx):
    side, local = divmod(idx, 16)
    return ("A%d" % (local + 1)) if local < 8 else ("B%d" % (16 - local))


def replay_events(start, events):
    """Rebuild the board from the events alone and snapshot it at each lap end."""
    b = bytearray(start.board)
    snaps = []
    pending = None
    for code, a, c in events:
        if code == PICKUP or code == RELAY:
            b[a] = 0
        elif code == DROP:
            b[a] = c
        elif code == CAPTURE:
            b[a] = 0
        elif code == LAP_END:
            pending = [rows(b), name(a), None]
            snaps.append(pending)
            assert b[a] == c
        if code in (CAPTURE, RELAY, TURN_END) and pending and pending[2] is None:
            pending[2] = {CAPTURE: "capture", RELAY: "relay", TURN_END: "end"}[code]
    return b, snaps


@pytest.mark.parametrize("case", ["worked_turn", "takata"])
def test_golden_turn_diagrams(case):
    data = GOLDEN[case]
    pos = g.parse(data["start"])
    assert g.capturing(pos) is data["capturing"]
    events = []
    after = g.play(pos, data["move"], events)
    board, snaps = replay_events(pos, events)
    assert board == after.board, "the events must rebuild the position play() returns"
    for k, lap in enumerate(data["lap_ends"]):
        assert snaps[k] == [lap["board"], lap["at"], lap["then"]], "lap %d: %s" % (
            k + 1,
            lap["diagram"],
        )
    final = data.get("final") or data["final_by_hand"]
    assert str(after) == final
    assert events[-1][0] == TURN_END


def test_worked_turn_captures_columns_and_directions():
    events = []
    g.play(g.start(), "A1+", events)
    # North's front pockets captured, as columns drawn from South's side: 3, 2, 7, 8.
    captured = [DISPLAY.index(a) - 8 + 1 for code, a, _ in events if code == CAPTURE]
    assert captured == [3, 2, 7, 8]
    assert [(d, name(p)) for code, d, p in events if code == DIRECTION] == [
        (1, "A1"),
        (1, "A1"),
        (-1, "A8"),
        (-1, "A8"),
    ]
    drops = sum(1 for e in events if e[0] == DROP)
    assert drops == 2 + 2 + 2 + 5 + 2 + 4 + 5 + 3 + 3 + 2


def test_opening_legal_moves_are_the_capturing_starts():
    s = State(g)
    legal = s.legal_move_strs()
    assert "A1+" in legal and "A1-" not in legal and "B1-" not in legal
    for m in legal:
        assert g.parse_move(m) in g.legal_moves(s.position)
    # Every legal start captures (rule C): its first lap ends in a front pocket facing seeds.
    for m in g.legal_moves(s.position):
        ev = []
        g.play(s.position, m, ev)
        assert next(e for e in ev if e[0] in (CAPTURE, RELAY, TURN_END))[0] == CAPTURE


def test_takata_turn_never_captures():
    pos = g.parse(GOLDEN["takata"]["start"])
    assert not g.capturing(pos)
    for m in g.legal_moves(pos):
        ev = []
        after = g.play(pos, m, ev)
        assert not any(e[0] == CAPTURE for e in ev)
        assert after.board[16:] == pos.board[16:], "North's pockets are untouched in a takata turn"
    # Every start of 2 or more seeds, both directions, is legal in a takata turn.
    starts = [i for i in range(16) if pos.board[i] >= 2]
    assert len(g.legal_moves(pos)) == 2 * len(starts)


@pytest.mark.parametrize("case", GOLDEN["wins"], ids=["north-front-empty", "south-cannot-move"])
def test_win_diagrams(case):
    pos = g.parse(case["position"])
    out = g.outcome(pos)
    assert out is not None and g.sides[out.winner] == case["winner"]
    assert sum(pos.board) == 61  # drawn with 61 seeds; any total is allowed


def test_win_diagram_reasons():
    first, second = GOLDEN["wins"]
    assert g.outcome(g.parse(first["position"])).reason == "front row empty"
    assert (
        g.outcome(g.parse(first["position"].replace(" N", " S"))).reason
        == "mover's front row empty"
    )
    assert g.outcome(g.parse(second["position"])).reason == "no legal move"


def test_capture_from_columns_1_2_sows_clockwise_from_front_1():
    # South sows anticlockwise A4- (3 seeds): A3, A2, A1; A1 non-empty faces North -> capture.
    # Column 1: captured seeds restart at front 1 going clockwise (000 (4) example).
    pos = g.parse("0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,3/1,0,0,3,0,0,0,0/0,0,0,0,0,0,0,0 S")
    ev = []
    g.play(pos, "A4-", ev)
    cap = [i for i, e in enumerate(ev) if e[0] == CAPTURE][0]
    assert ev[cap + 1] == (DIRECTION, 1, 0)
    assert ev[cap + 2][:2] == (DROP, 0)


def test_capture_in_the_middle_keeps_direction():
    # A1+ with 3 seeds ends in A4 (middle column): clockwise restarts at front 1.
    pos = g.parse("0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/3,0,0,1,0,0,0,0/0,0,0,0,0,0,0,0 S")
    ev = []
    g.play(pos, "A1+", ev)
    cap = [i for i, e in enumerate(ev) if e[0] == CAPTURE][0]
    assert ev[cap + 1] == (DIRECTION, 1, 0)
    # Anticlockwise capture in the middle restarts at front 8 going anticlockwise.
    pos = g.parse("0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/0,0,0,0,1,0,0,3/0,0,0,0,0,0,0,0 S")
    ev = []
    g.play(pos, "A8-", ev)
    cap = [i for i, e in enumerate(ev) if e[0] == CAPTURE][0]
    assert ev[cap + 1] == (DIRECTION, -1, 7)


def test_sixteen_or_more_seeds_drop_into_the_emptied_start():
    pos = g.parse("1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/17,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S")
    ev = []
    g.play(pos, "A1+", ev)
    drops = [e[1] for e in ev if e[0] == DROP][:17]
    assert drops[15] == 0, "the 16th seed falls into the emptied start pocket [decision]"


def test_endless_start_is_not_legal():
    # Found by random play (about one start in 100,000): relay sowing that never ends.
    pos = g.parse("4,1,0,3,0,1,2,1/1,6,7,4,1,3,4,0/0,0,0,0,0,12,3,0/1,0,2,1,4,0,2,1 N")
    move = g.parse_move("A3+")
    big = Bawo(max_laps=20000)
    assert move not in g.legal_moves(pos)
    assert move not in big.legal_moves(big.parse(str(pos)))
    with pytest.raises(IllegalMoveError, match="never end"):
        g.play(pos, "A3+")


def test_lap_cap_is_exact():
    # The worked turn takes 10 laps: legal with a cap of 10, endless with a cap of 9.
    assert g.parse_move("A1+") in Bawo(max_laps=10).legal_moves(g.start())
    assert g.parse_move("A1+") not in Bawo(max_laps=9).legal_moves(g.start())


def test_illegal_moves_say_why():
    s = State(g)
    with pytest.raises(IllegalMoveError, match="capture is available"):
        s.push("A1-")
    pos = g.parse("2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/1,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S")
    with pytest.raises(IllegalMoveError, match="holds 1 seed"):
        g.play(pos, "A1+")
    with pytest.raises(InvalidMoveError):
        g.parse_move("C1+")
    assert isinstance(IllegalMoveError("x"), ValueError)


def test_play_does_not_mutate_and_pop_restores():
    s = State(g)
    before = str(s.position)
    s.push("A1+")
    assert s.pop() == "A1+"
    assert str(s.position) == before
    assert repr(s) == "State(Bawo(), %r)" % before
